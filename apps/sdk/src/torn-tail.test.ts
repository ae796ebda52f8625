/**
 * A torn tail found at open, made the way it happens: a writer (pi-like: no lock, its lines
 * written in small pieces so a kill lands mid-line) is SIGKILLed, then the SDK opens the
 * session and appends. After every open + append each line of the file is valid JSON and the
 * fragment's bytes are in a `<file>.torn-*` sidecar, byte for byte; every line the writer had
 * finished is still there. Rounds on a v3 file (the writer's torn-tail repair) and on a v1
 * file (the migrating rewrite).
 * @module-tag processes
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDirs } from "@pi-session/testkit";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { SessionManager } from "./index.js";

const dirs = tempDirs("pi-sdk-torn-");
afterEach(dirs.cleanup);

/**
 * The writer: appends entries with one `write` per 16 bytes (a real write(2) of one small
 * line is not interrupted by SIGKILL), printing each finished id. With `mid-line`, it writes
 * half of its first line, says so, and waits to be killed.
 */
const WRITER = `
import { openSync, writeSync } from "node:fs";
const [path, round, mode, version] = process.argv.slice(2);
const fd = openSync(path, "a");
function entryFor(i) {
  const text = "payload ".repeat(10 + (i % 30)) + round + "-" + i;
  const message = { role: "user", content: text, timestamp: 1 };
  return version === "1"
    ? { type: "message", timestamp: "2025-01-01T00:00:01.000Z", message }
    : { type: "message", id: "w" + round + "-" + i, parentId: null, timestamp: "2025-01-01T00:00:01.000Z", message };
}
for (let i = 0; ; i++) {
  const bytes = Buffer.from(JSON.stringify(entryFor(i)) + "\\n");
  if (mode === "mid-line") {
    writeSync(fd, bytes, 0, bytes.length >> 1);
    process.stdout.write("torn\\n");
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60_000);
  }
  for (let off = 0; off < bytes.length; off += 16) writeSync(fd, bytes, off, Math.min(16, bytes.length - off));
  process.stdout.write(round + "-" + i + "\\n");
}
`;

function exited(child: ChildProcess): Promise<void> {
  return new Promise((res) => {
    if (child.exitCode !== null || child.signalCode !== null) res();
    else child.once("exit", () => res());
  });
}

/** Runs the writer on `path` and SIGKILLs it: after `target` finished lines and `delay` ms, or mid-line. */
async function killedWriter(
  script: string,
  path: string,
  round: number,
  kill: { target: number; delay: number } | "mid-line",
  version: 1 | 3,
): Promise<string[]> {
  const mode = kill === "mid-line" ? "mid-line" : "run";
  const child = spawn(process.execPath, [script, path, String(round), mode, String(version)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const finished: string[] = [];
  let buffer = "";
  let killing = false;
  await new Promise<void>((res, rej) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      buffer += chunk.toString();
      const parts = buffer.split("\n");
      buffer = parts.pop() ?? "";
      for (const part of parts) {
        if (part === "torn") {
          child.kill("SIGKILL");
          killing = true;
        } else finished.push(part);
      }
      if (!killing && kill !== "mid-line" && finished.length >= kill.target) {
        killing = true;
        setTimeout(() => child.kill("SIGKILL"), kill.delay);
      }
    });
    child.once("exit", (code, signal) => {
      if (signal === "SIGKILL") res();
      else rej(new Error(`writer exited early (code ${code})`));
    });
  });
  await exited(child);
  return finished;
}

const sidecarsOf = (dir: string) => readdirSync(dir).filter((f) => f.includes(".jsonl.torn-"));

/** Opens `path` with the SDK, appends one message, and checks the file after it. */
function openAppendAndCheck(
  path: string,
  dir: string,
  finished: readonly string[],
  context: string,
): boolean {
  const bytes = readFileSync(path);
  const torn = bytes.length > 0 && bytes[bytes.length - 1] !== 10;
  const fragment = torn ? bytes.subarray(bytes.lastIndexOf(10) + 1) : undefined;
  const before = new Set(sidecarsOf(dir));
  const manager = SessionManager.open(path);
  manager.appendMessage({
    role: "assistant",
    content: [{ type: "text", text: "after" }],
    timestamp: 2,
  } as never);
  manager.close();
  // Every line is valid JSON; the file ends with a newline.
  const text = readFileSync(path, "utf8");
  expect(text.endsWith("\n"), context).toBe(true);
  const values = text
    .slice(0, -1)
    .split("\n")
    .map((l, i) => {
      try {
        return JSON.parse(l) as { type?: string; message?: { content?: unknown } };
      } catch {
        throw new Error(`${context}: line ${i + 1} is not JSON: ${l.slice(0, 80)}`);
      }
    });
  expect(values[0]?.type, context).toBe("session");
  // Every line the writer finished is still there.
  const contents = values.map((v) => JSON.stringify(v.message?.content ?? ""));
  for (const id of finished)
    expect(
      contents.some((c) => c.endsWith(` ${id}"`)),
      `${context}: ${id}`,
    ).toBe(true);
  // The fragment, if any, is in a new sidecar, byte for byte.
  const added = sidecarsOf(dir).filter((f) => !before.has(f));
  if (fragment === undefined) expect(added, context).toEqual([]);
  else {
    expect(added, context).toHaveLength(1);
    expect(readFileSync(join(dir, added[0] as string)).equals(fragment), context).toBe(true);
  }
  return torn;
}

function header(version: 1 | 3): string {
  const v3 = { type: "session", version: 3, id: "019a4c1e-0000-7000-8000-0000000000aa" };
  const v1 = { type: "session", id: "019a4c1e-0000-7000-8000-0000000000bb" };
  return `${JSON.stringify({ ...(version === 3 ? v3 : v1), timestamp: "2025-01-01T00:00:00.000Z", cwd: "/p" })}\n`;
}

describe("a torn tail left by a killed writer, then SDK open + append", () => {
  it("a writer killed mid-line: the fragment goes to a sidecar (v3: the writer's repair; v1: the migrating rewrite)", async () => {
    for (const version of [3, 1] as const) {
      const dir = dirs.make();
      const script = join(dir, "writer.mjs");
      writeFileSync(script, WRITER);
      const path = join(dir, "s.jsonl");
      writeFileSync(path, header(version));
      const finished = await killedWriter(script, path, 0, "mid-line", version);
      expect(openAppendAndCheck(path, dir, finished, `v${version} mid-line`)).toBe(true);
      if (version === 1) expect(readdirSync(dir).filter((f) => f.endsWith(".v1.bak"))).toHaveLength(1);
    }
  });

  it("SIGKILL at random moments: after each open + append every line is JSON, every fragment kept aside", async () => {
    const dir = dirs.make();
    const script = join(dir, "writer.mjs");
    writeFileSync(script, WRITER);
    const path = join(dir, "s.jsonl");
    writeFileSync(path, header(3));
    const seed = Number(process.env.FC_SEED ?? Date.now() % 1_000_000);
    const rounds = fc.sample(fc.tuple(fc.integer({ min: 1, max: 20 }), fc.integer({ min: 0, max: 10 })), {
      numRuns: 12,
      seed,
    });
    const finished: string[] = [];
    let torn = 0;
    for (const [round, [target, delay]] of rounds.entries()) {
      finished.push(...(await killedWriter(script, path, round + 1, { target, delay }, 3)));
      if (openAppendAndCheck(path, dir, finished, `round ${round} (seed ${seed})`)) torn++;
    }
    // Kills land mid-line in most rounds (a line takes ~10-20 writes); each such round was checked.
    expect(torn, `seed ${seed}`).toBeGreaterThan(0);
  });
});
