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
import {
  closeSync,
  constants,
  copyFileSync,
  existsSync,
  mkdirSync,
  openSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { homedir } from "node:os";
import { basename, extname, join, resolve } from "node:path";
import { SessionFileNotFoundError } from "./errors.js";
import type { Env } from "./layout.js";
import { type LockOptions, withLock } from "./lock.js";

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
}

export interface RemoveSessionResult {
  method: "trash" | "unlink";
  /** Where the file went (trash only). */
  trashPath?: string;
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
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
function move(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (error) {
    if ((error as { code?: unknown }).code !== "EXDEV") throw error;
    copyFileSync(from, to, constants.COPYFILE_EXCL);
    unlinkSync(from);
  }
}

function toFreedesktopTrash(path: string, trashDir: string, now: Date): string {
  const filesDir = join(trashDir, "files");
  const infoDir = join(trashDir, "info");
  mkdirSync(filesDir, { recursive: true, mode: 0o700 });
  mkdirSync(infoDir, { recursive: true, mode: 0o700 });
  const name = basename(path);
  const ext = extname(name);
  const stem = name.slice(0, name.length - ext.length);
  for (let i = 1; ; i++) {
    const candidate = i === 1 ? name : `${stem}.${i}${ext}`;
    const infoPath = join(infoDir, `${candidate}.trashinfo`);
    let fd: number;
    try {
      // Creating the .trashinfo exclusively reserves the name (the spec's protocol).
      fd = openSync(infoPath, "wx", 0o600);
    } catch (error) {
      if ((error as { code?: unknown }).code === "EEXIST") continue;
      throw error;
    }
    try {
      writeSync(
        fd,
        `[Trash Info]\nPath=${encodeTrashPath(resolve(path))}\nDeletionDate=${deletionDate(now)}\n`,
      );
    } finally {
      closeSync(fd);
    }
    const target = join(filesDir, candidate);
    if (existsSync(target)) {
      unlinkSync(infoPath);
      continue;
    }
    try {
      move(path, target);
    } catch (error) {
      unlinkSync(infoPath);
      throw error;
    }
    return target;
  }
}

function toMacTrash(path: string, trashDir: string): string {
  const name = basename(path);
  const ext = extname(name);
  const stem = name.slice(0, name.length - ext.length);
  for (let i = 1; ; i++) {
    const target = join(trashDir, i === 1 ? name : `${stem} ${i}${ext}`);
    if (existsSync(target)) continue;
    move(path, target);
    return target;
  }
}

/**
 * Removes a session file: to the trash when one exists (and `trash` is not false), else
 * unlink, under the session's lock (see the module comment). Throws
 * {@link SessionFileNotFoundError} when the file does not exist.
 */
export function removeSession(path: string, opts: RemoveSessionOptions = {}): RemoveSessionResult {
  if (!existsSync(path)) throw new SessionFileNotFoundError(path);
  return withLock(path, opts.lockOptions ?? {}, () => removeLocked(path, opts));
}

function removeLocked(path: string, opts: RemoveSessionOptions): RemoveSessionResult {
  // Removed by someone else while the lock was awaited.
  if (!existsSync(path)) throw new SessionFileNotFoundError(path);
  if (opts.trash !== false) {
    const env = opts.env ?? process.env;
    const home = opts.home ?? homedir();
    const platform = opts.platform ?? process.platform;
    const now = (opts.now ?? (() => new Date()))();
    if (platform === "darwin") {
      const trashDir = join(home, ".Trash");
      if (isDir(trashDir)) return { method: "trash", trashPath: toMacTrash(path, trashDir) };
    } else if (platform !== "win32") {
      const dataHome = env.XDG_DATA_HOME || join(home, ".local", "share");
      const trashDir = join(dataHome, "Trash");
      if (isDir(trashDir)) return { method: "trash", trashPath: toFreedesktopTrash(path, trashDir, now) };
    }
  }
  unlinkSync(path);
  return { method: "unlink" };
}
