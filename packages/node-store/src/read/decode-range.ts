/**
 * The chunked read of a session file through the codec, written once: the bytes of a range
 * (or up to the end of the file) read chunk after chunk into one buffer and pushed through a
 * {@link RecordDecoder}, each chunk's records handed on as they are decoded. The whole-file
 * readers, the record streams and the appender's read of foreign bytes all run it, with
 * synchronous or asynchronous reads (see `fs/positional-reads.ts`); an abort signal is
 * checked by whoever performs the reads, right before each one.
 */
import type { SessionRecord } from "@pi-session/format";
import type { Reader } from "../fs/positional-reads.js";
import type { RecordDecoder } from "./codec.js";
import type { ReadStats } from "./read-options.js";

export interface DecodeRange {
  /** First byte to read (default 0). */
  start?: number;
  /** Stop before this byte (default: the end of the file). */
  end?: number;
  /** Bytes per read. */
  chunkSize: number;
  /** Incremented with every byte read. */
  stats?: ReadStats | undefined;
}

/**
 * Reads the range through `decoder`; `onRecords` gets the records of each chunk, then those
 * of the decoder's end. Returns the bytes read. One buffer serves every chunk: the decoder
 * copies what it keeps of a chunk, and records hold no view of it.
 */
export function* decodeRange(
  decoder: RecordDecoder,
  range: DecodeRange,
  onRecords: (records: SessionRecord[]) => void,
): Reader<number> {
  const start = range.start ?? 0;
  const end = range.end ?? Number.POSITIVE_INFINITY;
  const buffer = Buffer.allocUnsafe(Math.max(0, Math.min(range.chunkSize, end - start)));
  let position = start;
  while (position < end) {
    const bytesRead = yield {
      buffer,
      offset: 0,
      length: Math.min(range.chunkSize, end - position),
      position,
    };
    if (bytesRead === 0) break;
    position += bytesRead;
    if (range.stats) range.stats.bytesRead += bytesRead;
    onRecords(decoder.push(buffer.subarray(0, bytesRead)));
  }
  onRecords(decoder.end());
  return position - start;
}
