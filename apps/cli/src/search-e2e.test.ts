/**
 * `pi-session search` on a small store written here: on pipes, the program in this process
 * (`test/in-process.ts`: plain output, `--json`, `--files`, `--limit`, exit codes, every filter,
 * no progress); under a pseudo-terminal made by util-linux `script`, the built binary
 * (highlighted matches, lines cut to the terminal's width or `COLUMNS`, the progress line on
 * stderr while a cold index builds: tagged `processes`, build first).
 */
// biome-ignore-all lint/suspicious/noExplicitAny: the tests read parsed --json output.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { runInProcess } from "../test/in-process.js";

// A cold index, and a spawned binary under `script`: a loaded CI machine needs time.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 60_000 });

const here = dirname(fileURLToPath(import.meta.url));
const BIN = resolve(here, "..", "dist", "pi-session.cjs");

let home: string;
let agentDir: string;
let sessions: string;
/** The project directory of the first session (its header cwd). */
let app: string;
let appFile: string;
let otherFile: string;

const line = (v: unknown) => `${JSON.stringify(v)}\n`;

function message(
  id: string,
  parentId: string | null,
  time: string,
  msg: Record<string, unknown>,
): Record<string, unknown> {
  return { type: "message", id, parentId, timestamp: time, message: { timestamp: Date.parse(time), ...msg } };
}

/** pi's directory name for a cwd. */
const dirFor = (cwd: string) => `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;

function writeStore(): void {
  app = join(home, "work", "app");
  mkdirSync(join(app, "sub"), { recursive: true });
  mkdirSync(join(home, "elsewhere"), { recursive: true });
  const appDir = join(sessions, dirFor(app));
  mkdirSync(appDir, { recursive: true });
  appFile = join(appDir, "2026-03-01T10-00-00-000Z_aaaa1111-0000-4000-8000-000000000001.jsonl");
  writeFileSync(
    appFile,
    line({
      type: "session",
      version: 3,
      id: "aaaa1111-0000-4000-8000-000000000001",
      timestamp: "2026-03-01T10:00:00.000Z",
      cwd: app,
    }) +
      line(
        message("a1", null, "2026-03-01T10:00:01.000Z", {
          role: "user",
          content: "where did we fix the parser timeout?",
        }),
      ) +
      line(
        message("a2", "a1", "2026-03-01T10:00:02.000Z", {
          role: "assistant",
          provider: "anthropic",
          model: "claude-sonnet",
          content: [
            { type: "thinking", thinking: "a secret zebra plan" },
            { type: "text", text: "In src/auth.ts: 日本語のテスト" },
            { type: "toolCall", id: "t1", name: "read", arguments: { path: "src/auth.ts" } },
          ],
          usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { total: 0.01 } },
        }),
      ) +
      line(
        message("a3", "a2", "2026-03-01T10:00:03.000Z", {
          role: "toolResult",
          toolCallId: "t1",
          toolName: "read",
          isError: true,
          content: [{ type: "text", text: "const x = parserTimeout(0x0a)" }],
        }),
      ) +
      // a1 -> a4 is the current branch (a4 is the last entry); a2 and a3 are abandoned.
      line(
        message("a4", "a1", "2026-03-01T11:00:00.000Z", {
          role: "user",
          content: "parsing on another branch",
        }),
      ) +
      line({
        type: "session_info",
        id: "a5",
        parentId: "a4",
        timestamp: "2026-03-01T11:00:01.000Z",
        name: "auth work",
      }),
  );
  const other = "/elsewhere/proj";
  const otherDir = join(sessions, dirFor(other));
  mkdirSync(otherDir, { recursive: true });
  otherFile = join(otherDir, "2026-04-01T10-00-00-000Z_bbbb2222-0000-4000-8000-000000000002.jsonl");
  writeFileSync(
    otherFile,
    line({
      type: "session",
      version: 3,
      id: "bbbb2222-0000-4000-8000-000000000002",
      timestamp: "2026-04-01T10:00:00.000Z",
      cwd: other,
    }) +
      line(
        message("b1", null, "2026-04-01T10:00:01.000Z", {
          role: "user",
          content:
            "Timeouts again 東京, a much longer line of words about the parser so that it has to be cut on a narrow terminal",
        }),
      ) +
      line(
        message("b2", "b1", "2026-04-01T10:00:02.000Z", {
          role: "bashExecution",
          command: "npm test",
          output: "timeout error in the parser",
          exitCode: 1,
        }),
      ),
  );
  // Not a session: counted nowhere, breaks nothing.
  writeFileSync(join(otherDir, "notes.jsonl"), "just some text\n");
}

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), "pi-session-search-e2e-"));
  agentDir = join(home, ".pi", "agent");
  sessions = join(agentDir, "sessions");
  writeStore();
});

afterAll(() => {
  rmSync(home, { recursive: true, force: true });
});

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

function baseEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "",
    HOME: home,
    PI_CODING_AGENT_DIR: agentDir,
    XDG_CACHE_HOME: join(home, "cache"),
    TZ: "UTC",
    ...extra,
  };
}

/** The program on pipes, in this process. */
function run(args: string[], opts: { env?: Record<string, string>; cwd?: string } = {}): Promise<Result> {
  return runInProcess(args, { env: baseEnv(opts.env), cwd: opts.cwd ?? home });
}

const quote = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;

/**
 * The binary on a pseudo-terminal (`script -qfec`), `cols` columns wide: stdout and stderr both
 * go to the terminal (`stderr: "file"` sends stderr to a file instead); returns what the
 * terminal showed (CRLF as LF) and the exit code.
 */
function runPty(
  args: string[],
  opts: { env?: Record<string, string>; cols?: number; stderrFile?: string } = {},
): { code: number | null; out: string } {
  expect(existsSync(BIN), `${BIN} missing: build the CLI first`).toBe(true);
  const command = [
    `stty cols ${opts.cols ?? 80} rows 40`,
    `exec ${[process.execPath, BIN, ...args].map(quote).join(" ")}${opts.stderrFile ? ` 2>${quote(opts.stderrFile)}` : ""}`,
  ].join("; ");
  const r = spawnSync("script", ["-qfec", command, "/dev/null"], {
    env: baseEnv(opts.env),
    cwd: home,
    encoding: "utf8",
    timeout: 60_000,
  });
  expect(r.error, "util-linux `script` is needed for the terminal tests").toBeUndefined();
  return { code: r.status, out: r.stdout.replace(/\r\n/g, "\n") };
}

const ANSI = /\x1b\[[0-9;]*[A-Za-z]/g;
const plain = (s: string) => s.replace(ANSI, "");

function json(r: Result): any {
  expect(r.stderr).toBe("");
  return JSON.parse(r.stdout);
}

const hitLines = (out: any) =>
  out.sessions.flatMap((s: any) => s.hits.map((h: any) => `${s.id.slice(0, 4)}:${h.line}`)).sort();

describe("search on pipes", () => {
  it("prints each session and its hits, plain, without progress, and exits 0", async () => {
    // A cold index, with progress asked for at once: still none on a pipe.
    rmSync(join(home, "cache"), { recursive: true, force: true });
    const r = await run(["search", "parser"], { env: { PI_SESSION_PROGRESS_DELAY_MS: "0" } });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).not.toContain("\x1b[");
    const lines = r.stdout.trimEnd().split("\n");
    // The named session: its time, project, name and shortest unique id (8 characters here).
    expect(lines).toContain(`2026-03-01 11:00  ~${app.slice(home.length)}  auth work  aaaa1111`);
    expect(lines).toContain("  a1 user: where did we fix the parser timeout?");
    // Not cut on a pipe: the whole first message.
    expect(lines.some((l) => l.includes("so that it has to be cut on a narrow terminal"))).toBe(true);
  });

  it("--json has the documented shape", async () => {
    const out = json(await run(["search", "parser", "--json"]));
    expect(Object.keys(out)).toEqual(["query", "sessions", "more", "unreadable"]);
    expect(out.unreadable).toEqual([]);
    expect(out.query).toBe("parser");
    expect(out.more).toBe(false);
    const s = out.sessions.find((x: any) => x.id.startsWith("aaaa"));
    expect(Object.keys(s)).toEqual([
      "path",
      "id",
      "parent",
      "cwd",
      "name",
      "firstMessage",
      "created",
      "modified",
      "hits",
    ]);
    expect(s).toMatchObject({
      path: appFile,
      parent: null,
      cwd: app,
      name: "auth work",
      firstMessage: "where did we fix the parser timeout?",
      created: "2026-03-01T10:00:00.000Z",
      modified: "2026-03-01T11:00:00.000Z",
    });
    const hit = s.hits.find((h: any) => h.entryId === "a1");
    expect(Object.keys(hit)).toEqual([
      "entryId",
      "line",
      "type",
      "role",
      "timestamp",
      "onBranch",
      "score",
      "snippet",
    ]);
    expect(hit).toMatchObject({
      line: 2,
      type: "message",
      role: "user",
      timestamp: "2026-03-01T10:00:01.000Z",
      onBranch: true,
    });
    expect(hit.snippet).toEqual({
      field: "body",
      text: "where did we fix the parser timeout?",
      ranges: [[21, 27]],
    });
  });

  it("--files prints the paths only; --limit cuts and says more match", async () => {
    const files = await run(["search", "timeout", "--files"]);
    expect(files.code).toBe(0);
    expect(files.stdout.trimEnd().split("\n").sort()).toEqual([appFile, otherFile].sort());
    const one = await run(["search", "timeout", "--limit", "1"]);
    expect(one.code).toBe(0);
    expect(one.stdout.match(/^\S.*[0-9a-f]{8}$/gm)).toHaveLength(1);
    expect(one.stderr).toContain("more sessions match; --limit N shows more");
    expect(json(await run(["search", "timeout", "--limit", "1", "--json"]))).toMatchObject({ more: true });
    expect(
      (await run(["search", "timeout", "--files", "--limit", "1"])).stdout.trimEnd().split("\n"),
    ).toHaveLength(1);
  });

  it("exits 1 when nothing matches and 2 for an unusable query or option", async () => {
    const none = await run(["search", "zebraless"]);
    expect(none.code).toBe(1);
    expect(none.stdout).toBe("");
    expect(none.stderr).toContain("no match for `zebraless`");
    expect((await run(["search", "zebraless", "--json"])).code).toBe(1);
    for (const args of [
      ["search"],
      ["search", "re:("],
      ["search", "-parser"],
      ["search", "x", "--role", "robot"],
      ["search", "x", "--here", "--project", "."],
      ["search", "x", "--until", "someday"],
      ["search", "x", "--limit", "many"],
    ]) {
      const r = await run(args);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr).toMatch(/error:/);
    }
  });

  it("filters: role, tool, file, model, errored, named, project, time, branches, thinking, tool output", async () => {
    const q = async (...args: string[]) => hitLines(json(await run(["search", ...args, "--json"])));
    expect(await q("parser")).toEqual(["aaaa:2", "aaaa:4", "bbbb:2", "bbbb:3"]);
    expect(await q("parser", "--role", "user")).toEqual(["aaaa:2", "bbbb:2"]);
    expect(await q("parser", "--role", "tool")).toEqual(["aaaa:4", "bbbb:3"]);
    expect(await q("parser", "--tool", "bash")).toEqual(["bbbb:2", "bbbb:3"]);
    expect(await q("parser", "--file", "src/auth.ts")).toEqual(["aaaa:2", "aaaa:4"]);
    expect(await q("parser", "--file", `${app}/src/auth.ts`)).toEqual(["aaaa:2", "aaaa:4"]);
    expect(await q("parser", "--file", "uth.ts")).toEqual([]);
    expect(await q("parser", "--model", "claude-sonnet")).toEqual(["aaaa:2", "aaaa:4"]);
    expect(await q("parser", "--model", "anthropic/claude-sonnet")).toEqual(["aaaa:2", "aaaa:4"]);
    expect(await q("parser", "--errored")).toEqual(["aaaa:2", "aaaa:4", "bbbb:2", "bbbb:3"]);
    expect(await q("parser", "--named")).toEqual(["aaaa:2", "aaaa:4"]);
    expect(await q("parser", "--project", app)).toEqual(["aaaa:2", "aaaa:4"]);
    expect(await q("parser", "--since", "2026-03-15")).toEqual(["bbbb:2", "bbbb:3"]);
    expect(await q("parser", "--until", "2026-03-15")).toEqual(["aaaa:2", "aaaa:4"]);
    expect(await q("zebra")).toEqual([]);
    expect(await q("zebra", "--thinking")).toEqual(["aaaa:3"]);
    expect(await q("parser", "--no-tool-output")).toEqual(["aaaa:2", "bbbb:2"]);
    // --here: this directory's project and its subdirectories.
    const hereHits = async (cwd: string) =>
      hitLines(json(await run(["search", "parser", "--here", "--json"], { cwd })));
    expect(await hereHits(app)).toEqual(["aaaa:2", "aaaa:4"]);
    expect(await hereHits(join(app, "sub"))).toEqual([]);
    expect(await hereHits(home)).toEqual(["aaaa:2", "aaaa:4"]);
    expect(await hereHits(join(home, "elsewhere"))).toEqual([]);
  });

  it("marks hits on an abandoned branch, after the current branch's", async () => {
    const r = await run(["search", "parser", "--project", app]);
    expect(r.stdout).toContain("  a3 toolResult, abandoned branch: const x = parserTimeout(0x0a)");
    const s = json(await run(["search", "parser", "--project", app, "--json"])).sessions[0];
    expect(s.hits.map((h: any) => [h.entryId, h.onBranch])).toEqual([
      ["a1", true],
      ["a3", false],
    ]);
  });

  it("finds code inside identifiers and CJK text", async () => {
    expect(hitLines(json(await run(["search", "Timeout", "--role", "tool", "--json"])))).toEqual([
      "aaaa:4",
      "bbbb:3",
    ]);
    expect(hitLines(json(await run(["search", '"Timeout("', "--json"])))).toEqual(["aaaa:4"]);
    expect(hitLines(json(await run(["search", "本語", "--json"])))).toEqual(["aaaa:3"]);
    expect(hitLines(json(await run(["search", "auth.ts", "--json"])))).toEqual(["aaaa:3"]);
  });
});

describe("search on a terminal", { tags: ["processes"] }, () => {
  it("highlights matches, and never with NO_COLOR", () => {
    const r = runPty(["search", "parser", "--project", app]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/\x1b\[1m\x1b\[31mparser\x1b\[39m\x1b\[22m/);
    expect(plain(r.out)).toContain("a1 user: where did we fix the parser timeout?");
    const off = runPty(["search", "parser", "--project", app], { env: { NO_COLOR: "1" } });
    expect(off.out).not.toContain("\x1b[");
  });

  it("cuts every line to the terminal's width, or to COLUMNS", () => {
    for (const [cols, env] of [
      [50, {}],
      [36, { COLUMNS: "36" }],
    ] as const) {
      const r = runPty(["search", "parser"], { cols: cols === 36 ? 120 : cols, env });
      expect(r.code).toBe(0);
      const lines = plain(r.out).trimEnd().split("\n");
      expect(lines.length).toBeGreaterThan(3);
      for (const l of lines) expect([...l].length, l).toBeLessThanOrEqual(cols);
      expect(lines.some((l) => l.endsWith("…"))).toBe(true);
    }
  });

  it("draws a progress line on stderr while a cold index builds, and clears it", () => {
    const cache = join(home, "pty-cache");
    rmSync(cache, { recursive: true, force: true });
    const r = runPty(["search", "parser"], {
      env: { XDG_CACHE_HOME: cache, PI_SESSION_PROGRESS_DELAY_MS: "0" },
    });
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/\r\x1b\[2Kindexing \d+\/3 \(\d+%\)/);
    // Cleared before the results are written.
    expect(r.out).toMatch(/\r\x1b\[2K[^\r]*\r\x1b\[2K(\x1b\[\d+m)*\d{4}-\d\d-\d\d/);
    // Warm: nothing to index, no progress.
    const warm = runPty(["search", "parser"], {
      env: { XDG_CACHE_HOME: cache, PI_SESSION_PROGRESS_DELAY_MS: "0" },
    });
    expect(warm.out).not.toContain("indexing");
    // stdout a terminal, stderr a file: no progress there either.
    rmSync(cache, { recursive: true, force: true });
    const errFile = join(home, "stderr.txt");
    const split = runPty(["search", "parser"], {
      env: { XDG_CACHE_HOME: cache, PI_SESSION_PROGRESS_DELAY_MS: "0" },
      stderrFile: errFile,
    });
    expect(split.code).toBe(0);
    expect(split.out).not.toContain("indexing");
  });
});
