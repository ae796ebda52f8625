/**
 * Text measured in terminal columns: a wide character (CJK, fullwidth forms, most emoji) takes
 * two, a combining mark none, everything else one. The one home of this rule, for the text
 * renderer here and the CLI (tables, listings, search lines). Use {@link textWidth} to measure,
 * {@link cutEnd} / {@link cutStart} to fit a one-line field with an ellipsis, {@link fitPieces}
 * to fit a line drawn from styled runs, and {@link wrapLine} to fold a line of text.
 *
 * Measure text once it is made visible (`visibleControls`): an escaped control is its escape.
 */

/** Columns one character (a code point) takes on a terminal. */
export function charWidth(ch: string): number {
  const code = ch.codePointAt(0) as number;
  if (code < 0x300) return 1;
  if (code === 0x200b || code === 0x200c || code === 0x200d || code === 0x2060 || /\p{M}/u.test(ch)) return 0;
  if (
    (code >= 0x1100 && code <= 0x115f) ||
    (code >= 0x2e80 && code <= 0xa4cf && code !== 0x303f) ||
    (code >= 0xac00 && code <= 0xd7a3) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xfe30 && code <= 0xfe4f) ||
    (code >= 0xff00 && code <= 0xff60) ||
    (code >= 0xffe0 && code <= 0xffe6) ||
    (code >= 0x1f300 && code <= 0x1faff) ||
    (code >= 0x20000 && code <= 0x3fffd)
  )
    return 2;
  return 1;
}

// Text that is all printable ASCII is as wide as it is long: the common case, measured at once.
const ASCII = /^[\x20-\x7e]*$/;

/** Columns `text` takes (one line; a `\n` counts as one, like any other character). */
export function textWidth(text: string): number {
  if (ASCII.test(text)) return text.length;
  let n = 0;
  for (const ch of text) n += charWidth(ch);
  return n;
}

/** The longest start of `text` that fits in `width` columns (no ellipsis). */
export function headOf(text: string, width: number): string {
  if (width <= 0) return "";
  if (ASCII.test(text)) return text.slice(0, width);
  let out = "";
  let used = 0;
  for (const ch of text) {
    const w = charWidth(ch);
    if (used + w > width) break;
    out += ch;
    used += w;
  }
  return out;
}

/** The longest end of `text` that fits in `width` columns (no ellipsis). */
function tailOf(text: string, width: number): string {
  if (width <= 0) return "";
  if (ASCII.test(text)) return text.slice(Math.max(0, text.length - width));
  const chars = [...text];
  let out = "";
  let used = 0;
  for (let i = chars.length - 1; i >= 0; i--) {
    const w = charWidth(chars[i] as string);
    if (used + w > width) break;
    out = chars[i] + out;
    used += w;
  }
  return out;
}

/** `text` cut to `width` columns keeping its start, `…` last when cut (a name, a title). */
export function cutEnd(text: string, width: number): string {
  if (textWidth(text) <= width) return text;
  return width <= 0 ? "" : `${headOf(text, width - 1)}…`;
}

/** `text` cut to `width` columns keeping its end, `…` first when cut (a path, a directory). */
export function cutStart(text: string, width: number): string {
  if (textWidth(text) <= width) return text;
  return width <= 0 ? "" : `…${tailOf(text, width - 1)}`;
}

/** A run of a line: its (visible) text, and how it is drawn once cut. */
export interface Piece {
  text: string;
  style?: (text: string) => string;
}

/**
 * The pieces drawn as one line of at most `width` columns: when they are wider, the line is cut
 * where it reaches `width - 1` columns and ends with `…`; pieces after the cut are left out.
 * Styles are applied to the cut text, so a cut never splits a colour. No width: all of it.
 */
export function fitPieces(pieces: readonly Piece[], width: number | undefined): string {
  const draw = (p: Piece, text: string) => (text === "" ? "" : p.style ? p.style(text) : text);
  const total = pieces.reduce((n, p) => n + textWidth(p.text), 0);
  if (width === undefined || total <= width) return pieces.map((p) => draw(p, p.text)).join("");
  const room = Math.max(0, width - 1);
  let out = "";
  let used = 0;
  for (const p of pieces) {
    const head = headOf(p.text, room - used);
    const cut = head !== p.text;
    // No space right before the ellipsis.
    const text = cut ? head.trimEnd() : head;
    used += textWidth(text);
    out += draw(p, text);
    if (cut) break;
  }
  return width <= 0 ? "" : `${out}…`;
}

/**
 * One line of text folded into lines of at most `width` columns, at the last space that lets
 * a piece fit (the space is dropped), else mid-word. A line that fits is returned as it is;
 * a width under 1 is read as 1.
 */
export function wrapLine(line: string, width: number): string[] {
  const room = Math.max(1, width);
  if (textWidth(line) <= room) return [line];
  const out: string[] = [];
  let rest = line;
  while (textWidth(rest) > room) {
    // A wide character where only one column is left still goes on a line of its own.
    const head = headOf(rest, room) || ([...rest][0] as string);
    // Break at a space inside the head, unless that leaves almost nothing on the line.
    const space = head.lastIndexOf(" ");
    const cut = space > 0 && textWidth(head.slice(0, space)) >= room / 3 ? space : head.length;
    out.push(rest.slice(0, cut).trimEnd());
    rest = rest.slice(cut);
    if (cut === space) rest = rest.replace(/^ +/, "");
    if (rest === "") break;
  }
  if (rest !== "" || out.length === 0) out.push(rest);
  return out;
}
