/**
 * What a line looks like before it is parsed: blank (counted, no record) or shaped like a JSON
 * object (worth handing to `JSON.parse` unchecked). The decoder asks these of every line, so
 * they read characters and allocate nothing.
 */
import { isJsonWhitespace } from "../json-check.js";

const TAB = 9;
const CR = 13;
const SPACE = 32;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;

/**
 * Whether a line is blank: empty, or only JSON whitespace (space, tab, CR; a line holds no
 * LF). Not `trim()`, which also strips U+00A0, U+2028, U+FEFF and others: such a line is not
 * JSON, and dropping it silently would erase it on the next rewrite.
 */
export function isBlank(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit !== SPACE && unit !== TAB && unit !== CR) return false;
  }
  return true;
}

/**
 * Whether a line that is not blank may be a JSON object: its first and last characters other
 * than JSON whitespace are `{` and `}`. Anything else cannot be one, whatever it holds.
 */
export function objectShaped(text: string): boolean {
  let first = 0;
  while (isJsonWhitespace(text.charCodeAt(first))) first++;
  if (text.charCodeAt(first) !== OPEN_BRACE) return false;
  let last = text.length - 1;
  while (isJsonWhitespace(text.charCodeAt(last))) last--;
  return last > first && text.charCodeAt(last) === CLOSE_BRACE;
}
