/**
 * Streaming the records of a session file one by one, with memory bounded by the largest line:
 * for files of any size, or a byte range of one (what another process appended).
 */
import { closeSync, readSync } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import type { Diagnostic, SessionRecord } from "@pi-session/format";
import { SessionFileNotFoundError, errorCode } from "../errors.js";
import { openRegularFile, openRegularFileSync } from "../fs/regular-files.js";
import { RecordDecoder, type TornTail, pushAll, withFile } from "./codec.js";
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
    const start = opts.startOffset ?? 0;
    const decoder = new RecordDecoder({
      startOffset: start,
      startLine: opts.startLine ?? 1,
      ...(opts.maxDiagnostics !== undefined ? { maxDiagnostics: opts.maxDiagnostics } : {}),
    });
    const chunkSize = opts.chunkSize ?? READ_CHUNK_SIZE;
    const end = opts.endOffset ?? Number.POSITIVE_INFINITY;
    // One buffer for every chunk: the decoder copies what it keeps of a chunk, and records hold
    // no view of it. (A fresh buffer per chunk left up to tens of MB of dead chunks to the GC.)
    const buf = Buffer.allocUnsafe(Math.max(0, Math.min(chunkSize, end - start)));
    let pos = start;
    while (pos < end) {
      opts.signal?.throwIfAborted();
      const want = Math.min(chunkSize, end - pos);
      const { bytesRead } = await handle.read(buf, 0, want, pos);
      if (bytesRead === 0) break;
      pos += bytesRead;
      if (opts.stats) opts.stats.bytesRead += bytesRead;
      yield* decoder.push(buf.subarray(0, bytesRead));
    }
    yield* decoder.end();
    opts.onDiagnostics?.(withFile(decoder.diagnostics, path), decoder.omittedDiagnostics);
    if (decoder.tornTail) opts.onTornTail?.(decoder.tornTail);
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
    const start = opts.startOffset ?? 0;
    const decoder = new RecordDecoder({
      startOffset: start,
      startLine: opts.startLine ?? 1,
      ...(opts.maxDiagnostics !== undefined ? { maxDiagnostics: opts.maxDiagnostics } : {}),
    });
    const chunkSize = opts.chunkSize ?? READ_CHUNK_SIZE;
    const end = opts.endOffset ?? Number.POSITIVE_INFINITY;
    const buf = Buffer.allocUnsafe(Math.max(0, Math.min(chunkSize, end - start)));
    let pos = start;
    while (pos < end) {
      opts.signal?.throwIfAborted();
      const n = readSync(fd, buf, 0, Math.min(chunkSize, end - pos), pos);
      if (n === 0) break;
      pos += n;
      if (opts.stats) opts.stats.bytesRead += n;
      yield* decoder.push(buf.subarray(0, n));
    }
    yield* decoder.end();
    opts.onDiagnostics?.(withFile(decoder.diagnostics, path), decoder.omittedDiagnostics);
    if (decoder.tornTail) opts.onTornTail?.(decoder.tornTail);
  } finally {
    closeSync(fd);
  }
}

/**

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
  let pos = startOffset;
  // One buffer for every chunk (see streamSessionRecords).
  const buf = Buffer.allocUnsafe(Math.max(0, Math.min(chunkSize, endOffset - startOffset)));
  while (pos < endOffset) {
    const want = Math.min(chunkSize, endOffset - pos);
    const n = readSync(fd, buf, 0, want, pos);
    if (n === 0) break;
    pos += n;
    pushAll(records, decoder.push(buf.subarray(0, n)));
  }
  pushAll(records, decoder.end());
  const out: { records: SessionRecord[]; diagnostics: Diagnostic[]; tornTail?: TornTail; lines: number } = {
    records,
    diagnostics: decoder.diagnostics,
    lines: decoder.lines,
  };
  if (decoder.tornTail) out.tornTail = decoder.tornTail;
  return out;
}
