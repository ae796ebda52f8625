/**
 * Hostile things at a session's paths, against the built package (`dist/`, so build first):
 * unusable locks (a directory, a FIFO, a dangling link, an unreadable or unremovable file at
 * `<file>.lock`) end in the usual backoff and `SessionLockTimeoutError`, never a spin; a lock
 * whose live pid has another start time is stale at once; a FIFO (or a directory) where a
 * session, a settings file or a cache file is expected is never opened for reading: listings
 * leave it out, readers, scans and writers refuse it with `SessionFileNotRegularError`; temp
 * files are removed by later writers only when the process that made them is provably gone.
 *
 * A regression here would hang (a synchronous spin, a read of a FIFO blocks for ever), which
 * no test timeout can interrupt in-process: every case runs in a child process killed after a
 * generous limit, so a hang fails the test instead of the run.
 * @module-tag processes
 */
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { hostname } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { tempDirs } from "@pi-session/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { SessionLockTimeoutError } from "./errors.js";
import { cacheFileFor } from "./listing/cache-dir.js";
import { acquireLock, lockPathFor } from "./lock/lock.js";
import { SessionWriter } from "./write/appender.js";
import { createSessionFile } from "./write/create.js";
import { removeDeadTempFiles } from "./write/temp-files.js";
import { repairTornTail } from "./write/torn-tail.js";
import { rewriteSessionFile } from "./write/rewrite.js";

const dist = (name: string) =>
  pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), "..", "dist", name)).href;
const distIndex = dist("index.js");
const distInternal = dist("internal.js");

const dirs = tempDirs("ns-hostile-");
afterEach(dirs.cleanup);

/** Far beyond what any case needs, even on a busy machine: reaching it means a hang. */
const CHILD_LIMIT_MS = 60_000;
const linux = existsSync("/proc/self/stat");

const header = { type: "session", version: 3, id: "h", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/p" };

/**
 * Runs `body` (an ES module body; `ns` is node-store's built index, `internal` its internal
 * subpath, `path` and `arg` are given)
 * in a child process that prints one JSON value; fails when it does not finish in time.
 */
function inChild(body: string, path: string, arg: unknown = null, prelude = ""): unknown {
  const script = join(dirs.make(), "case.mjs");
  writeFileSync(
    script,
    `${prelude}
const ns = await import(${JSON.stringify(distIndex)});
const internal = await import(${JSON.stringify(distInternal)});
const path = ${JSON.stringify(path)};
const arg = ${JSON.stringify(arg)};
const out = await (async () => { ${body} })();
process.stdout.write(JSON.stringify(out));
`,
  );
  const r = spawnSync(process.execPath, [script], {
    encoding: "utf8",
    timeout: CHILD_LIMIT_MS,
    killSignal: "SIGKILL",
  });
  if (r.signal !== null || r.error) {
    throw new Error(`the child did not finish within ${CHILD_LIMIT_MS} ms (a hang): ${r.signal ?? r.error}`);
  }
  if (r.status !== 0) throw new Error(`the child failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** What an append under `lockTimeoutMs` ends in, as `{ name, problem }` of the error. */
const APPEND_CASE = `
  const started = Date.now();
  try {
    const w = ns.SessionWriter.open(path, { lockOptions: { timeoutMs: 200 } });
    w.append({ type: "custom", id: "c1", parentId: null, timestamp: "2025-01-01T00:00:01.000Z", customType: "x" });
    w.close();
    return { name: "ok" };
  } catch (e) {
    return { name: e.name, problem: e.problem ?? null, message: e.message, waited: Date.now() - started };
  }
`;

function session(): string {
  const path = join(dirs.make(), "s.jsonl");
  createSessionFile(path, [header]);
  return path;
}

describe("an unusable lock", () => {
  it("a directory at <file>.lock: the append backs off and times out (never removed)", () => {
    const path = session();
    mkdirSync(lockPathFor(path));
    const out = inChild(APPEND_CASE, path) as Record<string, unknown>;
    expect(out).toMatchObject({
      name: "SessionLockTimeoutError",
      problem: "it is a directory, not a lock file",
    });
    expect(out.message).toContain("remove it if no writer uses it");
    expect(existsSync(lockPathFor(path))).toBe(true);
    expect(readFileSync(path, "utf8")).toBe(`${JSON.stringify(header)}\n`);
  });

  it("a FIFO at <file>.lock is never opened for reading", () => {
    const path = session();
    expect(spawnSync("mkfifo", [lockPathFor(path)]).status).toBe(0);
    expect(inChild(APPEND_CASE, path)).toMatchObject({
      name: "SessionLockTimeoutError",
      problem: "it is a FIFO, not a lock file",
    });
  });

  it("a dangling symlink at <file>.lock (exists for wx, missing for a read)", () => {
    const path = session();
    symlinkSync(join(dirname(path), "nowhere", "lock"), lockPathFor(path));
    expect(inChild(APPEND_CASE, path)).toMatchObject({
      name: "SessionLockTimeoutError",
      problem: "it is a symbolic link, not a lock file",
    });
  });

  it("a lock file that cannot be read (EACCES)", () => {
    const path = session();
    const lock = lockPathFor(path);
    writeFileSync(lock, JSON.stringify({ pid: 1, hostname: hostname(), time: Date.now() }));
    // Injected (a test run as root reads any file): every read-only open of the lock fails.
    const prelude = `
import fs, { constants } from "node:fs";
import { syncBuiltinESMExports } from "node:module";
const realOpen = fs.openSync;
fs.openSync = (p, flags, ...rest) => {
  if (p === ${JSON.stringify(lock)} && typeof flags === "number" && (flags & constants.O_CREAT) === 0)
    throw Object.assign(new Error("EACCES: permission denied"), { code: "EACCES" });
  return realOpen(p, flags, ...rest);
};
syncBuiltinESMExports();
`;
    expect(inChild(APPEND_CASE, path, null, prelude)).toMatchObject({
      name: "SessionLockTimeoutError",
      problem: "it cannot be read (EACCES)",
    });
  });

  it("a stale lock that cannot be removed (EPERM on unlink) is waited on, not retried at once", () => {
    const path = session();
    const lock = lockPathFor(path);
    // Not a lock's content, and old: stale, but its unlink fails.
    writeFileSync(lock, "garbage");
    const prelude = `
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
const realUnlink = fs.unlinkSync;
globalThis.unlinks = 0;
fs.unlinkSync = (p) => {
  if (p === ${JSON.stringify(lock)}) {
    globalThis.unlinks++;
    throw Object.assign(new Error("EPERM: operation not permitted"), { code: "EPERM" });
  }
  return realUnlink(p);
};
syncBuiltinESMExports();
`;
    const out = inChild(
      `
      const old = new Date(Date.now() - 60_000);
      (await import("node:fs")).utimesSync(${JSON.stringify(lock)}, old, old);
      const result = await (async () => { ${APPEND_CASE} })();
      return { ...result, unlinks: globalThis.unlinks };
      `,
      path,
      null,
      prelude,
    ) as Record<string, unknown>;
    expect(out).toMatchObject({
      name: "SessionLockTimeoutError",
      problem: "it is stale but cannot be removed",
    });
    // With a backoff of up to 10 ms between tries, a few dozen tries in 200 ms; a spin makes
    // hundreds of thousands.
    expect(out.unlinks as number).toBeLessThan(1000);
    expect(existsSync(`${lock}.break`)).toBe(false);
  });

  it("a directory at <lock>.break, with a stale lock: waited on, times out", () => {
    const path = session();
    const lock = lockPathFor(path);
    writeFileSync(lock, "garbage");
    mkdirSync(`${lock}.break`);
    expect(
      inChild(
        `
        const old = new Date(Date.now() - 60_000);
        (await import("node:fs")).utimesSync(${JSON.stringify(lock)}, old, old);
        ${APPEND_CASE}`,
        path,
      ),
    ).toMatchObject({ name: "SessionLockTimeoutError" });
    expect(readFileSync(lock, "utf8")).toBe("garbage");
  });

  it("PI_SESSION_LOCK_TIMEOUT_MS sets the default timeout", () => {
    const path = session();
    const held = acquireLock(path);
    process.env.PI_SESSION_LOCK_TIMEOUT_MS = "50";
    try {
      expect(() => acquireLock(path)).toThrow(
        expect.objectContaining({ name: "SessionLockTimeoutError", timeoutMs: 50 }),
      );
    } finally {
      delete process.env.PI_SESSION_LOCK_TIMEOUT_MS;
      held.release();
    }
  });
});

describe("a lock whose pid was reused", () => {
  it.runIf(linux)("a fresh lock naming a live pid with another start time is stale at once", () => {
    const path = session();
    // The parent process is alive, and did not start at tick 1: its pid was "reused".
    writeFileSync(
      lockPathFor(path),
      JSON.stringify({ pid: process.ppid, hostname: hostname(), time: Date.now(), start: "1" }),
    );
    // Well within staleMs (30 s), and a timeout far below it.
    acquireLock(path, { timeoutMs: 2000 }).release();
    expect(existsSync(lockPathFor(path))).toBe(false);
  });

  it.runIf(linux)("a fresh lock of a live pid with its own start time is held", () => {
    const path = session();
    const stat = readFileSync(`/proc/${process.ppid}/stat`, "utf8");
    const start = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
    writeFileSync(
      lockPathFor(path),
      JSON.stringify({ pid: process.ppid, hostname: hostname(), time: Date.now(), start }),
    );
    expect(() => acquireLock(path, { timeoutMs: 50 })).toThrow(SessionLockTimeoutError);
  });
});

/** Makes a FIFO at `path` (mkfifo(1): Node has no mkfifo). */
function mkfifo(path: string): string {
  const r = spawnSync("mkfifo", [path]);
  if (r.status !== 0) throw new Error(`mkfifo ${path}: ${r.stderr}`);
  return path;
}

const line = (v: object) => `${JSON.stringify(v)}\n`;
const message = {
  type: "message",
  id: "m1",
  parentId: null,
  timestamp: "2025-01-01T00:00:01.000Z",
  message: { role: "user", content: "hi", timestamp: 1 },
};

/** A per-cwd sessions root with one real session of `/p` and a FIFO named as a newer one. */
function storeWithFifo(): { root: string; dir: string; real: string; fifo: string } {
  const root = join(dirs.make(), "sessions");
  const dir = join(root, "--p--");
  mkdirSync(dir, { recursive: true });
  const real = join(dir, "2025-01-01T00-00-00-000Z_00000000-0000-7000-8000-000000000001.jsonl");
  writeFileSync(real, line({ ...header, id: "00000000-0000-7000-8000-000000000001" }) + line(message));
  const fifo = mkfifo(join(dir, "2025-01-02T00-00-00-000Z_00000000-0000-7000-8000-000000000002.jsonl"));
  return { root, dir, real, fifo };
}

describe("a FIFO named like a session", () => {
  it("listings leave it out (listSessions, listSessionDir, listAllSessions; with and without cache, progress)", () => {
    const { root, dir, real } = storeWithFifo();
    const cache = join(dirs.make(), "cache");
    const out = inChild(
      `
      const paths = (infos) => infos.map((i) => i.path);
      const progress = { onProgress: () => {} };
      return {
        dir: paths(await ns.listSessionDir(arg.dir, { cache: false })),
        dirCached: paths(await ns.listSessionDir(arg.dir, { cache: { dir: arg.cache } })),
        dirWarm: paths(await ns.listSessionDir(arg.dir, { cache: { dir: arg.cache } })),
        dirProgress: paths(await ns.listSessionDir(arg.dir, { cache: false, ...progress })),
        cwd: paths(await ns.listSessions("/p", { sessionDir: arg.dir, cache: false })),
        all: paths(await ns.listAllSessions(arg.root, { cache: false })),
        storeFiles: ns.listStoreFiles(arg.root).map((f) => f.path),
        allProgress: paths(await ns.listAllSessions(arg.root, { cache: false, ...progress })),
        allPerCwd: paths(await ns.listAllSessions(arg.root, { cache: { dir: arg.cache }, layout: "per-cwd" })),
      };
      `,
      "",
      { root, dir, cache },
    ) as Record<string, string[]>;
    for (const [how, listed] of Object.entries(out)) expect(listed, how).toEqual([real]);
  });

  it("readers, scans and writers refuse it (SessionFileNotRegularError, code ENOTREG), never read it", () => {
    const { fifo } = storeWithFifo();
    const out = inChild(
      `
      const outcome = async (fn) => {
        try {
          return { ok: await fn() };
        } catch (e) {
          return { error: e.name, code: e.code ?? null, kind: e.kind ?? null };
        }
      };
      const calls = {
        readSessionFile: () => ns.readSessionFile(path),
        readSessionFileNull: () => ns.readSessionFile(path, { missing: "null" }),
        readSessionFileSync: () => ns.readSessionFileSync(path),
        stream: async () => { for await (const r of ns.streamSessionRecords(path)) void r; },
        scanHeader: () => ns.scanHeader(path),
        scanHeaderSync: () => ns.scanHeaderSync(path),
        scanTail: () => ns.scanTail(path),
        readSessionInfo: () => ns.readSessionInfo(path),
        openRegularFileSync: () => ns.openRegularFileSync(path),
        openRegularFile: () => ns.openRegularFile(path),
        "SessionWriter.open": () => ns.SessionWriter.open(path),
        "SessionWriter.open without a lock": () => ns.SessionWriter.open(path, { lock: false }),
        repairTornTail: () => ns.repairTornTail(path),
        rewriteSessionFile: () => ns.rewriteSessionFile(path, [{ type: "session", version: 3, id: "x", timestamp: "t", cwd: "/" }]),
        removeSession: () => ns.removeSession(path, { trash: false }),
        // No error by contract: no bytes (and never a blocked read).
        readFileBytes: () => internal.readFileBytes(path, 0, 10).length,
      };
      const results = {};
      for (const [name, fn] of Object.entries(calls)) results[name] = await outcome(fn);
      return results;
      `,
      fifo,
    ) as Record<string, unknown>;
    const { readFileBytes, ...refusing } = out;
    expect(readFileBytes).toEqual({ ok: 0 });
    const refused = { error: "SessionFileNotRegularError", code: "ENOTREG", kind: "a FIFO" };
    for (const [call, outcome] of Object.entries(refusing)) expect(outcome, call).toEqual(refused);
    expect(existsSync(fifo)).toBe(true);
  });

  it("a FIFO put in place of a regular file between the stat and the open: the fstat refuses it", () => {
    const { real, fifo } = storeWithFifo();
    // The stat is made to lie (the race lost): the path still looks like the real file.
    const prelude = `
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
const realStat = fs.statSync;
fs.statSync = (p, ...rest) => realStat(p === ${JSON.stringify(fifo)} ? ${JSON.stringify(real)} : p, ...rest);
syncBuiltinESMExports();
`;
    const out = inChild(
      `
      try {
        ns.readSessionFileSync(path);
        return "read";
      } catch (e) {
        return e.name;
      }
      `,
      fifo,
      null,
      prelude,
    );
    expect(out).toBe("SessionFileNotRegularError");
  });

  it("a directory named like a session: refused with code EISDIR", () => {
    const path = join(dirs.make(), "d.jsonl");
    mkdirSync(path);
    expect(
      inChild(
        `try { ns.readSessionFileSync(path); return null; } catch (e) { return [e.name, e.code, e.kind]; }`,
        path,
      ),
    ).toEqual(["SessionFileNotRegularError", "EISDIR", "a directory"]);
  });

  it("a FIFO as settings.json counts as no settings; a FIFO as the cache index as no cache", () => {
    const { root, dir, real } = storeWithFifo();
    const agentDir = dirname(root);
    mkfifo(join(agentDir, "settings.json"));
    const cache = join(dirs.make(), "cache");
    mkdirSync(cache);
    mkfifo(cacheFileFor(cache, dir));
    const out = inChild(
      `
      return {
        setting: ns.readSessionDirSetting(arg.agentDir) ?? null,
        listed: (await ns.listSessionDir(arg.dir, { cache: { dir: arg.cache } })).map((i) => i.path),
      };
      `,
      "",
      { agentDir, dir, cache },
    );
    expect(out).toEqual({ setting: null, listed: [real] });
  });
});

/** The pid of a process that has exited (and been reaped). */
function deadPid(): number {
  const r = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]);
  return Number(r.stdout.toString());
}

/** Start time of a live process, as the kernel counts it (Linux). */
function startOf(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] as string;
}

describe("temp files left by killed writers", () => {
  /** The host tag in this host's temp names, as a rewrite makes one. */
  function hostTag(): string {
    const probe = join(dirs.make(), "p.jsonl");
    createSessionFile(probe, [header]);
    let tag = "";
    rewriteSessionFile(probe, [header], {
      fs: {
        openSync: ((p: string, ...rest: [never]) => {
          tag ||= /\.tmp-\d+-(?:\d+|x)-([0-9a-f]{8})-/.exec(String(p))?.[1] ?? "";
          return openSync(p, ...rest);
        }) as typeof openSync,
      },
    });
    expect(tag).toMatch(/^[0-9a-f]{8}$/);
    return tag;
  }

  it.runIf(linux)(
    "only those whose writer is provably gone are removed, by the next writer of the session",
    () => {
      const tag = hostTag();
      const other = tag === "00000000" ? "00000001" : "00000000";
      const dir = dirs.make();
      const path = join(dir, "s.jsonl");
      createSessionFile(path, [header]);
      const dead = deadPid();
      const live = process.ppid;
      const own = startOf(process.pid);
      const names = {
        deadPid: `.s.jsonl.tmp-${dead}-12345-${tag}-abc`,
        deadPidNoStart: `.s.jsonl.tmp-${dead}-x-${tag}-abc`,
        reusedPid: `.s.jsonl.tmp-${live}-1-${tag}-abc`,
        otherSession: `.t.jsonl.tmp-${dead}-12345-${tag}-abc`,
        liveWriter: `.s.jsonl.tmp-${live}-${startOf(live)}-${tag}-abc`,
        liveNoStart: `.s.jsonl.tmp-${live}-x-${tag}-abc`,
        thisProcess: `.s.jsonl.tmp-${process.pid}-${own}-${tag}-abc`,
        otherHost: `.s.jsonl.tmp-${dead}-12345-${other}-abc`,
        legacyDeadOld: `.s.jsonl.tmp-${dead}-k3j2h1`,
        legacyDeadFresh: `.s.jsonl.tmp-${dead}-k3j2h2`,
        legacyLiveOld: `.s.jsonl.tmp-${live}-k3j2h3`,
        notOurs: ".s.jsonl.tmp-notes",
      };
      for (const name of Object.values(names)) writeFileSync(join(dir, name), "partial");
      const hourAgo = new Date(Date.now() - 3_600_000);
      for (const name of [names.legacyDeadOld, names.legacyLiveOld])
        utimesSync(join(dir, name), hourAgo, hourAgo);
      // A directory is never removed, whatever its name says.
      mkdirSync(join(dir, `.s.jsonl.tmp-${dead}-12345-${tag}-dir`));
      const gone = [
        names.deadPid,
        names.deadPidNoStart,
        names.reusedPid,
        names.otherSession,
        names.legacyDeadOld,
      ];
      expect(removeDeadTempFiles(dir, { dryRun: true }).sort()).toEqual(gone.map((n) => join(dir, n)).sort());
      expect(readdirSync(dir)).toHaveLength(1 + Object.keys(names).length + 1);
      // The next writer of the session removes them.
      SessionWriter.open(path).close();
      const kept = Object.values(names).filter((n) => !gone.includes(n));
      expect(readdirSync(dir).sort()).toEqual(
        ["s.jsonl", `.s.jsonl.tmp-${dead}-12345-${tag}-dir`, ...kept].sort(),
      );
    },
  );

  it.runIf(linux)("rewrites, creates and torn-tail repairs remove them too", () => {
    const tag = hostTag();
    const dead = deadPid();
    for (const write of [
      (path: string) => rewriteSessionFile(path, [header]),
      (path: string) => createSessionFile(join(dirname(path), "new.jsonl"), [header]),
      (path: string) => repairTornTail(path),
    ]) {
      const dir = dirs.make();
      const path = join(dir, "s.jsonl");
      createSessionFile(path, [header]);
      writeFileSync(join(dir, `.s.jsonl.tmp-${dead}-12345-${tag}-abc`), "partial");
      write(path);
      expect(readdirSync(dir).filter((n) => n.includes(".tmp-"))).toEqual([]);
    }
  });
});
