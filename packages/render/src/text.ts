/**
 * Plain text: a document for a terminal or a log. Each item is a heading line (kind, model,
 * label, time) and its body indented by two spaces; settings and bookkeeping entries are one
 * dimmed line; long tool output, thinking and summaries are folded unless `full`, by lines
 * and by size (fold.ts: a 117 KB line is not 2,660 terminal lines). A tool result is headed
 * with its call (`← read src/a.ts`); an edit shows its diff with line numbers, added and
 * removed lines in the caller's green and red.
 *
 * Every piece of session text goes through `visibleControls` (sanitize.ts), so nothing from a session
 * reaches a terminal as an escape sequence (colour codes are dropped); the only escapes in the
 * output are the ones the caller's `style` functions add (colours). Use `renderText` for a
 * document, `renderTextItem` for one item.
 *
 * With a `width` (a terminal's), every line fits it: heading and one-line items are cut with
 * `…`, bodies are folded into lines that keep their indent (tabs expanded first), so nothing
 * wraps back to the first column. Without one, lines are as long as their text.
 */
import { describeRest, foldText as foldByRule } from "./fold.js";
import type { EditDiff } from "./model/diff.js";
import type { Block, DocumentItem, RenderDocument } from "./model/shapes.js";
import { localTime } from "./readable.js";
import { lineEndsAsLf, oneLineField, stripColorCodes, visibleControls } from "./sanitize.js";
import { type Piece, cutStart, fitPieces, textWidth, wrapLine } from "./width.js";

/** Session text as a terminal may show it: CRLF as LF, colour codes dropped, every other control visible. */
function shown(text: string): string {
  return visibleControls(stripColorCodes(lineEndsAsLf(text)));
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
  /** An edit's diff. */
  diff: number;
}

export const DEFAULT_FOLD_LINES: FoldLimits = {
  output: 6,
  thinking: 4,
  summary: 12,
  system: 4,
  code: 8,
  diff: 16,
};

/** Characters kept per line of a fold's limit: a body folds by size too (a 117 KB line). */
export const FOLD_CHARS_PER_LINE = 160;

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
  /** Columns every line must fit in (a terminal's width); default: no limit. */
  width?: number;
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
  width: number | undefined;
}

function resolve(doc: RenderDocument | undefined, options: TextOptions): Resolved {
  return {
    full: options.full === true,
    s: { ...PLAIN_STYLE, ...options.style },
    showIds: options.showIds ?? doc?.view.kind === "all-branches",
    time: options.formatTime ?? localTime,
    fold: { ...DEFAULT_FOLD_LINES, ...options.foldLines },
    hint: options.foldHint ?? "",
    width: options.width !== undefined && options.width > 0 ? Math.floor(options.width) : undefined,
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

/** `text` folded to `lines` lines (and as many characters as those lines hold), with a note. */
function foldText(text: string, lines: number, r: Resolved): string {
  if (r.full) return text;
  const folded = foldByRule(text, { lines, chars: lines * FOLD_CHARS_PER_LINE });
  return folded.rest === undefined ? text : `${folded.text}\n… ${describeRest(folded.rest)}${r.hint}`;
}

/** An edit's diff: a gutter of line numbers, added lines green and removed ones red. */
function diffLines(diff: EditDiff, r: Resolved): string {
  const { s } = r;
  const width = diff.lines.reduce((most, line) => Math.max(most, String(line.line ?? "").length), 1);
  let lines = diff.lines;
  let note = "";
  if (!r.full) {
    const folded = foldByRule(lines.map((line) => line.text).join("\n"), {
      lines: r.fold.diff,
      chars: r.fold.diff * FOLD_CHARS_PER_LINE,
    });
    if (folded.rest !== undefined) {
      // The diff's lines are whole or cut alike; count what stays.
      const kept = folded.text.split("\n").length;
      lines = lines.slice(0, kept);
      note = `\n${s.dim(`… ${describeRest(folded.rest)}${r.hint}`)}`;
    }
  }
  // `-12 text`, as pi and the Markdown show it; a folded line continues under its text.
  const column = BODY_COLUMN + 2 + width + 2;
  return (
    lines
      .map((line) => {
        if (line.kind === "skipped") return s.dim(` ${" ".repeat(width)} ...`);
        const sign = line.kind === "added" ? "+" : line.kind === "removed" ? "-" : " ";
        const paint = line.kind === "added" ? s.green : line.kind === "removed" ? s.red : s.dim;
        // Each terminal line styled on its own: a pager resets styles at every line.
        return wrapped(shown(line.text), column, r)
          .split("\n")
          .map((part, k) =>
            paint(
              `${k === 0 ? `${sign}${String(line.line ?? "").padStart(width)}` : " ".repeat(width + 1)} ${part}`,
            ),
          )
          .join("\n");
      })
      .join("\n") + note
  );
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

/** Where an item's body starts (its indent). */
const BODY_COLUMN = 2;
const TAB_STOP = 8;

/** `line` with each tab as spaces to the next 8-column stop, counted from `column`. */
function expandTabs(line: string, column: number): string {
  if (!line.includes("\t")) return line;
  let out = "";
  let at = column;
  for (const part of line.split("\t")) {
    if (out !== "" || at !== column) {
      const pad = TAB_STOP - (at % TAB_STOP);
      out += " ".repeat(pad);
      at += pad;
    }
    out += part;
    at += textWidth(part);
  }
  return out;
}

/**
 * Text of several lines that starts at `column`, folded to the width (when there is one). A
 * folded line's continuations keep its own indent (code stays readable) while that leaves
 * half the line.
 */
function wrapped(text: string, column: number, r: Resolved): string {
  if (r.width === undefined) return text;
  const room = r.width - column;
  return text
    .split("\n")
    .flatMap((raw) => {
      const line = expandTabs(raw, column);
      const lead = /^ */.exec(line)?.[0] ?? "";
      if (lead === "" || lead.length > room / 2) return wrapLine(line, room);
      return wrapLine(line.slice(lead.length), room - lead.length).map((part) => lead + part);
    })
    .join("\n");
}

/** A line that starts at `column`, cut with `…` to the width (when there is one). */
function fitted(text: string, column: number, r: Resolved): string {
  return r.width === undefined ? text : fitPieces([{ text: expandTabs(text, column) }], r.width - column);
}

function blockText(block: Block, item: DocumentItem, r: Resolved): string | undefined {
  const { s } = r;
  const body = (text: string) => wrapped(text, BODY_COLUMN, r);
  const line = (text: string) => fitted(text, BODY_COLUMN, r);
  switch (block.type) {
    case "text": {
      const text = shown(block.text);
      if (item.kind === "system") return s.dim(body(foldText(text, r.fold.system, r)));
      const summary =
        item.kind === "compaction" ||
        item.kind === "compactionSummary" ||
        item.kind === "branchSummary" ||
        item.kind === "branchSummaryEntry";
      return body(summary ? foldText(text, r.fold.summary, r) : text);
    }
    case "thinking": {
      const text = block.redacted ? "(redacted thinking)" : shown(block.text);
      return s.dim(s.italic(body(foldText(text, r.fold.thinking, r))));
    }
    case "toolCall": {
      const head = `→ ${oneLine(block.name, 60)}`;
      const code = block.code;
      if (block.diff) {
        const title = block.summary ? `${head} ${oneLine(block.summary, 200)}` : head;
        return `${s.cyan(line(title))}\n${indent(diffLines(block.diff, r), "  ")}`;
      }
      if (!code) return s.cyan(line(block.summary ? `${head} ${oneLine(block.summary, 200)}` : head));
      if (code.language === "sh" && !code.text.includes("\n"))
        return s.cyan(
          r.full ? body(`${head} ${shown(code.text)}`) : line(`${head} ${oneLine(code.text, 200)}`),
        );
      if (code.language === "json" && !r.full) return s.cyan(line(`${head} ${oneLine(code.text, 100)}`));
      const title = block.summary ? `${head} ${oneLine(block.summary, 200)}` : head;
      const codeText = wrapped(foldText(shown(code.text), r.fold.code, r), BODY_COLUMN + 2, r);
      return `${s.cyan(line(title))}\n${indent(s.dim(codeText), "  ")}`;
    }
    case "output": {
      const text = shown(block.text);
      if (text === "") return undefined;
      return s.dim(body(foldText(text, r.fold.output, r)));
    }
    case "image":
      return s.dim(line(imageLine(block)));
    case "code": {
      const caption = block.caption ? `${shown(block.caption)}: ` : "";
      const text = shown(block.text);
      if (!r.full && !text.includes("\n")) return s.dim(body(`${caption}${text}`));
      return s.dim(body(`${caption}\n${foldText(text, r.fold.code, r)}`.trimStart()));
    }
    case "note":
      return item.isError && block.text.startsWith("error:")
        ? s.red(body(shown(block.text)))
        : s.dim(body(`(${shown(block.text)})`));
  }
}

function detail(item: DocumentItem, name: string): string | undefined {
  return item.details.find((d) => d.name === name)?.value;
}

/** Columns a heading's title keeps before its label, id and time give way too. */
const LEAD_COLUMNS = 12;

/** The start of an item's heading: its title in colour, with model and stop reason. */
function headingLead(item: DocumentItem, r: Resolved): Piece[] {
  const { s } = r;
  const title = shown(item.title);
  switch (item.kind) {
    case "user":
      return [{ text: title, style: (t) => s.bold(s.green(t)) }];
    case "assistant": {
      const model = detail(item, "model");
      const stop = detail(item, "stop");
      const pieces: Piece[] = [{ text: title, style: (t) => s.bold(s.blue(t)) }];
      if (model) pieces.push({ text: ` ${oneLine(model, 80)}`, style: s.dim });
      if (stop) pieces.push({ text: ` (${oneLine(stop, 40)})`, style: s.dim });
      return pieces;
    }
    case "toolResult": {
      const pieces: Piece[] = [{ text: `← ${oneLine(item.toolName || "tool", 60)}`, style: s.cyan }];
      if (item.callArgument) pieces.push({ text: ` ${oneLine(item.callArgument, 200)}`, style: s.cyan });
      if (item.isError) pieces.push({ text: " error", style: s.red });
      return pieces;
    }
    case "bashExecution": {
      const exit = detail(item, "exit");
      const cancelled = detail(item, "status") === "cancelled";
      const text = `${oneLine(item.title, 200)}${exit !== undefined ? ` (exit ${exit})` : ""}${cancelled ? " (cancelled)" : ""}`;
      return [{ text, style: s.cyan }];
    }
    case "custom":
    case "customMessage":
      return [{ text: oneLine(item.title, 80), style: s.magenta }];
    case "compaction": {
      const tokens = detail(item, "tokens before");
      return [{ text: `── compaction${tokens ? ` (${tokens} tokens before)` : ""} ──`, style: s.magenta }];
    }
    case "branchSummaryEntry":
      return [{ text: "── branch summary ──", style: s.magenta }];
    case "branchSummary":
    case "compactionSummary":
      return [{ text: title, style: s.magenta }];
    case "system":
      return [{ text: title, style: s.dim }];
    default:
      return [{ text: oneLine(title, 80), style: s.dim }];
  }
}

/**
 * The heading of an item: its title, then label, id and time. Fitted to a width, the title
 * gives way first (label, id and time stay while the title keeps 12 columns).
 */
function heading(item: DocumentItem, r: Resolved): string {
  const { s } = r;
  const lead = headingLead(item, r);
  const tail: Piece[] = [];
  if (item.label !== undefined) tail.push({ text: ` [${field(item.label, 80)}]`, style: s.yellow });
  if (r.showIds && item.id !== undefined) tail.push({ text: ` ${field(item.id, 80)}`, style: s.dim });
  if (item.timestamp !== undefined) tail.push({ text: ` ${r.time(item.timestamp)}`, style: s.dim });
  const draw = (pieces: Piece[]) => fitPieces(pieces, undefined);
  if (r.width === undefined) return draw([...lead, ...tail]);
  const width = (pieces: Piece[]) => pieces.reduce((n, p) => n + textWidth(p.text), 0);
  if (width(lead) + width(tail) <= r.width) return draw([...lead, ...tail]);
  if (r.width - width(tail) < Math.min(LEAD_COLUMNS, width(lead)))
    return fitPieces([...lead, ...tail], r.width);
  return fitPieces(lead, r.width - width(tail)) + draw(tail);
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
  return r.s.dim(fitted(`· ${oneLine(text, 200)}${id}`, 0, r));
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
        fitted(
          `↳ branch ${item.branch.index}/${item.branch.count} from ${item.branch.parentId === null ? "(root)" : field(item.branch.parentId, 40)}`,
          0,
          r,
        ),
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

/** Source and cwd on one line; fitted to a width, a path keeps its end (the file's name) and the cwd gives way. */
function whereLine(where: string[], r: Resolved): string {
  const line = oneLineField(where.join(" · "));
  if (r.width === undefined || textWidth(line) <= r.width) return line;
  return cutStart(oneLineField(where[0] as string), r.width);
}

/** The header lines of a document: name and id, source and cwd, and for the context view the model. */
function headerLines(doc: RenderDocument, options: TextOptions, r: Resolved): string[] {
  const { s } = r;
  const { session, view } = doc;
  const lines = [
    fitPieces(
      [
        { text: oneLineField(session.name ?? "(unnamed)"), style: s.bold },
        { text: ` ${oneLineField(session.id)}`, style: (t) => s.bold(s.dim(t)) },
      ],
      r.width,
    ),
  ];
  const where = [options.source, session.cwd].filter((x): x is string => x !== undefined && x !== "");
  if (where.length > 0) lines.push(s.dim(whereLine(where, r)));
  if (view.kind === "context") {
    const model = view.model ? `${view.model.provider}/${view.model.modelId}` : "(none)";
    lines.push(
      s.dim(
        fitted(
          oneLine(`model ${model} · thinking ${view.thinkingLevel} · ${view.messageCount} messages`, 300),
          0,
          r,
        ),
      ),
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
