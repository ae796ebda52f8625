/**
 * New files beside a session, named by `companion-names.ts`: a backup copy of its bytes taken
 * before a change (`<file>.bak-<time>[-N]`), and bytes cut from it kept aside
 * (`<file>.removed-<time>[-N]`). Each is created exclusively, never over an existing file.
 */
import { closeSync, fchmodSync, fsyncSync, openSync, readSync, unlinkSync, writeSync } from "node:fs";
import { errorCode } from "../errors.js";
import { openRegularFileSync } from "../fs/regular-files.js";
import { type CompanionKind, companionPaths } from "./companion-names.js";

/** Opens the first free name of a new companion of `path` (exclusively, with `mode`). */
function openNewCompanion(
  path: string,
  kind: CompanionKind,
  mode: number,
  now: Date,
): { fd: number; path: string } {
  for (const candidate of companionPaths(path, kind, now)) {
    try {
      return { fd: openSync(candidate, "wx", mode), path: candidate };
    } catch (error) {
      if (errorCode(error) !== "EEXIST") throw error;
    }
  }
  throw new Error("unreachable: companionPaths never ends");
}

/** Copies the whole of `from` (read by position) to `to`. */
function copyFd(from: number, to: number): void {
  const buf = Buffer.allocUnsafe(1024 * 1024);
  for (let pos = 0; ; ) {
    const n = readSync(from, buf, 0, buf.length, pos);
    if (n === 0) return;
    for (let done = 0; done < n; ) done += writeSync(to, buf, done, n - done);
    pos += n;
  }
}

/** A backup copy of a session file. */
export interface SessionBackup {
  path: string;
  /** Removes the backup again (when the change it was taken for did not happen). */
  discard(): void;
}

/**
 * Copies a session file to a new `<path>.bak-<time>[-N]` with its permissions. A copy, not a
 * link: the backup keeps the previous bytes while the session is appended to. Only a regular
 * file is copied (`SessionFileNotRegularError` otherwise: a FIFO would block a plain copy for
 * ever); a failed copy leaves no backup behind.
 */
export function backupSessionFile(path: string, opts: { now?: Date } = {}): SessionBackup {
  const source = openRegularFileSync(path);
  try {
    const mode = source.stats.mode & 0o777;
    const target = openNewCompanion(path, "bak", mode, opts.now ?? new Date());
    try {
      // As a copy keeps them (the open's mode is cut by the umask).
      fchmodSync(target.fd, mode);
      copyFd(source.fd, target.fd);
    } catch (error) {
      closeSync(target.fd);
      unlinkSync(target.path);
      throw error;
    }
    closeSync(target.fd);
    return { path: target.path, discard: () => unlinkQuietly(target.path) };
  } finally {
    closeSync(source.fd);
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone: nothing to clean up.
  }
}

/** Writes `bytes` to a new `<path>.removed-<time>[-N]` (0600, fsynced) and returns its path. */
export function writeRemovedBytes(path: string, bytes: Uint8Array, opts: { now?: Date } = {}): string {
  const target = openNewCompanion(path, "removed", 0o600, opts.now ?? new Date());
  try {
    for (let at = 0; at < bytes.length; ) at += writeSync(target.fd, bytes, at, bytes.length - at);
    fsyncSync(target.fd);
  } finally {
    closeSync(target.fd);
  }
  return target.path;
}
