/**
 * End-to-end tests of the CLI on hostile and damaged input (issue 16): lines with invalid
 * UTF-8 read as pi reads them; terminal escapes in content, names, cwd, labels and paths shown
 * visibly in every human output; values nested 100,000 deep printed by every output mode; an
 * unreadable file or directory reported and skipped by every batch, which does the rest.
 * Each spawns the built binary (`dist/pi-session.cjs`, build first) on files written to a
 * temporary directory.
 * @module-tag processes
 */
// biome-ignore-all lint/suspicious/noExplicitAny: the tests read parsed --json output.
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { SessionManager } from "@pi-session/sdk";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

// Spawning the binary on a loaded CI machine takes far more than vitest's default 5 s.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 60_000 });

const here = dirname(fileURLToPath(import.meta.url));
const BIN = resolve(here, "..", "dist", "pi-session.cjs");
const EXAMPLES = resolve(here, "..", "..", "..", "examples", "sessions", "--home-dev-projects-webapp--");

let home: string;

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Far beyond what any run needs, even on a busy machine: reaching it means a hang. */
const RUN_LIMIT_MS = 60_000;

function run(
  args: string[],
  opts: { env?: Record<string, string>; as?: { uid: number; gid: number } } = {},
): Result {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    ...opts.as,
    env: { PATH: process.env.PATH ?? "", HOME: home, TZ: "UTC", ...opts.env },
    cwd: home,
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
    timeout: RUN_LIMIT_MS,
    killSignal: "SIGKILL",
  });
  if (r.signal !== null || r.error)
    throw new Error(`pi-session ${args.join(" ")}: ${r.error ?? r.signal} (a hang?)`);
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

/** Raw characters a terminal acts on (`\n` aside: it is the output's own line structure). */
const RAW = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;
/** Our palette's colour codes. */
const SGR = /\x1b\[\d+m/g;

/** Checks that nothing from content reaches the terminal raw (only our colour codes, with colour). */
function expectTerminalSafe(r: Result, what: string, colour: boolean): void {
  for (const [stream, text] of [
    ["stdout", r.stdout],
    ["stderr", r.stderr],
  ] as const) {
    const bare = colour ? text.replace(SGR, "") : text;
    const at = bare.search(RAW);
    expect(
      at,
      `${what}: raw U+${bare.charCodeAt(at).toString(16)} on ${stream} near ${JSON.stringify(bare.slice(at - 20, at + 20))}`,
    ).toBe(-1);
  }
}

describe("terminal escapes from session content are shown, never obeyed", () => {
  const ESC_TEXT =
    "clear\x1b[2J clip\x1b]52;c;SGVsbG8=\x07 link\x1b]8;;http://x\x1b\\y\x1b]8;;\x1b\\ cr\roverwrite";
  const OTHER = " del\x7f c1\x9b31m bidi\u202egnp.exe iso\u2066x\u2069 nul\x00 bell\x07 tab\tend";
  const HOSTILE = ESC_TEXT + OTHER;
  const NAME = "evil\x1b[2Jname\nsecond line";
  const LABEL = "lab\nel\x1b[8m";
  let store: string;
  let file: string;
  let dir: string;
  /** A directory whose name holds escapes and a newline (Linux allows both). */
  const DIR = "proj\x1b]0;title\x07\nx";

  beforeAll(() => {
    store = join(home, "hostile-store");
    dir = join(store, DIR);
    mkdirSync(dir, { recursive: true });
    const header = JSON.stringify({
      type: "session",
      version: 3,
      id: "0199bbbb-0000-7000-8000-000000000001",
      timestamp: "2026-11-02T09:00:00.000Z",
      cwd: `/home/\x1b[2Jdev\n\u202eevil`,
    });
    const hostileAssistant = {
      ...assistant(HOSTILE),
      content: [
        { type: "text", text: HOSTILE },
        { type: "thinking", thinking: HOSTILE },
        { type: "toolCall", id: "t1", name: "ba\x1b[31msh\n", arguments: { cmd: HOSTILE } },
        { type: "od\x1bd", x: 1 },
      ],
      provider: "anth\x1b[5mropic",
      model: "m\nodel",
      stopReason: "len\x1bgth",
      errorMessage: HOSTILE,
    };
    const lines = [
      header,
      entry("b0000001", null, user(HOSTILE)),
      entry("b0000002", "b0000001", hostileAssistant),
      entry("b0000003", "b0000002", {
        role: "toolResult",
        toolCallId: "t1",
        toolName: "ba\x1bsh",
        content: [{ type: "text", text: HOSTILE }],
        isError: false,
        timestamp: 3,
      }),
      entry("b0000004", "b0000003", {
        role: "bashExecution",
        command: HOSTILE,
        output: HOSTILE,
        exitCode: 0,
        timestamp: 4,
      }),
      entry("b0000005", "b0000004", {
        role: "custom",
        customType: "ty\x1bpe",
        content: HOSTILE,
        display: true,
        timestamp: 5,
      }),
      JSON.stringify({
        type: "label",
        id: "b0000006",
        parentId: "b0000005",
        timestamp: "2026-11-02T09:00:02.000Z",
        targetId: "b0000001",
        label: LABEL,
      }),
      JSON.stringify({
        type: "session_info",
        id: "b0000007",
        parentId: "b0000006",
        timestamp: "2026-11-02T09:00:02.000Z",
        name: NAME,
      }),
      JSON.stringify({
        type: "compaction",
        id: "b0000008",
        parentId: "b0000007",
        timestamp: "2026-11-02T09:00:03.000Z",
        summary: HOSTILE,
        firstKeptEntryId: "b0000004",
        tokensBefore: 5,
      }),
      JSON.stringify({
        type: "model_change",
        id: "b0000009",
        parentId: "b0000008",
        timestamp: "2026-11-02T09:00:04.000Z",
        provider: "p\x1b[2J",
        modelId: "m\n",
      }),
      JSON.stringify({
        type: "custom_message",
        id: "b0000010",
        parentId: "b0000009",
        timestamp: "2026-11-02T09:00:05.000Z",
        customType: "c\x1b",
        content: HOSTILE,
        display: true,
      }),
      entry("b0000011", "b0000010", user("the end")),
      entry("b0000012", "b0000001", user("a branch")),
      // A line that is not JSON, quoted by validate and repair.
      `not json ${HOSTILE}`,
    ];
    file = join(dir, `2026-11-02T09-00-00-000Z_0199bbbb-0000-7000-8000-000000000001.jsonl`);
    writeFileSync(file, `${lines.join("\n")}\n`);
  });

  /** Every human output mode, with and without colour. */
  function humanRuns(): [string, string[]][] {
    const s = ["--session-dir", store];
    return [
      ["ls", ["ls", "--all", ...s]],
      ["show", ["show", file]],
      ["show --full", ["show", file, "--full"]],
      ["show --all-branches", ["show", file, "--all-branches"]],
      ["show --leaf", ["show", file, "--leaf", "b0000012"]],
      ["tree", ["tree", file]],
      ["tree --full", ["tree", file, "--full"]],
      ["context", ["context", file, "--full"]],
      ["context --llm", ["context", file, "--llm"]],
      ["stats", ["stats", file]],
      ["stats --all --by model", ["stats", "--all", "--by", "model", ...s]],
      ["stats --all --by project", ["stats", "--all", "--by", "project", ...s]],
      ["stats --all --by session", ["stats", "--all", "--by", "session", ...s]],
      ["validate", ["validate", store]],
      ["validate --strict", ["validate", file, "--strict"]],
      ["repair", ["repair", file]],
      ["migrate", ["migrate", store]],
      ["error: no such file", ["show", join(dir, "nope\x1b[2J\n.jsonl")]],
      ["error: unknown id", ["show", "ff\x1b[2J", ...s]],
      ["error: unknown entry", ["show", file, "--leaf", "zz\x1b[2J\nx"]],
      ["error: unknown command", ["\x1b[2Jcmd"]],
      ["error: unknown option", ["ls", "--\x1b[2J"]],
    ];
  }

  it("every human output of the reading commands, with and without colour", () => {
    for (const [what, args] of humanRuns()) {
      const plain = run(args);
      expect(plain.stdout + plain.stderr, what).not.toContain("\x1b");
      expectTerminalSafe(plain, what, false);
      const coloured = run(args, { env: { FORCE_COLOR: "1" } });
      expectTerminalSafe(coloured, `${what} (colour)`, true);
      expect(coloured.stdout.replace(SGR, ""), what).toBe(plain.stdout);
    }
  });

  it("shows the escapes in a visible form and keeps one-line fields on one line", () => {
    const shown = run(["show", file]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain("clear\\x1b[2J clip\\x1b]52;c;SGVsbG8=\\x07");
    expect(shown.stdout).toContain("cr\\x0doverwrite del\\x7f c1\\x9b31m bidi\\u202egnp.exe");
    const [title, where] = shown.stdout.split("\n");
    expect(title).toBe("evil\\x1b[2Jname\\x0asecond line 0199bbbb-0000-7000-8000-000000000001");
    expect(where).toContain("/home/\\x1b[2Jdev\\x0a\\u202eevil");
    // One row per session, one line per entry.
    const ls = run(["ls", "--all", "--session-dir", store]);
    expect(ls.stdout.trimEnd().split("\n")).toHaveLength(2);
    const tree = run(["tree", file, "--full"]);
    expect(tree.stdout.trimEnd().split("\n")).toHaveLength(12);
    expect(tree.stdout).toContain("[lab\\x0ael\\x1b[8m]");
  });

  it("--json stays exact: the same text, every control character a JSON escape", () => {
    const out = run(["show", file, "--json"]);
    expect(out.stdout).not.toMatch(RAW);
    const shown = json(out);
    expect(shown.entries[0].message.content[0].text).toBe(HOSTILE);
    const tree = json(run(["tree", file, "--json"]));
    expect(tree.entries.find((e: any) => e.id === "b0000001").label).toBe(LABEL);
    const ls = json(run(["ls", "--all", "--json", "--session-dir", store]));
    expect(ls[0].name).toBe(NAME);
    for (const args of [
      ["context", file, "--json"],
      ["validate", store, "--json"],
      ["repair", file, "--json"],
      ["migrate", store, "--json"],
      ["stats", "--all", "--json", "--session-dir", store],
    ]) {
      const r = run(args);
      expect(r.stdout, args.join(" ")).not.toMatch(RAW);
      expect(() => JSON.parse(r.stdout)).not.toThrow();
    }
  });

  it("the write commands (fork, name, label, rm) print paths and values visibly", () => {
    const copy = join(dir, "2026-11-02T09-00-00-000Z_0199bbbb-0000-7000-8000-00000000000c.jsonl");
    copyFileSync(file, copy);
    const env = { XDG_DATA_HOME: join(home, "xdg-data") };
    const runs: [string, Result][] = [
      ["name", run(["name", copy, "n\x1b[2J\name\u202e"])],
      ["label", run(["label", copy, "b0000002", "l\x1b]52;c;eA==\x07\n"])],
      ["label unknown", run(["label", copy, "x\x1b[2J\ny", "z"])],
      ["fork", run(["fork", copy, "--leaf", "b0000011"])],
      ["fork unknown leaf", run(["fork", copy, "--leaf", "q\x1b[2J"])],
    ];
    const forked = runs[3]?.[1].stdout.trim() as string;
    expect(
      existsSync(forked.replace(/\\x0a/g, "\n").replace(/\\x1b/g, "\x1b").replace(/\\x07/g, "\x07")),
    ).toBe(true);
    runs.push(["rm", run(["rm", copy, "--yes"], { env })]);
    for (const [what, r] of runs) {
      expectTerminalSafe(r, what, false);
      expect(r.stdout + r.stderr, what).not.toContain("\x1b");
    }
    expect(runs[0]?.[1].stdout).toContain("\\u202e");
    expect(runs[5]?.[1].code).toBe(0);
  });
});

/** Builds `depth` levels of nesting around `inner`, as JSON text (no recursion). */
function deepJson(depth: number, inner = "1"): string {
  return `${'{"a":['.repeat(depth)}${inner}${"]}".repeat(depth)}`;
}

describe("values nested 100,000 deep print in every output mode", () => {
  /** The issue's depth; far beyond JSON.stringify's limit (about 5,000 levels). */
  const DEPTH = 100_000;
  /** Enough for every mode (cost is linear in depth, and every mode spawns the CLI). */
  const SWEEP_DEPTH = 10_000;
  let file: string;
  let deepest: string;
  let store: string;

  function deepSession(depth: number): string {
    return `${[
      HEADER,
      `{"type":"message","id":"c0000001","parentId":null,"timestamp":"2026-11-02T09:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"deep"},{"type":"deep","x":${deepJson(depth)}}],"timestamp":1}}`,
      `{"type":"message","id":"c0000002","parentId":"c0000001","timestamp":"2026-11-02T09:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"calling"},{"type":"toolCall","id":"t1","name":"bash","arguments":${deepJson(depth)}}],"provider":"p","model":"m","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"total":0.1}},"stopReason":"toolUse","timestamp":2}}`,
      `{"type":"label","id":"c0000003","parentId":"c0000002","timestamp":"2026-11-02T09:00:05.000Z","targetId":"c0000001","label":${deepJson(depth)}}`,
    ].join("\n")}\n`;
  }

  beforeAll(() => {
    store = join(home, "deep-store");
    mkdirSync(join(store, "--p--"), { recursive: true });
    file = join(store, "--p--", "2026-11-02T09-00-00-000Z_0199aaaa-0000-7000-8000-000000000001.jsonl");
    writeFileSync(file, deepSession(SWEEP_DEPTH));
    deepest = join(home, "deepest.jsonl");
    writeFileSync(deepest, deepSession(DEPTH));
  });

  /** Levels of `{"a":[...]}` around the innermost value, and that value. */
  function levelsOf(value: any): { levels: number; inner: unknown } {
    let v = value;
    let levels = 0;
    while (v && typeof v === "object" && !Array.isArray(v)) {
      v = v.a[0];
      levels++;
    }
    return { levels, inner: v };
  }

  it("show --json and context --json of a message nested 100,000 deep", () => {
    const shown = json(run(["show", deepest, "--json"]));
    expect(levelsOf(shown.entries[1].message.content[1].arguments)).toEqual({ levels: DEPTH, inner: 1 });
    const context = json(run(["context", deepest, "--json"]));
    expect(levelsOf(context.messages[0].content[1].x)).toEqual({ levels: DEPTH, inner: 1 });
  });

  it("every --json output parses, the deep values intact", () => {
    const s = ["--session-dir", store];
    const runs: string[][] = [
      ["show", file, "--json"],
      ["show", file, "--all-branches", "--json"],
      ["tree", file, "--json"],
      ["context", file, "--json"],
      ["context", file, "--llm", "--json"],
      ["validate", file, "--json"],
      ["stats", file, "--json"],
      ["migrate", file, "--json"],
      ["repair", file, "--json"],
      ["ls", "--all", "--json", ...s],
      ["stats", "--all", "--json", ...s],
    ];
    for (const args of runs) {
      const r = run(args);
      expect(r.stderr, args.join(" ")).toBe("");
      expect([0, 1], args.join(" ")).toContain(r.code);
      expect(() => JSON.parse(r.stdout), args.join(" ")).not.toThrow();
    }
    const tree = json(run(["tree", file, "--json"]));
    expect(tree.entries).toHaveLength(3);
  });

  it("every human output prints (a deep tool call, label and block shown as text)", () => {
    for (const args of [
      ["show", file],
      ["show", file, "--full"],
      ["show", file, "--all-branches"],
      ["tree", file],
      ["tree", file, "--full"],
      ["context", file],
      ["context", file, "--full"],
      ["context", file, "--llm"],
      ["validate", file],
      ["stats", file],
      ["migrate", file],
      ["repair", file],
      ["ls", "--all", "--session-dir", store],
    ]) {
      const r = run(args);
      expect(r.stderr, args.join(" ")).not.toContain("Maximum call stack");
      expect([0, 1], `${args.join(" ")}: ${r.stderr}`).toContain(r.code);
      expect(r.stdout.length, args.join(" ")).toBeGreaterThan(0);
    }
    for (const format of ["md", "json", "jsonl", "html"]) {
      const r = run(["export", file, "--format", format]);
      expect(r.code, `export --format ${format}: ${r.stderr}`).toBe(0);
      if (format === "json") expect(() => JSON.parse(r.stdout)).not.toThrow();
      if (format === "jsonl") for (const line of r.stdout.trimEnd().split("\n")) JSON.parse(line);
    }
    const full = run(["show", file, "--full"]).stdout;
    // The call's arguments and the unknown block as JSON, every level of both (indented as
    // deep as MAX_INDENTED_DEPTH, compact below).
    expect(full).toContain("→ bash\n");
    expect(full.match(/"a": ?\[/g)?.length).toBe(2 * SWEEP_DEPTH);
  });

  it("the writers too: fork, and migrate --write of a v2 copy", () => {
    const copy = join(dirname(file), "2026-11-02T09-00-00-000Z_0199aaaa-0000-7000-8000-00000000000f.jsonl");
    writeFileSync(copy, readFileSync(file, "utf8").replace('"version":3', '"version":2'));
    const migrated = run(["migrate", copy, "--write", "--json"]);
    expect(migrated.code, migrated.stderr).toBe(0);
    expect(JSON.parse(migrated.stdout).files[0].written).toBe(true);
    const forked = run(["fork", file, "--leaf", "c0000002"]);
    expect(forked.code, forked.stderr).toBe(0);
    const branch = json(run(["show", forked.stdout.trim(), "--json"]));
    expect(branch.entries).toHaveLength(2);
  });
});

/**
 * How to run the CLI where `chmod 000` denies it: as ourselves, or, when the tests run as root
 * (whom permissions do not stop), as `nobody` (65534) through child_process's uid/gid.
 * Undefined only where neither works (no setuid capability): then EACCES is not exercised.
 */
function deniedRunner(): { as?: { uid: number; gid: number } } | undefined {
  if (typeof process.getuid !== "function") return undefined;
  if (process.getuid() !== 0) return {};
  const as = { uid: 65534, gid: 65534 };
  const probe = spawnSync(process.execPath, ["-e", "0"], { ...as, timeout: RUN_LIMIT_MS });
  return probe.status === 0 ? { as } : undefined;
}

describe("one unreadable file or directory does not stop a batch", () => {
  let store: string;
  let good: string[];
  let denied: string[];
  let runner: ReturnType<typeof deniedRunner>;

  beforeAll(() => {
    runner = deniedRunner();
    store = join(home, "batch-store");
    const project = join(store, "--home-dev-projects-webapp--");
    const other = join(store, "--other--");
    cpSync(EXAMPLES, project, { recursive: true });
    mkdirSync(other);
    cpSync(project, other, { recursive: true });
    good = ["019a4c1e", "019a4c2f", "6a0b1c2d"];
    // What anyone fails to read: a dangling link and a FIFO named like sessions.
    symlinkSync(join(project, "gone.jsonl"), join(project, "2026-11-03T00-00-00-000Z_dangling.jsonl"));
    // What only permissions deny: a session file and a whole project directory.
    const file = join(project, "2026-11-04T00-00-00-000Z_0199dddd-0000-7000-8000-000000000001.jsonl");
    copyFileSync(join(project, "2026-11-02T09-12-20-000Z_019a4c1e-7b2f-7c3d-9e4f-5a6b7c8d9e0f.jsonl"), file);
    denied = runner ? [file, other] : [];
    // Everything readable by the other user, but what is denied.
    for (const dir of [home, store, project, other]) chmodSync(dir, 0o755);
    if (runner) {
      chmodSync(file, 0o000);
      chmodSync(other, 0o000);
    } else rmSync(other, { recursive: true });
  });

  afterAll(() => {
    // So the temporary directory can be removed.
    if (existsSync(join(store, "--other--"))) chmodSync(join(store, "--other--"), 0o755);
  });

  function expectReported(r: Result, what: string): void {
    expect(r.code, `${what}: ${r.stderr}`).toBe(3);
    expect(r.stderr).toMatch(
      /2026-11-03T00-00-00-000Z_dangling\.jsonl: cannot read: no such file or directory \(ENOENT\); skipped/,
    );
    for (const path of denied)
      expect(r.stderr, what).toContain(`${path}: cannot read: permission denied (EACCES); skipped`);
  }

  function expectUnreadableJson(list: any[]): void {
    const codes = Object.fromEntries(list.map((u) => [u.path.split("/").pop(), u.code]));
    expect(codes["2026-11-03T00-00-00-000Z_dangling.jsonl"]).toBe("ENOENT");
    for (const path of denied) expect(codes[path.split("/").pop() as string]).toBe("EACCES");
    expect(list).toHaveLength(1 + denied.length);
  }

  it("validate DIR and migrate DIR report each, check or migrate the rest, exit 3", () => {
    const validated = run(["validate", store], runner);
    expectReported(validated, "validate");
    expect(validated.stdout.match(/: ok \(v/g)).toHaveLength(good.length);
    const asJson = run(["validate", store, "--json"], runner);
    expect(asJson.code).toBe(3);
    const report = JSON.parse(asJson.stdout);
    expect(report.files).toHaveLength(good.length);
    expectUnreadableJson(report.unreadable);
    const migrated = run(["migrate", store, "--verbose"], runner);
    expectReported(migrated, "migrate");
    expect(migrated.stdout.match(/\.jsonl: v\d/g)).toHaveLength(good.length);
    const migratedJson = JSON.parse(run(["migrate", store, "--json"], runner).stdout);
    expect(migratedJson.files).toHaveLength(good.length);
    expectUnreadableJson(migratedJson.unreadable);
  });

  it("stats --all and ls --all report each and count or list the rest, exit 3", () => {
    const s = ["--session-dir", store];
    // A cache the other user can write (the listing cache, the session database).
    const cache = join(home, "batch-cache");
    mkdirSync(cache, { mode: 0o777 });
    chmodSync(cache, 0o777);
    const env = { XDG_CACHE_HOME: cache };
    const stats = run(["stats", "--all", ...s], { env, ...runner });
    expectReported(stats, "stats");
    expect(stats.stdout).toContain(`${good.length} sessions`);
    const statsJson = JSON.parse(run(["stats", "--all", "--json", ...s], { env, ...runner }).stdout);
    expect(statsJson.sessions).toBe(good.length);
    expectUnreadableJson(statsJson.unreadable);
    const listed = run(["ls", "--all", "--no-cache", ...s], { env, ...runner });
    expectReported(listed, "ls");
    expect(listed.stdout.trimEnd().split("\n")).toHaveLength(1 + good.length);
    const listedJson = run(["ls", "--all", "--no-cache", "--json", ...s], { env, ...runner });
    expect(listedJson.code).toBe(3);
    expect(
      JSON.parse(listedJson.stdout)
        .map((i: any) => i.id.slice(0, 8))
        .sort(),
    ).toEqual(good.sort());
  });

  it("a FIFO named like a session, or a link to one, is no session: passed by, never opened", () => {
    const dir = join(home, "odd-store");
    mkdirSync(dir);
    cpSync(EXAMPLES, dir, { recursive: true });
    expect(spawnSync("mkfifo", [join(dir, "fifo.jsonl")]).status).toBe(0);
    mkdirSync(join(dir, "sub"));
    mkdirSync(join(dir, "sub", "--p--"));
    symlinkSync(join(dir, "fifo.jsonl"), join(dir, "sub", "--p--", "link-to-fifo.jsonl"));
    symlinkSync(join(dir, "nowhere"), join(dir, "sub", "--p--", "dangling.jsonl"));
    for (const args of [
      ["validate", dir, "--json"],
      ["migrate", dir, "--json"],
    ]) {
      const r = run(args);
      expect(r.code, r.stderr).toBe(3);
      const out = JSON.parse(r.stdout);
      expect(out.files).toHaveLength(3);
      expect(out.unreadable.map((u: any) => [u.path.slice(dir.length), u.code])).toEqual([
        ["/sub/--p--/dangling.jsonl", "ENOENT"],
      ]);
    }
    const stats = run(["stats", "--all", "--json", "--session-dir", join(dir, "sub")], {
      env: { XDG_CACHE_HOME: join(home, "odd-cache") },
    });
    expect(stats.code, stats.stderr).toBe(3);
    expect(JSON.parse(stats.stdout).unreadable.map((u: any) => u.code)).toEqual(["ENOENT"]);
  });
});
