/**
 * Hostile things at a session's paths, through the SDK's public API (the built `dist/`, in a
 * child process each): an unusable lock ends an append in `SessionLockTimeoutError` after the
 * usual backoff, never a spin; a lock whose live pid has another start time is stale at once;
 * a FIFO named like a session is never opened for reading: `list`, `listAll`, `continueRecent`
 * and `findById` pass it by, `open`, `openReadonly`, `forkFrom` and `loadEntriesFromFile`
 * refuse it.
 *
 * A regression would hang (a synchronous spin, a blocking read of a FIFO), which no test
 * timeout can interrupt in-process: each case runs in a child killed after a generous limit.
 * @module-tag processes
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const DIST = new URL("../dist/index.js", import.meta.url).href;
/** Far beyond what any case needs, even on a busy machine: reaching it means a hang. */
const CHILD_LIMIT_MS = 60_000;
const linux = existsSync("/proc/self/stat");

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "pi-sdk-hostile-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Runs `body` (an ES module body; `sdk` is the built SDK, `dir` the test's directory) in a
 * child process that prints one JSON value; fails when it does not finish in time.
 */
function inChild(body: string, env: Record<string, string> = {}): unknown {
  const script = join(dir, `case-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(
    script,
    `const sdk = await import(${JSON.stringify(DIST)});
const dir = ${JSON.stringify(dir)};
const out = await (async () => { ${body} })();
process.stdout.write(JSON.stringify(out));
`,
  );
  const r = spawnSync(process.execPath, [script], {
    encoding: "utf8",
    timeout: CHILD_LIMIT_MS,
    killSignal: "SIGKILL",
    env: { ...process.env, XDG_CACHE_HOME: join(dir, "cache"), ...env },
  });
  if (r.signal !== null || r.error) {
    throw new Error(`the child did not finish within ${CHILD_LIMIT_MS} ms (a hang): ${r.signal ?? r.error}`);
  }
  if (r.status !== 0) throw new Error(`the child failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** A persisted session with one exchange; returns its path. */
function makeSession(): string {
  const out = inChild(`
    const m = sdk.SessionManager.create("/p", dir);
    m.appendMessage({ role: "user", content: "hi", timestamp: 1 });
    m.appendMessage({ role: "assistant", content: [{ type: "text", text: "hello" }], timestamp: 2 });
    m.close();
    return m.getSessionFile();
  `);
  return out as string;
}

/** Opens `path`, appends a message, and reports how that ended. */
const OPEN_AND_APPEND = (path: string, setup = "") => `
  const m = sdk.SessionManager.open(${JSON.stringify(path)});
  ${setup}
  try {
    m.appendMessage({ role: "user", content: "more", timestamp: 3 });
    m.close();
    return { name: "ok" };
  } catch (e) {
    return { name: e.name, problem: e.problem ?? null, timeoutMs: e.timeoutMs ?? null };
  }
`;

describe("an unusable lock", () => {
  it("a directory at <file>.lock: an append times out (setWriteOptions lockTimeoutMs), nothing written", () => {
    const path = makeSession();
    const before = readFileSync(path, "utf8");
    mkdirSync(`${path}.lock`);
    expect(inChild(OPEN_AND_APPEND(path, "m.setWriteOptions({ lockTimeoutMs: 200 });"))).toEqual({
      name: "SessionLockTimeoutError",
      problem: "it is a directory, not a lock file",
      timeoutMs: 200,
    });
    expect(readFileSync(path, "utf8")).toBe(before);
  });

  it("a FIFO at <file>.lock: the same, with PI_SESSION_LOCK_TIMEOUT_MS", () => {
    const path = makeSession();
    expect(spawnSync("mkfifo", [`${path}.lock`]).status).toBe(0);
    expect(inChild(OPEN_AND_APPEND(path), { PI_SESSION_LOCK_TIMEOUT_MS: "200" })).toEqual({
      name: "SessionLockTimeoutError",
      problem: "it is a FIFO, not a lock file",
      timeoutMs: 200,
    });
  });

  it("a directory at the lock of a v1 file (the migrating rewrite takes the lock too)", () => {
    const path = join(dir, "v1.jsonl");
    writeFileSync(
      path,
      `${[
        { type: "session", id: "v1", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/p" },
        { type: "message", timestamp: "2025-01-01T00:00:01.000Z", message: { role: "user", content: "hi" } },
      ]
        .map((l) => JSON.stringify(l))
        .join("\n")}\n`,
    );
    mkdirSync(`${path}.lock`);
    expect(inChild(OPEN_AND_APPEND(path, "m.setWriteOptions({ lockTimeoutMs: 200 });"))).toMatchObject({
      name: "SessionLockTimeoutError",
      problem: "it is a directory, not a lock file",
    });
  });
});

describe("a lock whose pid was reused", () => {
  it.runIf(linux)("a fresh lock naming a live pid with another start time does not hold an append", () => {
    const path = makeSession();
    // This test process is alive, and did not start at tick 1.
    writeFileSync(
      `${path}.lock`,
      JSON.stringify({ pid: process.pid, hostname: hostname(), time: Date.now(), start: "1" }),
    );
    // A timeout far below the 30 s after which the lock would be stale by age.
    expect(inChild(OPEN_AND_APPEND(path, "m.setWriteOptions({ lockTimeoutMs: 2000 });"))).toEqual({
      name: "ok",
    });
    expect(readFileSync(path, "utf8")).toContain('"content":"more"');
    expect(existsSync(`${path}.lock`)).toBe(false);
  });
});

describe("a FIFO named like a session", () => {
  /** `<agent>/sessions/--p--/` with one real session of `/p` and a FIFO named as a newer one. */
  function storeWithFifo(): { agentDir: string; sessionDir: string; real: string; fifo: string } {
    const agentDir = join(dir, "agent");
    const sessionDir = join(agentDir, "sessions", "--p--");
    mkdirSync(sessionDir, { recursive: true });
    const id = "019a4c1e-0000-7000-8000-000000000001";
    const real = join(sessionDir, `2025-01-01T00-00-00-000Z_${id}.jsonl`);
    writeFileSync(
      real,
      `${[
        { type: "session", version: 3, id, timestamp: "2025-01-01T00:00:00.000Z", cwd: "/p" },
        {
          type: "message",
          id: "a1",
          parentId: null,
          timestamp: "2025-01-01T00:00:01.000Z",
          message: { role: "user", content: "hi", timestamp: 1 },
        },
      ]
        .map((l) => JSON.stringify(l))
        .join("\n")}\n`,
    );
    const fifo = join(sessionDir, "2025-01-02T00-00-00-000Z_019a4c1e-0000-7000-8000-000000000002.jsonl");
    expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
    return { agentDir, sessionDir, real, fifo };
  }

  it("list, listAll, continueRecent and findById pass it by", () => {
    const { agentDir, sessionDir, real, fifo } = storeWithFifo();
    const out = inChild(
      `
      const paths = (infos) => infos.map((i) => i.path);
      return {
        list: paths(await sdk.SessionManager.list("/p")),
        listDir: paths(await sdk.SessionManager.list("/p", ${JSON.stringify(sessionDir)})),
        listAll: paths(await sdk.SessionManager.listAll()),
        listAllDir: paths(await sdk.SessionManager.listAll(${JSON.stringify(sessionDir)}, () => {})),
        recent: sdk.SessionManager.continueRecent("/p").getSessionFile(),
        mostRecent: sdk.findMostRecentSession(${JSON.stringify(sessionDir)}),
        byId: sdk.SessionManager.findById("/p", "019a4c1e-0000-7000-8000-000000000002") ?? null,
      };
      `,
      { PI_CODING_AGENT_DIR: agentDir },
    );
    expect(out).toEqual({
      list: [real],
      listDir: [real],
      listAll: [real],
      listAllDir: [real],
      recent: real,
      mostRecent: real,
      byId: null,
    });
    expect(existsSync(fifo)).toBe(true);
  });

  it("open, openReadonly, forkFrom and loadEntriesFromFile refuse it with a clear error", () => {
    const { agentDir, fifo } = storeWithFifo();
    const out = inChild(
      `
      const path = ${JSON.stringify(fifo)};
      const outcome = (fn) => {
        try {
          fn();
          return "no error";
        } catch (e) {
          return e.message;
        }
      };
      return {
        open: outcome(() => sdk.SessionManager.open(path)),
        openReadonly: outcome(() => sdk.openReadonly(path)),
        forkFrom: outcome(() => sdk.SessionManager.forkFrom(path, "/q")),
        loadEntriesFromFile: outcome(() => sdk.loadEntriesFromFile(path)),
      };
      `,
      { PI_CODING_AGENT_DIR: agentDir },
    ) as Record<string, string>;
    for (const [call, message] of Object.entries(out))
      expect(message, call).toBe(`Not a regular file (a FIFO): ${fifo}`);
  });
});
