/**
 * The records of a session file as pi 1.6.0 reads its lines. Use it on what `readSessionFile`
 * returns before taking entries from it, everywhere a session is read for its entries (the
 * SDK, the CLI): the codec keeps a line that is not a clean JSON object (invalid UTF-8, `[1]`,
 * `7`, broken JSON) as a raw record with its original bytes, while pi decodes the file with
 * U+FFFD for invalid UTF-8 and `JSON.parse`s every non-blank line, keeping every truthy value;
 * the first one must be a header with a string id.
 *
 * So each raw record whose text parses to an object becomes a JSON record for reading, and
 * maps back to the raw record for writing: a line that no migration changed is written back
 * byte for byte, never re-serialized from its U+FFFD text.
 *
 * Two documented differences from pi stay: a non-object value after the header (`5`, `[1]`)
 * is a malformed line, not an entry; a BOM before the header is ignored.
 */
import type { JsonRecord, RawRecord, SessionRecord } from "@pi-session/format";
import { isValidSessionHeader } from "@pi-session/format";
import { objectShaped, rawRecordValue } from "@pi-session/format";

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The parsed object of a record as pi reads it, or undefined (not an object, or does not parse). */
export function recordObject(record: SessionRecord): Record<string, unknown> | undefined {
  if (record.kind === "json") return record.value;
  const value = rawRecordValue(record);
  return isObject(value) ? value : undefined;
}

/**
 * A `keepRecord` filter for `readSessionFile(Sync)` that keeps only what {@link readLinesAsPi}
 * takes entries from: it drops a raw line pi skips (it does not parse, or parses to a falsy
 * value, or to a non-object after the first value), which decides nothing, and keeps every
 * other record and a torn last line. A reader that will not write the file back needs no more;
 * one that will must read it again without the filter when records were dropped
 * (`omittedRecords`), or the skipped lines would be lost.
 */
export function keepLinesPiReads(): (record: SessionRecord) => boolean {
  let decided = false;
  return (record) => {
    if (record.kind === "json") {
      decided = true;
      return true;
    }
    // A torn last line is the writer's business.
    if (!record.terminated) return true;
    // After the first value only an object counts, and a text not from `{` to `}` is none.
    if (decided && !objectShaped(record.text)) return false;
    const value = rawRecordValue(record);
    // pi skips a line that does not parse or parses to a falsy value (0, null, false, "").
    if (!value) return false;
    // An object is an entry; the first value decides whether the file is a session.
    if (isObject(value) || !decided) {
      decided = true;
      return true;
    }
    return false;
  };
}

/** The first truthy value pi parses from the records (its header, in a session), if any. */
export function firstValueAsPi(records: readonly SessionRecord[]): unknown {
  for (const record of records) {
    const value = record.kind === "json" ? record.value : rawRecordValue(record);
    if (value) return value;
  }
  return undefined;
}

export interface LinesAsPi {
  /** The records with each raw record that parses to an object read as a JSON record. */
  records: SessionRecord[];
  /** The objects of `records`, in file order (header first when `isSession`). */
  values: Record<string, unknown>[];
  /** Is the first truthy parsed line a header with a string id (pi's test)? */
  isSession: boolean;
  /** The record to write back for one of `records` (or a record migrated from it unchanged). */
  original(record: SessionRecord): SessionRecord;
}

/**
 * Reads records as pi reads their lines. `keepRaw` (a byte offset) names a record left as it
 * is (a torn fragment a writer handles on its own).
 */
export function readLinesAsPi(records: readonly SessionRecord[], keepRaw?: number): LinesAsPi {
  const origin = new Map<SessionRecord, RawRecord>();
  const out: SessionRecord[] = [];
  const values: Record<string, unknown>[] = [];
  let first: unknown;
  for (const record of records) {
    if (record.kind === "json") {
      first ??= record.value;
      out.push(record);
      values.push(record.value);
      continue;
    }
    if (record.offset === keepRaw) {
      out.push(record);
      continue;
    }
    const value = rawRecordValue(record);
    // pi skips a line that does not parse or parses to a falsy value (0, null, false, "").
    if (value) first ??= value;
    if (!isObject(value)) {
      out.push(record);
      continue;
    }
    const { line, offset, byteLength, terminated } = record;
    const read: JsonRecord = { kind: "json", line, offset, byteLength, terminated, value };
    origin.set(read, record);
    out.push(read);
    values.push(value);
  }
  return {
    records: out,
    values,
    isSession: isValidSessionHeader(first),
    original: (record) => origin.get(record) ?? record,
  };
}
