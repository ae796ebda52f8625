/**
 * The serializer: entries and records -> the text and bytes of a session file. One verb,
 * `serialize`, and the noun says what goes in: {@link serializeLine} (one entry's line, without
 * its `\n`), {@link serializeEntry} (one entry as it goes into a file, `\n` included),
 * {@link serializeEntries} (entries -> file bytes) and {@link serializeRecords} (records ->
 * file bytes, malformed lines put back). Use these for every line written, so that every writer
 * writes what pi writes.
 *
 * What pi writes is `JSON.stringify` of the object (keys in the order given), one line per
 * entry ending in `\n`. Two differences: U+2028/U+2029 are escaped, so that line readers which
 * split on them (Node >= 24 `readline`) cannot cut an entry in two, and an entry nested deeper
 * than `JSON.stringify` can go is still written (`stringifyJson`). Raw records go back byte for
 * byte, so a read-modify-write never loses a malformed line. Pure.
 */
import { concatBytes, utf8 } from "./bytes.js";
import { TextLineRecord } from "./codec/raw-records.js";
import { stringifyJson } from "./json-text.js";
import type { SessionRecord } from "./records.js";

const NEWLINE = new Uint8Array([10]);
const LINE_SEPARATORS = /[\u2028\u2029]/g;

function escapeSeparator(separator: string): string {
  return separator === "\u2028" ? "\\u2028" : "\\u2029";
}

/** One entry's line: its JSON text, without the `\n` (a line, as in records, ends before it). */
export function serializeLine(value: object): string {
  const json = stringifyJson(value) as string;
  // Most lines hold neither: `includes` answers at once for a one-byte string.
  if (!json.includes("\u2028") && !json.includes("\u2029")) return json;
  // Outside strings JSON.stringify never emits U+2028/9, so escaping them keeps the value.
  return json.replace(LINE_SEPARATORS, escapeSeparator);
}

/** One entry as it goes into a session file: its line followed by `\n`. */
export function serializeEntry(value: object): string {
  return `${serializeLine(value)}\n`;
}

/** Entries as the bytes of a file (or of an append), one line each. */
export function serializeEntries(entries: readonly object[]): Uint8Array {
  let text = "";
  for (const entry of entries) text += serializeEntry(entry);
  return utf8(text);
}

export interface SerializeOptions {
  /**
   * Write a last record that was read without a terminating `\n` (`terminated: false`)
   * without one again. Default false: every line gets its `\n`.
   */
  keepTornTail?: boolean;
}

/**
 * Records as file bytes: JSON records through {@link serializeEntry}, raw records with their
 * original bytes, each followed by `\n` (see {@link SerializeOptions}).
 */
export function serializeRecords(records: readonly SessionRecord[], opts: SerializeOptions = {}): Uint8Array {
  const parts: Uint8Array[] = [];
  let text = "";
  const last = records.length - 1;
  records.forEach((rec, i) => {
    const newline = !(opts.keepTornTail === true && i === last && !rec.terminated);
    if (rec.kind === "json") {
      text += newline ? serializeEntry(rec.value) : serializeLine(rec.value);
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
  return concatBytes(parts);
}
