/**
 * Removing a session: to the desktop trash where one exists (freedesktop.org Trash under
 * `$XDG_DATA_HOME/Trash`, only if that directory already exists; `~/.Trash` on macOS),
 * otherwise unlink. Reports which happened, so a UI can say "moved to trash" truthfully.
 *
 * Done under the session's lock: a writer of this process that holds a lease gives it up, one
 * of another process is waited for, so a writer's next append takes the lock afresh, checks
 * the file by path and finds it gone (a rename into the trash keeps the open file's size and
 * link count, which a check of the open fd alone cannot tell from nothing happening).
 */
import * as nodeFs from "node:fs";
import { homedir } from "node:os";
import { basename, extname, join, resolve } from "node:path";
import { SessionFileNotFoundError } from "./errors.js";
import type { Env } from "./layout.js";
import { type LockOptions, withLock } from "./lock.js";

/** The `node:fs` functions removal uses; override some of them to inject faults (tests). */
export interface RemoveFs {
  lstatSync: typeof nodeFs.lstatSync;
  statSync: typeof nodeFs.statSync;
  mkdirSync: typeof nodeFs.mkdirSync;
  openSync: typeof nodeFs.openSync;
  writeSync: (fd: number, text: string) => number;
  closeSync: typeof nodeFs.closeSync;
  renameSync: typeof nodeFs.renameSync;
  copyFileSync: typeof nodeFs.copyFileSync;
  unlinkSync: typeof nodeFs.unlinkSync;
}

const realFs: RemoveFs = {
  lstatSync: nodeFs.lstatSync,
  statSync: nodeFs.statSync,
  mkdirSync: nodeFs.mkdirSync,
  openSync: nodeFs.openSync,
  writeSync: (fd, text) => nodeFs.writeSync(fd, text),
  closeSync: nodeFs.closeSync,
  renameSync: nodeFs.renameSync,
  copyFileSync: nodeFs.copyFileSync,
  unlinkSync: nodeFs.unlinkSync,
};

export interface RemoveSessionOptions {
  /** Try the trash first (default true). */
  trash?: boolean;
  env?: Env;
  home?: string;
  platform?: NodeJS.Platform;
  /** Clock for the `.trashinfo` deletion date. */
  now?: () => Date;
  /** For the session lock taken while removing (see `acquireLock`). */
  lockOptions?: LockOptions;
  /** Override `node:fs` functions (fault injection in tests). */
  fs?: Partial<RemoveFs>;
}

export interface RemoveSessionResult {
  method: "trash" | "unlink";
  /** Where the file went (trash only). */
  trashPath?: string;
}

function codeOf(error: unknown): unknown {
  return (error as { code?: unknown } | null)?.code;
}

function isDir(fs: RemoveFs, path: string): boolean {
  try {
    return fs.statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Local time as `YYYY-MM-DDThh:mm:ss`, the freedesktop DeletionDate format. */
function deletionDate(d: Date): string {
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** Path percent-encoded as the spec asks (RFC 2396 escaping, `/` kept). */
function encodeTrashPath(path: string): string {
  return path
    .split("/")
    .map((part) => encodeURIComponent(part))
    .join("/");
}

/** Moves across filesystems by copy + unlink (the spec allows copying). */
function move(fs: RemoveFs, from: string, to: string): void {
  try {
    fs.renameSync(from, to);
  } catch (error) {
    if (codeOf(error) !== "EXDEV") throw error;
    fs.copyFileSync(from, to, nodeFs.constants.COPYFILE_EXCL);
    fs.unlinkSync(from);
  }
}

function toFreedesktopTrash(fs: RemoveFs, path: string, trashDir: string, now: Date): string {
  const filesDir = join(trashDir, "files");
  const infoDir = join(trashDir, "info");
  fs.mkdirSync(filesDir, { recursive: true, mode: 0o700 });
  fs.mkdirSync(infoDir, { recursive: true, mode: 0o700 });
  const name = basename(path);
  const ext = extname(name);
  const stem = name.slice(0, name.length - ext.length);
  for (let i = 1; ; i++) {
    const candidate = i === 1 ? name : `${stem}.${i}${ext}`;
    const infoPath = join(infoDir, `${candidate}.trashinfo`);
    let fd: number;
    try {
      // Creating the .trashinfo exclusively reserves the name (the spec's protocol).
      fd = fs.openSync(infoPath, "wx", 0o600);
    } catch (error) {
      if (codeOf(error) === "EEXIST") continue;
      throw error;
    }
    try {
      fs.writeSync(
        fd,
        `[Trash Info]\nPath=${encodeTrashPath(resolve(path))}\nDeletionDate=${deletionDate(now)}\n`,
      );
    } finally {
      fs.closeSync(fd);
    }
    const target = join(filesDir, candidate);
    if (nodeFs.existsSync(target)) {
      fs.unlinkSync(infoPath);
      continue;
    }
    try {
      move(fs, path, target);
    } catch (error) {
      fs.unlinkSync(infoPath);
      throw error;
    }
    return target;
  }
}

function toMacTrash(fs: RemoveFs, path: string, trashDir: string): string {
  const name = basename(path);
  const ext = extname(name);
  const stem = name.slice(0, name.length - ext.length);
  for (let i = 1; ; i++) {
    const target = join(trashDir, i === 1 ? name : `${stem} ${i}${ext}`);
    if (nodeFs.existsSync(target)) continue;
    move(fs, path, target);
    return target;
  }
}

/**
 * Removes a session file: to the trash when one exists (and `trash` is not false), else
 * unlink, under the session's lock (see the module comment). Throws
 * {@link SessionFileNotFoundError} when the file does not exist.
 */
export function removeSession(path: string, opts: RemoveSessionOptions = {}): RemoveSessionResult {
  if (!nodeFs.existsSync(path)) throw new SessionFileNotFoundError(path);
  return withLock(path, opts.lockOptions ?? {}, () => removeLocked(path, opts));
}

function removeLocked(path: string, opts: RemoveSessionOptions): RemoveSessionResult {
  // Removed by someone else while the lock was awaited.
  const fs: RemoveFs = opts.fs ? { ...realFs, ...opts.fs } : realFs;
  if (!nodeFs.existsSync(path)) throw new SessionFileNotFoundError(path);
  if (opts.trash !== false) {
    const env = opts.env ?? process.env;
    const home = opts.home ?? homedir();
    const platform = opts.platform ?? process.platform;
    const now = (opts.now ?? (() => new Date()))();
    if (platform === "darwin") {
      const trashDir = join(home, ".Trash");
      if (isDir(fs, trashDir)) return { method: "trash", trashPath: toMacTrash(fs, path, trashDir) };
    } else if (platform !== "win32") {
      const dataHome = env.XDG_DATA_HOME || join(home, ".local", "share");
      const trashDir = join(dataHome, "Trash");
      if (isDir(fs, trashDir))
        return { method: "trash", trashPath: toFreedesktopTrash(fs, path, trashDir, now) };
    }
  }
  fs.unlinkSync(path);
  return { method: "unlink" };
}
