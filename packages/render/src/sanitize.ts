/**
 * Control characters from session content, made visible: the one home of this rule, used by
 * the renderers here (text, Markdown, the page) and by the CLI's output boundary. Tool output
 * carries terminal escapes, carriage returns, NULs and bidirectional overrides; printed raw
 * they recolour, rewrite or reorder what a reader sees.
 *
 * Shown as a `\x1b`-like escape (`\xHH` below U+0100, `\uHHHH` above): C0 controls but `\n`
 * and `\t` ({@link visibleControls}; {@link oneLineField} shows those two as well), DEL, C1
 * controls (U+0080-U+009F) and the bidi overrides and isolates (U+202A-U+202E, U+2066-U+2069)
 * that can disguise text. Use {@link lineEndsAsLf} first where CRLF line ends are layout, not
 * content, and {@link stripColorCodes} where colour codes are noise (pages, Markdown).
 */

/** Characters shown as an escape wherever they are. */
const UNSAFE = /[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;
const UNSAFE_ALL = new RegExp(UNSAFE.source, "g");
/** The same without `\n` and `\t` (kept as the text's own lines and indentation). */
const UNSAFE_IN_LINES = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;
const UNSAFE_IN_LINES_ALL = new RegExp(UNSAFE_IN_LINES.source, "g");

/** The visible form of one character: `\x1b`, `\x85`, `\u202e`. */
export function escapeChar(char: string): string {
  const code = char.charCodeAt(0);
  return code < 0x100
    ? `\\x${code.toString(16).padStart(2, "0")}`
    : `\\u${code.toString(16).padStart(4, "0")}`;
}

/** Does `text` hold a character that must not reach a terminal raw (`\n` and `\t` included)? */
export function hasUnsafe(text: string): boolean {
  return UNSAFE.test(text);
}

/** Does `text` hold a character that must not reach a terminal raw, `\n` and `\t` aside? */
export function hasUnsafeInLines(text: string): boolean {
  return UNSAFE_IN_LINES.test(text);
}

/** `text` for a one-line field: every control character, `\n` and `\t` included, shown visibly. */
export function oneLineField(text: string): string {
  return UNSAFE.test(text) ? text.replace(UNSAFE_ALL, escapeChar) : text;
}

/** `text` with every control character but `\n` and `\t` shown visibly; unchanged when there is none. */
export function visibleControls(text: string): string {
  return UNSAFE_IN_LINES.test(text) ? text.replace(UNSAFE_IN_LINES_ALL, escapeChar) : text;
}

/** `text` with CRLF line ends as LF (a lone CR stays, and shows as `\x0d`). */
export function lineEndsAsLf(text: string): string {
  return text.includes("\r\n") ? text.replace(/\r\n/g, "\n") : text;
}

// ESC [ parameters m: Select Graphic Rendition (colours, bold), the common noise in tool output.
const SGR = /\u001b\[[0-9;:]*m/g;

/** `text` without ANSI colour and style codes (ESC [ ... m); other controls are left. */
export function stripColorCodes(text: string): string {
  return text.includes("\u001b[") ? text.replace(SGR, "") : text;
}
