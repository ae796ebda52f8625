/**
 * Creating a session file with its first lines, published atomically: written to a temp file
 * beside it, fsynced, then hard-linked into place, so no second header and no truncated file
 * are ever seen. Use it for a new session (and a fork); appends go through `SessionWriter`.
 */
import { dirname } from "node:path";
import { SessionFileExistsError, errorCode } from "../errors.js";
import { resolveSessionPath } from "../fs/session-path.js";
import {
  type Durability,
  type FsOption,
  type WriterFs,
  exists,
  fsWith,
  fsyncDir,
  unlinkQuietly,
  writeAll,
} from "../fs/writer-fs.js";
import { encodeEntries } from "./line-bytes.js";
import { removeDeadTemps, tempPathFor } from "./temp-files.js";

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
    const code = errorCode(error);
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

/** Creates a session directory (and its parents) if it is missing, as pi does before listing or writing there. */
export function ensureSessionDir(dir: string): void {
  fsWith(undefined).mkdirSync(dir, { recursive: true });
}

/** Codes of a `link` on a filesystem that has no hard links (FAT, some network filesystems). */
const NO_HARD_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS"]);

/** The fallback of {@link createSessionFile}: exclusive create and one write (removed on failure). */
function createInOneWrite(fs: WriterFs, path: string, file: string, bytes: Uint8Array, sync: boolean): void {
  let fd: number;
  try {
    fd = fs.openSync(file, "wx");
  } catch (error) {
    if (errorCode(error) === "EEXIST") throw new SessionFileExistsError(path);
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
