/**
 * Records: what the line codec produces from the bytes of a session file.
 *
 * Every line of a file becomes exactly one record, in file order, so a writer can put back
 * what it read. A line that is a JSON object becomes a {@link JsonRecord}; anything else
 * (broken JSON, an array, a number, invalid UTF-8) becomes a {@link RawRecord} that keeps the
 * original bytes, plus a {@link Diagnostic}. Blank lines are counted but produce no record.
 */

/** Where a record sits in its file. */
export interface RecordPosition {
  /** 1-based line number (blank lines count). */
  line: number;
  /** Byte offset of the line's first byte in the file. */
  offset: number;
  /** Bytes in the line, excluding the `\n` (and including a stripped `\r` or BOM). */
  byteLength: number;
  /** False for the last line of a file that does not end with `\n` (a torn tail). */
  terminated: boolean;
}

export interface JsonRecord<T = Record<string, unknown>> extends RecordPosition {
  kind: "json";
  /** The parsed object. */
  value: T;
}

export interface RawRecord extends RecordPosition {
  kind: "raw";
  /** The line's original bytes (without `\n`), so it can be written back unchanged. */
  bytes: Uint8Array;
  /** The line decoded as UTF-8 (with U+FFFD for invalid bytes), for display. */
  text: string;
  /** Why the line is not a record: human readable. */
  reason: string;
}

export type SessionRecord<T = Record<string, unknown>> = JsonRecord<T> | RawRecord;

export type DiagnosticSeverity = "error" | "warning";

export type DiagnosticCode =
  | "invalid-json"
  | "not-an-object"
  | "invalid-utf8"
  | "torn-tail"
  | "missing-header"
  | "header-not-first"
  | "duplicate-header"
  | "schema"
  | "duplicate-id"
  | "cycle"
  | "dangling-parent"
  | "dangling-label-target"
  | (string & {});

/** A problem found in a file, always with a place. */
export interface Diagnostic {
  code: DiagnosticCode;
  severity: DiagnosticSeverity;
  /** 1-based line number; 0 when the problem concerns the whole file. */
  line: number;
  /** Byte offset of the line's first byte. */
  offset: number;
  /** What is wrong, in a sentence. */
  reason: string;
  /** File path, when known (filled in by callers that read files). */
  file?: string;
}

/** Formats a diagnostic as `file:line (byte offset): reason`. */
export function formatDiagnostic(d: Diagnostic): string {
  const where = `${d.file ?? "<input>"}:${d.line} (byte ${d.offset})`;
  return `${where}: ${d.severity}: ${d.reason} [${d.code}]`;
}
