/**
 * Streaming the records of a session file one by one, with memory bounded by the largest line:
 * for files of any size, or a byte range of one (what another process appended).
 */
import { closeSync, readSync } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import type { Diagnostic, SessionRecord } from "@pi-session/format";
import { SessionFileNotFoundError, errorCode } from "../errors.js";
import { handleReads, runReaderSync } from "../fs/positional-reads.js";
import { openRegularFile, openRegularFileSync } from "../fs/regular-files.js";
import { RecordDecoder, type TornTail, pushAll, withFile } from "./codec.js";
import { type DecodeRange, decodeRange } from "./decode-range.js";
import { READ_CHUNK_SIZE, type ReadStats } from "./read-options.js";

export interface StreamSessionOptions {
  /** Start reading at this byte offset (must be the first byte of a line). Default 0. */
  startOffset?: number;
  /** Line number of the line at `startOffset`. Default 1. */
  startLine?: number;
  /** Stop at this byte offset (exclusive); default: end of file. */
  endOffset?: number;
  chunkSize?: number;
  signal?: AbortSignal;
  stats?: ReadStats;
  /** Called once at the end with the codec diagnostics (each with `file` set). */
  onDiagnostics?: (diagnostics: Diagnostic[], omitted: number) => void;
  /** Keep at most this many codec diagnostics for `onDiagnostics`; the others are counted. */
  maxDiagnostics?: number;
  /** Called once at the end when the streamed range did not end with `\n`. */
  onTornTail?: (tail: TornTail) => void;
}

function streamDecoder(opts: StreamSessionOptions): RecordDecoder {
  return new RecordDecoder({
    startOffset: opts.startOffset ?? 0,
    startLine: opts.startLine ?? 1,
    ...(opts.maxDiagnostics !== undefined ? { maxDiagnostics: opts.maxDiagnostics } : {}),
  });
}

/** The range a stream reads (the stream itself checks the signal before each read). */
function streamRange(opts: StreamSessionOptions): DecodeRange {
  const range: DecodeRange = { chunkSize: opts.chunkSize ?? READ_CHUNK_SIZE, stats: opts.stats };
  if (opts.startOffset !== undefined) range.start = opts.startOffset;
  if (opts.endOffset !== undefined) range.end = opts.endOffset;
  return range;
}

/** What the caller of a stream is told at its end. */
function streamEnded(path: string, decoder: RecordDecoder, opts: StreamSessionOptions): void {
  opts.onDiagnostics?.(withFile(decoder.diagnostics, path), decoder.omittedDiagnostics);
  if (decoder.tornTail) opts.onTornTail?.(decoder.tornTail);
}

/**
 * Yields the records of a file one by one; memory is bounded by the largest line (plus one
 * chunk), so it works on files of any size. Throws {@link SessionFileNotFoundError} for a
 * missing file.
 */
export async function* streamSessionRecords(
  path: string,
  opts: StreamSessionOptions = {},
): AsyncGenerator<SessionRecord, void, undefined> {
  let handle: FileHandle;
  try {
    ({ handle } = await openRegularFile(path));
  } catch (error) {
    if (errorCode(error) === "ENOENT") throw new SessionFileNotFoundError(path);
    throw error;
  }
  try {
    const decoder = streamDecoder(opts);
    // The records of the chunks decoded since the last read, yielded before the next one.
    const decoded: SessionRecord[][] = [];
    const reader = decodeRange(decoder, streamRange(opts), (records) => decoded.push(records));
    const read = handleReads(handle);
    for (let step = reader.next(); ; ) {
      for (const records of decoded) yield* records;
      decoded.length = 0;
      if (step.done) break;
      opts.signal?.throwIfAborted();
      const request = step.value;
      step = reader.next(await read(request.buffer, request.offset, request.length, request.position));
    }
    streamEnded(path, decoder, opts);
  } finally {
    await handle.close();
  }
}

/**
 * {@link streamSessionRecords} without the event loop: the same records from synchronous
 * reads, for a caller that reads many files one after the other and does nothing else
 * meanwhile (an indexer), where each asynchronous read costs a round trip to the thread pool.
 */
export function* streamSessionRecordsSync(
  path: string,
  opts: StreamSessionOptions = {},
): Generator<SessionRecord, void, undefined> {
  let fd: number;
  try {
    ({ fd } = openRegularFileSync(path));
  } catch (error) {
    if (errorCode(error) === "ENOENT") throw new SessionFileNotFoundError(path);
    throw error;
  }
  try {
    const decoder = streamDecoder(opts);
    const decoded: SessionRecord[][] = [];
    const reader = decodeRange(decoder, streamRange(opts), (records) => decoded.push(records));
    for (let step = reader.next(); ; ) {
      for (const records of decoded) yield* records;
      decoded.length = 0;
      if (step.done) break;
      opts.signal?.throwIfAborted();
      const request = step.value;
      step = reader.next(readSync(fd, request.buffer, request.offset, request.length, request.position));
    }
    streamEnded(path, decoder, opts);
  } finally {
    closeSync(fd);
  }
}

/**
 * Synchronously decodes the byte range `[startOffset, endOffset)` of an open file. Used by the
 * appender to read entries other processes appended.
 */
export function readRecordsFromFd(
  fd: number,
  startOffset: number,
  endOffset: number,
  startLine = 1,
  chunkSize = READ_CHUNK_SIZE,
): { records: SessionRecord[]; diagnostics: Diagnostic[]; tornTail?: TornTail; lines: number } {
  const decoder = new RecordDecoder({ startOffset, startLine });
  const records: SessionRecord[] = [];
  runReaderSync(
    decodeRange(decoder, { start: startOffset, end: endOffset, chunkSize }, (chunk) =>
      pushAll(records, chunk),
    ),
    fd,
  );
  const out: { records: SessionRecord[]; diagnostics: Diagnostic[]; tornTail?: TornTail; lines: number } = {
    records,
    diagnostics: decoder.diagnostics,
    lines: decoder.lines,
  };
  if (decoder.tornTail) out.tornTail = decoder.tornTail;
  return out;
}
