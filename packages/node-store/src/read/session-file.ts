/**
 * Reading a whole session file into records: 1 MiB reads through the `format` codec, never one
 * big string, so files beyond V8's string limit work. Use it to load a session; use
 * `streamSessionRecords` when the records need not all be held at once.
 *
 * Reading never writes: a torn tail is reported (`tornTail`), repairing it is the writer's job.
 */
import { type Stats, closeSync } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import type { Diagnostic, SessionRecord } from "@pi-session/format";
import { SessionFileNotFoundError, errorCode } from "../errors.js";
import { type Reader, handleReads, runReader, runReaderSync } from "../fs/positional-reads.js";
import { openRegularFile, openRegularFileSync } from "../fs/regular-files.js";
import { type DecoderStart, RecordDecoder, type TornTail, pushAll, withFile } from "./codec.js";
import { decodeRange } from "./decode-range.js";
import { READ_CHUNK_SIZE, type ReadStats } from "./read-options.js";

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
  if (errorCode(error) === "ENOENT") {
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

/** The whole-file read, for either kind of I/O: every chunk through the codec, then the contents. */
function* wholeFile(path: string, opts: ReadSessionOptions, st: Stats): Reader<SessionFileContents> {
  const decoder = new RecordDecoder(decoderOptionsOf(opts));
  const records: SessionRecord[] = [];
  const size = yield* decodeRange(
    decoder,
    { chunkSize: opts.chunkSize ?? READ_CHUNK_SIZE, stats: opts.stats },
    (chunk) => pushAll(records, chunk),
  );
  return finish(path, decoder, records, size, st.mtimeMs, st.ino);
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
    return await runReader(wholeFile(path, opts, st), handleReads(handle), opts.signal);
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
    return runReaderSync(wholeFile(path, opts, st), fd);
  } finally {
    closeSync(fd);
  }
}
