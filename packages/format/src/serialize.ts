/**
 * The serializer: entries and records -> the bytes of a session file.
 *
 * Writes what pi writes (`JSON.stringify` of the object, keys in the order given, one line
 * per entry ending in `\n`), except that U+2028/U+2029 are escaped so that line readers
 * which split on them (Node >= 24 `readline`) cannot cut an entry in two. Raw records go
 * back byte for byte, so a read-modify-write never loses a malformed line. Pure.
 */
import { stringifyJson } from "./json-text.js";
import type { SessionRecord } from "./records.js";
import { TextLineRecord } from "./codec/raw-records.js";

declare class TextEncoder {
  encode(input?: string): Uint8Array;
}

let encoder: TextEncoder | undefined;

/** UTF-8 bytes of a string. */
export function utf8(text: string): Uint8Array {
  encoder ??= new TextEncoder();
  return encoder.encode(text);
}

const NEWLINE = new Uint8Array([10]);
const LINE_SEPARATORS = /[\u2028\u2029]/g;

function escapeSeparator(ch: string): string {
  return ch === "\u2028" ? "\\u2028" : "\\u2029";
}

/** One entry as JSON text, without the newline (at any depth: pi's `JSON.stringify` gives out past ~5,000 levels). */
export function stringifyEntry(value: object): string {
  const json = stringifyJson(value) as string;
  // Most lines hold neither: `includes` answers at once for a one-byte string, where a global
  // replace scanned every line (a measurable share of an append).
  if (!json.includes("\u2028") && !json.includes("\u2029")) return json;
  // Outside strings JSON.stringify never emits U+2028/9, so escaping them keeps the value.
  return json.replace(LINE_SEPARATORS, escapeSeparator);
}

/** One entry as a session-file line: its JSON text followed by `\n`. */
export function serializeEntry(value: object): string {
  return `${stringifyEntry(value)}\n`;
}

/** One entry as the UTF-8 bytes of its line, `\n` included. */
export function encodeLine(value: object): Uint8Array {
  return utf8(serializeEntry(value));
}

export interface SerializeOptions {
  /**
   * Write a last record that was read without a terminating `\n` (`terminated: false`)
   * without one again. Default false: every line gets its `\n`.
   */
  keepTornTail?: boolean;
}

/**
 * Writes records as file bytes: JSON records through {@link serializeEntry}, raw records
 * with their original bytes, each followed by `\n` (see {@link SerializeOptions}).
 */
export function serializeRecords(records: readonly SessionRecord[], opts: SerializeOptions = {}): Uint8Array {
  const parts: Uint8Array[] = [];
  let text = "";
  const last = records.length - 1;
  records.forEach((rec, i) => {
    const newline = !(opts.keepTornTail === true && i === last && !rec.terminated);
    if (rec.kind === "json") {
      text += newline ? serializeEntry(rec.value) : stringifyEntry(rec.value);
      return;
    }
    // A line the codec kept as text is encoded with the JSON text around it.
    if (rec instanceof TextLineRecord) {
      text += rec.sourceText;
      if (newline) text += "\n";
      return;
    }
    // Encode the JSON text gathered so far in one call, then the raw bytes.
    if (text !== "") {
      parts.push(utf8(text));
      text = "";
    }
    parts.push(rec.bytes);
    if (newline) parts.push(NEWLINE);
  });
  if (text !== "") parts.push(utf8(text));
  let total = 0;
  for (const p of parts) total += p.length;
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
