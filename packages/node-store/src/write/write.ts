/**
 * Writing session files without ever losing a line.
 *
 * - {@link createSessionFile}: exclusive create (`wx`) in one write; never a second header.
 * - {@link SessionWriter}: appends, one `write` per entry, under a cross-process lock; entries
 *   other processes appended since this writer last looked are read first and handed to the
 *   caller; a failed write is cut back (unless someone else appended meanwhile: then its bytes
 *   are read as foreign next time); a deleted, replaced or truncated file is refused.
 * - {@link repairTornTail}: a last line without `\n` is completed when it is whole JSON,
 *   otherwise copied to a sidecar (fsynced) and only then cut from the file.
 * - {@link rewriteSessionFile}: temp file in the same directory, fsync, optional backup,
 *   rename, fsync the directory; raw (malformed) records go back where they were.
 *
 * Everything here is synchronous, like pi's own writes (`appendFileSync`), so the SDK can keep
 * pi's synchronous `SessionManager` API. Every function accepts an `fs` override (a subset of
 * `node:fs`) so tests can inject failures.
 */
import * as nodeFs from "node:fs";
import { hostname as osHostname } from "node:os";
import { basename, dirname, join } from "node:path";
import {
  type JsonRecord,
  type RawRecord,
  type SessionRecord,
  serializeRecords,
  stringifyEntry,
} from "@pi-session/format";
import {
  SessionFileChangedError,
  SessionFileExistsError,
  SessionFileNotFoundError,
  SessionFileNotRegularError,
} from "../errors.js";
import { type FdCounts, fstatCounts } from "../fs/file-stat.js";
import {
  type HeldLock,
  type LockOptions,
  acquireLockFile,
  lockPathOf,
  ownStartTime,
  processIsGone,
  registerLease,
  resolveSessionPath,
  sleepSync,
  unregisterLease,
} from "../lock/lock.js";
import { nonRegularKind, readRecordsFromFd } from "../read/read.js";

/** The `node:fs` functions the writers use; override some of them to inject faults. */
export interface WriterFs {
  openSync: typeof nodeFs.openSync;
  closeSync: typeof nodeFs.closeSync;
  writeSync: (
    fd: number,
    buffer: Uint8Array,
    offset?: number,
    length?: number,
    position?: number | null,
  ) => number;
  readSync: (
    fd: number,
    buffer: Uint8Array,
    offset: number,
    length: number,
    position: number | null,
  ) => number;
  fsyncSync: typeof nodeFs.fsyncSync;
  fstatSync: typeof nodeFs.fstatSync;
  statSync: typeof nodeFs.statSync;
  ftruncateSync: typeof nodeFs.ftruncateSync;
  fchmodSync: typeof nodeFs.fchmodSync;
  fchownSync: typeof nodeFs.fchownSync;
  renameSync: typeof nodeFs.renameSync;
  unlinkSync: typeof nodeFs.unlinkSync;
  linkSync: typeof nodeFs.linkSync;
  copyFileSync: typeof nodeFs.copyFileSync;
  mkdirSync: typeof nodeFs.mkdirSync;
}

const realFs: WriterFs = {
  openSync: nodeFs.openSync,
  closeSync: nodeFs.closeSync,
  writeSync: (fd, buffer, offset, length, position) => nodeFs.writeSync(fd, buffer, offset, length, position),
  readSync: (fd, buffer, offset, length, position) => nodeFs.readSync(fd, buffer, offset, length, position),
  fsyncSync: nodeFs.fsyncSync,
  fstatSync: nodeFs.fstatSync,
  statSync: nodeFs.statSync,
  ftruncateSync: nodeFs.ftruncateSync,
  fchmodSync: nodeFs.fchmodSync,
  fchownSync: nodeFs.fchownSync,
  renameSync: nodeFs.renameSync,
  unlinkSync: nodeFs.unlinkSync,
  linkSync: nodeFs.linkSync,
  copyFileSync: nodeFs.copyFileSync,
  mkdirSync: nodeFs.mkdirSync,
};

/** Read-write, every write at the end, never creates the file (unlike `"a+"`). */
const APPEND_NO_CREATE = nodeFs.constants.O_RDWR | nodeFs.constants.O_APPEND;

function fsWith(overrides?: Partial<WriterFs>): WriterFs {
  return overrides ? { ...realFs, ...overrides } : realFs;
}

/** `none` (default, like pi): no fsync on append. `fsync`: fsync after every append. */
export type Durability = "none" | "fsync";

export interface FsOption {
  /** Override `node:fs` functions (fault injection in tests). */
  fs?: Partial<WriterFs>;
}

function codeOf(error: unknown): unknown {
  return (error as { code?: unknown } | null)?.code;
}

/** Writes all of `bytes` at the fd's position (append mode: the end); normally one `write`. */
function writeAll(fs: WriterFs, fd: number, bytes: Uint8Array): void {
  let done = 0;
  while (done < bytes.length) {
    const n = fs.writeSync(fd, bytes, done, bytes.length - done, null);
    if (n <= 0) throw Object.assign(new Error("write returned 0 bytes"), { code: "EIO" });
    done += n;
  }
}

/**
 * One reusable encode buffer for appends (everything here is synchronous, so no two writes
 * can share it at once): a line is encoded into it and written from it, so an append
 * allocates nothing per entry beyond its JSON text (a fresh `Uint8Array` per entry was a
 * measurable share of the append cost, mostly through GC).
 */
let lineBuf: Buffer = Buffer.allocUnsafe(64 * 1024);
/** Lines longer than this (in UTF-16 units) are encoded into their own buffer. */
const LINE_BUF_MAX = 4 * 1024 * 1024;
/** Bytes read at a time when looking for where the last append's lines landed. */
const PLACE_CHUNK = 1 << 20;

/**
 * The bytes of one entry's line (its `stringifyEntry` text + `\n`, exactly `encodeLine`'s
 * bytes), as a view that is only valid until the next call.
 */
function encodeLineShared(json: string): Uint8Array {
  // A UTF-16 unit is at most 3 UTF-8 bytes (a surrogate pair: 4 bytes for 2 units).
  const worst = json.length * 3 + 1;
  if (worst > lineBuf.length) {
    if (worst > LINE_BUF_MAX) return Buffer.from(`${json}\n`, "utf8");
    lineBuf = Buffer.allocUnsafe(Math.max(worst, lineBuf.length * 2));
  }
  const n = lineBuf.write(json, 0, "utf8");
  lineBuf[n] = 10;
  return lineBuf.subarray(0, n + 1);
}

/** fsync a directory so a create, rename or unlink in it is durable (best effort off Linux). */
export function fsyncDir(dir: string, fs: WriterFs = realFs): void {
  let fd: number;
  try {
    fd = fs.openSync(dir, "r");
  } catch {
    return;
  }
  try {
    fs.fsyncSync(fd);
  } catch (error) {
    // Some platforms/filesystems refuse fsync on a directory; nothing more can be done.
    if (codeOf(error) !== "EINVAL" && codeOf(error) !== "EPERM" && codeOf(error) !== "EISDIR") throw error;
  } finally {
    fs.closeSync(fd);
  }
}

function fileTimestamp(date: Date): string {
  return date.toISOString().replace(/[:.]/g, "-");
}

/** Concatenates entries as file bytes, one line each. */
export function encodeEntries(entries: readonly object[]): Uint8Array {
  return serializeRecords(entries.map(asJsonRecord));
}

function asJsonRecord(value: object): JsonRecord {
  return {
    kind: "json",
    value: value as Record<string, unknown>,
    line: 0,
    offset: 0,
    byteLength: 0,
    terminated: true,
  };
}

// ---------------------------------------------------------------------------------------
// Create

export interface CreateSessionFileOptions extends FsOption {
  /** `fsync` also syncs the file and its directory before returning. Default `none`. */
  durability?: Durability;
}

export interface CreateResult {
  path: string;
  /** Bytes written. */
  size: number;
}

/**
 * Creates a session file with `lines` (header first), failing with
 * {@link SessionFileExistsError} if the file already exists. Parent directories are created.
 * Published atomically: written to a temp file beside it, fsynced, then hard-linked into place
 * (a link never replaces an existing file) and the temp name removed, so a process killed
 * meanwhile leaves no truncated session, only a temp file that the next writer in the
 * directory removes (see {@link removeDeadTempFiles}). Where the filesystem has no hard links,
 * the file is created exclusively (`wx`) and written in one write instead (not atomic).
 */
export function createSessionFile(
  path: string,
  lines: readonly object[],
  opts: CreateSessionFileOptions = {},
): CreateResult {
  const fs = fsWith(opts.fs);
  const bytes = encodeEntries(lines);
  // Through a dangling link: the file it points to (as the other writers do).
  const file = resolveSessionPath(path);
  const dir = dirname(file);
  fs.mkdirSync(dir, { recursive: true });
  removeDeadTemps(dir, fs);
  // Checked first, so a file that exists costs no temp file (the link checks again).
  if (exists(fs, file)) throw new SessionFileExistsError(path);
  const tmp = tempPathFor(file);
  const fd = fs.openSync(tmp, "wx");
  try {
    writeAll(fs, fd, bytes);
    // Always: once linked, the name must never stand for bytes not on disk yet.
    fs.fsyncSync(fd);
  } catch (error) {
    fs.closeSync(fd);
    unlinkQuietly(fs, tmp);
    throw error;
  }
  fs.closeSync(fd);
  try {
    fs.linkSync(tmp, file);
  } catch (error) {
    const code = codeOf(error);
    if (!NO_HARD_LINKS.has(code as string)) {
      unlinkQuietly(fs, tmp);
      if (code === "EEXIST") throw new SessionFileExistsError(path);
      throw error;
    }
    unlinkQuietly(fs, tmp);
    createInOneWrite(fs, path, file, bytes, opts.durability === "fsync");
    return { path, size: bytes.length };
  }
  // Killed before this, the temp name is left as a second link to the session: harmless, and
  // removed by the next writer (its writer is gone).
  unlinkQuietly(fs, tmp);
  if (opts.durability === "fsync") fsyncDir(dir, fs);
  return { path, size: bytes.length };
}

/** Codes of a `link` on a filesystem that has no hard links (FAT, some network filesystems). */
const NO_HARD_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS"]);

/** The fallback of {@link createSessionFile}: exclusive create and one write (removed on failure). */
function createInOneWrite(fs: WriterFs, path: string, file: string, bytes: Uint8Array, sync: boolean): void {
  let fd: number;
  try {
    fd = fs.openSync(file, "wx");
  } catch (error) {
    if (codeOf(error) === "EEXIST") throw new SessionFileExistsError(path);
    throw error;
  }
  try {
    writeAll(fs, fd, bytes);
    if (sync) fs.fsyncSync(fd);
  } catch (error) {
    fs.closeSync(fd);
    unlinkQuietly(fs, file);
    throw error;
  }
  fs.closeSync(fd);
  if (sync) fsyncDir(dirname(file), fs);
}

function unlinkQuietly(fs: WriterFs, path: string): void {
  try {
    fs.unlinkSync(path);
  } catch {
    // Gone already, or it cannot be removed: nothing else to do.
  }
}

// ---------------------------------------------------------------------------------------
// Temp files, and the ones dead writers left

/** A short tag of this host's name (temp names say whose they are). */
let hostTagValue: string | undefined;
function hostTag(): string {
  if (hostTagValue === undefined) {
    const name = osHostname();
    let h = 0x811c9dc5;
    for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
    hostTagValue = (h >>> 0).toString(16).padStart(8, "0");
  }
  return hostTagValue;
}

/**
 * A temp file beside `file`: `.<name>.tmp-<pid>-<start>-<host>-<random>`. The pid, the
 * process start time (Linux; `x` where it cannot be read) and a tag of the host name let a
 * later writer tell that the process that made it is gone (see {@link removeDeadTempFiles}).
 */
function tempPathFor(file: string): string {
  const rand = Math.random().toString(36).slice(2, 10) || "0";
  const start = ownStartTime() ?? "x";
  return join(dirname(file), `.${basename(file)}.tmp-${process.pid}-${start}-${hostTag()}-${rand}`);
}

const TEMP_NAME = /^\..+\.tmp-(\d+)-(\d+|x)-([0-9a-f]{8})-[0-9a-z]+$/;
/** The temp names of earlier versions: `.<name>.jsonl.tmp-<pid>-<random>` (no start, no host). */
const LEGACY_TEMP_NAME = /^\..+\.jsonl\.tmp-(\d+)-[0-9a-z]{1,8}$/;
/** A legacy temp file is also left alone until this old (no live writer holds a lock that long). */
const LEGACY_TEMP_MIN_AGE_MS = 10 * 60_000;

/**
 * Removes, from `dir`, the temp files (of rewrites and creates) whose writer is provably gone:
 * made on this host by a pid that no longer exists or now belongs to a process with another
 * start time. A live writer's temp file is never removed, nor one made on another host (a
 * shared filesystem), nor one whose start time was not recorded and whose pid is alive. Temp
 * names of earlier versions (no start time, no host) are removed only when their pid is gone
 * and they are older than ten minutes. Best effort: failures are ignored. Returns the paths
 * removed (with `dryRun`, the paths that would be). Every writer here calls it on the directory
 * of the file it writes (rewrites, creates, appenders when they open, torn-tail repairs).
 */
export function removeDeadTempFiles(dir: string, opts: RemoveDeadTempFilesOptions = {}): string[] {
  return removeDeadTemps(dir, fsWith(opts.fs), opts.dryRun === true);
}

export interface RemoveDeadTempFilesOptions extends FsOption {
  /** Only list what would be removed. */
  dryRun?: boolean;
}

function removeDeadTemps(dir: string, fs: WriterFs, dryRun = false): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = nodeFs.readdirSync(dir);
  } catch {
    return removed;
  }
  for (const name of names) {
    if (!name.startsWith(".") || !name.includes(".tmp-")) continue;
    const path = join(dir, name);
    const current = TEMP_NAME.exec(name);
    let gone = false;
    if (current) {
      const [, pid, start, host] = current;
      gone = host === hostTag() && processIsGone(Number(pid), start === "x" ? undefined : start);
    } else {
      const legacy = LEGACY_TEMP_NAME.exec(name);
      if (!legacy) continue;
      gone = processIsGone(Number(legacy[1]), undefined);
      if (gone) {
        try {
          gone = Date.now() - fs.statSync(path).mtimeMs > LEGACY_TEMP_MIN_AGE_MS;
        } catch {
          gone = false;
        }
      }
    }
    if (!gone) continue;
    try {
      // A regular file only (never a directory or a link someone put there under that name).
      if (!nodeFs.lstatSync(path).isFile()) continue;
      if (!dryRun) fs.unlinkSync(path);
      removed.push(path);
    } catch {
      // Removed by another writer meanwhile, or not ours to remove.
    }
  }
  return removed;
}

/**
 * Opens an existing session file read-write for appending (never creating it), only if it is
 * a regular file: a `stat` first (a FIFO or device is not opened), then an `fstat` of the
 * descriptor (a FIFO put there in between is refused before anything is read or written; an
 * O_RDWR open of a FIFO does not block).
 */
function openSessionForWriting(fs: WriterFs, path: string, file: string): number {
  const before = fs.statSync(file);
  if (!before.isFile()) throw new SessionFileNotRegularError(path, nonRegularKind(before));
  const fd = fs.openSync(file, APPEND_NO_CREATE);
  let st: nodeFs.Stats;
  try {
    st = fs.fstatSync(fd);
  } catch (error) {
    fs.closeSync(fd);
    throw error;
  }
  if (!st.isFile()) {
    fs.closeSync(fd);
    throw new SessionFileNotRegularError(path, nonRegularKind(st));
  }
  return fd;
}

// ---------------------------------------------------------------------------------------
// Torn tail

export interface TornTailRepair {
  path: string;
  /**
   * `none`: the file was empty or ended with `\n`. `completed`: the last line was a whole JSON
   * object (or blank) and got its `\n`. `quarantined`: the fragment was copied to `sidecarPath`
   * and cut from the file.
   */
  action: "none" | "completed" | "quarantined";
  /** File size before the repair. */
  sizeBefore: number;
  /** File size after the repair. */
  size: number;
  /** Byte offset of the torn line (when there was one). */
  offset?: number;
  /** Bytes of the torn line. */
  byteLength?: number;
  /** Where a fragment was saved. */
  sidecarPath?: string;
}

export interface RepairOptions extends FsOption {
  /** Take the session lock while repairing (default true). */
  lock?: boolean;
  lockOptions?: LockOptions;
  /** Clock for the sidecar name. */
  now?: () => Date;
}

/** Finds the start of the last line of an fd of `size` bytes (after its last `\n`). */
function lastLineStart(fs: WriterFs, fd: number, size: number): number {
  const block = 64 * 1024;
  let end = size;
  const buf = Buffer.allocUnsafe(block);
  while (end > 0) {
    const start = Math.max(0, end - block);
    const n = fs.readSync(fd, buf, 0, end - start, start);
    const nl = buf.subarray(0, n).lastIndexOf(10);
    if (nl >= 0) return start + nl + 1;
    end = start;
  }
  return 0;
}

function isWholeJsonObject(bytes: Buffer, atFileStart: boolean): boolean {
  let text = bytes.toString("utf8");
  if (atFileStart && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.trim() === "") return true;
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === "object" && v !== null && !Array.isArray(v);
  } catch {
    return false;
  }
}

function sidecarPathFor(fs: WriterFs, path: string, now: Date): string {
  const base = `${path}.torn-${fileTimestamp(now)}`;
  let candidate = base;
  for (let i = 1; ; i++) {
    try {
      fs.statSync(candidate);
    } catch (error) {
      if (codeOf(error) === "ENOENT") return candidate;
      throw error;
    }
    candidate = `${base}-${i}`;
  }
}

/**
 * The repair itself, on an open read-write O_APPEND fd; the caller holds the lock. `path` is
 * the name reported, `file` the resolved one the sidecar is put next to. The returned `size`
 * ends with a `\n` (or is 0): what is known may end there.
 */
function repairOpenFile(
  fs: WriterFs,
  path: string,
  file: string,
  fd: number,
  now: () => Date,
  fsyncAfter: boolean,
  attempts = 3,
): TornTailRepair {
  const size = fs.fstatSync(fd).size;
  if (size === 0) return { path, action: "none", sizeBefore: 0, size: 0 };
  const last = Buffer.allocUnsafe(1);
  fs.readSync(fd, last, 0, 1, size - 1);
  if (last[0] === 10) return { path, action: "none", sizeBefore: size, size };
  const start = lastLineStart(fs, fd, size);
  const fragment = Buffer.allocUnsafe(size - start);
  let got = 0;
  while (got < fragment.length) {
    const n = fs.readSync(fd, fragment, got, fragment.length - got, start + got);
    if (n === 0) break;
    got += n;
  }
  const base = { path, sizeBefore: size, offset: start, byteLength: fragment.length };
  if (isWholeJsonObject(fragment, start === 0)) {
    // The fd is O_APPEND: the `\n` goes to the end of the file, wherever that is by now, never
    // over bytes a writer that takes no lock (pi) appended since `size` was read.
    fs.writeSync(fd, Buffer.from([10]), 0, 1, null);
    if (fsyncAfter) fs.fsyncSync(fd);
    const after = fs.fstatSync(fd).size;
    if (after === size + 1) return { ...base, action: "completed", size: after };
    // Such a writer did append meanwhile, before our `\n`: the "torn" line was its append in
    // flight (now ended) or got its line glued on. What is known can then end only at a line
    // end past its bytes, not at `size + 1` (the appender would read from the wrong offset and
    // miss its lines): look at the new tail, where our `\n` ended a line or left a blank one.
    if (attempts <= 1) throw new SessionFileChangedError(path, "appended");
    const next = repairOpenFile(fs, path, file, fd, now, fsyncAfter, attempts - 1);
    return next.action === "none" ? { ...base, action: "completed", size: next.size } : next;
  }
  // Save the fragment first (durably), only then cut it from the session.
  const sidecarPath = sidecarPathFor(fs, file, now());
  const sfd = fs.openSync(sidecarPath, "wx");
  try {
    writeAll(fs, sfd, fragment);
    fs.fsyncSync(sfd);
  } catch (error) {
    fs.closeSync(sfd);
    try {
      fs.unlinkSync(sidecarPath);
    } catch {
      // ignore
    }
    throw error;
  }
  fs.closeSync(sfd);
  // The fragment may be an append still being written by a process that takes no lock (pi):
  // a read is not atomic with a write. If the file grew while the fragment was saved, cut
  // nothing: its bytes are still in the session, so the copy goes, and the new tail is looked
  // at (a few times; a file that keeps growing is refused rather than cut).
  // The directory is synced first, so the check is the last thing before the cut.
  fsyncDir(dirname(sidecarPath), fs);
  if (fs.fstatSync(fd).size !== size) {
    fs.unlinkSync(sidecarPath);
    if (attempts <= 1) throw new SessionFileChangedError(path, "appended");
    return repairOpenFile(fs, path, file, fd, now, fsyncAfter, attempts - 1);
  }
  fs.ftruncateSync(fd, start);
  if (fsyncAfter) fs.fsyncSync(fd);
  return { ...base, action: "quarantined", size: start, sidecarPath };
}

/**
 * Repairs a torn tail (see {@link TornTailRepair}); never throws a byte away. Throws
 * {@link SessionFileNotFoundError} for a missing file.
 */
export function repairTornTail(path: string, opts: RepairOptions = {}): TornTailRepair {
  const fs = fsWith(opts.fs);
  const now = opts.now ?? (() => new Date());
  const file = resolveSessionPath(path);
  const run = (): TornTailRepair => {
    let fd: number;
    try {
      // O_APPEND, as the appender's: a completing `\n` can only go to the end (see repairOpenFile).
      fd = openSessionForWriting(fs, path, file);
    } catch (error) {
      if (codeOf(error) === "ENOENT") throw new SessionFileNotFoundError(path);
      throw error;
    }
    removeDeadTemps(dirname(file), fs);
    try {
      return repairOpenFile(fs, path, file, fd, now, true);
    } finally {
      fs.closeSync(fd);
    }
  };
  if (opts.lock === false) return run();
  const lock = acquireLockFile(lockPathOf(file), opts.lockOptions);
  try {
    return run();
  } finally {
    lock.release();
  }
}

// ---------------------------------------------------------------------------------------
// Appender

/** Records another process appended, as the appender found them. */
export interface ForeignEntries {
  /** Every record in the new bytes (JSON and raw), in file order. */
  records: SessionRecord[];
  /**
   * Byte range they came from. It starts at this writer's last append instead of after it
   * when another writer's lines landed before or among that append's (its own lines are left
   * out of `records`).
   */
  fromOffset: number;
  toOffset: number;
  /** A torn tail found (and repaired) while reading them. */
  repair?: TornTailRepair;
}

export interface SessionWriterOptions extends FsOption {
  /** Default `none` (like pi); `fsync` syncs the file after every append. */
  durability?: Durability;
  /** Serialize appends across processes with `<file>.lock` (default true; see `lockPathFor`). */
  lock?: boolean;
  lockOptions?: LockOptions;
  /**
   * Called, under the lock and before anything is written, with the records other processes
   * appended since this writer last looked. The caller can absorb them (index them, keep ids
   * unique); to also change what is written (re-parent), pass a function to {@link SessionWriter.append}.
   */
  onForeignEntries?: (records: SessionRecord[], info: ForeignEntries) => void;
  /**
   * The file size the caller last read (a line boundary). Bytes beyond it at the first append
   * are reported as foreign. Default: the size found when the writer opens. After a read that
   * ended in a torn tail, pass the tail's offset: a read is not atomic with another process's
   * write, so the tail may be an append still being written.
   */
  expectedSize?: number;
  /** Line count matching `expectedSize` (for line numbers of foreign records). Default: counted. */
  expectedLines?: number;
  /** Clock for sidecar names. */
  now?: () => Date;
  /**
   * Keep the lock this long (ms) after an append, so a burst of appends pays for the lock file
   * once (default 100; 0 releases after every append). The lease is given up by a timer, by
   * {@link SessionWriter.close}, when another lock user of this process asks for it, and after
   * `maxHoldMs` of continuous use (then the writer pauses briefly so waiting processes get a turn).
   */
  leaseMs?: number;
  /** Longest continuous hold of a lease (default 1000 ms). */
  maxHoldMs?: number;
}

/** Pause after giving up a long-held lease, longer than a waiter's longest backoff sleep. */
const LEASE_YIELD_MS = 25;

export interface AppendResult {
  /** Foreign records found before writing (already passed to `onForeignEntries`). */
  foreign: SessionRecord[];
  /**
   * Byte offset of the first entry written, as far as this writer can tell: a writer that takes
   * no lock may append between the check and the write (the next append sorts that out).
   */
  offset: number;
  /** File size after the append. */
  size: number;
  /** Entries written. */
  written: number;
  /** A torn tail repaired before writing. */
  repair?: TornTailRepair;
}

/** What to append: one entry, several, or a function of the foreign records returning them. */
export type AppendInput =
  | object
  | readonly object[]
  | ((foreign: SessionRecord[]) => object | readonly object[]);

function countLines(fs: WriterFs, fd: number, size: number): number {
  const block = 1024 * 1024;
  const buf = Buffer.allocUnsafe(block);
  let lines = 0;
  let pos = 0;
  while (pos < size) {
    const n = fs.readSync(fd, buf, 0, Math.min(block, size - pos), pos);
    if (n === 0) break;
    let i = buf.indexOf(10, 0);
    while (i >= 0 && i < n) {
      lines++;
      i = buf.indexOf(10, i + 1);
    }
    pos += n;
  }
  return lines;
}

/**
 * An appender for one existing session file. Open it with {@link SessionWriter.open}; call
 * {@link append} for each new entry (or batch); {@link close} when done.
 *
 * Each append, under the lock: checks the file is still the one it opened (same inode, not
 * shorter than what it knows; otherwise {@link SessionFileChangedError}); if it grew, repairs
 * a torn tail, reads the foreign records and hands them to the caller; then writes each entry
 * with one `write` (O_APPEND). If a write fails the file is cut back to its size before the
 * append (all or nothing) unless someone else appended meanwhile (then the next append reads
 * what is there as foreign), and the error is rethrown.
 */
export class SessionWriter {
  /** The path the writer was opened with (reported in errors). */
  readonly path: string;
  /** The file it names, resolved once (see `resolveSessionPath`): what is opened, locked, rewritten. */
  private readonly file: string;
  private readonly fs: WriterFs;
  private readonly opts: SessionWriterOptions;
  private fd: number | undefined;
  private ino: number;
  private known: number;
  private lines: number;
  /**
   * The last append, until a check of the file has placed it: its JSON texts (the first
   * `count` of `texts`, an array reused from append to append: emptying it by `length = 0`
   * made a new backing store per append, a measurable share of an append),
   * where it started and the line count there. Its writes went to the end of the file
   * (O_APPEND); a writer that takes no lock (pi) may have appended between our check and our
   * writes, and then our lines are not at `from`..`known` (see {@link placeLastAppend}).
   */
  private readonly last = { texts: [] as string[], count: 0, from: 0, lines: 0 };
  /** The repair done when the writer opened, if any. */
  readonly openRepair: TornTailRepair | undefined;

  private constructor(path: string, opts: SessionWriterOptions, fs: WriterFs) {
    this.path = path;
    const file = resolveSessionPath(path);
    this.file = file;
    this.opts = opts;
    this.fs = fs;
    const openIt = (): TornTailRepair | undefined => {
      let fd: number;
      try {
        fd = openSessionForWriting(fs, path, file);
      } catch (error) {
        if (codeOf(error) === "ENOENT") throw new SessionFileNotFoundError(path);
        throw error;
      }
      this.fd = fd;
      // The next writer of a session cleans up after the dead ones (killed mid-rewrite).
      removeDeadTemps(dirname(file), fs);
      const st = fs.fstatSync(fd);
      this.ino = st.ino;
      const expected = opts.expectedSize;
      if (expected !== undefined && expected < st.size) {
        // Foreign bytes already there; the first append reads them. Known state = caller's.
        this.known = expected;
        this.lines = opts.expectedLines ?? countLines(fs, fd, expected);
        return undefined;
      }
      if (expected !== undefined && expected > st.size) {
        fs.closeSync(fd);
        this.fd = undefined;
        throw new SessionFileChangedError(path, "truncated");
      }
      const repair = repairOpenFile(
        fs,
        path,
        file,
        fd,
        opts.now ?? (() => new Date()),
        opts.durability === "fsync",
      );
      this.known = repair.size;
      this.lines =
        opts.expectedLines !== undefined && repair.action === "none"
          ? opts.expectedLines
          : countLines(fs, fd, repair.size);
      return repair.action === "none" ? undefined : repair;
    };
    this.ino = 0;
    this.known = 0;
    this.lines = 0;
    // Checked before locking, so a missing file is reported as such (and no lock is left),
    // and a FIFO or device is never opened (only regular files are sessions).
    let st: nodeFs.Stats;
    try {
      st = fs.statSync(file);
    } catch (error) {
      if (codeOf(error) === "ENOENT") throw new SessionFileNotFoundError(path);
      throw error;
    }
    if (!st.isFile()) throw new SessionFileNotRegularError(path, nonRegularKind(st));
    this.openRepair = opts.lock === false ? openIt() : this.locked(openIt);
  }

  /** Opens an appender on an existing file (see {@link SessionWriterOptions}). */
  static open(path: string, opts: SessionWriterOptions = {}): SessionWriter {
    return new SessionWriter(path, opts, fsWith(opts.fs));
  }

  /** Bytes of the file this writer knows about (its own appends and absorbed foreign ones). */
  get size(): number {
    return this.known;
  }

  /** Lines of the file this writer knows about. */
  get lineCount(): number {
    return this.lines;
  }

  private lease: { lock: HeldLock; timer?: ReturnType<typeof setTimeout> } | undefined;
  private readonly dropLease = (): void => {
    const lease = this.lease;
    if (!lease) return;
    this.lease = undefined;
    if (lease.timer) clearTimeout(lease.timer);
    unregisterLease(lease.lock.path, this.dropLease);
    lease.lock.release();
  };

  /**
   * Runs `fn` under the lock. `fresh` tells whether the lock was just taken (then the file is
   * checked by path; under a continued lease checking the open fd is enough).
   */
  private locked<T>(fn: (fresh: boolean) => T): T {
    if (this.opts.lock === false) return fn(true);
    const leaseMs = this.opts.leaseMs ?? 100;
    const maxHold = this.opts.maxHoldMs ?? 1000;
    const now = this.opts.lockOptions?.now ?? Date.now;
    if (this.lease && now() - this.lease.lock.since > maxHold) {
      this.dropLease();
      sleepSync(LEASE_YIELD_MS);
    }
    let fresh = false;
    if (!this.lease) {
      const lock = acquireLockFile(lockPathOf(this.file), this.opts.lockOptions);
      this.lease = { lock };
      registerLease(lock.path, this.dropLease);
      fresh = true;
    }
    let ok = false;
    try {
      const result = fn(fresh);
      ok = true;
      return result;
    } finally {
      const lease = this.lease;
      if (!ok || leaseMs <= 0 || !lease) {
        this.dropLease();
      } else if (lease.timer) {
        lease.timer.refresh();
      } else {
        lease.timer = setTimeout(this.dropLease, leaseMs);
        // A lease must never keep the process alive.
        lease.timer.unref?.();
      }
    }
  }

  private requireFd(): number {
    if (this.fd === undefined) throw new Error(`SessionWriter is closed: ${this.path}`);
    return this.fd;
  }

  /**
   * Checks the file and reads foreign records; the caller holds the lock. By path when
   * `byPath` (the lock was just taken); otherwise `fstat` of the open file is enough: a link
   * count of 0 means it was deleted or replaced, which is then told apart by path.
   *
   * Why `fstat` and not a cheaper probe: measured on Linux 6.18 / ext4, an `fstat` of this file
   * before each write added about 2.5 µs per append (of another file: 0.8 µs), most likely
   * because asking for its times makes the next write take a fine-grained timestamp (multigrain
   * timestamps); a 2-byte `pread` at the known end added about 1 µs. But only a stat sees the
   * link count, so only it notices that the file was deleted or replaced between two appends
   * of one lease, and the SDK relies on that to write a deleted session back whole.
   */
  private absorb(byPath = true): { foreign: SessionRecord[]; repair?: TornTailRepair } {
    const fd = this.requireFd();
    // The real fs: fstatCounts (no fs.Stats on Node 20); an injected one: its fstatSync.
    let st: FdCounts | undefined = byPath
      ? undefined
      : this.fs.fstatSync === realFs.fstatSync
        ? fstatCounts(fd)
        : this.fs.fstatSync(fd);
    if (st === undefined || st.nlink === 0) {
      try {
        st = this.fs.statSync(this.file);
      } catch (error) {
        if (codeOf(error) === "ENOENT") throw new SessionFileChangedError(this.path, "deleted");
        throw error;
      }
    }
    if (st.ino !== this.ino) throw new SessionFileChangedError(this.path, "replaced");
    if (st.size < this.known) throw new SessionFileChangedError(this.path, "truncated");
    if (st.size === this.known) return { foreign: [] };
    let repair: TornTailRepair | undefined = repairOpenFile(
      this.fs,
      this.path,
      this.file,
      fd,
      this.opts.now ?? (() => new Date()),
      this.opts.durability === "fsync",
    );
    // The repair's size, also when it did nothing: the file may have grown again since `st`.
    const end = repair.size;
    if (repair.action === "none") repair = undefined;
    if (end < this.known) throw new SessionFileChangedError(this.path, "truncated");
    let from = this.known;
    let lines = this.lines;
    const ours = this.placeLastAppend(fd, end);
    if (ours) {
      from = this.last.from;
      lines = this.last.lines;
    }
    const read = readRecordsFromFd(fd, from, end, lines + 1);
    const records = ours ? read.records.filter((r) => !ours.has(r.offset)) : read.records;
    this.known = end;
    this.lines = lines + read.lines;
    const info: ForeignEntries = { records, fromOffset: from, toOffset: end };
    if (repair) info.repair = repair;
    if (records.length > 0 || repair) this.opts.onForeignEntries?.(records, info);
    return repair ? { foreign: records, repair } : { foreign: records };
  }

  private forgetLastAppend(): void {
    this.last.texts.length = 0;
    this.last.count = 0;
  }

  /**
   * On finding the file grown: did the last append land where this writer thinks? Its lines are
   * compared with the bytes from where it started. Undefined when they are there, in a row (the
   * other writer appended after us): the foreign bytes start at `known`. Otherwise the other
   * writer's lines came before or among ours and `known` points into the middle of the file:
   * then the offsets of our lines found in `last.from`..`end` (in order; a line of ours split
   * by another write is not found, and its pieces are read as foreign), so everything else
   * there is read as foreign. Costs nothing on an append that finds the file as it left it.
   */
  private placeLastAppend(fd: number, end: number): Set<number> | undefined {
    const { texts, count, from } = this.last;
    if (count === 0) return undefined;
    const lines = texts.slice(0, count).map((t) => Buffer.from(`${t}\n`, "utf8"));
    this.forgetLastAppend();
    const readAt = (buf: Buffer, length: number, position: number): number => {
      let got = 0;
      while (got < length) {
        const n = this.fs.readSync(fd, buf, got, length - got, position + got);
        if (n === 0) break;
        got += n;
      }
      return got;
    };
    // The usual case (the other writer appended after us): our bytes, in a row, at `from`. Only
    // they are read: what follows may be large, and is read as records by the caller.
    const oursLength = lines.reduce((n, l) => n + l.length, 0);
    if (end - from >= oursLength) {
      const head = Buffer.allocUnsafe(oursLength);
      if (readAt(head, oursLength, from) === oursLength && head.equals(Buffer.concat(lines, oursLength)))
        return undefined;
    }
    // Our lines, in order, line by line from `from`, in chunks (memory: a chunk plus the longest
    // line), stopping once all are found: the rest is foreign.
    const ours = new Set<number>();
    const chunk = Buffer.allocUnsafe(PLACE_CHUNK);
    let carry: Buffer = Buffer.alloc(0);
    let carryAt = from;
    let at = from;
    let j = 0;
    while (j < lines.length && at < end) {
      const n = readAt(chunk, Math.min(PLACE_CHUNK, end - at), at);
      if (n === 0) break;
      at += n;
      const buf = carry.length > 0 ? Buffer.concat([carry, chunk.subarray(0, n)]) : chunk.subarray(0, n);
      let start = 0;
      for (let nl = buf.indexOf(10); nl >= 0 && j < lines.length; nl = buf.indexOf(10, start)) {
        const line = lines[j] as Buffer;
        if (nl + 1 - start === line.length && buf.subarray(start, nl + 1).equals(line)) {
          ours.add(carryAt + start);
          j++;
        }
        start = nl + 1;
      }
      // The chunk buffer is reused: keep a copy of the unfinished line.
      carry = Buffer.from(buf.subarray(start));
      carryAt += start;
    }
    return ours;
  }

  /**
   * Reads (under the lock) what other processes appended since this writer last looked,
   * hands it to `onForeignEntries` and returns it, without writing anything.
   */
  syncForeign(): SessionRecord[] {
    return this.locked((fresh) => this.absorb(fresh).foreign);
  }

  /**
   * Appends one entry or several (one `write` each). When `input` is a function it is called
   * under the lock with the foreign records (possibly none) and returns the entries to write,
   * so the caller can re-parent them onto entries it has just learned about.
   */
  append(input: AppendInput): AppendResult {
    return this.locked((fresh) => {
      const { foreign, repair } = this.absorb(fresh);
      const produced = typeof input === "function" ? input(foreign) : input;
      const entries: readonly object[] = Array.isArray(produced) ? produced : [produced as object];
      const fd = this.requireFd();
      const before = this.known;
      // What the file would be after the bytes written so far (counted per write, so a failure
      // knows how many of ours reached the file): `writeAll` inlined.
      let size = before;
      const last = this.last;
      // A batch's texts are let go (a single entry's slot is simply overwritten).
      if (last.count > 1) last.texts.length = 0;
      last.count = 0;
      try {
        for (const entry of entries) {
          const json = stringifyEntry(entry);
          last.texts[last.count++] = json;
          const bytes = encodeLineShared(json);
          let done = 0;
          while (done < bytes.length) {
            const n = this.fs.writeSync(fd, bytes, done, bytes.length - done, null);
            if (n <= 0) throw Object.assign(new Error("write returned 0 bytes"), { code: "EIO" });
            done += n;
            size += n;
          }
        }
        if (this.opts.durability === "fsync" && entries.length > 0) this.fs.fsyncSync(fd);
      } catch (error) {
        // What the file holds after `before` is read as foreign next time (if not cut back).
        this.forgetLastAppend();
        this.cutBack(fd, before, size);
        throw error;
      }
      last.from = before;
      last.lines = this.lines;
      this.known = size;
      this.lines += entries.length;
      const result: AppendResult = { foreign, offset: before, size, written: entries.length };
      if (repair) result.repair = repair;
      return result;
    });
  }

  /**
   * After a failed append: all or nothing, but never at the cost of someone else's line. The
   * file is cut back to `before` only when it is exactly `before` plus the bytes this append
   * wrote (`expected`). Any other size means a writer that takes no lock (pi) appended between
   * our check and our writes (or a write failed after writing bytes it did not report), so the
   * bytes after `before` are not all ours and a cut could erase its line: then nothing is cut.
   * The writer still knows the file only up to `before`, so the next append reads everything
   * after it as foreign: their lines and ours that were complete are handed to the caller, a
   * torn piece of ours goes to a sidecar (see {@link repairTornTail}). Nothing is lost.
   */
  private cutBack(fd: number, before: number, expected: number): void {
    try {
      const size = this.fs.fstatSync(fd).size;
      if (size === expected && size > before) this.fs.ftruncateSync(fd, before);
    } catch {
      // The original error is the one to report; the next append looks at the file again.
    }
  }

  /**
   * Atomically replaces the file's content (see {@link rewriteSessionFile}) under this
   * writer's lock, after absorbing foreign entries (passed to `onForeignEntries`; when there
   * were some, the rewrite is refused with {@link SessionFileChangedError}, reason `appended`,
   * so the caller can merge them first; likewise when a writer that takes no lock appends
   * while the new file is written), then continues appending to the new file.
   */
  rewrite(
    records: readonly (SessionRecord | object)[],
    opts: Omit<RewriteOptions, "lock" | "fs" | "expectedSize"> = {},
  ): RewriteResult {
    return this.locked(() => {
      const { foreign } = this.absorb();
      if (foreign.length > 0) throw new SessionFileChangedError(this.path, "appended");
      const result = rewriteUnlocked(
        this.path,
        this.file,
        records,
        { ...opts, expectedSize: this.known },
        this.fs,
      );
      const fd = this.requireFd();
      this.fs.closeSync(fd);
      this.fd = this.fs.openSync(this.file, APPEND_NO_CREATE);
      const st = this.fs.fstatSync(this.fd);
      this.ino = st.ino;
      this.known = st.size;
      this.lines = countLines(this.fs, this.fd, st.size);
      this.forgetLastAppend();
      return result;
    });
  }

  /** Gives up a held lock lease now (appends take the lock again when needed). */
  releaseLock(): void {
    this.dropLease();
  }

  /** Releases the lock and closes the file; further appends throw. */
  close(): void {
    this.dropLease();
    if (this.fd !== undefined) {
      this.fs.closeSync(this.fd);
      this.fd = undefined;
    }
  }
}

/** Shorthand for {@link SessionWriter.open}. */
export function openAppender(path: string, opts: SessionWriterOptions = {}): SessionWriter {
  return SessionWriter.open(path, opts);
}

// ---------------------------------------------------------------------------------------
// Atomic rewrite

export interface RewriteOptions extends FsOption {
  /**
   * Keep the previous bytes: `true` → `<path>.bak-<timestamp>`, a string → that path. Made
   * with a hard link (copy when links are not possible) before the rename.
   */
  backup?: boolean | string;
  /** Take the session lock (default true). */
  lock?: boolean;
  lockOptions?: LockOptions;
  /** Refuse (SessionFileChangedError) unless the current file has exactly this size. */
  expectedSize?: number;
  /** Write a last record read without `\n` without one again (default false: completed). */
  keepTornTail?: boolean;
  /**
   * Move a torn fragment (a raw record read without `\n`: a crashed writer's last line) to
   * `<file>.torn-<timestamp>[-N]` instead of writing it back as a malformed line (default
   * false). The sidecar is written and fsynced (with its directory) before the size check and
   * the rename, and removed again when the rewrite fails before its rename: with
   * `expectedSize`, a fragment still being appended by a writer that takes no lock makes the
   * file grow, the rewrite refuse, and the fragment stay in the file (read it again, whole).
   */
  quarantineTornTail?: boolean;
  /** Clock for the backup and sidecar names. */
  now?: () => Date;
}

export interface RewriteResult {
  path: string;
  size: number;
  backupPath?: string;
  /** Where a torn fragment went (`quarantineTornTail`). */
  sidecarPath?: string;
}

function isSessionRecord(x: unknown): x is SessionRecord {
  if (typeof x !== "object" || x === null) return false;
  const r = x as Partial<SessionRecord> & Record<string, unknown>;
  if (typeof r.line !== "number" || typeof r.offset !== "number" || typeof r.terminated !== "boolean")
    return false;
  if (r.kind === "json") return typeof r.value === "object" && r.value !== null;
  if (r.kind === "raw") return r.bytes instanceof Uint8Array;
  return false;
}

/**
 * Keeps the current bytes of `path` under `backup` (a path) or `<path>.bak-<timestamp>`, by
 * hard link (copy where links are not possible); never replaces an existing file. A generated
 * name that is taken (a second backup in the same millisecond) gets `-1`, `-2`, ... as
 * sidecars do; a name given by the caller that is taken is an error (EEXIST). Returns
 * undefined when there is nothing to back up (the file does not exist yet).
 */
function exists(fs: WriterFs, path: string): boolean {
  try {
    fs.statSync(path);
    return true;
  } catch (error) {
    if (codeOf(error) === "ENOENT") return false;
    throw error;
  }
}

function makeBackup(fs: WriterFs, path: string, backup: true | string, now: () => Date): string | undefined {
  const base = typeof backup === "string" ? backup : `${path}.bak-${fileTimestamp(now())}`;
  for (let i = 0; ; i++) {
    const candidate = i === 0 ? base : `${base}-${i}`;
    try {
      try {
        fs.linkSync(path, candidate);
      } catch (error) {
        const code = codeOf(error);
        if (code === "ENOENT" || code === "EEXIST") throw error;
        // No hard links here (e.g. some network or FAT filesystems): copy instead.
        fs.copyFileSync(path, candidate, nodeFs.constants.COPYFILE_EXCL);
      }
      return candidate;
    } catch (error) {
      if (codeOf(error) === "ENOENT" && !exists(fs, path)) return undefined;
      if (codeOf(error) !== "EEXIST" || typeof backup === "string") throw error;
    }
  }
}

/**
 * Gives the new file (before a byte is written to it) the old one's permissions, so a rewrite
 * never widens who can read a session (a 0600 file would otherwise become 0644); as root, also
 * its owner and group (best effort). A mode that cannot be set fails the rewrite, unless the
 * file already has it (filesystems with fixed permissions).
 */
function keepOwnerAndMode(fs: WriterFs, fd: number, original: nodeFs.Stats): void {
  if (process.geteuid?.() === 0) {
    try {
      fs.fchownSync(fd, original.uid, original.gid);
    } catch {
      // Best effort: the mode below still keeps others out.
    }
  }
  // After the chown, which may clear set-id bits.
  const mode = original.mode & 0o7777;
  try {
    fs.fchmodSync(fd, mode);
  } catch (error) {
    if ((fs.fstatSync(fd).mode & 0o7777) !== mode) throw error;
  }
}

/** The rewrite; `path` is the name reported, `file` the resolved one that is replaced. */
function rewriteUnlocked(
  path: string,
  file: string,
  items: readonly (SessionRecord | object)[],
  opts: Omit<RewriteOptions, "fs">,
  fs: WriterFs,
): RewriteResult {
  const all = items.map((x) => (isSessionRecord(x) ? x : asJsonRecord(x)));
  const torn: RawRecord[] = [];
  const records = opts.quarantineTornTail
    ? all.filter((r) => {
        if (r.kind !== "raw" || r.terminated) return true;
        torn.push(r);
        return false;
      })
    : all;
  const bytes = serializeRecords(records, { keepTornTail: opts.keepTornTail === true });
  const expected = opts.expectedSize;
  /** The file's stat (undefined: missing); throws unless it still has the size the caller read. */
  const check = (): nodeFs.Stats | undefined => {
    let st: nodeFs.Stats | undefined;
    try {
      st = fs.statSync(file);
    } catch (error) {
      if (codeOf(error) !== "ENOENT") throw error;
      if (expected !== undefined) throw new SessionFileChangedError(path, "deleted");
      return undefined;
    }
    // Only a regular file is a session to replace (a FIFO or a directory there is left alone).
    if (!st.isFile()) throw new SessionFileNotRegularError(path, nonRegularKind(st));
    if (expected !== undefined && st.size !== expected) {
      throw new SessionFileChangedError(path, st.size < expected ? "truncated" : "appended");
    }
    return st;
  };
  const original = check();
  // Next to the real file: renaming over a link would replace the link, not the session.
  const dir = dirname(file);
  removeDeadTemps(dir, fs);
  const tmp = tempPathFor(file);
  let backupPath: string | undefined;
  let backupMade = false;
  let sidecarPath: string | undefined;
  let renamed = false;
  try {
    const fd = fs.openSync(tmp, "wx", 0o644);
    try {
      if (original) keepOwnerAndMode(fs, fd, original);
      writeAll(fs, fd, bytes);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    if (torn.length > 0) {
      // Kept (durably) before the session loses it; the directory sync below covers its name.
      const candidate = sidecarPathFor(fs, file, (opts.now ?? (() => new Date()))());
      // As private as the session (a 0600 file's fragment is not left readable by others).
      const sfd = fs.openSync(candidate, "wx", original ? original.mode & 0o777 : 0o644);
      sidecarPath = candidate;
      try {
        writeAll(fs, sfd, Buffer.concat(torn.map((r) => r.bytes)));
        fs.fsyncSync(sfd);
      } finally {
        fs.closeSync(sfd);
      }
      fsyncDir(dir, fs);
    }
    if (opts.backup) {
      backupPath = makeBackup(fs, file, opts.backup, opts.now ?? (() => new Date()));
      backupMade = backupPath !== undefined;
    }
    // Writing and syncing took a while: a writer that takes no lock (pi) may have appended
    // meanwhile, and the rename would drop its lines. So the size is checked again, last thing.
    if (expected !== undefined) check();
    fs.renameSync(tmp, file);
    renamed = true;
  } catch (error) {
    if (!renamed) {
      try {
        fs.unlinkSync(tmp);
      } catch {
        // The temp file may not exist.
      }
      if (backupMade && backupPath !== undefined) {
        try {
          fs.unlinkSync(backupPath);
        } catch {
          // ignore
        }
      }
      // The fragment is still in the file: its copy goes.
      if (sidecarPath !== undefined) {
        try {
          fs.unlinkSync(sidecarPath);
        } catch {
          // It may not have been created.
        }
      }
    }
    throw error;
  }
  fsyncDir(dir, fs);
  const result: RewriteResult = { path, size: bytes.length };
  if (backupPath !== undefined) result.backupPath = backupPath;
  if (sidecarPath !== undefined) result.sidecarPath = sidecarPath;
  return result;
}

/**
 * Atomically replaces a session file with `records` (records from the reader — raw ones are
 * written back byte for byte, where they were — or plain entry objects): temp file in the
 * same directory, fsync, optional backup, rename over, fsync the directory. On any failure
 * before the rename the original is untouched and the temp file is removed. Also creates
 * the file when it does not exist.
 */
export function rewriteSessionFile(
  path: string,
  records: readonly (SessionRecord | object)[],
  opts: RewriteOptions = {},
): RewriteResult {
  const fs = fsWith(opts.fs);
  const file = resolveSessionPath(path);
  if (opts.lock === false) return rewriteUnlocked(path, file, records, opts, fs);
  const lock = acquireLockFile(lockPathOf(file), opts.lockOptions);
  try {
    return rewriteUnlocked(path, file, records, opts, fs);
  } finally {
    lock.release();
  }
}
