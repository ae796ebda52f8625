/**
 * Torn-tail repair: completes a last line that is whole JSON, or moves a fragment to a sidecar
 * before cutting it. Use before the first append to a file another process may have left
 * half-written (the appender does, on open and before each append).
 */
import { dirname } from "node:path";
import { SessionFileChangedError, SessionFileNotFoundError, errorCode } from "../errors.js";
import { readFully, runReaderSync } from "../fs/positional-reads.js";
import { resolveSessionPath } from "../fs/session-path.js";
import {
  type FsOption,
  type WriterFs,
  fsWith,
  fsyncDir,
  openSessionForWriting,
  writeAll,
} from "../fs/writer-fs.js";
import { type LockOptions, acquireLockFile, lockPathOfResolved } from "../lock/lock.js";
import { sidecarPathFor } from "./companion-names.js";
import { removeDeadTemps } from "./temp-files.js";

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

/**
 * The repair itself, on an open read-write O_APPEND fd; the caller holds the lock. `path` is
 * the name reported, `file` the resolved one the sidecar is put next to. The returned `size`
 * ends with a `\n` (or is 0): what is known may end there.
 */
export function repairOpenFile(
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
  runReaderSync(readFully(fragment, fragment.length, start), fd, fs.readSync);
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
      if (errorCode(error) === "ENOENT") throw new SessionFileNotFoundError(path);
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
  const lock = acquireLockFile(lockPathOfResolved(file), opts.lockOptions);
  try {
    return run();
  } finally {
    lock.release();
  }
}
