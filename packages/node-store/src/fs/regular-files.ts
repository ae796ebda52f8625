/**
 * Opening only regular files: only a regular file is a session (or a lock, a settings file, a
 * cache file). A `stat` before the open keeps a directory, FIFO, socket or device from being
 * opened, the open is non-blocking, and an `fstat` of the descriptor refuses one that took the
 * file's place in between. Use these for every read of a path someone else may control.
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
import { type NonRegularKind, SessionFileNotRegularError } from "../errors.js";

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
