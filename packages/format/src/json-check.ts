/**
 * Where a text stops being JSON, without `JSON.parse` and without throwing.
 *
 * Use {@link jsonSyntaxError} (why and where) or {@link isJsonText} (whether) to learn that a
 * line cannot be parsed at the cost of one scan that allocates nothing, instead of the
 * exception `JSON.parse` throws, which costs far more (decision 116). Both accept exactly what `JSON.parse` accepts (ECMA-404: any
 * nesting depth, lone surrogates in strings, duplicate keys), which a property test holds
 * them to; the messages are this module's own, so they are the same on every engine.
 */

/** Why and where a text is not JSON. */
export interface JsonSyntaxError {
  /** Index (UTF-16 code unit) in the text where it stops being JSON. */
  index: number;
  /** What was expected and what was found there, e.g. `expected ',' or '}', found end of line`. */
  message: string;
}

const TAB = 9;
const LF = 10;
const CR = 13;
const SPACE = 32;
const QUOTE = 34;
const PLUS = 43;
const COMMA = 44;
const MINUS = 45;
const DOT = 46;
const ZERO = 48;
const NINE = 57;
const COLON = 58;
const OPEN_BRACKET = 91;
const BACKSLASH = 92;
const CLOSE_BRACKET = 93;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;

const isDigit = (c: number): boolean => c >= ZERO && c <= NINE;
const isHex = (c: number): boolean => isDigit(c) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
/** JSON whitespace: space, tab, LF, CR (not the other white space `trim()` removes). */
export const isJsonWhitespace = (c: number): boolean => c === SPACE || c === TAB || c === LF || c === CR;

// The scanners return the index after what they scanned, or, on an error, `-2 - index` (a
// negative number; -1 is left for "valid") with what was expected left in `expected`: nothing
// is allocated unless a caller asks for the message.
let expected = "";

function failAt(index: number, what: string): number {
  expected = what;
  return -2 - index;
}

/**
 * The open containers, one bit per level (1 = object, 0 = array): any depth in little memory.
 * One for the module (the scan is synchronous), so a call allocates nothing.
 */
let stackBits = new Uint32Array(64);

function setLevel(depth: number, isObject: boolean): void {
  const word = depth >>> 5;
  if (word >= stackBits.length) {
    const grown = new Uint32Array(stackBits.length * 2);
    grown.set(stackBits);
    stackBits = grown;
  }
  const mask = 1 << (depth & 31);
  stackBits[word] = isObject ? (stackBits[word] as number) | mask : (stackBits[word] as number) & ~mask;
}

function levelIsObject(depth: number): boolean {
  return (((stackBits[depth >>> 5] as number) >>> (depth & 31)) & 1) === 1;
}

/** A character a string cannot hold as it is: its end, an escape, a control character. */
const STRING_SPECIAL = /["\\\u0000-\u001f]/g;
/** Characters after which a string is searched by the (native) regular expression, not a loop. */
const LONG_STRING = 64;

/** Scans the string that starts at `text[i] === '"'`. */
function scanString(text: string, i: number): number {
  const n = text.length;
  let at = i + 1;
  let plain = 0;
  for (;;) {
    if (at >= n) return failAt(n, "unterminated string");
    if (plain > LONG_STRING) {
      // A long run of plain characters: jump to the next special one (`test` allocates nothing).
      STRING_SPECIAL.lastIndex = at;
      if (!STRING_SPECIAL.test(text)) return failAt(n, "unterminated string");
      at = STRING_SPECIAL.lastIndex - 1;
      plain = 0;
    }
    const c = text.charCodeAt(at);
    if (c === QUOTE) return at + 1;
    if (c === BACKSLASH) {
      const e = text.charCodeAt(at + 1);
      if (e === 117 /* u */) {
        for (let k = 2; k < 6; k++) {
          if (!isHex(text.charCodeAt(at + k))) return failAt(at + k, "expected a hex digit of a \\u escape");
        }
        at += 6;
        continue;
      }
      // " \ / b f n r t
      if (
        e === QUOTE ||
        e === BACKSLASH ||
        e === 47 ||
        e === 98 ||
        e === 102 ||
        e === 110 ||
        e === 114 ||
        e === 116
      ) {
        at += 2;
        continue;
      }
      return failAt(at + 1, "expected an escape character");
    }
    if (c < SPACE)
      return failAt(at, "expected a character of a string (a control character must be escaped)");
    at++;
    plain++;
  }
}

/** Scans the number that starts at `i` (a digit or `-`). */
function scanNumber(text: string, i: number): number {
  let at = i;
  if (text.charCodeAt(at) === MINUS) at++;
  const c = text.charCodeAt(at);
  if (c === ZERO) at++;
  else if (isDigit(c)) while (isDigit(text.charCodeAt(at))) at++;
  else return failAt(at, "expected a digit");
  if (text.charCodeAt(at) === DOT) {
    at++;
    if (!isDigit(text.charCodeAt(at))) return failAt(at, "expected a digit after the decimal point");
    while (isDigit(text.charCodeAt(at))) at++;
  }
  const e = text.charCodeAt(at);
  if (e === 101 || e === 69) {
    at++;
    const sign = text.charCodeAt(at);
    if (sign === PLUS || sign === MINUS) at++;
    if (!isDigit(text.charCodeAt(at))) return failAt(at, "expected a digit of the exponent");
    while (isDigit(text.charCodeAt(at))) at++;
  }
  return at;
}

function skipWhitespace(text: string, i: number): number {
  let at = i;
  while (isJsonWhitespace(text.charCodeAt(at))) at++;
  return at;
}

/** Scans an object key and its colon from `i` (after the `{` or `,` of an object). */
function scanKey(text: string, i: number, first: boolean): number {
  const at = skipWhitespace(text, i);
  if (text.charCodeAt(at) !== QUOTE) {
    return failAt(at, first ? "expected a property name or '}'" : "expected a property name");
  }
  const after = scanString(text, at);
  if (after < 0) return after;
  const colon = skipWhitespace(text, after);
  if (text.charCodeAt(colon) !== COLON) return failAt(colon, "expected ':' after a property name");
  return colon + 1;
}

/** Where a literal that starts like `true`, `false` or `null` stops matching (else `i`). */
function literalMismatch(text: string, i: number): number {
  const c = text.charCodeAt(i);
  const word = c === 116 ? "true" : c === 102 ? "false" : c === 110 ? "null" : "";
  let k = 0;
  while (k < word.length && text.charCodeAt(i + k) === word.charCodeAt(k)) k++;
  return i + k;
}

/** -1 when `text` is JSON, else `-2 - index` of where it stops being JSON (`expected` says why). */
function scan(text: string): number {
  let depth = 0;
  let i = 0;
  for (;;) {
    // A value is expected at i.
    i = skipWhitespace(text, i);
    const c = text.charCodeAt(i);
    let end: number;
    if (c === OPEN_BRACE) {
      const inner = skipWhitespace(text, i + 1);
      if (text.charCodeAt(inner) === CLOSE_BRACE) end = inner + 1;
      else {
        const afterKey = scanKey(text, inner, true);
        if (afterKey < 0) return afterKey;
        setLevel(depth++, true);
        i = afterKey;
        continue;
      }
    } else if (c === OPEN_BRACKET) {
      const inner = skipWhitespace(text, i + 1);
      if (text.charCodeAt(inner) === CLOSE_BRACKET) end = inner + 1;
      else {
        setLevel(depth++, false);
        i = inner;
        continue;
      }
    } else if (c === QUOTE) end = scanString(text, i);
    else if (c === MINUS || isDigit(c)) end = scanNumber(text, i);
    else if (c === 116 /* t */ && text.startsWith("true", i)) end = i + 4;
    else if (c === 102 /* f */ && text.startsWith("false", i)) end = i + 5;
    else if (c === 110 /* n */ && text.startsWith("null", i)) end = i + 4;
    else return failAt(literalMismatch(text, i), "expected a JSON value");
    if (end < 0) return end;
    // After a value: close containers, or a comma and the next value (and key).
    i = end;
    for (;;) {
      i = skipWhitespace(text, i);
      if (depth === 0)
        return i >= text.length ? -1 : failAt(i, "expected the end of the line after the JSON value");
      const inObject = levelIsObject(depth - 1);
      const d = text.charCodeAt(i);
      if (d === COMMA) {
        if (inObject) {
          const afterKey = scanKey(text, i + 1, false);
          if (afterKey < 0) return afterKey;
          i = afterKey;
        } else i++;
        break;
      }
      if (d === (inObject ? CLOSE_BRACE : CLOSE_BRACKET)) {
        depth--;
        i++;
        continue;
      }
      return failAt(i, inObject ? "expected ',' or '}'" : "expected ',' or ']'");
    }
  }
}

/** Whether `JSON.parse(text)` succeeds; one scan, allocates nothing (beyond 2,048 levels of nesting). */
export function isJsonText(text: string): boolean {
  return scan(text) === -1;
}

/**
 * The first place where `text` is not JSON, with what was expected and found there; undefined
 * when `JSON.parse(text)` succeeds. One scan; never throws.
 */
export function jsonSyntaxError(text: string): JsonSyntaxError | undefined {
  const result = scan(text);
  if (result === -1) return undefined;
  const index = -2 - result;
  const found =
    index >= text.length
      ? "end of line"
      : JSON.stringify(String.fromCodePoint(text.codePointAt(index) as number));
  return { index, message: `${expected}, found ${found}` };
}
