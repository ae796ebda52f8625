/**
 * The `node:fs` functions the writers use, as one object a caller can override in part to
 * inject faults (tests), and the small steps every writer takes with it: write all of a
 * buffer, fsync a directory, open an existing session for appending, remove quietly. Every
 * writer is synchronous, like pi's own writes (`appendFileSync`), so the SDK keeps pi's API.
 */
import * as nodeFs from "node:fs";
import { SessionFileNotRegularError, errorCode } from "../errors.js";
import { nonRegularKind } from "./regular-files.js";

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

export const realFs: WriterFs = {
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
export const APPEND_NO_CREATE = nodeFs.constants.O_RDWR | nodeFs.constants.O_APPEND;

export function fsWith(overrides?: Partial<WriterFs>): WriterFs {
  return overrides ? { ...realFs, ...overrides } : realFs;
}

/** `none` (default, like pi): no fsync on append. `fsync`: fsync after every append. */
export type Durability = "none" | "fsync";

export interface FsOption {
  /** Override `node:fs` functions (fault injection in tests). */
  fs?: Partial<WriterFs>;
}

/** Writes all of `bytes` at the fd's position (append mode: the end); normally one `write`. */
export function writeAll(fs: WriterFs, fd: number, bytes: Uint8Array): void {
  let done = 0;
  while (done < bytes.length) {
    const n = fs.writeSync(fd, bytes, done, bytes.length - done, null);
    if (n <= 0) throw Object.assign(new Error("write returned 0 bytes"), { code: "EIO" });
    done += n;
  }
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
    if (errorCode(error) !== "EINVAL" && errorCode(error) !== "EPERM" && errorCode(error) !== "EISDIR")
      throw error;
  } finally {
    fs.closeSync(fd);
  }
}

export function unlinkQuietly(fs: WriterFs, path: string): void {
  try {
    fs.unlinkSync(path);
  } catch {
    // Gone already, or it cannot be removed: nothing else to do.
  }
}

/** Whether `path` exists (a stat that fails with ENOENT: no; any other failure is thrown). */
export function exists(fs: WriterFs, path: string): boolean {
  try {
    fs.statSync(path);
    return true;
  } catch (error) {
    if (errorCode(error) === "ENOENT") return false;
    throw error;
  }
}

/**
 * Opens an existing session file read-write for appending (never creating it), only if it is
 * a regular file: a `stat` first (a FIFO or device is not opened), then an `fstat` of the
 * descriptor (a FIFO put there in between is refused before anything is read or written; an
 * O_RDWR open of a FIFO does not block).
 */
export function openSessionForWriting(fs: WriterFs, path: string, file: string): number {
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
