/**
 * kill -9 leaves no debris (issue 16): the built binary (`dist/pi-session.cjs`) is stopped in
 * the middle of writing a session (a preloaded hook writes half of the first large write to a
 * `.jsonl` file or its temp file, says so, and waits) and SIGKILLed. Then: the original is as
 * it was, `ls` lists no truncated session, and the next writer in the directory (or `repair
 * --write`) removes the temp file the killed process left.
 * @module-tag processes
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const BIN = resolve(dirname(fileURLToPath(import.meta.url)), "..", "dist", "pi-session.cjs");
/** Far beyond what any run needs, even on a busy machine: reaching it means a hang. */
const RUN_LIMIT_MS = 60_000;

/**
 * Preloaded into the killed process: the first write of 1 KiB or more to a `.jsonl` file (or a
 * temp file beside one) writes half of its bytes, prints PAUSED on stderr and waits to be killed.
 */
const PAUSE_HOOK = `
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
const realWrite = fs.writeSync;
let paused = false;
fs.writeSync = function (fd, buffer, offset, length, position) {
  if (!paused && typeof fd === "number" && ArrayBuffer.isView(buffer)) {
    let target = "";
    try { target = fs.readlinkSync("/proc/self/fd/" + fd); } catch {}
    const off = typeof offset === "number" ? offset : 0;
    const len = typeof length === "number" ? length : buffer.byteLength - off;
    if (/\\.jsonl(\\.tmp-[^/]*)?$/.test(target) && len >= 1024) {
      paused = true;
      realWrite(fd, buffer, off, len >> 1, position ?? null);
      process.stderr.write("PAUSED\\n");
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60_000);
    }
  }
  return realWrite.apply(this, arguments);
};
syncBuiltinESMExports();
`;

let home: string;
let hook: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "pi-cli-killed-"));
  hook = join(home, "pause-hook.mjs");
  writeFileSync(hook, PAUSE_HOOK);
});
afterEach(() => {
  rmSync(home, { recursive: true, force: true });
});

function env(): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "",
    HOME: home,
    PI_CODING_AGENT_DIR: join(home, "agent"),
    XDG_CACHE_HOME: join(home, "cache"),
    TZ: "UTC",
  };
}

function run(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    env: env(),
    cwd: home,
    encoding: "utf8",
    timeout: RUN_LIMIT_MS,
    killSignal: "SIGKILL",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.signal !== null || r.error) throw new Error(`pi-session ${args.join(" ")} did not finish (a hang)`);
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((res) => {
    if (child.exitCode !== null || child.signalCode !== null) res();
    else child.once("exit", () => res());
  });
}

/** Runs `pi-session args` with the pause hook and SIGKILLs it mid-write. */
async function killedMidWrite(args: string[]): Promise<void> {
  const child = spawn(process.execPath, ["--import", hook, BIN, ...args], {
    env: env(),
    cwd: home,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  await new Promise<void>((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`never paused: ${stderr}`)), RUN_LIMIT_MS);
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes("PAUSED")) {
        clearTimeout(timer);
        child.kill("SIGKILL");
        res();
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      if (!stderr.includes("PAUSED")) rej(new Error(`exited (${code}) before writing: ${stderr}`));
    });
  });
  await exited(child);
}

const MESSAGES = 400;

/** A session of `/work` (per-cwd store) with MESSAGES messages, v3 or v1; returns its path. */
function session(
  version: 1 | 3,
  name = "2026-01-01T00-00-00-000Z_019a4c1e-0000-7000-8000-000000000001.jsonl",
) {
  const dir = join(home, "agent", "sessions", "--work--");
  mkdirSync(dir, { recursive: true });
  const lines: object[] = [
    version === 3
      ? {
          type: "session",
          version: 3,
          id: "019a4c1e-0000-7000-8000-000000000001",
          timestamp: "2026-01-01T00:00:00.000Z",
          cwd: "/work",
        }
      : {
          type: "session",
          id: "019a4c1e-0000-7000-8000-000000000001",
          timestamp: "2026-01-01T00:00:00.000Z",
          cwd: "/work",
        },
  ];
  for (let i = 0; i < MESSAGES; i++) {
    const message = {
      role: i % 2 === 0 ? "user" : "assistant",
      content: i % 2 === 0 ? `question ${i} ${"x".repeat(200)}` : [{ type: "text", text: `answer ${i}` }],
      timestamp: 1_700_000_000_000 + i,
    };
    lines.push(
      version === 3
        ? {
            type: "message",
            id: `m${String(i).padStart(7, "0")}`,
            parentId: i === 0 ? null : `m${String(i - 1).padStart(7, "0")}`,
            timestamp: "2026-01-01T00:00:01.000Z",
            message,
          }
        : { type: "message", timestamp: "2026-01-01T00:00:01.000Z", message },
    );
  }
  const path = join(dir, name);
  writeFileSync(path, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
  return path;
}

const temps = (dir: string) => readdirSync(dir).filter((f) => f.includes(".tmp-"));

function listed(): { path: string; messageCount: number }[] {
  const r = run(["ls", "--all", "--json"]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

describe("a writer killed mid-write leaves no debris", () => {
  for (const [what, version, args] of [
    ["migrate --write", 1, (path: string) => ["migrate", path, "--write"]],
    ["name on a v1 file", 1, (path: string) => ["name", path, "renamed"]],
    ["repair --write", 3, (path: string) => ["repair", path, "--write"]],
  ] as const) {
    it(`${what}: the original stays whole; the next writer removes the temp file`, async () => {
      const path = session(version);
      // repair needs something to fix: a torn last line.
      if (what === "repair --write") writeFileSync(path, `${readFileSync(path, "utf8")}{"type":"mess`);
      const before = readFileSync(path);
      await killedMidWrite(args(path));
      expect(readFileSync(path).equals(before)).toBe(true);
      const dir = dirname(path);
      expect(temps(dir), "the killed process left its temp file").toHaveLength(1);
      // The listing shows the session whole, and nothing else.
      expect(listed().map((s) => [s.path, s.messageCount])).toEqual([[path, MESSAGES]]);
      // The next writer of that session: the same command again, now to the end.
      const again = run(args(path));
      expect(again.code, again.stderr).toBe(0);
      expect(temps(dir)).toEqual([]);
    });
  }

  it("a repair lists, and with --write removes, a dead writer's temp file", async () => {
    const path = session(1);
    await killedMidWrite(["migrate", path, "--write"]);
    const dir = dirname(path);
    const [temp] = temps(dir);
    const dry = run(["repair", path, "--json"]);
    expect(JSON.parse(dry.stdout).deadTempFiles).toEqual([join(dir, temp as string)]);
    expect(temps(dir)).toHaveLength(1);
    const r = run(["repair", path, "--write", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).deadTempFiles).toEqual([join(dir, temp as string)]);
    expect(temps(dir)).toEqual([]);
  });

  for (const [what, args] of [
    ["fork (createBranchedSession)", (path: string) => ["fork", path]],
    ["fork --to (forkFrom)", (path: string) => ["fork", path, "--to", "/work"]],
  ] as const) {
    it(`${what}: no truncated session is listed; the next writer in the directory removes the temp file`, async () => {
      const path = session(3);
      await killedMidWrite(args(path));
      const dir = dirname(path);
      // Only the source: the fork was never published (nothing named *.jsonl but the source).
      expect(listed().map((s) => [s.path, s.messageCount])).toEqual([[path, MESSAGES]]);
      expect(readdirSync(dir).filter((f) => f.endsWith(".jsonl"))).toEqual([path.split("/").pop()]);
      expect(temps(dir)).toHaveLength(1);
      // The next writer in the directory: a fork that runs to the end.
      const again = run([...args(path), "--json"]);
      expect(again.code, again.stderr).toBe(0);
      expect(temps(dir)).toEqual([]);
      const fork = JSON.parse(again.stdout).path as string;
      expect(
        listed()
          .map((s) => [s.path, s.messageCount])
          .sort(),
      ).toEqual(
        [
          [path, MESSAGES],
          [fork, MESSAGES],
        ].sort(),
      );
    });
  }
});
