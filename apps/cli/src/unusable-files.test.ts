/**
 * Unusable things at a session's paths (issue 16), through the built binary (`dist/pi-session.cjs`): an
 * unusable lock makes `name` and `label` fail after the lock timeout with a message that says
 * what is wrong, never spin; a FIFO named like a session is never opened for reading (`ls`,
 * `stats --all`, `validate DIR` and `migrate DIR` pass it by; every command given its path
 * refuses it). Each run is killed after a generous limit, so a hang fails the
 * test instead of the run. Build first: `npx turbo run build --filter=@pi-session/cli...`.
 * @module-tag processes
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const BIN = resolve(dirname(fileURLToPath(import.meta.url)), "..", "dist", "pi-session.cjs");
/** Far beyond what any run needs, even on a busy machine: reaching it means a hang. */
const RUN_LIMIT_MS = 60_000;

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "pi-cli-hostile-"));
});
afterEach(() => {
  rmSync(home, { recursive: true, force: true });
});

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(args: string[], env: Record<string, string> = {}): Result {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    env: {
      PATH: process.env.PATH ?? "",
      HOME: home,
      PI_CODING_AGENT_DIR: join(home, "agent"),
      XDG_CACHE_HOME: join(home, "cache"),
      TZ: "UTC",
      ...env,
    },
    cwd: home,
    encoding: "utf8",
    timeout: RUN_LIMIT_MS,
    killSignal: "SIGKILL",
  });
  if (r.signal !== null || r.error) {
    throw new Error(`pi-session ${args.join(" ")} did not finish within ${RUN_LIMIT_MS} ms (a hang)`);
  }
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const lines = [
  {
    type: "session",
    version: 3,
    id: "019a4c1e-0000-7000-8000-000000000001",
    timestamp: "2026-01-01T00:00:00.000Z",
    cwd: "/x",
  },
  {
    type: "message",
    id: "a0000001",
    parentId: null,
    timestamp: "2026-01-01T00:00:01.000Z",
    message: { role: "user", content: "hi", timestamp: 1 },
  },
];

function sessionFile(): string {
  const dir = join(home, "s");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "2026-01-01T00-00-00-000Z_019a4c1e-0000-7000-8000-000000000001.jsonl");
  writeFileSync(path, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
  return path;
}

describe("an unusable lock", () => {
  for (const [what, make] of [
    ["a directory", (lock: string) => mkdirSync(lock)],
    ["a FIFO", (lock: string) => expect(spawnSync("mkfifo", [lock]).status).toBe(0)],
  ] as const) {
    it(`${what} at <file>.lock: name and label time out, name the problem, leave no backup`, () => {
      const path = sessionFile();
      const before = readFileSync(path, "utf8");
      make(`${path}.lock`);
      const env = { PI_SESSION_LOCK_TIMEOUT_MS: "200" };
      for (const args of [
        ["name", path, "renamed"],
        ["label", path, "a0000001", "start"],
      ]) {
        const r = run(args, env);
        expect(r.code, r.stderr).toBe(1);
        expect(r.stderr).toContain("Timed out after 200 ms waiting for the session lock");
        expect(r.stderr).toContain(`it is ${what}, not a lock file`);
      }
      expect(readFileSync(path, "utf8")).toBe(before);
      expect(readdirSync(dirname(path)).sort()).toEqual([
        `${path.split("/").pop()}`,
        `${path.split("/").pop()}.lock`,
      ]);
    });
  }
});

describe("a FIFO named like a session", () => {
  /** A per-cwd store (for cwd `home`) with one real session and a FIFO named as a newer one. */
  function storeWithFifo(): { dir: string; real: string; fifo: string } {
    const dir = join(home, "agent", "sessions", `--${home.slice(1).replaceAll("/", "-")}--`);
    mkdirSync(dir, { recursive: true });
    const real = join(dir, "2026-01-01T00-00-00-000Z_019a4c1e-0000-7000-8000-000000000001.jsonl");
    writeFileSync(
      real,
      `${lines.map((l) => JSON.stringify({ ...l, ...(l.type === "session" ? { cwd: home } : {}) })).join("\n")}\n`,
    );
    const fifo = join(dir, "2026-01-02T00-00-00-000Z_019a4c1e-0000-7000-8000-000000000002.jsonl");
    expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
    return { dir, real, fifo };
  }

  it("ls, ls --all, stats --all, validate DIR and migrate DIR pass it by (never opened), and say so", () => {
    const { dir, real, fifo } = storeWithFifo();
    const said = `warning: ${fifo}: not a regular file; skipped`;
    for (const args of [["ls"], ["ls", "--all"]]) {
      const r = run([...args, "--json"]);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).map((s: { path: string }) => s.path)).toEqual([real]);
      expect(r.stderr).toContain(said);
      expect(r.stderr).toContain("1 file skipped: 1 not a regular file");
    }
    const stats = run(["stats", "--all", "--json"]);
    expect(stats.code, stats.stderr).toBe(0);
    for (const args of [
      ["validate", dir],
      ["migrate", dir, "--verbose"],
    ]) {
      const r = run(args);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(real);
      expect(r.stdout).not.toContain("000000000002");
      expect(r.stderr).toContain(said);
    }
  });

  it("every command given its path refuses it: exit 1, 'not a regular file'", () => {
    const { fifo } = storeWithFifo();
    for (const args of [
      ["show", fifo],
      ["show", fifo, "--json"],
      ["tree", fifo],
      ["context", fifo, "--json"],
      ["validate", fifo],
      ["stats", fifo],
      ["migrate", fifo],
      ["migrate", fifo, "--write"],
      ["repair", fifo],
      ["name", fifo, "x"],
      ["label", fifo, "a0000001", "x"],
      ["fork", fifo],
      ["rm", fifo, "--yes"],
    ]) {
      const r = run(args);
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(1);
      expect(r.stderr.toLowerCase(), args.join(" ")).toContain("not a regular file");
    }
    expect(readdirSync(dirname(fifo))).toHaveLength(2);
  });
});
