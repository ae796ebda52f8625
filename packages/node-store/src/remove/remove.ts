/**
 * Removing a session: to the desktop trash where one exists (freedesktop.org Trash under
 * `$XDG_DATA_HOME/Trash`, only if that directory already exists; `~/.Trash` on macOS),
 * otherwise unlink. Reports which happened, so a UI can say "moved to trash" truthfully.
 *
 * Done under the session's lock: a writer of this process that holds a lease gives it up, one
 * of another process is waited for, so a writer's next append takes the lock afresh, checks
 * the file by path and finds it gone (a rename into the trash keeps the open file's size and
 * link count, which a check of the open fd alone cannot tell from nothing happening).
 *
 * A session's companion files go with it (unless `keepCompanions`): backups and sidecars that
 * hold all or part of its content, named the session file's name plus a suffix one of our
 * writers uses (see {@link isCompanionSuffix}); otherwise a removed conversation would still
 * be readable next to where it was. Nothing else is touched.
 */
import * as nodeFs from "node:fs";
import { basename, dirname, join } from "node:path";
import { SessionFileNotFoundError, SessionFileNotRegularError, errorCode } from "../errors.js";
import type { Env } from "../layout/sessions-root.js";
import { type LockOptions, withLock } from "../lock/lock.js";
import { nonRegularKind } from "../fs/regular-files.js";
import { isCompanionSuffix } from "../write/companion-names.js";
import { lstatOf, removerFor } from "./trash.js";

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
  readlinkSync: (path: string) => string;
  readdirSync: (path: string) => string[];
  symlinkSync: typeof nodeFs.symlinkSync;
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
  readlinkSync: (path) => nodeFs.readlinkSync(path, "utf8"),
  readdirSync: (path) => nodeFs.readdirSync(path, "utf8"),
  symlinkSync: nodeFs.symlinkSync,
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
  /**
   * Leave the session's companion files (backups, sidecars; see the module comment) where
   * they are. Default false: they are removed with it, the same way (trash or unlink).
   */
  keepCompanions?: boolean;
}

export interface RemoveSessionResult {
  method: "trash" | "unlink";
  /** Where the file went (trash only). */
  trashPath?: string;
  /**
   * The companion files removed with the session (same `method`), in name order, and where
   * each went (trash only). Empty with `keepCompanions`, and for a path that is a symlink (the
   * file it points to, and so its companions, stay).
   */
  companions: { path: string; trashPath?: string }[];
  /**
   * Companion files that could not be removed (they are still there, with their content);
   * the session itself was removed. Absent when there were none.
   */
  failed?: { path: string; error: unknown }[];
}

/** The companion files of `path` (regular files only), in name order. */
function companionsOf(fs: RemoveFs, path: string): string[] {
  const dir = dirname(path);
  const name = basename(path);
  const found: string[] = [];
  for (const entry of fs.readdirSync(dir).sort()) {
    if (!entry.startsWith(name) || !isCompanionSuffix(entry.slice(name.length))) continue;
    const p = join(dir, entry);
    if (lstatOf(fs, p)?.isFile()) found.push(p);
  }
  return found;
}

/**
 * Removes a session file: to the trash when one exists (and `trash` is not false), else
 * unlink, under the session's lock (see the module comment). A path that is a symlink is
 * removed itself (a dangling one too), not the file it points to; no lock is needed for that,
 * as writers work on the file it points to. The session's companion files go with it (see
 * the module comment; `keepCompanions` keeps them). Throws {@link SessionFileNotFoundError}
 * when nothing has that name.
 */
export function removeSession(path: string, opts: RemoveSessionOptions = {}): RemoveSessionResult {
  const fs: RemoveFs = opts.fs ? { ...realFs, ...opts.fs } : realFs;
  const st = lstatOf(fs, path);
  if (st === undefined) throw new SessionFileNotFoundError(path);
  // A session is a regular file: a directory (a whole project's sessions, say), a FIFO or a
  // device is never removed here (nor copied to a trash on another filesystem: a read of a
  // FIFO blocks).
  if (!st.isFile() && !st.isSymbolicLink()) throw new SessionFileNotRegularError(path, nonRegularKind(st));
  if (st.isSymbolicLink()) return removeLocked(fs, path, opts);
  return withLock(path, opts.lockOptions ?? {}, () => removeLocked(fs, path, opts));
}

function removeLocked(fs: RemoveFs, path: string, opts: RemoveSessionOptions): RemoveSessionResult {
  // Looked at again under the lock: it may have been removed meanwhile.
  const st = lstatOf(fs, path);
  if (st === undefined) throw new SessionFileNotFoundError(path);
  const isLink = st.isSymbolicLink();
  if (!st.isFile() && !isLink) throw new SessionFileNotRegularError(path, nonRegularKind(st));
  // Listed before the session goes; a link's target (and its companions) stay.
  const companions = isLink || opts.keepCompanions === true ? [] : companionsOf(fs, path);
  const remove = removerFor(fs, opts);
  const result: RemoveSessionResult = { method: remove.method, companions: [] };
  const trashPath = remove.run(path, isLink);
  if (trashPath !== undefined) result.trashPath = trashPath;
  // The session is gone; a companion that cannot be removed is reported, not thrown, so the
  // caller still learns where the session went.
  for (const companion of companions) {
    try {
      const to = remove.run(companion, false);
      result.companions.push(to === undefined ? { path: companion } : { path: companion, trashPath: to });
    } catch (error) {
      if (errorCode(error) === "ENOENT") continue; // removed by someone else meanwhile
      result.failed ??= [];
      result.failed.push({ path: companion, error });
    }
  }
  return result;
}
