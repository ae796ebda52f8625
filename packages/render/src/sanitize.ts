/**
 * Control characters from session content, made visible. Tool output carries terminal
 * escapes, carriage returns, NULs and bidirectional overrides; printed raw they recolour,
 * rewrite or reorder what a reader sees. Use `visibleControls` on every piece of session
 * text that reaches a terminal or a text file; `stripColorCodes` first where colour codes
 * are noise (exported pages and Markdown), not content.
 */

// C0 controls but \t and \n, DEL, C1 controls, and the bidi embedding/override/isolate marks.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const CONTROLS = /\r\n|[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

function picture(ch: string): string {
  if (ch === "\r\n") return "\n";
  const code = ch.charCodeAt(0);
  // U+2400.. are the Control Pictures (␀ ␁ ... ␟); U+2421 is ␡.
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  if (code === 0x7f) return "\u2421";
  return `<U+${code.toString(16).toUpperCase().padStart(4, "0")}>`;
}

/**
 * `text` with every control character but newline and tab replaced by a visible stand-in:
 * C0 controls by their Control Picture (ESC -> ␛, CR -> ␍), DEL by ␡, C1 controls and bidi
 * controls by `<U+XXXX>`. A CRLF line end becomes `\n`. Text without controls is returned as is.
 */
export function visibleControls(text: string): string {
  if (!CONTROL.test(text)) return text;
  return text.replace(CONTROLS, picture);
}

// ESC [ parameters m: Select Graphic Rendition (colours, bold), the common noise in tool output.
const SGR = /\u001b\[[0-9;:]*m/g;

/** `text` without ANSI colour and style codes (ESC [ ... m); other controls are left. */
export function stripColorCodes(text: string): string {
  return text.includes("\u001b[") ? text.replace(SGR, "") : text;
}
