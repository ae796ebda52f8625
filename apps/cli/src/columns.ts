/**
 * Tables fitted to a width: columns that give way in a declared order when the table is wider
 * than the terminal, then text columns cut with `…` (keeping their start, or their end for a
 * path), never wrapped. Use it for a report whose rows are columns of figures (`stats`); on a
 * pipe (no width) every column is printed whole.
 *
 * Cells are plain text with an optional style applied after cutting, so a cut never splits a
 * colour; every cell is shown as a one-line field (a `\n` in it is shown, not obeyed).
 */
import { cutEnd, cutStart } from "@pi-session/render";
import { displayWidth, oneLineField } from "./terminal-safe.js";

export interface Cell {
  text: string;
  style?: (text: string) => string;
}

export interface Column {
  header: string;
  align: "left" | "right";
  /**
   * When the table is too wide, columns with a `drop` rank go first, the highest rank first.
   * A column without one always stays.
   */
  drop?: number;
  /** A text column that may be cut to fit: keep its `start` (a name) or its `end` (a path). */
  cut?: "start" | "end";
  /**
   * How narrow a cut column gets before columns are dropped instead (default 8); once every
   * droppable column is gone it may be cut further, to 3.
   */
  minWidth?: number;
}

const GAP = 2;
const HARD_MIN = 3;

/** `text` cut to `width` columns with `…`, keeping its start or its end (render's cuts). */
export function cutText(text: string, width: number, keep: "start" | "end" = "start"): string {
  return keep === "start" ? cutEnd(text, width) : cutStart(text, width);
}

/** Which columns stay, and how wide each is, for a table fitted to `width`. */
function layout(columns: readonly Column[], rows: readonly Cell[][], width: number | undefined) {
  const natural = columns.map((col, i) =>
    Math.max(displayWidth(col.header), ...rows.map((row) => displayWidth(row[i]?.text ?? ""))),
  );
  const kept = columns.map((_, i) => i);
  const total = () => kept.reduce((n, i) => n + (natural[i] ?? 0), 0) + GAP * Math.max(0, kept.length - 1);
  const widths = [...natural];
  if (width === undefined) return { kept, widths };
  const floorOf = (i: number, comfortable: boolean) => {
    const col = columns[i] as Column;
    if (!col.cut) return natural[i] ?? 0;
    return Math.min(natural[i] ?? 0, comfortable ? (col.minWidth ?? 8) : HARD_MIN);
  };
  const room = (comfortable: boolean) =>
    kept.reduce((n, i) => n + (natural[i] ?? 0) - floorOf(i, comfortable), 0);
  // Drop columns until cutting text columns to a comfortable width makes the rest fit.
  const droppable = kept
    .filter((i) => columns[i]?.drop !== undefined)
    .sort((a, b) => (columns[b]?.drop ?? 0) - (columns[a]?.drop ?? 0));
  for (const i of droppable) {
    if (total() - room(true) <= width) break;
    kept.splice(kept.indexOf(i), 1);
  }
  // Cut text columns, the widest first, until the table fits (or none can give more).
  const comfortable = total() - room(true) <= width;
  let over = total() - width;
  while (over > 0) {
    const candidates = kept.filter((i) => columns[i]?.cut && (widths[i] ?? 0) > floorOf(i, comfortable));
    if (candidates.length === 0) break;
    const widest = candidates.reduce((a, b) => ((widths[b] ?? 0) > (widths[a] ?? 0) ? b : a));
    widths[widest] = (widths[widest] ?? 0) - 1;
    over--;
  }
  return { kept, widths };
}

/**
 * The lines of a table (header first, bold through `headerStyle`), fitted to `width` columns
 * when given. Trailing spaces are trimmed.
 */
export function fitTable(
  columns: readonly Column[],
  rows: readonly Cell[][],
  width: number | undefined,
  headerStyle: (text: string) => string = (t) => t,
): string[] {
  const safeRows = rows.map((row) => row.map((cell) => ({ ...cell, text: oneLineField(cell.text) })));
  const { kept, widths } = layout(columns, safeRows, width);
  const header = columns.map((col) => ({ text: col.header, style: headerStyle }));
  return [header, ...safeRows].map((row) => {
    const parts: string[] = [];
    kept.forEach((i, k) => {
      const col = columns[i] as Column;
      const w = widths[i] ?? 0;
      const cell = row[i] ?? { text: "" };
      const text = cutText(cell.text, w, col.cut === "end" ? "end" : "start");
      const pad = " ".repeat(Math.max(0, w - displayWidth(text)));
      const shown = cell.style && text !== "" ? cell.style(text) : text;
      const last = k === kept.length - 1;
      parts.push(col.align === "right" ? pad + shown : last ? shown : shown + pad);
    });
    return parts.join(" ".repeat(GAP)).trimEnd();
  });
}

/**
 * Short notes joined by `separator` into as few lines as fit `width` (a note wider than the
 * width is cut); one line when there is no width.
 */
export function joinNotes(notes: readonly string[], width: number | undefined, separator = "; "): string[] {
  if (width === undefined) return notes.length > 0 ? [notes.join(separator)] : [];
  const lines: string[] = [];
  let line = "";
  for (const note of notes) {
    const next = line === "" ? note : `${line}${separator}${note}`;
    if (displayWidth(next) <= width || line === "") line = next;
    else {
      lines.push(line);
      line = note;
    }
  }
  if (line !== "") lines.push(line);
  return lines.map((l) => cutText(l, width));
}
