/**
 * Tests of the cross-process lock: exclusive, released in `finally`, stale locks of dead
 * processes and old locks taken over, a live lock waited for and timed out on.
 */
import { spawnSync } from "node:child_process";
import fs, { existsSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { hostname } from "node:os";
import { join } from "node:path";
import { tempDirs } from "@pi-session/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { SessionLockTimeoutError } from "../errors.js";
import { type HeldLock, acquireLock, lockPathFor, withLock } from "./lock.js";

const dirs = tempDirs("ns-lock-");
afterEach(dirs.cleanup);
function session(): string {
  return join(dirs.make(), "s.jsonl");
}

/** The pid of a process that has exited (and been reaped). */
function deadPid(): number {
  const r = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]);
  return Number(r.stdout.toString());
}

describe("lock", () => {
  it("writes its owner and removes the lock file on release", () => {
    const path = session();
    const lock = acquireLock(path);
    const owner = JSON.parse(readFileSync(lockPathFor(path), "utf8"));
    expect(owner).toMatchObject({ pid: process.pid, hostname: hostname() });
    expect(typeof owner.time).toBe("number");
    lock.release();
    lock.release();
    expect(existsSync(lockPathFor(path))).toBe(false);
  });

  it("releases after an error in withLock", () => {
    const path = session();
    expect(() =>
      withLock(path, {}, () => {
        throw new Error("boom");
      }),
    ).toThrow("boom");
    expect(existsSync(lockPathFor(path))).toBe(false);
  });

  it("times out on a live lock, naming the owner", () => {
    const path = session();
    const held = acquireLock(path);
    try {
      let error: unknown;
      try {
        acquireLock(path, { timeoutMs: 50 });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(SessionLockTimeoutError);
      expect((error as SessionLockTimeoutError).owner).toMatchObject({ pid: process.pid });
    } finally {
      held.release();
    }
  });

  it("takes over the lock of a dead process at once", () => {
    const path = session();
    writeFileSync(
      lockPathFor(path),
      JSON.stringify({ pid: deadPid(), hostname: hostname(), time: Date.now() }),
    );
    const lock = acquireLock(path, { timeoutMs: 1000 });
    expect(JSON.parse(readFileSync(lockPathFor(path), "utf8")).pid).toBe(process.pid);
    lock.release();
  });

  it("takes over a lock older than staleMs even if the owner looks alive (other host)", () => {
    const path = session();
    writeFileSync(
      lockPathFor(path),
      JSON.stringify({ pid: 1, hostname: "elsewhere", time: Date.now() - 60_000 }),
    );
    const lock = acquireLock(path, { staleMs: 30_000, timeoutMs: 1000 });
    lock.release();
  });

  it("waits for a fresh lock of another host (not stale yet)", () => {
    const path = session();
    writeFileSync(lockPathFor(path), JSON.stringify({ pid: 1, hostname: "elsewhere", time: Date.now() }));
    expect(() => acquireLock(path, { timeoutMs: 30 })).toThrow(SessionLockTimeoutError);
  });

  it("treats an unreadable lock file as stale only once it is old", () => {
    const path = session();
    writeFileSync(lockPathFor(path), "");
    expect(() => acquireLock(path, { timeoutMs: 30 })).toThrow(SessionLockTimeoutError);
    const old = new Date(Date.now() - 5000);
    utimesSync(lockPathFor(path), old, old);
    acquireLock(path, { timeoutMs: 1000 }).release();
  });

  it("two processes breaking one stale lock cannot both take it", () => {
    const path = session();
    const lockPath = lockPathFor(path);
    writeFileSync(lockPath, JSON.stringify({ pid: deadPid(), hostname: hostname(), time: Date.now() }));
    const holders: HeldLock[] = [];
    const realUnlink = fs.unlinkSync;
    let interleaved = false;
    // B has re-read the stale lock and is about to unlink it; right then A runs a whole
    // acquire (A waits at most 50 ms: B cannot go on meanwhile, it is this same thread).
    fs.unlinkSync = (p: fs.PathLike) => {
      if (!interleaved && p === lockPath) {
        interleaved = true;
        try {
          holders.push(acquireLock(path, { timeoutMs: 50 }));
        } catch (error) {
          if (!(error instanceof SessionLockTimeoutError)) throw error;
        }
      }
      realUnlink(p);
    };
    syncBuiltinESMExports();
    try {
      holders.push(acquireLock(path, { timeoutMs: 1000 }));
    } finally {
      fs.unlinkSync = realUnlink;
      syncBuiltinESMExports();
    }
    expect(interleaved).toBe(true);
    expect(holders).toHaveLength(1);
    for (const held of holders) held.release();
    expect(existsSync(lockPath)).toBe(false);
    expect(existsSync(`${lockPath}.break`)).toBe(false);
  });

  it("waits for another breaker, and removes a break file left by a dead or long-stalled one", () => {
    const path = session();
    const lockPath = lockPathFor(path);
    const stale = JSON.stringify({ pid: deadPid(), hostname: hostname(), time: Date.now() });
    writeFileSync(lockPath, stale);
    // Another host's breaker is at work right now: wait for it.
    writeFileSync(`${lockPath}.break`, JSON.stringify({ pid: 1, hostname: "elsewhere", time: Date.now() }));
    expect(() => acquireLock(path, { timeoutMs: 30 })).toThrow(SessionLockTimeoutError);
    expect(readFileSync(lockPath, "utf8")).toBe(stale);
    // It stalled (or its host went away) for seconds: its turn is over.
    writeFileSync(
      `${lockPath}.break`,
      JSON.stringify({ pid: 1, hostname: "elsewhere", time: Date.now() - 60_000 }),
    );
    acquireLock(path, { timeoutMs: 1000 }).release();
    // A breaker of this host that died.
    writeFileSync(lockPath, stale);
    writeFileSync(
      `${lockPath}.break`,
      JSON.stringify({ pid: deadPid(), hostname: hostname(), time: Date.now() }),
    );
    acquireLock(path, { timeoutMs: 1000 }).release();
    expect(existsSync(lockPath)).toBe(false);
    expect(existsSync(`${lockPath}.break`)).toBe(false);
  });

  const linux = existsSync("/proc/self/stat");
  it.runIf(linux)("takes over at once a lock left by an earlier process that had this pid", () => {
    const path = session();
    // Same pid, same host, fresh, but another start time: a restarted container, say.
    writeFileSync(
      lockPathFor(path),
      JSON.stringify({ pid: process.pid, hostname: hostname(), time: Date.now(), start: "1" }),
    );
    acquireLock(path, { timeoutMs: 30 }).release();
    // Without a start time (written elsewhere) only the age tells.
    writeFileSync(
      lockPathFor(path),
      JSON.stringify({ pid: process.pid, hostname: hostname(), time: Date.now() }),
    );
    expect(() => acquireLock(path, { timeoutMs: 30 })).toThrow(SessionLockTimeoutError);
  });

  it.runIf(linux)("takes over an old lock whose live pid now belongs to another process", () => {
    const path = session();
    writeFileSync(
      lockPathFor(path),
      JSON.stringify({ pid: process.ppid, hostname: hostname(), time: Date.now() - 60_000, start: "1" }),
    );
    acquireLock(path, { timeoutMs: 1000 }).release();
  });
});
