/**
 * pi 1.6.0's bounded header read: 4 KiB blocks until the first line that parses to a truthy
 * value decides whether the file is a session. Use it to learn a file's header without reading
 * the file (finding sessions, `SessionManager.open`).
 */
import { closeSync } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { type SessionHeader, type SessionRecord, rawRecordValue } from "@pi-session/format";
import { SessionFileNotFoundError, SessionHeaderScanLimitError, errorCode } from "../errors.js";
import { type Reader, handleReads, runReader, runReaderSync } from "../fs/positional-reads.js";
import { openRegularFile, openRegularFileSync } from "../fs/regular-files.js";
import { RecordDecoder } from "./codec.js";
import type { ReadStats } from "./read-options.js";

/** Block size and default limit of the header scan (pi 1.6.0's values). */
export const HEADER_SCAN_BLOCK_SIZE = 4096;
export const HEADER_SCAN_MAX_BYTES = 1024 * 1024;

export interface ScanHeaderOptions {
  /** Give up after this many bytes without a complete line (default 1 MiB, as pi). */
  maxBytes?: number;
  stats?: ReadStats;
}

/**
 * pi 1.6.0's bounded header read: the first line that parses to a truthy JSON value decides
 * (decoded with U+FFFD for invalid UTF-8, as pi). Blank and malformed lines and falsy values
 * (`0`, `false`, `null`, `""`) are skipped; if that first value is a header (`type:"session"`
 * and a string `id`) it is returned, otherwise (another object, an array, a number, a string,
 * `true`) null. Throws {@link SessionHeaderScanLimitError} when
 * `maxBytes` pass without a decision, {@link SessionFileNotFoundError} for a missing file.
 */
export async function scanHeader(path: string, opts: ScanHeaderOptions = {}): Promise<SessionHeader | null> {
  let handle: FileHandle;
  try {
    ({ handle } = await openRegularFile(path));
  } catch (error) {
    if (errorCode(error) === "ENOENT") throw new SessionFileNotFoundError(path);
    throw error;
  }
  try {
    return await runReader(headerScan(path, opts), handleReads(handle));
  } finally {
    await handle.close();
  }
}

/** Synchronous {@link scanHeader}. */
export function scanHeaderSync(path: string, opts: ScanHeaderOptions = {}): SessionHeader | null {
  let fd: number;
  try {
    ({ fd } = openRegularFileSync(path));
  } catch (error) {
    if (errorCode(error) === "ENOENT") throw new SessionFileNotFoundError(path);
    throw error;
  }
  try {
    return runReaderSync(headerScan(path, opts), fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Decides on one record as pi's `parseSessionHeaderCandidate`; undefined = keep scanning (a line
 * that does not parse, or parses to a falsy value: `0`, `false`, `null`, `""`).
 */
function headerDecision(record: SessionRecord): SessionHeader | null | undefined {
  const value = record.kind === "json" ? record.value : rawRecordValue(record);
  if (!value) return undefined;
  const v = value as { type?: unknown; id?: unknown };
  if (v.type === "session" && typeof v.id === "string") return value as SessionHeader;
  return null;
}

function decide(records: SessionRecord[]): SessionHeader | null | undefined {
  for (const r of records) {
    const d = headerDecision(r);
    if (d !== undefined) return d;
  }
  return undefined;
}

/** The header scan, for either kind of I/O: block after block until a line decides. */
function* headerScan(path: string, opts: ScanHeaderOptions): Reader<SessionHeader | null> {
  const max = opts.maxBytes ?? HEADER_SCAN_MAX_BYTES;
  const decoder = new RecordDecoder({ maxDiagnostics: 0 });
  let pos = 0;
  while (pos < max) {
    const buf = Buffer.allocUnsafe(Math.min(HEADER_SCAN_BLOCK_SIZE, max - pos));
    const n = yield { buffer: buf, offset: 0, length: buf.length, position: pos };
    if (opts.stats) opts.stats.bytesRead += n;
    if (n === 0) return decide(decoder.end()) ?? null;
    pos += n;
    const d = decide(decoder.push(buf.subarray(0, n)));
    if (d !== undefined) return d;
  }
  // `maxBytes` read without a decision: the file may end there, or go on.
  const probe = Buffer.allocUnsafe(1);
  if ((yield { buffer: probe, offset: 0, length: 1, position: pos }) === 0)
    return decide(decoder.end()) ?? null;
  throw new SessionHeaderScanLimitError(path, max);
}
