/**
 * End-to-end tests of the CLI on hostile and damaged input (issue 16): lines with invalid
 * UTF-8 read as pi reads them. Each spawns the built binary (`dist/pi-session.js`, build
 * first) on files written to a temporary directory.
 * @module-tag processes
 */
// biome-ignore-all lint/suspicious/noExplicitAny: the tests read parsed --json output.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { SessionManager } from "@pi-session/sdk";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

// Spawning the binary on a loaded CI machine takes far more than vitest's default 5 s.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 60_000 });

const here = dirname(fileURLToPath(import.meta.url));
const BIN = resolve(here, "..", "dist", "pi-session.js");

let home: string;

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(args: string[], opts: { env?: Record<string, string> } = {}): Result {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH ?? "", HOME: home, TZ: "UTC", ...opts.env },
    cwd: home,
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function json(r: Result): any {
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout);
}

let counter = 0;
/** Writes `lines` (strings or bytes), each followed by `\n`, to a new file; returns its path. */
function sessionFile(lines: (string | Buffer)[], name = `s${counter++}.jsonl`): string {
  const dir = join(home, `d${counter++}`);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  writeFileSync(path, Buffer.concat(lines.flatMap((l) => [Buffer.from(l), Buffer.from("\n")])));
  return path;
}

const HEADER = JSON.stringify({
  type: "session",
  version: 3,
  id: "0199aaaa-0000-7000-8000-000000000001",
  timestamp: "2026-11-02T09:00:00.000Z",
  cwd: "/home/dev/p",
});

function entry(id: string, parentId: string | null, message: Record<string, unknown>): string {
  return JSON.stringify({ type: "message", id, parentId, timestamp: "2026-11-02T09:00:01.000Z", message });
}

const user = (text: string) => ({ role: "user", content: [{ type: "text", text }], timestamp: 1 });
const assistant = (text: string) => ({
  role: "assistant",
  content: [{ type: "text", text }],
  provider: "anthropic",
  model: "claude",
  usage: { input: 7, output: 11, cacheRead: 0, cacheWrite: 0, totalTokens: 18, cost: { total: 0.5 } },
  stopReason: "stop",
  timestamp: 2,
});

beforeAll(() => {
  expect(BIN, "build the CLI first").toBeTruthy();
  home = mkdtempSync(join(tmpdir(), "pi-session-hostile-"));
});

afterAll(() => {
  rmSync(home, { recursive: true, force: true });
});

describe("lines with invalid UTF-8 are read as pi and the SDK read them", () => {
  /** A session whose second message has a 0xFF byte inside its text (and usage of its own). */
  function badByteSession(): string {
    const [before, after] = entry("a0000002", "a0000001", assistant("bad byte here: @ done")).split("@");
    return sessionFile([
      HEADER,
      entry("a0000001", null, user("hello")),
      Buffer.concat([Buffer.from(before as string), Buffer.from([0xff]), Buffer.from(after as string)]),
      entry("a0000003", "a0000002", user("after the bad line")),
    ]);
  }

  it("context --json equals the SDK's buildSessionContext, the damaged message included", () => {
    const path = badByteSession();
    const out = json(run(["context", path, "--json"]));
    const sdk = SessionManager.open(path).buildSessionContext();
    expect(out).toEqual(JSON.parse(JSON.stringify(sdk)));
    expect(out.messages).toHaveLength(3);
    expect(out.messages[1].content[0].text).toBe("bad byte here: \uFFFD done");
  });

  it("show, tree and stats see the line; validate reports the byte but no broken tree", () => {
    const path = badByteSession();
    const shown = json(run(["show", path, "--json"]));
    expect(shown.entries.map((e: any) => e.id)).toEqual(["a0000001", "a0000002", "a0000003"]);
    expect(run(["show", path]).stdout).toContain("bad byte here: \uFFFD done");
    const tree = json(run(["tree", path, "--json"]));
    expect(tree.diagnostics).toEqual([]);
    expect(tree.entries.map((e: any) => e.id)).toEqual(["a0000001", "a0000002", "a0000003"]);
    const stats = json(run(["stats", path, "--json"]));
    expect(stats.totals.records).toBe(1);
    expect(stats.totals.cost).toBe(0.5);
    const validated = run(["validate", path, "--json"]);
    const codes = JSON.parse(validated.stdout).files[0].diagnostics.map((d: any) => d.code);
    expect(codes).toContain("invalid-utf8");
    expect(codes).not.toContain("dangling-parent");
  });

  it("migrate --write keeps the damaged line's own bytes", () => {
    const v2 = HEADER.replace('"version":3', '"version":2');
    const [before, after] = entry("a0000002", "a0000001", user("x@y")).split("@");
    const bad = Buffer.concat([
      Buffer.from(before as string),
      Buffer.from([0xc3, 0x28]),
      Buffer.from(after as string),
    ]);
    const path = sessionFile([v2, entry("a0000001", null, user("hi")), bad]);
    const r = run(["migrate", path, "--write", "--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).files[0].written).toBe(true);
    const bytes = readFileSync(path);
    expect(bytes.includes(bad)).toBe(true);
    expect(json(run(["show", path, "--json"])).entries).toHaveLength(2);
  });
});
