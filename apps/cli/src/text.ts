/**
 * Small presentation helpers shared by the commands: message text, one-line previews,
 * dates, numbers and column padding. No format logic: they only read fields for display.
 */
import { displayWidth, oneLineField } from "./terminal-safe.js";

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The text blocks of a message's content (a string, or an array of blocks), joined. */
export function contentText(content: unknown, separator = "\n"): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const block of content) {
    if (isObject(block) && block.type === "text" && typeof block.text === "string") parts.push(block.text);
  }
  return parts.join(separator);
}

/** Collapses whitespace and cuts to `max` characters with an ellipsis. */
export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, Math.max(0, max - 1))}…` : flat;
}

/** Keeps the first `maxLines` lines of a text; says how many were folded. */
export function fold(text: string, maxLines: number): string {
  const lines = text.split("\n");
  if (lines.length <= maxLines) return text;
  return `${lines.slice(0, maxLines).join("\n")}\n… (${lines.length - maxLines} more lines; --full shows all)`;
}

export function indent(text: string, prefix: string): string {
  return text
    .split("\n")
    .map((l) => (l === "" ? l : prefix + l))
    .join("\n");
}

/** `2026-11-02 09:00` in local time, or the input when it is not a date. */
export function shortDate(value: string | number | undefined): string {
  if (value === undefined) return "-";
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return String(value);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

export function formatInt(n: number): string {
  return Math.round(n).toLocaleString("en-US");
}

export function formatCost(n: number): string {
  return `$${n.toFixed(n !== 0 && Math.abs(n) < 0.01 ? 4 : 2)}`;
}

/** Visible width on a terminal: control characters as shown, style markers left out. */
export function visibleLength(text: string): number {
  return displayWidth(text);
}

/**
 * Renders rows as space-separated columns; `right` lists the right-aligned column indexes.
 * Every cell is a one-line field: a `\n` or `\t` in it is shown, not obeyed.
 */
export function table(rows: string[][], right: ReadonlySet<number> = new Set()): string[] {
  const cells = rows.map((row) => row.map(oneLineField));
  const widths: number[] = [];
  for (const row of cells) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, visibleLength(cell));
    });
  }
  return cells.map((row) =>
    row
      .map((cell, i) => {
        const pad = " ".repeat((widths[i] ?? 0) - visibleLength(cell));
        if (i === row.length - 1 && !right.has(i)) return cell;
        return right.has(i) ? pad + cell : cell + pad;
      })
      .join("  ")
      .trimEnd(),
  );
}
