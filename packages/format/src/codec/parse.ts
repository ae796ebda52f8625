/**
 * Whole-input parsing: a buffer or a string -> records and diagnostics in one call. Use
 * {@link parseSessionBytes} for a file read whole (or a slice of one, with `startOffset` and
 * `startLine`); use the {@link SessionLineDecoder} itself to read a file chunk by chunk.
 */
import { utf8 } from "../bytes.js";
import type { Diagnostic, SessionRecord } from "../records.js";
import { type DecoderOptions, SessionLineDecoder, type TornTail } from "./decoder.js";

export interface ParseResult {
  records: SessionRecord[];
  diagnostics: Diagnostic[];
  /** Diagnostics of malformed lines not kept because of `maxDiagnostics` (all are errors). */
  omittedDiagnostics: number;
  /** Records `keepRecord` dropped. */
  omittedRecords: number;
  /** Lines that were empty or JSON whitespace only (counted in line numbers, no record). */
  blankLines: number;
  /** Lines seen, blank ones included; an unterminated last line counts. */
  lines: number;
  /** Bytes seen. */
  bytes: number;
  /** Present when the input does not end with `\n` and its last line is not blank. */
  tornTail?: TornTail;
}

/** Parses a whole buffer (a file, or a slice of one with `startOffset`/`startLine`). */
export function parseSessionBytes(bytes: Uint8Array, opts?: DecoderOptions): ParseResult {
  const dec = new SessionLineDecoder(opts);
  const records = dec.push(bytes);
  for (const r of dec.end()) records.push(r);
  return resultOf(dec, records);
}

/** Parses a string (encoded to UTF-8 first, so offsets are byte offsets). */
export function parseSessionText(text: string, opts?: DecoderOptions): ParseResult {
  return parseSessionBytes(utf8(text), opts);
}

/** Builds a {@link ParseResult} from a decoder after {@link SessionLineDecoder.end}. */
export function resultOf(dec: SessionLineDecoder, records: SessionRecord[]): ParseResult {
  const result: ParseResult = {
    records,
    diagnostics: dec.diagnostics,
    omittedDiagnostics: dec.omittedDiagnostics,
    omittedRecords: dec.omittedRecords,
    blankLines: dec.blankLines,
    lines: dec.lines,
    bytes: dec.bytes,
  };
  const torn = dec.tornTail;
  if (torn !== undefined) result.tornTail = torn;
  return result;
}
