/**
 * Atomic rewrite of a session file: a temp file in the same directory given the old file's
 * permissions, fsync, an optional backup, rename over, fsync the directory; raw (malformed)
 * records go back byte for byte where they were. Use it for every whole-file write
 * (migration, repair); on any failure before the rename the original is untouched.
 */
import * as nodeFs from "node:fs";
import { dirname } from "node:path";
import { type RawRecord, type SessionRecord, serializeRecords } from "@pi-session/format";
import { SessionFileChangedError, SessionFileNotRegularError, errorCode } from "../errors.js";
import { nonRegularKind } from "../fs/regular-files.js";
import { resolveSessionPath } from "../fs/session-path.js";
import { type FsOption, type WriterFs, exists, fsWith, fsyncDir, writeAll } from "../fs/writer-fs.js";
import { type LockOptions, acquireLockFile, lockPathOfResolved } from "../lock/lock.js";
import { writeRemovedBytes } from "./companion-files.js";
import { companionPaths, sidecarPathFor } from "./companion-names.js";
import { asJsonRecord } from "./line-bytes.js";
import { removeDeadTemps, tempPathFor } from "./temp-files.js";

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
  /**
   * Bytes the caller cut from the file (a repair), kept in a new `<file>.removed-<time>[-N]`
   * (0600, fsynced) before the rename and removed again when the rewrite fails.
   */
  removedBytes?: Uint8Array;
  /** Clock for the backup and sidecar names. */
  now?: () => Date;
}

export interface RewriteResult {
  path: string;
  size: number;
  backupPath?: string;
  /** Where a torn fragment went (`quarantineTornTail`). */
  sidecarPath?: string;
  /** Where `removedBytes` went. */
  removedPath?: string;
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

function makeBackup(fs: WriterFs, path: string, backup: true | string, now: () => Date): string | undefined {
  const candidates = typeof backup === "string" ? [backup] : companionPaths(path, "bak", now());
  for (const candidate of candidates) {
    try {
      try {
        fs.linkSync(path, candidate);
      } catch (error) {
        const code = errorCode(error);
        if (code === "ENOENT" || code === "EEXIST") throw error;
        // No hard links here (e.g. some network or FAT filesystems): copy instead.
        fs.copyFileSync(path, candidate, nodeFs.constants.COPYFILE_EXCL);
      }
      return candidate;
    } catch (error) {
      if (errorCode(error) === "ENOENT" && !exists(fs, path)) return undefined;
      if (errorCode(error) !== "EEXIST" || typeof backup === "string") throw error;
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
export function rewriteUnlocked(
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
      if (errorCode(error) !== "ENOENT") throw error;
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
  let removedPath: string | undefined;
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
    if (opts.removedBytes !== undefined && opts.removedBytes.length > 0) {
      removedPath = writeRemovedBytes(file, opts.removedBytes, { now: (opts.now ?? (() => new Date()))() });
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
      // The fragment (and the cut bytes) are still in the file: their copies go.
      for (const copy of [sidecarPath, removedPath]) {
        if (copy === undefined) continue;
        try {
          fs.unlinkSync(copy);
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
  if (removedPath !== undefined) result.removedPath = removedPath;
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
  const lock = acquireLockFile(lockPathOfResolved(file), opts.lockOptions);
  try {
    return rewriteUnlocked(path, file, records, opts, fs);
  } finally {
    lock.release();
  }
}
