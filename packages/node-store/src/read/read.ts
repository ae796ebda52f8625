/**
 * Reading session files: a streaming byte-level reader (async and sync) over a file handle in
 * 1 MiB chunks through the `format` codec — never one big string, so files larger than V8's
 * string limit work — plus a bounded header scan and a tail scan for listing.
 *
 * Reading never writes: a torn tail is reported (`tornTail`), repairing it is the writer's job.
 */
import {
  type Stats,
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readSync,
  statSync,
} from "node:fs";
import { type FileHandle, open, stat } from "node:fs/promises";
import {
  type Diagnostic,
  type RawRecord,
  type SessionHeader,
  type SessionRecord,
  rawRecordValue as formatRawRecordValue,
} from "@pi-session/format";
import { type DecoderStart, RecordDecoder, type TornTail } from "./codec.js";
import {
  type NonRegularKind,
  SessionFileNotFoundError,
  SessionFileNotRegularError,
  SessionHeaderScanLimitError,
} from "../errors.js";

export type { TornTail } from "./codec.js";

/** Chunk size of the streaming reader. */
export const READ_CHUNK_SIZE = 1024 * 1024;
/** Block size and default limit of the header scan (pi 1.6.0's values). */
export const HEADER_SCAN_BLOCK_SIZE = 4096;
export const HEADER_SCAN_MAX_BYTES = 1024 * 1024;

/** Counters a caller may pass to observe how much was read (used by tests and benchmarks). */
export interface ReadStats {
  bytesRead: number;
}

export interface ReadSessionOptions {
  /** What a missing file does: `"throw"` (default) a {@link SessionFileNotFoundError}, `"null"` returns null. */
  missing?: "throw" | "null";
  /** Bytes per read (default 1 MiB). */
  chunkSize?: number;
  signal?: AbortSignal;
  /** Incremented with every byte read. */
  stats?: ReadStats;
  /**
   * Keep at most this many codec diagnostics (the first ones) and count the others in
   * `omittedDiagnostics`; default all. A raw record carries its own reason, so a reader that
   * shows none can pass 0 and a file of a million broken lines costs no million diagnostics.
   */
  maxDiagnostics?: number;
  /**
   * Called with every record in file order; a record it returns false for is not kept in
   * `records` (only counted in `omittedRecords`). A reader that needs only some records (the
   * entries, say) keeps a file of a million broken lines from costing a million objects.
   */
  keepRecord?: (record: SessionRecord) => boolean;
}

/** A whole session file, as records. */
export interface SessionFileContents {
  path: string;
  /** Every non-blank line, in file order (JSON objects and raw lines), but those `keepRecord` dropped. */
  records: SessionRecord[];
  /** Records `keepRecord` dropped (0 without it). */
  omittedRecords: number;
  /** Codec diagnostics, each with `file` set to `path`. */
  diagnostics: Diagnostic[];
  /** Codec diagnostics not kept because of `maxDiagnostics` (all are errors). */
  omittedDiagnostics: number;
  /** Present when the file does not end with `\n`. */
  tornTail?: TornTail;
  /** Bytes read (the file size at the time of reading). */
  size: number;
  /** Lines seen, blank ones included. */
  lines: number;
  blankLines: number;
  mtimeMs: number;
  ino: number;
}

function isEnoent(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "ENOENT";
}

/** Sets `file` on the decoder's own diagnostics (fresh objects no one else holds): no copies. */
function withFile(diagnostics: Diagnostic[], path: string): Diagnostic[] {
  for (const d of diagnostics) d.file = path;
  return diagnostics;
}

function finish(
  path: string,
  decoder: RecordDecoder,
  records: SessionRecord[],
  size: number,
  mtimeMs: number,
  ino: number,
): SessionFileContents {
  const result: SessionFileContents = {
    path,
    records,
    omittedRecords: decoder.omittedRecords,
    diagnostics: withFile(decoder.diagnostics, path),
    omittedDiagnostics: decoder.omittedDiagnostics,
    size,
    lines: decoder.lines,
    blankLines: decoder.blankLines,
    mtimeMs,
    ino,
  };
  if (decoder.tornTail) result.tornTail = decoder.tornTail;
  return result;
}

/** A missing file is `null` when the caller asked for it, else {@link SessionFileNotFoundError}. */
function whenOpenFails(path: string, opts: { missing?: "throw" | "null" }, error: unknown): null {
  if (isEnoent(error)) {
    if (opts.missing === "null") return null;
    throw new SessionFileNotFoundError(path);
  }
  throw error;
}

/** The decoder options of a whole-file read. */
function decoderOptionsOf(opts: ReadSessionOptions): DecoderStart {
  const out: DecoderStart = {};
  if (opts.maxDiagnostics !== undefined) out.maxDiagnostics = opts.maxDiagnostics;
  if (opts.keepRecord !== undefined) out.keepRecord = opts.keepRecord;
  return out;
}

function pushAll(target: SessionRecord[], source: SessionRecord[]): void {
  for (const r of source) target.push(r);
}

// ---------------------------------------------------------------------------------------
// Opening: regular files only

/**
 * Flags of every open for reading here. Non-blocking, so that a FIFO that took a file's place
 * between the check and the open cannot block the open (a FIFO without a writer would, for
 * ever); the descriptor is then refused by its `fstat` before a byte is read. On a regular file
 * the flag changes nothing.
 */
export const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/** What a stat that is not a regular file names. */
export function nonRegularKind(st: Stats): NonRegularKind {
  if (st.isDirectory()) return "a directory";
  if (st.isFIFO()) return "a FIFO";
  if (st.isSocket()) return "a socket";
  if (st.isCharacterDevice()) return "a character device";
  if (st.isBlockDevice()) return "a block device";
  if (st.isSymbolicLink()) return "a symbolic link";
  return "not a regular file";
}

/**
 * Why `path` cannot be statted (missing, no permission, a dangling link, a loop of links), or
 * undefined when it can (a regular file, or something that is not one and so is no session).
 * For reporting what a listing left out (computed only for those).
 */
export function unreadableError(path: string): Error | undefined {
  try {
    statSync(path);
    return undefined;
  } catch (error) {
    return error as Error;
  }
}

function assertRegular(path: string, st: Stats): Stats {
  if (!st.isFile()) throw new SessionFileNotRegularError(path, nonRegularKind(st));
  return st;
}

export interface OpenRegularOptions {
  /** Follow a symlink at `path` (default true, as for sessions); false refuses one. */
  followLinks?: boolean;
}

/**
 * Opens `path` for reading only if it is a regular file: a directory, FIFO, socket or device
 * is refused with {@link SessionFileNotRegularError} before it is opened (a `stat`), and a
 * file replaced by one in between is refused after the (non-blocking) open by an `fstat`,
 * before anything is read. Other errors are the fs ones (`ENOENT`, `EACCES`, ...). Returns the
 * descriptor and its `fstat`; close it with `closeSync`.
 */
export function openRegularFileSync(
  path: string,
  opts: OpenRegularOptions = {},
): { fd: number; stats: Stats } {
  const follow = opts.followLinks !== false;
  assertRegular(path, follow ? statSync(path) : lstatSync(path));
  const fd = openSync(path, follow ? READ_FLAGS : READ_FLAGS | (constants.O_NOFOLLOW ?? 0));
  try {
    return { fd, stats: assertRegular(path, fstatSync(fd)) };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** {@link openRegularFileSync} with a `FileHandle` (links followed). */
export async function openRegularFile(path: string): Promise<{ handle: FileHandle; stats: Stats }> {
  assertRegular(path, await stat(path));
  const handle = await open(path, READ_FLAGS);
  try {
    return { handle, stats: assertRegular(path, await handle.stat()) };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * The bytes of a small regular file (at most `maxBytes`, default 16 MiB: more is cut there),
 * opened as {@link openRegularFileSync} does: never blocks on a FIFO put at its path.
 */
export function readRegularFileSync(
  path: string,
  opts: OpenRegularOptions & { maxBytes?: number } = {},
): Buffer {
  const { fd, stats } = openRegularFileSync(path, opts);
  try {
    const max = opts.maxBytes ?? 16 * 1024 * 1024;
    const chunks: Buffer[] = [];
    let got = 0;
    // Sized by the fstat, read to the end (the file may have grown since).
    let want = Math.min(max, Math.max(stats.size, 0) + 1);
    while (got < max) {
      const buf = Buffer.allocUnsafe(Math.min(want, max - got));
      const n = readSync(fd, buf, 0, buf.length, got);
      if (n === 0) break;
      chunks.push(buf.subarray(0, n));
      got += n;
      want = 64 * 1024;
    }
    return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, got);
  } finally {
    closeSync(fd);
  }
}

/** Reads a whole session file into records (async, 1 MiB reads through the codec). */
export async function readSessionFile(
  path: string,
  opts: ReadSessionOptions & { missing: "null" },
): Promise<SessionFileContents | null>;
export async function readSessionFile(path: string, opts?: ReadSessionOptions): Promise<SessionFileContents>;
export async function readSessionFile(
  path: string,
  opts: ReadSessionOptions = {},
): Promise<SessionFileContents | null> {
  let handle: FileHandle;
  let st: Stats;
  try {
    ({ handle, stats: st } = await openRegularFile(path));
  } catch (error) {
    return whenOpenFails(path, opts, error);
  }
  try {
    const decoder = new RecordDecoder(decoderOptionsOf(opts));
    const records: SessionRecord[] = [];
    const chunkSize = opts.chunkSize ?? READ_CHUNK_SIZE;
    let size = 0;
    for (;;) {
      opts.signal?.throwIfAborted();
      // A fresh buffer per read: the decoder may keep a view of a partial line.
      const buf = Buffer.allocUnsafe(chunkSize);
      const { bytesRead } = await handle.read(buf, 0, chunkSize, size);
      if (bytesRead === 0) break;
      size += bytesRead;
      if (opts.stats) opts.stats.bytesRead += bytesRead;
      pushAll(records, decoder.push(buf.subarray(0, bytesRead)));
    }
    pushAll(records, decoder.end());
    return finish(path, decoder, records, size, st.mtimeMs, st.ino);
  } finally {
    await handle.close();
  }
}

/** Synchronous {@link readSessionFile}. */
export function readSessionFileSync(
  path: string,
  opts: Omit<ReadSessionOptions, "signal"> & { missing: "null" },
): SessionFileContents | null;
export function readSessionFileSync(
  path: string,
  opts?: Omit<ReadSessionOptions, "signal">,
): SessionFileContents;
export function readSessionFileSync(
  path: string,
  opts: Omit<ReadSessionOptions, "signal"> = {},
): SessionFileContents | null {
  let fd: number;
  let st: Stats;
  try {
    ({ fd, stats: st } = openRegularFileSync(path));
  } catch (error) {
    return whenOpenFails(path, opts, error);
  }
  try {
    const decoder = new RecordDecoder(decoderOptionsOf(opts));
    const records: SessionRecord[] = [];
    const chunkSize = opts.chunkSize ?? READ_CHUNK_SIZE;
    let size = 0;
    // One buffer for every chunk (see streamSessionRecords).
    const buf = Buffer.allocUnsafe(chunkSize);
    for (;;) {
      const bytesRead = readSync(fd, buf, 0, chunkSize, size);
      if (bytesRead === 0) break;
      size += bytesRead;
      if (opts.stats) opts.stats.bytesRead += bytesRead;
      pushAll(records, decoder.push(buf.subarray(0, bytesRead)));
    }
    pushAll(records, decoder.end());
    return finish(path, decoder, records, size, st.mtimeMs, st.ino);
  } finally {
    closeSync(fd);
  }
}

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
    if (isEnoent(error)) throw new SessionFileNotFoundError(path);
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
    if (isEnoent(error)) throw new SessionFileNotFoundError(path);
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

// ---------------------------------------------------------------------------------------
// Header scan

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
    if (isEnoent(error)) throw new SessionFileNotFoundError(path);
    throw error;
  }
  try {
    return await scanHeaderWith(
      path,
      opts,
      async (buf, pos) => (await handle.read(buf, 0, buf.length, pos)).bytesRead,
    );
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
    if (isEnoent(error)) throw new SessionFileNotFoundError(path);
    throw error;
  }
  try {
    return scanHeaderSyncWith(path, opts, (buf, pos) => readSync(fd, buf, 0, buf.length, pos));
  } finally {
    closeSync(fd);
  }
}

/**
 * The value pi reads from a line the codec kept as a raw record: `JSON.parse` of its text, which
 * is the line decoded with U+FFFD for invalid UTF-8 (as pi's stream decoder does), so a line with
 * an invalid byte inside a string still parses. `undefined` when it does not parse. (The codec
 * drops a BOM from the text of line 1, as from a JSON line; pi, which does not, skips the line.)
 * The format codec's own function, here where the readers that apply pi's rules are.
 */
export const rawRecordValue: (record: RawRecord) => unknown = formatRawRecordValue;

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

async function scanHeaderWith(
  path: string,
  opts: ScanHeaderOptions,
  read: (buf: Buffer, pos: number) => Promise<number>,
): Promise<SessionHeader | null> {
  const max = opts.maxBytes ?? HEADER_SCAN_MAX_BYTES;
  const decoder = new RecordDecoder({ maxDiagnostics: 0 });
  let pos = 0;
  while (pos < max) {
    const buf = Buffer.allocUnsafe(Math.min(HEADER_SCAN_BLOCK_SIZE, max - pos));
    const n = await read(buf, pos);
    if (opts.stats) opts.stats.bytesRead += n;
    if (n === 0) return decide(decoder.end()) ?? null;
    pos += n;
    const d = decide(decoder.push(buf.subarray(0, n)));
    if (d !== undefined) return d;
  }
  const probe = Buffer.allocUnsafe(1);
  if ((await read(probe, pos)) === 0) return decide(decoder.end()) ?? null;
  throw new SessionHeaderScanLimitError(path, max);
}

function scanHeaderSyncWith(
  path: string,
  opts: ScanHeaderOptions,
  read: (buf: Buffer, pos: number) => number,
): SessionHeader | null {
  const max = opts.maxBytes ?? HEADER_SCAN_MAX_BYTES;
  const decoder = new RecordDecoder({ maxDiagnostics: 0 });
  let pos = 0;
  while (pos < max) {
    const buf = Buffer.allocUnsafe(Math.min(HEADER_SCAN_BLOCK_SIZE, max - pos));
    const n = read(buf, pos);
    if (opts.stats) opts.stats.bytesRead += n;
    if (n === 0) return decide(decoder.end()) ?? null;
    pos += n;
    const d = decide(decoder.push(buf.subarray(0, n)));
    if (d !== undefined) return d;
  }
  const probe = Buffer.allocUnsafe(1);
  if (read(probe, pos) === 0) return decide(decoder.end()) ?? null;
  throw new SessionHeaderScanLimitError(path, max);
}

// ---------------------------------------------------------------------------------------
// Tail scan

export interface ScanTailOptions {
  /** Read at most this many bytes from the end (default 1 MiB). */
  maxBytes?: number;
  /** Bytes per backwards read (default 64 KiB). */
  blockSize?: number;
  stats?: ReadStats;
}

export interface TailScan {
  /** True when a `session_info` entry was found; `name` is then its trimmed name (or undefined: cleared). */
  nameFound: boolean;
  name?: string;
  /** True when a user or assistant message was found. */
  messageTimeFound: boolean;
  /**
   * The time in ms of the last user/assistant message in file order (as the listing times a
   * message: `message.timestamp` when a number, else `new Date(entry.timestamp)`). Not
   * necessarily the latest time: see `maxMessageTime`.
   */
  lastMessageTime?: number;
  /**
   * The greatest user/assistant message time among the lines read. pi's listing takes the
   * greatest over the whole file (its `modified`, when positive), which only a scan that
   * `reachedStart` has seen; otherwise an earlier message, not read, may have a later time.
   */
  maxMessageTime?: number;
  /** The scan reached the start of the file, so "not found" is definitive. */
  reachedStart: boolean;
  /**
   * `nameFound`/`name` and `lastMessageTime` are definitive (both found, or the whole file was
   * scanned). Says nothing of `maxMessageTime`, which is definitive only with `reachedStart`.
   */
  exhaustive: boolean;
  bytesRead: number;
}

const isWhitespaceByte = (b: number | undefined): boolean => b === 32 || b === 9 || b === 10 || b === 13;

/** Whether a line's first and last bytes other than JSON whitespace are `{` and `}`. */
function objectShaped(line: Buffer): boolean {
  let first = 0;
  while (isWhitespaceByte(line[first])) first++;
  let last = line.length - 1;
  while (last > first && isWhitespaceByte(line[last])) last--;
  return last > first && line[first] === 0x7b && line[last] === 0x7d;
}

/**
 * {@link messageActivityTime}, but throwing where pi's `new Date(entry.timestamp)` throws (an
 * object whose own `toString` is not a function, also inside an array): pi's listing then
 * skips the whole file.
 */
export function messageActivityTimeOrThrow(entry: Record<string, unknown>): number | undefined {
  if (entry.type !== "message") return undefined;
  const message = entry.message as { role?: unknown; timestamp?: unknown } | null | undefined;
  if (typeof message !== "object" || message === null) return undefined;
  if (typeof message.role !== "string" || !("content" in message)) return undefined;
  if (message.role !== "user" && message.role !== "assistant") return undefined;
  if (typeof message.timestamp === "number") return message.timestamp;
  // pi's `new Date(entry.timestamp)`, whatever its type: a number is a time (clipped to the
  // Date range), `true` is 1, `null` and `false` are 0, an array is parsed as its joined
  // string, a missing one is NaN.
  const t = new Date(entry.timestamp as string).getTime();
  return Number.isNaN(t) ? undefined : t;
}

/**
 * Time of a user/assistant message entry as pi's listing computes it (`message.timestamp` when
 * a number, else `new Date(entry.timestamp)` of any type, when valid); undefined otherwise,
 * and where `new Date` throws (see {@link messageActivityTimeOrThrow}).
 */
export function messageActivityTime(entry: Record<string, unknown>): number | undefined {
  try {
    return messageActivityTimeOrThrow(entry);
  } catch {
    return undefined;
  }
}

/** The trimmed name of a `session_info` entry; empty or missing clears it (undefined). */
export function sessionInfoName(entry: Record<string, unknown>): string | undefined {
  const name = entry.name;
  if (typeof name !== "string") return undefined;
  const trimmed = name.trim();
  return trimmed === "" ? undefined : trimmed;
}

/**
 * Reads backwards from the end of the file, block by block, to find the latest `session_info`
 * (the session name, read as the listing reads it: trimmed, and an empty or non-string one
 * clears it) and the last user/assistant message time in file order without reading the
 * middle of the file. Stops when both are found, at the start of the file, or after
 * `maxBytes`. The greatest message time (pi's `modified`) needs every line: `maxMessageTime`
 * is over the lines read, the whole file only when `reachedStart`.
 */
export async function scanTail(path: string, opts: ScanTailOptions = {}): Promise<TailScan> {
  let handle: FileHandle;
  let size: number;
  try {
    let st: Stats;
    ({ handle, stats: st } = await openRegularFile(path));
    size = st.size;
  } catch (error) {
    if (isEnoent(error)) throw new SessionFileNotFoundError(path);
    throw error;
  }
  try {
    const max = opts.maxBytes ?? HEADER_SCAN_MAX_BYTES;
    const blockSize = opts.blockSize ?? 64 * 1024;
    const result: TailScan = {
      nameFound: false,
      messageTimeFound: false,
      reachedStart: false,
      exhaustive: false,
      bytesRead: 0,
    };
    // `carry` holds the bytes of a line cut by the start of the current block.
    let carry: Buffer = Buffer.alloc(0);
    let pos = size;
    const consider = (line: Buffer): boolean => {
      if (line.length === 0) return false;
      // Cheap prefilter: only lines that can matter are parsed. A type can only be spelt
      // otherwise with `\u` escapes (no other escape stands for a letter), which the listing
      // decodes: such lines are parsed too.
      if (line.indexOf('"session_info"') < 0 && line.indexOf('"message"') < 0 && line.indexOf("\\u") < 0)
        return false;
      // Only a line from `{` to `}` can be an entry; a torn one is not parsed (nor thrown at).
      if (!objectShaped(line)) return false;
      let value: unknown;
      try {
        value = JSON.parse(line.toString("utf8"));
      } catch {
        return false;
      }
      if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
      const entry = value as Record<string, unknown>;
      if (!result.nameFound && entry.type === "session_info") {
        result.nameFound = true;
        const name = sessionInfoName(entry);
        if (name !== undefined) result.name = name;
      }
      const t = messageActivityTime(entry);
      if (t !== undefined) {
        if (!result.messageTimeFound) {
          result.messageTimeFound = true;
          result.lastMessageTime = t;
        }
        if (result.maxMessageTime === undefined || t > result.maxMessageTime) result.maxMessageTime = t;
      }
      return result.nameFound && result.messageTimeFound;
    };
    while (pos > 0 && result.bytesRead < max) {
      const want = Math.min(blockSize, pos, max - result.bytesRead);
      const buf = Buffer.allocUnsafe(want);
      const { bytesRead } = await handle.read(buf, 0, want, pos - want);
      if (bytesRead !== want) break; // the file shrank under us; stop, not exhaustive
      pos -= want;
      result.bytesRead += want;
      if (opts.stats) opts.stats.bytesRead += want;
      let data = carry.length > 0 ? Buffer.concat([buf, carry]) : buf;
      // Complete lines are those after the first `\n` of the block (or all, at file start).
      let end = data.length;
      let done = false;
      while (end > 0) {
        // (A negative start would make lastIndexOf search from the end again.)
        const nl = data.lastIndexOf(10, end - 1);
        if (nl < 0) break;
        if (consider(data.subarray(nl + 1, end))) {
          done = true;
          break;
        }
        end = nl;
      }
      if (done) {
        result.exhaustive = true;
        return result;
      }
      data = data.subarray(0, end);
      if (pos === 0) {
        if (consider(data)) result.exhaustive = true;
        carry = Buffer.alloc(0);
        break;
      }
      carry = Buffer.from(data);
    }
    if (pos === 0) {
      result.reachedStart = true;
      result.exhaustive = true;
    }
    return result;
  } finally {
    await handle.close();
  }
}
