/**
 * A cross-process lock for one session file: an exclusive lock file `<file>.lock` created with
 * `wx`, holding `{pid, hostname, time}`, next to the file the session path names (symlinks
 * followed, so every name of one file shares its lock).
 *
 * Synchronous on purpose: pi's `SessionManager` appends synchronously, and the SDK keeps that
 * API, so waiting uses `Atomics.wait` (a real sleep, no busy loop). A lock is stale when its
 * owner is a dead process on this host (`process.kill(pid, 0)` → `ESRCH`), when its content is
 * not a lock's and it is older than a second, or when it is older than `staleMs` (the owner may
 * be alive but stuck, or on another host). An owner on this host whose pid is alive and whose
 * start time (Linux: `/proc/<pid>/stat`) is still the one in the lock is the owner itself, at
 * long work (a rewrite of a large file): it keeps the lock past `staleMs`, up to ten minutes;
 * another start time means a later process got the pid, and the lock is stale at once. Where
 * start times cannot be read, the age decides. A stale lock is removed only if its content is
 * still the one judged stale, by one breaker at a time (`<lock>.break`), then taken like any
 * other.
 *
 * A lock that cannot be used at all (a directory or a FIFO at `<file>.lock`, a file that cannot
 * be read, or a stale one that cannot be removed) is never removed here: it is waited on like a
 * held lock, with the same backoff, until the timeout, whose error says what is wrong with it.
 * Decision 034 says why the lock is our own.
 */
import { closeSync, lstatSync, openSync, unlinkSync, writeSync } from "node:fs";
import { hostname as osHostname } from "node:os";
import { SessionFileNotRegularError, SessionLockTimeoutError } from "../errors.js";
import { readRegularFileSync } from "../fs/regular-files.js";
import { resolveSessionPath } from "../fs/session-path.js";
import { ownStartTime, pidIsDead, startTimeOf } from "./process-identity.js";

/** Environment variable: the default lock timeout in ms (instead of 10 s), for every writer. */
export const ENV_LOCK_TIMEOUT_MS = "PI_SESSION_LOCK_TIMEOUT_MS";

export interface LockOptions {
  /** Give up after this long (default 10 s, or `PI_SESSION_LOCK_TIMEOUT_MS` when set). */
  timeoutMs?: number;
  /**
   * A lock older than this is stale even if its owner looks alive (default 30 s), unless the
   * owner is known to be alive on this host (same pid and start time; Linux), then after 10 min.
   */
  staleMs?: number;
  /** Injected clock for tests. */
  now?: () => number;
}

/** What a lock file holds. */
export interface LockOwner {
  pid: number;
  hostname: string;
  /** ms since the epoch when the lock was taken. */
  time: number;
  /**
   * When the owner process started, as the kernel counts it (Linux: field 22 of
   * `/proc/<pid>/stat`), to tell the owner from a later process that got its pid.
   */
  start?: string;
}

/** A held lock; release it in a `finally`. */
export interface HeldLock {
  readonly path: string;
  /** When it was taken (ms since the epoch, from the injected clock). */
  readonly since: number;
  /** Removes the lock file if it is still ours (a lock judged stale may have been taken over). */
  release(): void;
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** A real synchronous sleep (no busy loop). */
export function sleepSync(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

/**
 * Locks this process keeps beyond one operation (the appender's lease), by lock path, with a
 * function that gives them up. {@link acquireLock} asks a lease of this process to step aside
 * instead of waiting for it: a synchronous wait could never see the lease's timer fire.
 */
const leases = new Map<string, () => void>();

export function registerLease(lockPath: string, drop: () => void): void {
  leases.set(lockPath, drop);
}

export function unregisterLease(lockPath: string, drop: () => void): void {
  if (leases.get(lockPath) === drop) leases.delete(lockPath);
}

/**
 * The lock file of a session: `<file>.lock` next to the file the path stands for (see
 * {@link resolveSessionPath}), so a link and its target share it.
 */
export function lockPathFor(sessionPath: string): string {
  return lockPathOfResolved(resolveSessionPath(sessionPath));
}

/** The lock file of a session file whose path is resolved already (see {@link lockPathFor}). */
export function lockPathOfResolved(file: string): string {
  return `${file}.lock`;
}

/** What a lock (or `.break`) file holds, as read. */
interface LockContent {
  raw: string;
  /** Set when `raw` is a lock's JSON. */
  owner?: LockOwner;
}

/**
 * A lock file as found: `missing` (gone between create and read), `unusable` (it cannot be a
 * lock: not a regular file, or it cannot be read; `problem` says why), or its content.
 */
type LockRead =
  | { missing: true }
  | { missing?: never; unusable: string }
  | (LockContent & { missing?: never; unusable?: never });

/** Lock files are tiny; more than this is not a lock (read as far as this, judged by age). */
const LOCK_READ_MAX = 64 * 1024;

function readLock(lockPath: string): LockRead {
  let raw: string;
  try {
    // Not through a link: a lock is a regular file `wx` created, and a link there (a dangling
    // one would read as missing forever) is no lock.
    raw = readRegularFileSync(lockPath, { followLinks: false, maxBytes: LOCK_READ_MAX }).toString("utf8");
  } catch (error) {
    if (error instanceof SessionFileNotRegularError)
      return { unusable: `it is ${error.kind}, not a lock file` };
    const code = (error as { code?: unknown }).code;
    if (code === "ENOENT") return { missing: true };
    return { unusable: `it cannot be read (${typeof code === "string" ? code : String(error)})` };
  }
  try {
    const v = JSON.parse(raw) as Partial<LockOwner>;
    if (
      typeof v === "object" &&
      v !== null &&
      typeof v.pid === "number" &&
      typeof v.hostname === "string" &&
      typeof v.time === "number" &&
      (v.start === undefined || typeof v.start === "string")
    ) {
      return { raw, owner: v as LockOwner };
    }
  } catch {
    // Not a lock's JSON: a writer may be between create and write; judged by age below.
  }
  return { raw };
}

/** What this process writes into a lock (or `.break`) file it creates. */
function ownerToken(time: number): string {
  const owner: LockOwner = { pid: process.pid, hostname: osHostname(), time };
  const start = ownStartTime();
  if (start !== undefined) owner.start = start;
  return JSON.stringify(owner);
}

/** Even an owner known to be alive loses its lock after this long (a leaked lock, not work). */
const LIVE_OWNER_MAX_MS = 10 * 60_000;

function isStale(lockPath: string, content: LockContent, staleMs: number, now: number): boolean {
  const owner = content.owner;
  if (owner) {
    const age = now - owner.time;
    if (owner.hostname !== osHostname()) return age > staleMs;
    if (owner.pid === process.pid) {
      // Our pid but another start: left by an earlier process that had our pid (a restarted
      // container, say). Ours (held elsewhere in this process): judged by age, as before.
      const start = ownStartTime();
      if (owner.start !== undefined && start !== undefined && owner.start !== start) return true;
      return age > staleMs;
    }
    if (pidIsDead(owner.pid)) return true;
    // The pid is alive: the owner, or a later process that got its pid? Their start times
    // tell (a mismatch: stale at once); the owner keeps it up to ten minutes.
    if (owner.start !== undefined) {
      const start = startTimeOf(owner.pid);
      if (start !== undefined) return start !== owner.start || age > Math.max(staleMs, LIVE_OWNER_MAX_MS);
    }
    return age > staleMs;
  }
  let mtime: number;
  try {
    mtime = lstatSync(lockPath).mtimeMs;
  } catch {
    return false;
  }
  return now - mtime > Math.min(1000, staleMs);
}

/**
 * A `.break` file older than this (or whose owner died on this host) was left by a breaker
 * that died or stalled; breaking takes microseconds, so this is generous. (Judged like a lock:
 * an owner known to be alive on this host keeps it longer.)
 */
const BREAK_STALE_MS = 5_000;

/**
 * Removes `path` if it still holds `raw` (else it was taken over meanwhile: left alone).
 * Returns false only when it still holds `raw` and cannot be removed (no permission, say).
 */
function unlinkIfUnchanged(path: string, raw: string): boolean {
  const now = readLock(path);
  if (now.missing || now.unusable !== undefined || now.raw !== raw) return true;
  try {
    unlinkSync(path);
  } catch (error) {
    // Gone already (someone else removed it first), or it cannot be removed.
    return (error as { code?: unknown }).code === "ENOENT";
  }
  return true;
}

/**
 * Removes a lock judged stale, if it still holds `raw`, the content judged, while holding
 * `<lock>.break` (created with `wx`), so breakers take turns and none removes a live lock
 * another breaker took meanwhile (decision 034). False when the lock cannot be broken now
 * (`.break` held by another, unusable, or a stale lock or `.break` that cannot be removed):
 * wait, then look again. True: look again at once.
 */
function breakStaleLock(lockPath: string, raw: string, now: () => number): boolean {
  const breakPath = `${lockPath}.break`;
  let fd: number;
  try {
    fd = openSync(breakPath, "wx");
  } catch (error) {
    if ((error as { code?: unknown }).code !== "EEXIST") throw error;
    const other = readLock(breakPath);
    if (other.missing) return true; // just released: look again
    if (other.unusable !== undefined) return false; // a directory, say: never ours to remove
    if (!isStale(breakPath, other, BREAK_STALE_MS, now())) return false;
    // Left by a breaker that died or stalled for seconds. Removing it is check-then-unlink
    // again, but it only races another breaker that stalled as long inside its turn.
    return unlinkIfUnchanged(breakPath, other.raw);
  }
  const token = ownerToken(now());
  let removed: boolean;
  try {
    try {
      writeSync(fd, token);
    } finally {
      closeSync(fd);
    }
    removed = unlinkIfUnchanged(lockPath, raw);
  } finally {
    unlinkIfUnchanged(breakPath, token);
  }
  return removed;
}

/** `PI_SESSION_LOCK_TIMEOUT_MS`, when it is a number of milliseconds (≥ 0). */
function envTimeoutMs(): number | undefined {
  const value = process.env[ENV_LOCK_TIMEOUT_MS];
  if (value === undefined || value.trim() === "") return undefined;
  const ms = Number(value);
  return Number.isFinite(ms) && ms >= 0 ? ms : undefined;
}

/**
 * Takes the lock for `sessionPath` (see {@link lockPathFor}), waiting with a small backoff;
 * throws on timeout.
 */
export function acquireLock(sessionPath: string, opts: LockOptions = {}): HeldLock {
  return acquireLockFile(lockPathFor(sessionPath), opts);
}

/** {@link acquireLock} by lock path (for writers that resolved their file once). */
export function acquireLockFile(lockPath: string, opts: LockOptions = {}): HeldLock {
  const now = opts.now ?? Date.now;
  const timeoutMs = opts.timeoutMs ?? envTimeoutMs() ?? 10_000;
  const staleMs = opts.staleMs ?? 30_000;
  leases.get(lockPath)?.();
  ownStartTime(); // read once per process, before any lock file is created and still empty
  const started = now();
  let delay = 1;
  let lastOwner: LockOwner | undefined;
  let problem: string | undefined;
  /** Lock files found and gone again in a row (each such retry is at once). */
  let vanished = 0;
  for (;;) {
    let fd: number | undefined;
    try {
      fd = openSync(lockPath, "wx");
    } catch (error) {
      if ((error as { code?: unknown }).code !== "EEXIST") throw error;
    }
    if (fd !== undefined) {
      const since = now();
      const token = ownerToken(since);
      try {
        writeSync(fd, token);
      } finally {
        closeSync(fd);
      }
      let released = false;
      return {
        path: lockPath,
        since,
        release() {
          if (released) return;
          released = true;
          // Only remove it if it is still ours: after a long stall it may have been judged
          // stale and taken by another process.
          unlinkIfUnchanged(lockPath, token);
        },
      };
    }
    const content = readLock(lockPath);
    // Vanished between open and read (released): retry at once, but not forever without a
    // sleep (locks taken and released again and again by others).
    if (content.missing && ++vanished < 100) continue;
    if (!content.missing) vanished = 0;
    if (content.missing) {
      // Waited on below.
    } else if (content.unusable !== undefined) {
      // Never ours to remove: waited on like a held lock, until the timeout says what it is.
      lastOwner = undefined;
      problem = content.unusable;
    } else {
      lastOwner = content.owner;
      problem = undefined;
      // Retry at once after a break; wait while another process breaks it, or when it cannot be.
      if (isStale(lockPath, content, staleMs, now())) {
        if (breakStaleLock(lockPath, content.raw, now)) continue;
        if (!lastOwner) problem = "it is stale but cannot be removed";
      }
    }
    if (now() - started >= timeoutMs)
      throw new SessionLockTimeoutError(lockPath, timeoutMs, lastOwner, problem);
    sleepSync(delay + Math.floor(Math.random() * delay));
    delay = Math.min(delay * 2, 10);
  }
}

/** Runs `fn` under the lock of `sessionPath` and releases it afterwards, even on error. */
export function withLock<T>(sessionPath: string, opts: LockOptions, fn: () => T): T {
  const lock = acquireLock(sessionPath, opts);
  try {
    return fn();
  } finally {
    lock.release();
  }
}
