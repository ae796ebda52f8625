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
import { homedir } from "node:os";
import { basename, dirname, extname, join, resolve } from "node:path";
import { SessionFileNotFoundError, SessionFileNotRegularError } from "../errors.js";
import type { Env } from "../layout/layout.js";
import { type LockOptions, withLock } from "../lock/lock.js";
import { nonRegularKind } from "../read/read.js";

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

/** `<time>` in our backup and sidecar names: an ISO time with `:` and `.` as `-`. */
const STAMP = String.raw`\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z`;
/**
 * What follows the session file name in the name of one of its companions:
 * `.bak-<time>[-N]` (backup of a rewrite: node-store's `rewriteSessionFile`, the CLI's `name`
 * and `label`), `.torn-<time>[-N]` (a torn last line moved aside by the appender or
 * `repairTornTail`), `.removed-<time>[-N]` (bytes the CLI's `repair` cut), `.v<N>[.<n>].bak`
 * (the SDK's backup of a file it migrated).
 */
const COMPANION_SUFFIX = new RegExp(
  String.raw`^\.(?:(?:bak|torn|removed)-${STAMP}(?:-\d+)?|v\d+(?:\.\d+)?\.bak)$`,
);

/** Whether `suffix` (what follows a session file's name) names one of its companions. */
export function isCompanionSuffix(suffix: string): boolean {
  return COMPANION_SUFFIX.test(suffix);
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

function codeOf(error: unknown): unknown {
  return (error as { code?: unknown } | null)?.code;
}

/** The lstat of `path` (a dangling link too), or undefined when nothing has that name. */
function lstatOf(fs: RemoveFs, path: string): nodeFs.Stats | undefined {
  try {
    return fs.lstatSync(path);
  } catch (error) {
    if (codeOf(error) === "ENOENT") return undefined;
    throw error;
  }
}

/** Removes what a failed move left at `path`; the move's error is the one to report. */
function unlinkQuietly(fs: RemoveFs, path: string): void {
  try {
    fs.unlinkSync(path);
  } catch {
    // Not there (the copy never created it), or cannot be removed: nothing more to do.
  }
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

/**
 * Moves across filesystems by copy + unlink (the spec allows copying); a link is copied as a
 * link. All or nothing: when the copy or the unlink fails, the copy is removed again (a
 * partial file, or a whole one the source is still next to, would otherwise stay in the
 * trash without its `.trashinfo`).
 */
function move(fs: RemoveFs, from: string, to: string, isLink: boolean): void {
  try {
    fs.renameSync(from, to);
    return;
  } catch (error) {
    if (codeOf(error) !== "EXDEV") throw error;
  }
  try {
    if (isLink) fs.symlinkSync(fs.readlinkSync(from), to);
    else fs.copyFileSync(from, to, nodeFs.constants.COPYFILE_EXCL);
  } catch (error) {
    // EEXIST: `to` is someone else's (the copy is exclusive), left alone. Otherwise the copy
    // created it, or did not get that far.
    if (codeOf(error) !== "EEXIST") unlinkQuietly(fs, to);
    throw error;
  }
  try {
    fs.unlinkSync(from);
  } catch (error) {
    unlinkQuietly(fs, to);
    throw error;
  }
}

function toFreedesktopTrash(
  fs: RemoveFs,
  path: string,
  isLink: boolean,
  trashDir: string,
  now: Date,
): string {
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
    if (lstatOf(fs, target) !== undefined) {
      fs.unlinkSync(infoPath);
      continue;
    }
    try {
      move(fs, path, target, isLink);
    } catch (error) {
      fs.unlinkSync(infoPath);
      throw error;
    }
    return target;
  }
}

function toMacTrash(fs: RemoveFs, path: string, isLink: boolean, trashDir: string): string {
  const name = basename(path);
  const ext = extname(name);
  const stem = name.slice(0, name.length - ext.length);
  for (let i = 1; ; i++) {
    const target = join(trashDir, i === 1 ? name : `${stem} ${i}${ext}`);
    if (lstatOf(fs, target) !== undefined) continue;
    move(fs, path, target, isLink);
    return target;
  }
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
      if (codeOf(error) === "ENOENT") continue; // removed by someone else meanwhile
      result.failed ??= [];
      result.failed.push({ path: companion, error });
    }
  }
  return result;
}

/** How files are removed: the trash (which one) or unlink. Returns where a file went. */
function removerFor(
  fs: RemoveFs,
  opts: RemoveSessionOptions,
): { method: "trash" | "unlink"; run: (path: string, isLink: boolean) => string | undefined } {
  if (opts.trash !== false) {
    const env = opts.env ?? process.env;
    const home = opts.home ?? homedir();
    const platform = opts.platform ?? process.platform;
    const now = (opts.now ?? (() => new Date()))();
    if (platform === "darwin") {
      const trashDir = join(home, ".Trash");
      if (isDir(fs, trashDir))
        return { method: "trash", run: (path, isLink) => toMacTrash(fs, path, isLink, trashDir) };
    } else if (platform !== "win32") {
      const dataHome = env.XDG_DATA_HOME || join(home, ".local", "share");
      const trashDir = join(dataHome, "Trash");
      if (isDir(fs, trashDir))
        return {
          method: "trash",
          run: (path, isLink) => toFreedesktopTrash(fs, path, isLink, trashDir, now),
        };
    }
  }
  return {
    method: "unlink",
    run: (path) => {
      fs.unlinkSync(path);
      return undefined;
    },
  };
}
