/**
 * JSON text of any value the readers accept, however deep, for showing: {@link writeJson} for
 * `--json` output, {@link jsonText} where a value is shown as text. The serializer itself is
 * `@pi-session/format`'s (`stringifyJson`, `writeJsonText`, `serializeJson`: its one home,
 * which the session-line serializer uses too): `JSON.stringify`'s text wherever that works, an
 * iterative serializer where it runs out of stack (a message nested 100,000 deep, which
 * `JSON.parse` reads fine) or string length.
 *
 * {@link writeJson} also writes DEL, C1 controls and bidi overrides/isolates as `\u` escapes
 * (the same values once parsed), so even `--json` on a terminal carries nothing raw that could
 * drive it.
 *
 * The renderers use it for every value they show as JSON (tool arguments, extension data,
 * unknown entries, the page's embedded session); the CLI for its `--json` output.
 */
import { stringifyJson, writeJsonText } from "@pi-session/format";

export { MAX_INDENTED_DEPTH, serializeJson } from "@pi-session/format";

/** Characters `JSON.stringify` leaves raw that a terminal may act on; only ever inside strings. */
const TERMINAL_UNSAFE = /[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

function unicodeEscape(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;
}

/** `JSON.stringify` output with DEL, C1 and bidi controls escaped as `\uXXXX`. */
export function escapeTerminalUnsafe(json: string): string {
  return json.replace(TERMINAL_UNSAFE, unicodeEscape);
}

/**
 * Writes the JSON of `value` (`JSON.stringify(value, null, indent)`, terminal-unsafe controls
 * escaped) through `write`, in pieces when the value is too deep or too large for one string.
 */
export function writeJson(value: unknown, write: (piece: string) => void, indent = 0): void {
  writeJsonText(value, (piece) => write(escapeTerminalUnsafe(piece)), indent);
}

/** `JSON.stringify(value, null, indent)` for showing a value as text, at any depth (`""` for undefined). */
export function jsonText(value: unknown, indent = 0): string {
  return stringifyJson(value, indent) ?? "";
}
