/**
 * Plain text: a document for a terminal or a log. Each item is a heading line (kind, model,
 * label, time) and its body indented by two spaces; settings and bookkeeping entries are one
 * dimmed line; long tool output, thinking and summaries are folded unless `full`.
 *
 * Every piece of session text goes through `visibleControls` (sanitize.ts), so nothing from a session
 * reaches a terminal as an escape sequence; the only escapes in the output are the ones the
 * caller's `style` functions add (colours). Use `renderText` for a document, `renderTextItem`
 * for one item.
 */
import type { Block, DocumentItem, RenderDocument } from "./model/shapes.js";
import { localTime } from "./readable.js";
import { lineEndsAsLf, oneLineField, visibleControls } from "./sanitize.js";

/** Session text as a terminal may show it: CRLF as LF, every other control visible. */
function shown(text: string): string {
  return visibleControls(lineEndsAsLf(text));
}

/** Colour and emphasis, as functions from text to styled text (identity by default). */
export interface TextStyle {
  bold(text: string): string;
  dim(text: string): string;
  italic(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  blue(text: string): string;
  magenta(text: string): string;
  cyan(text: string): string;
}

/** Lines kept of long bodies when not `full`. */
export interface FoldLimits {
  output: number;
  thinking: number;
  summary: number;
  system: number;
  code: number;
}

export const DEFAULT_FOLD_LINES: FoldLimits = { output: 6, thinking: 4, summary: 12, system: 4, code: 8 };

export interface TextOptions {
  /** Do not fold long bodies. */
  full?: boolean;
  style?: Partial<TextStyle>;
  /** Show entry ids in headings (default: in the all-branches view). */
  showIds?: boolean;
  /** ISO time -> what is shown (default: local `YYYY-MM-DD HH:MM`). */
  formatTime?: (iso: string) => string;
  foldLines?: Partial<FoldLimits>;
  /** Appended to every fold note, e.g. "; --full shows all". */
  foldHint?: string;
  /** Shown after the title line (a file path). */
  source?: string;
}

const plain = (text: string) => text;

const PLAIN_STYLE: TextStyle = {
  bold: plain,
  dim: plain,
  italic: plain,
  red: plain,
  green: plain,
  yellow: plain,
  blue: plain,
  magenta: plain,
  cyan: plain,
};

interface Resolved {
  full: boolean;
  s: TextStyle;
  showIds: boolean;
  time: (iso: string) => string;
  fold: FoldLimits;
  hint: string;
}

function resolve(doc: RenderDocument | undefined, options: TextOptions): Resolved {
  return {
    full: options.full === true,
    s: { ...PLAIN_STYLE, ...options.style },
    showIds: options.showIds ?? doc?.view.kind === "all-branches",
    time: options.formatTime ?? localTime,
    fold: { ...DEFAULT_FOLD_LINES, ...options.foldLines },
    hint: options.foldHint ?? "",
  };
}

/** One line of session text: controls visible, whitespace runs collapsed, cut to `max`. */
/** A name, id, label or path on one line: every control shown (`\x0a` for a newline), cut to `max`. */
function field(text: string, max: number): string {
  const shown = oneLineField(text);
  return shown.length > max ? `${shown.slice(0, Math.max(0, max - 1))}…` : shown;
}

function oneLine(text: string, max: number): string {
  const flat = shown(text).replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, Math.max(0, max - 1))}…` : flat;
}

function foldText(text: string, lines: number, r: Resolved): string {
  if (r.full) return text;
  const all = text.split("\n");
  if (all.length <= lines) return text;
  return `${all.slice(0, lines).join("\n")}\n… (${all.length - lines} more lines${r.hint})`;
}

function indent(text: string, prefix: string): string {
  return text
    .split("\n")
    .map((line) => (line === "" ? line : prefix + line))
    .join("\n");
}

function imageLine(block: Extract<Block, { type: "image" }>): string {
  const kb = Math.round((block.data.length * 3) / 4 / 1024);
  return `(image ${oneLine(block.mimeType || "of unknown type", 40)}, ${kb} KB)`;
}

function blockText(block: Block, item: DocumentItem, r: Resolved): string | undefined {
  const { s } = r;
  switch (block.type) {
    case "text": {
      const text = shown(block.text);
      if (item.kind === "system") return s.dim(foldText(text, r.fold.system, r));
      const summary =
        item.kind === "compaction" ||
        item.kind === "compactionSummary" ||
        item.kind === "branchSummary" ||
        item.kind === "branchSummaryEntry";
      return summary ? foldText(text, r.fold.summary, r) : text;
    }
    case "thinking": {
      const text = block.redacted ? "(redacted thinking)" : shown(block.text);
      return s.dim(s.italic(foldText(text, r.fold.thinking, r)));
    }
    case "toolCall": {
      const head = `→ ${oneLine(block.name, 60)}`;
      const code = block.code;
      if (!code) return s.cyan(block.summary ? `${head} ${oneLine(block.summary, 200)}` : head);
      if (code.language === "sh" && !code.text.includes("\n"))
        return s.cyan(`${head} ${r.full ? shown(code.text) : oneLine(code.text, 200)}`);
      if (code.language === "json" && !r.full) return s.cyan(`${head} ${oneLine(code.text, 100)}`);
      const title = block.summary ? `${head} ${oneLine(block.summary, 200)}` : head;
      return `${s.cyan(title)}\n${indent(s.dim(foldText(shown(code.text), r.fold.code, r)), "  ")}`;
    }
    case "output": {
      const text = shown(block.text);
      if (text === "") return undefined;
      return s.dim(foldText(text, r.fold.output, r));
    }
    case "image":
      return s.dim(imageLine(block));
    case "code": {
      const caption = block.caption ? `${shown(block.caption)}: ` : "";
      const text = shown(block.text);
      if (!r.full && !text.includes("\n")) return s.dim(`${caption}${text}`);
      return s.dim(`${caption}\n${foldText(text, r.fold.code, r)}`.trimStart());
    }
    case "note":
      return item.isError && block.text.startsWith("error:")
        ? s.red(shown(block.text))
        : s.dim(`(${shown(block.text)})`);
  }
}

function detail(item: DocumentItem, name: string): string | undefined {
  return item.details.find((d) => d.name === name)?.value;
}

/** The heading of an item: its title in colour, then model, label, id and time. */
function heading(item: DocumentItem, r: Resolved): string {
  const { s } = r;
  const title = shown(item.title);
  let head: string;
  switch (item.kind) {
    case "user":
      head = s.bold(s.green(title));
      break;
    case "assistant": {
      const model = detail(item, "model");
      const stop = detail(item, "stop");
      head = `${s.bold(s.blue(title))}${model ? s.dim(` ${oneLine(model, 80)}`) : ""}${stop ? s.dim(` (${oneLine(stop, 40)})`) : ""}`;
      break;
    }
    case "toolResult":
      head = `${s.cyan(`← ${oneLine(item.toolName || "tool", 60)}`)}${item.isError ? s.red(" error") : ""}`;
      break;
    case "bashExecution": {
      const exit = detail(item, "exit");
      const cancelled = detail(item, "status") === "cancelled";
      head = s.cyan(
        `${oneLine(item.title, 200)}${exit !== undefined ? ` (exit ${exit})` : ""}${cancelled ? " (cancelled)" : ""}`,
      );
      break;
    }
    case "custom":
    case "customMessage":
      head = s.magenta(oneLine(item.title, 80));
      break;
    case "compaction": {
      const tokens = detail(item, "tokens before");
      head = s.magenta(`── compaction${tokens ? ` (${tokens} tokens before)` : ""} ──`);
      break;
    }
    case "branchSummaryEntry":
      head = s.magenta("── branch summary ──");
      break;
    case "branchSummary":
    case "compactionSummary":
      head = s.magenta(title);
      break;
    case "system":
      head = s.dim(title);
      break;
    default:
      head = s.dim(oneLine(title, 80));
  }
  const bits = [head];
  if (item.label !== undefined) bits.push(s.yellow(`[${field(item.label, 80)}]`));
  if (r.showIds && item.id !== undefined) bits.push(s.dim(field(item.id, 80)));
  if (item.timestamp !== undefined) bits.push(s.dim(r.time(item.timestamp)));
  return bits.join(" ");
}

/** A one-line form of settings and bookkeeping items (`· model anthropic/claude-…`). */
function bookkeepingLine(item: DocumentItem, r: Resolved): string {
  let text: string;
  switch (item.kind) {
    case "modelChange":
      text = `model ${detail(item, "model") ?? ""}`;
      break;
    case "thinkingLevelChange":
      text = `thinking ${detail(item, "level") ?? ""}`;
      break;
    case "sessionInfo": {
      const note = item.blocks.find((b) => b.type === "note");
      text = note && note.type === "note" ? note.text : "name";
      break;
    }
    case "customEntry":
      text = `custom ${item.title.replace(/^\[(.*)\] data$/, "$1")}`;
      break;
    case "usage": {
      const kind = detail(item, "kind") ?? "";
      const model = detail(item, "model");
      const tokens = detail(item, "tokens");
      text = `usage ${kind}${model ? ` ${model}` : ""}${tokens ? ` · ${tokens}` : ""}`;
      break;
    }
    default:
      text = item.title;
  }
  const id = r.showIds && item.id !== undefined ? ` ${item.id}` : "";
  return r.s.dim(`· ${oneLine(text, 200)}${id}`);
}

/**
 * The text of one item (several lines, no trailing newline), or undefined for items that are
 * shown elsewhere (a label shows on its target).
 */
export function renderTextItem(item: DocumentItem, options: TextOptions = {}): string | undefined {
  return itemText(item, resolve(undefined, options));
}

function itemText(item: DocumentItem, r: Resolved): string | undefined {
  if (item.kind === "label") return undefined;
  const lines: string[] = [];
  if (item.branch && item.branch.count > 1)
    lines.push(
      r.s.magenta(
        `↳ branch ${item.branch.index}/${item.branch.count} from ${item.branch.parentId === null ? "(root)" : field(item.branch.parentId, 40)}`,
      ),
    );
  if (!item.conversational) {
    lines.push(bookkeepingLine(item, r));
    return lines.join("\n");
  }
  lines.push(heading(item, r));
  const body: string[] = [];
  for (const block of item.blocks) {
    const text = blockText(block, item, r);
    if (text !== undefined && text !== "") body.push(text);
  }
  if (body.length > 0) lines.push(indent(body.join("\n"), "  "));
  return lines.join("\n");
}

/** The header lines of a document: name and id, source and cwd, and for the context view the model. */
function headerLines(doc: RenderDocument, options: TextOptions, r: Resolved): string[] {
  const { s } = r;
  const { session, view } = doc;
  const lines = [s.bold(`${oneLineField(session.name ?? "(unnamed)")} ${s.dim(oneLineField(session.id))}`)];
  const where = [options.source, session.cwd].filter((x): x is string => x !== undefined && x !== "");
  if (where.length > 0) lines.push(s.dim(oneLineField(where.join(" · "))));
  if (view.kind === "context") {
    const model = view.model ? `${view.model.provider}/${view.model.modelId}` : "(none)";
    lines.push(
      s.dim(oneLine(`model ${model} · thinking ${view.thinkingLevel} · ${view.messageCount} messages`, 300)),
    );
  }
  return lines;
}

/** The whole document as text: header, then one block per item, separated by blank lines. */
export function renderText(doc: RenderDocument, options: TextOptions = {}): string {
  const r = resolve(doc, options);
  const parts = [headerLines(doc, options, r).join("\n")];
  for (const item of doc.items) {
    const text = itemText(item, r);
    if (text !== undefined) parts.push(text);
  }
  return `${parts.join("\n\n")}\n`;
}

/** The same as {@link renderText}, one chunk per item, for streaming large documents. */
export function* renderTextChunks(doc: RenderDocument, options: TextOptions = {}): Generator<string> {
  const r = resolve(doc, options);
  yield `${headerLines(doc, options, r).join("\n")}\n`;
  for (const item of doc.items) {
    const text = itemText(item, r);
    if (text !== undefined) yield `\n${text}\n`;
  }
}
