/**
 * The one folding rule of every view (the terminal, Markdown, the page, the web app): a long
 * text keeps its first `lines` lines or its first `chars` characters, whichever comes first,
 * and a note says what was left out. Folding by size as well as by lines is what keeps one
 * 117 KB line from becoming thousands of terminal lines.
 *
 * A text is only folded when what would go is worth a note: more than a tenth of the limit
 * (at least one line) in lines or in characters, and longer than the note itself. So a
 * 42-line output is not cut at 40 lines, and a 7-line one not at 6. Use {@link foldText}
 * wherever a view shortens session text; each view chooses its limits.
 */
import { formatInt, formatSize } from "./readable.js";

export interface FoldLimit {
  /** Lines kept. */
  lines: number;
  /** Characters (UTF-16 code units) kept. */
  chars: number;
}

/** What a fold left out. */
export interface FoldedRest {
  /** The cut fell inside a line: the rest of that line is left out too. */
  partial: boolean;
  /** Whole lines left out after the cut (and after the rest of a cut line). */
  lines: number;
  chars: number;
  /** Its size in UTF-8 bytes. */
  bytes: number;
}

export interface Folded {
  /** What is shown: the whole text, or its head. */
  text: string;
  /** Set when the text was folded. */
  rest?: FoldedRest;
}

/** A note as long as the longest the views write ("… 12,345 more lines (1.2 MB)"). */
const NOTE_CHARS = 40;

/** UTF-8 length of text. */
export function utf8Length(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c < 0xdc00 && i + 1 < text.length) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** Index just past the `count`-th newline of `text`, or -1 when it has fewer. */
function afterLines(text: string, count: number): number {
  let at = -1;
  for (let k = 0; k < count; k++) {
    at = text.indexOf("\n", at + 1);
    if (at === -1) return -1;
  }
  return at;
}

function newlines(text: string, from: number): number {
  let n = 0;
  for (let at = text.indexOf("\n", from); at !== -1; at = text.indexOf("\n", at + 1)) n++;
  return n;
}

/**
 * The head of `text` within `limit`, or all of it when what would be left out is small (see
 * the module comment). Never splits a surrogate pair; the kept head has no trailing newline.
 */
export function foldText(text: string, limit: FoldLimit): Folded {
  if (text.length <= limit.chars && afterLines(text, limit.lines) === -1) return { text };
  const lineEnd = afterLines(text, limit.lines);
  let cut = Math.min(lineEnd === -1 ? text.length : lineEnd, limit.chars);
  const last = text.charCodeAt(cut - 1);
  if (last >= 0xd800 && last < 0xdc00) cut--;
  // A cut just after a newline is a cut at that newline: no line is split.
  if (cut > 0 && text[cut - 1] === "\n") cut--;
  if (cut >= text.length) return { text };
  const partial = text[cut] !== "\n";
  const restStart = partial ? cut : cut + 1;
  const restChars = text.length - restStart;
  const trailingNewline = text.endsWith("\n") ? 1 : 0;
  // Lines that start after the cut; the rest of a cut line is not one of them.
  const lines = newlines(text, restStart) + (partial ? 0 : 1) - trailingNewline;
  const lineSlack = Math.max(1, Math.ceil(limit.lines / 10));
  const charSlack = Math.max(NOTE_CHARS, Math.ceil(limit.chars / 10));
  if (lines + (partial ? 1 : 0) <= lineSlack && restChars <= charSlack) return { text };
  return {
    text: text.slice(0, cut),
    rest: { partial, lines: Math.max(0, lines), chars: restChars, bytes: utf8Length(text.slice(restStart)) },
  };
}

/** What a fold left out, for its note: `12 more lines (3.4 KB)`, `the rest of the line (110.2 KB)`. */
export function describeRest(rest: FoldedRest): string {
  const lines = `${formatInt(rest.lines)} more line${rest.lines === 1 ? "" : "s"}`;
  const what = !rest.partial
    ? lines
    : rest.lines === 0
      ? "the rest of the line"
      : `the rest of the line and ${lines}`;
  return `${what} (${formatSize(rest.bytes)})`;
}
