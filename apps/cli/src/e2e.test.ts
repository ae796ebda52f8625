/**
 * The commands on a temporary HOME and PI_CODING_AGENT_DIR holding a copy of
 * `examples/sessions/`: stdout, stderr, JSON and exit codes. They run in this process
 * (`runCli`, `test/in-process.ts`: no build needed); the tests of what only the built binary
 * has (the bundle's chunks, the CommonJS `sync` path, processes running at
 * once) spawn `dist/pi-session.cjs` and are tagged `processes` (`pnpm build` first).
 */
// biome-ignore-all lint/suspicious/noExplicitAny: the tests read parsed --json output.
import { spawn, spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { upstreamFixture, upstreamFixtureNames } from "@pi-session/testkit";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { runInProcess } from "../test/in-process.js";

// Every test spawns the binary several times; a loaded CI machine needs more than 5 s.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const here = dirname(fileURLToPath(import.meta.url));
const BIN = resolve(here, "..", "dist", "pi-session.cjs");

/** The bundle's metafile (dist/bundle-meta.json): which modules each output holds, and what it imports. */
interface BundleMeta {
  outputs: Record<
    string,
    { entryPoint?: string; inputs: object; imports: { path: string; kind: string; external?: boolean }[] }
  >;
}
const bundleMeta = (): BundleMeta =>
  JSON.parse(readFileSync(join(dirname(BIN), "bundle-meta.json"), "utf8")) as BundleMeta;
/** The outputs loading `from` reaches: through its static imports only, or through every import. */
function reachableOutputs(
  meta: BundleMeta,
  from: string,
  staticOnly: boolean,
  seen = new Set<string>(),
): Set<string> {
  if (seen.has(from)) return seen;
  seen.add(from);
  for (const i of meta.outputs[from]?.imports ?? [])
    if (!i.external && (!staticOnly || i.kind === "import-statement"))
      reachableOutputs(meta, i.path, staticOnly, seen);
  return seen;
}
/** The output made for an entry point (`lib/commands/sync.js`), or "". */
const outputOf = (meta: BundleMeta, entryPoint: string): string =>
  Object.keys(meta.outputs).find((out) => meta.outputs[out]?.entryPoint === entryPoint) ?? "";
const EXAMPLES = resolve(here, "..", "..", "..", "examples", "sessions");

const WEBAPP = "--home-dev-projects-webapp--";
const V1 =
  "--home-dev-projects-cli-tool--/2026-11-02T09-00-37-000Z_3f1c2a9e-8b7d-4c6e-9a5f-1e2d3c4b5a69.jsonl";
const V2 = `${WEBAPP}/2026-11-02T09-07-24-000Z_6a0b1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c2d.jsonl`;
const V3 = `${WEBAPP}/2026-11-02T09-12-20-000Z_019a4c1e-7b2f-7c3d-9e4f-5a6b7c8d9e0f.jsonl`;
const FORK = `${WEBAPP}/2026-11-02T09-26-31-000Z_019a4c2f-1a2b-7c3d-8e4f-6a7b8c9d0e1f.jsonl`;

const ALL_COMMANDS = [
  "ls",
  "show",
  "tree",
  "context",
  "export",
  "validate",
  "repair",
  "migrate",
  "stats",
  "fork",
  "name",
  "label",
  "rm",
];

let home: string;
let agentDir: string;
let sessions: string;
/** A project directory with a copy of the v3 session (its header cwd changed to it), for `latest`. */
let project: string;

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The command in this process, as the binary would run it. */
function run(args: string[], opts: { env?: Record<string, string>; cwd?: string } = {}): Promise<Result> {
  return runInProcess(args, { env: envOf(opts.env), cwd: opts.cwd ?? home });
}

function envOf(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? "", HOME: home, PI_CODING_AGENT_DIR: agentDir, TZ: "UTC", ...extra };
}

/** The built binary (`pnpm build` first), spawned. */
function runBinary(args: string[], opts: { env?: Record<string, string>; cwd?: string } = {}): Result {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: home,
    PI_CODING_AGENT_DIR: agentDir,
    TZ: "UTC",
    ...opts.env,
  };
  const r = spawnSync(process.execPath, [BIN, ...args], {
    env,
    cwd: opts.cwd ?? home,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function json(r: Result): any {
  expect(r.stderr).toBe("");
  return JSON.parse(r.stdout);
}

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), "pi-session-e2e-"));
  agentDir = join(home, ".pi", "agent");
  sessions = join(agentDir, "sessions");
  mkdirSync(sessions, { recursive: true });
  cpSync(EXAMPLES, sessions, { recursive: true });
  project = join(home, "work", "proj");
  mkdirSync(project, { recursive: true });
  const encoded = `--${project.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;
  mkdirSync(join(sessions, encoded));
  // A copy of the v3 session with this project as its header's cwd (`latest` is the top row of `ls` there).
  const [header, ...rest] = readFileSync(join(sessions, V3), "utf8").split("\n");
  writeFileSync(
    join(sessions, encoded, "2026-11-03T10-00-00-000Z_77aa0000-0000-4000-8000-000000000001.jsonl"),
    [JSON.stringify({ ...JSON.parse(header as string), cwd: project }), ...rest].join("\n"),
  );
});

afterAll(async () => {
  rmSync(home, { recursive: true, force: true });
});

describe("the frame", () => {
  it("--version prints the version and exits 0", { tags: ["processes"] }, async () => {
    const r = runBinary(["--version"]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it("the entry file of the bundle leaves the layers to lazily loaded chunks", {
    tags: ["processes"],
  }, async () => {
    // What keeps `--version` and `--help` fast: they never load TypeBox, the layers or the SDK.
    const entry = readFileSync(BIN, "utf8");
    expect(entry.startsWith("#!/usr/bin/env node\n")).toBe(true);
    expect(entry).toContain('import("./main.js")');
    const program = readFileSync(join(dirname(BIN), "main.js"), "utf8");
    expect(program).toMatch(/import\("\.\/chunks\//);
    for (const file of [entry, program]) {
      expect(file).not.toContain("typebox");
      expect(file).not.toContain("SessionManager");
    }
    const chunks = readdirSync(join(dirname(BIN), "chunks"));
    expect(chunks.length).toBeGreaterThan(3);
    // TypeBox is only for `validate`: no other command pays for loading it. The bundle's
    // metafile says which chunks hold TypeBox and which chunk imports which.
    const meta = bundleMeta();
    const reachable = (from: string) => reachableOutputs(meta, from, false);
    const typebox = Object.keys(meta.outputs).filter((out) =>
      Object.keys(meta.outputs[out]?.inputs ?? {}).some((input) => /node_modules\/.*typebox\//.test(input)),
    );
    expect(typebox.length).toBeGreaterThan(0);
    const commands = Object.keys(meta.outputs).filter((out) =>
      /^lib\/commands\//.test(meta.outputs[out]?.entryPoint ?? ""),
    );
    const loadingTypebox = commands.filter((out) => typebox.some((t) => reachable(out).has(t)));
    expect(loadingTypebox.map((out) => out.split("/").pop()?.split("-")[0])).toEqual(["validate"]);
  });

  it("a command's chunks hold what it imports, not whole packages imported through their index", {
    tags: ["processes"],
  }, async () => {
    // The bundle script imports names from the modules that define them: through a package's
    // index, every module of the package would be loaded by every command that names one.
    const meta = bundleMeta();
    /** The inputs of what loading `from` evaluates: its static imports, transitively. */
    const loaded = (from: string): string[] =>
      [...reachableOutputs(meta, from, true)].flatMap((out) => Object.keys(meta.outputs[out]?.inputs ?? {}));
    const chunkOf = (input: string) => outputOf(meta, input);
    const command = (name: string) => chunkOf(`lib/commands/${name}.js`);
    // The binary's first module loads the program (or dist/sync.cjs).
    expect(loaded("dist/pi-session.cjs").filter((i) => i.startsWith("lib/"))).toEqual(["lib/bin.js"]);
    const program = loaded(chunkOf("lib/main.js"));
    expect(program.some((i) => i.endsWith("render/dist/sanitize.js"))).toBe(true);
    // The program is the command table, option parsing and the terminal-safe output.
    const heavy =
      /\/(node-store|tree|migrate|context|search)\/dist\/|render\/dist\/(page-assets|html|markdown|text|model\/)/;
    expect(program.filter((i) => heavy.test(i))).toEqual([]);
    const search = loaded(command("search"));
    expect(search.some((i) => i.endsWith("search/dist/search.js"))).toBe(true);
    for (const unused of [
      "render/dist/page-assets.js",
      "render/dist/html.js",
      "node-store/dist/write/appender.js",
    ])
      expect(search.filter((i) => i.endsWith(unused))).toEqual([]);
    // `export` does show the page.
    expect(loaded(command("export")).some((i) => i.endsWith("render/dist/page-assets.js"))).toBe(true);
  });

  it("`sync …` runs from one CommonJS file: the program with the sync command alone, pg beside it", {
    tags: ["processes"],
  }, async () => {
    // A fresh sync (a cron line, a loop) skips the ES module loader and the chunks (decision 150).
    const meta = bundleMeta();
    const inputsOf = (out: string) => Object.keys(meta.outputs[out]?.inputs ?? {});
    const sync = inputsOf("dist/sync.cjs");
    for (const held of [
      "lib/sync-main.js",
      "lib/program.js",
      "lib/commands/sync.js",
      "postgres/dist/sync.js",
      "postgres/dist/database.js",
      "watch-store.js",
    ])
      expect(
        sync.some((i) => i.endsWith(held)),
        held,
      ).toBe(true);
    // No other command, nothing of pg (that is dist/pg.cjs), no TypeBox, no page assets.
    const otherCommands = sync.filter(
      (i) => /^lib\/commands\//.test(i) && !/\/(sync|sync-spec|options)\.js$/.test(i),
    );
    expect(otherCommands).toEqual([]);
    expect(
      sync.filter((i) => /node_modules\/(pg|pg-[a-z]+|typebox)\//.test(i) || /-assets\.js$/.test(i)),
    ).toEqual([]);
    // It requires Node's modules and pg's file only.
    const required = (meta.outputs["dist/sync.cjs"]?.imports ?? []).map((i) => i.path);
    expect(required.filter((p) => !/^node:/.test(p) && p !== "./pg.cjs")).toEqual([]);
    expect(required).toContain("./pg.cjs");
    // pg's file holds pg and its dependencies only; no ES chunk holds a copy of pg.
    expect(inputsOf("dist/pg.cjs").filter((i) => !i.includes("node_modules/"))).toEqual([]);
    const chunks = Object.keys(meta.outputs).filter((out) => out.startsWith("dist/chunks/"));
    expect(chunks.filter((out) => inputsOf(out).some((i) => /node_modules\/pg\//.test(i)))).toEqual([]);
    expect(readFileSync(BIN, "utf8")).toContain('require("./sync.cjs")');
  });

  it("`sync` answers the same through dist/sync.cjs and through the program", {
    tags: ["processes"],
  }, async () => {
    // The first word picks the path: `sync …` the CommonJS file, `--no-color sync …` the program.
    // A probe preloaded in each child says which CommonJS files it loaded.
    const probe = join(mkdtempSync(join(tmpdir(), "pi-session-sync-path-")), "probe.cjs");
    writeFileSync(
      probe,
      [
        'process.on("exit", () => {',
        '  const files = Object.keys(require.cache).filter((f) => f.endsWith(".cjs") && !f.endsWith("probe.cjs"));',
        '  process.stderr.write("\\nLOADED " + files.map((f) => f.split("/").pop()).sort().join(",") + "\\n");',
        "});",
      ].join("\n"),
    );
    const strip = (r: Result) => ({
      code: r.code,
      stdout: r.stdout,
      stderr: r.stderr.replace(/\nLOADED .*\n$/, ""),
    });
    const loaded = (r: Result) => /\nLOADED (.*)\n$/.exec(r.stderr)?.[1];
    const both = (args: string[], env: Record<string, string> = {}) => {
      const withProbe = { ...env, NODE_OPTIONS: `--require ${probe}` };
      const fast = runBinary(["sync", ...args], { env: withProbe });
      const program = runBinary(["--no-color", "sync", ...args], { env: withProbe });
      expect(loaded(fast)?.split(",")).toEqual(expect.arrayContaining(["pi-session.cjs", "sync.cjs"]));
      expect(loaded(program)?.split(",")).not.toContain("sync.cjs");
      expect(strip(fast)).toEqual(strip(program));
      return strip(fast);
    };
    expect(both(["--help"]).stdout).toContain("Send your sessions to a team's PostgreSQL database");
    expect(both([]).code).toBe(2); // no database named
    expect(both(["--bogus"]).code).toBe(2);
    expect(both(["extra"]).code).toBe(2);
    expect(both(["--version"]).code).toBe(2);
    // pg from dist/pg.cjs: a refused connection is a clear error, exit 1, the password not printed.
    const refused = both(["--to", "postgresql://ada:s3cret@127.0.0.1:9/team", "--as", "a"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/\S/);
    expect(refused.stderr).not.toContain("s3cret");
  });

  it("--help lists every command and the conventions", async () => {
    const r = await run(["--help"]);
    expect(r.code).toBe(0);
    for (const cmd of ALL_COMMANDS) expect(r.stdout).toContain(cmd);
    expect(r.stdout).toContain("Exit codes");
    // With no command at all, the same help, on the run's stdout too.
    expect(await run([])).toEqual(r);
  });

  it("each command has help", async () => {
    for (const cmd of ALL_COMMANDS) {
      const r = await run([cmd, "--help"]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`pi-session ${cmd}`);
    }
    for (const cmd of ["repair", "migrate", "fork", "name", "label", "rm"])
      expect((await run([cmd, "--help"])).stdout).toMatch(/WRITES|REMOVES/);
    const repairHelp = (await run(["repair", "--help"])).stdout;
    expect(repairHelp).toContain(".removed-");
    expect(repairHelp).toContain(".bak-");
    expect(repairHelp).toContain('extra "session" header lines');
  });

  it("unknown command, unknown option and missing argument are usage errors (exit 2)", async () => {
    const unknown = await run(["frobnicate"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown command `frobnicate`");
    expect(unknown.stdout).toBe("");
    const badOption = await run(["show", join(sessions, V3), "--bogus"]);
    expect(badOption.code).toBe(2);
    expect(badOption.stderr).toContain("--bogus");
    const missing = await run(["show"]);
    expect(missing.code).toBe(2);
    expect((await run(["--bogus"])).code).toBe(2);
    // Unknown options are named as typed, not in cac's camelCase.
    for (const args of [["ls", "--bogus-thing"], ["--bogus-thing"], ["validate", "x", "--bogus-thing=3"]]) {
      const r = await run(args);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("unknown option `--bogus-thing`");
      expect(r.stderr).not.toContain("bogusThing");
    }
  });

  it("a kebab-case flag before the <session> is a flag, not the option's value", async () => {
    const file = join(sessions, V3);
    const before = await run(["show", "--all-branches", file]);
    expect(before.code, before.stderr).toBe(0);
    expect(before.stdout).toBe((await run(["show", file, "--all-branches"])).stdout);
    expect(json(await run(["show", "--all-branches", "--json", file])).entries.length).toBeGreaterThan(0);
    const unknown = await run(["show", "--bogus-thing", file]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown option `--bogus-thing`");
  });

  it("colours only when forced, never with NO_COLOR or --no-color", async () => {
    const file = join(sessions, V3);
    expect((await run(["show", file])).stdout).not.toContain("\x1b[");
    expect((await run(["show", file], { env: { FORCE_COLOR: "1" } })).stdout).toContain("\x1b[");
    expect((await run(["show", file, "--no-color"], { env: { FORCE_COLOR: "1" } })).stdout).not.toContain(
      "\x1b[",
    );
    expect((await run(["show", file], { env: { FORCE_COLOR: "1", NO_COLOR: "1" } })).stdout).not.toContain(
      "\x1b[",
    );
  });
});

describe("<session> resolution", () => {
  it("accepts a path, a full id, a unique prefix and latest", async () => {
    const byPath = json(await run(["show", join(sessions, V3), "--json"]));
    expect(byPath.id).toBe("019a4c1e-7b2f-7c3d-9e4f-5a6b7c8d9e0f");
    expect(json(await run(["show", "019a4c1e-7b2f-7c3d-9e4f-5a6b7c8d9e0f", "--json"])).file).toBe(
      join(sessions, V3),
    );
    expect(json(await run(["show", "019a4c1e", "--json"])).file).toBe(join(sessions, V3));
    const latest = json(await run(["show", "latest", "--json"], { cwd: project }));
    expect(latest.file).toContain("77aa0000-0000-4000-8000-000000000001");
  });

  it("--session-dir and PI_CODING_AGENT_SESSION_DIR override the default root", async () => {
    const other = join(home, "elsewhere");
    mkdirSync(other, { recursive: true });
    cpSync(
      join(sessions, V2),
      join(other, "2026-11-02T09-07-24-000Z_6a0b1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c2d.jsonl"),
    );
    expect((await run(["show", "019a4c1e", "--session-dir", other])).code).toBe(1);
    expect(json(await run(["show", "6a0b", "--session-dir", other, "--json"])).file).toContain(other);
    // As pi reads the flag: a file:// URL names the same directory.
    expect(
      json(await run(["show", "6a0b", "--session-dir", pathToFileURL(other).href, "--json"])).file,
    ).toContain(other);
    expect(
      json(await run(["show", "6a0b", "--json"], { env: { PI_CODING_AGENT_SESSION_DIR: other } })).file,
    ).toContain(other);
  });

  it("an ambiguous prefix lists the candidates and exits 1", async () => {
    const r = await run(["show", "019a4c"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("ambiguous");
    expect(r.stderr).toContain("019a4c1e-7b2f-7c3d-9e4f-5a6b7c8d9e0f");
    expect(r.stderr).toContain("019a4c2f-1a2b-7c3d-8e4f-6a7b8c9d0e1f");
    expect(r.stdout).toBe("");
  });

  it("an unknown id, a missing file, a garbage file and latest without sessions fail with exit 1", async () => {
    const unknown = await run(["show", "deadbeef"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("no session with id or prefix `deadbeef`");
    const missing = await run(["show", "./nope.jsonl"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("no such file");
    const garbage = join(home, "garbage.jsonl");
    writeFileSync(garbage, 'this is not json\n{"half":\n');
    const g = await run(["show", garbage]);
    expect(g.code).toBe(1);
    expect(g.stderr).toContain("not a pi session");
    expect(g.stderr).toContain("garbage.jsonl:");
    const latest = await run(["show", "latest"], { cwd: tmpdir() });
    expect(latest.code).toBe(1);
    expect(latest.stderr).toContain("no sessions for");
  });
});

describe("show", () => {
  it("prints the active branch with labels, summaries and folded tool output", async () => {
    const r = await run(["show", join(sessions, V3)]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain("upload rate limiting");
    expect(r.stdout).toContain("Keep it in memory for now.");
    expect(r.stdout).toContain("[plan]");
    expect(r.stdout).toContain("── compaction");
    expect(r.stdout).toContain("── branch summary ──");
    expect(r.stdout).toContain("$ npm test -- upload");
    // The abandoned Redis branch is not on the active path.
    expect(r.stdout).not.toContain("Use Redis for the counters.");
  });

  it("--leaf picks another branch; --all-branches shows both; --json gives the entries", async () => {
    const leaf = await run(["show", join(sessions, V3), "--leaf", "b2000009"]);
    expect(leaf.stdout).toContain("Use Redis for the counters.");
    expect(leaf.stdout).not.toContain("Keep it in memory");
    const all = await run(["show", join(sessions, V3), "--all-branches"]);
    expect(all.stdout).toContain("Use Redis for the counters.");
    expect(all.stdout).toContain("Keep it in memory");
    // Depth first: each branch of a branch point in one piece, marked where it starts.
    expect(all.stdout).toContain("↳ branch 1/2 from b2000007");
    expect(all.stdout).toContain("↳ branch 2/2 from b2000007");
    expect(all.stdout.indexOf("Use Redis for the counters.")).toBeLessThan(
      all.stdout.indexOf("Keep it in memory"),
    );
    const data = json(await run(["show", join(sessions, V3), "--json"]));
    expect(data.leafId).toBe("b2000022");
    expect(data.labels).toEqual({ b2000006: "plan", b2000019: "configurable" });
    expect(data.entries.map((e: any) => e.id)).toContain("b2000011");
    const bad = await run(["show", join(sessions, V3), "--leaf", "nope"]);
    expect(bad.code).toBe(2);
  });
});

describe("tree", () => {
  it("draws the branch point, labels and the leaf", async () => {
    const r = await run(["tree", join(sessions, V3)]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("├─ b2000008 user Use Redis");
    expect(r.stdout).toContain("└─ b2000010 branch summary");
    expect(r.stdout).toMatch(/b2000022 .*← leaf/);
    expect(r.stdout).toContain("[configurable]");
  });

  it("--json is a flat list with children ids", async () => {
    const data = json(await run(["tree", join(sessions, V3), "--json"]));
    expect(data.leafId).toBe("b2000022");
    expect(data.roots).toEqual(["b2000001"]);
    const b7 = data.entries.find((e: any) => e.id === "b2000007");
    expect(b7.children).toEqual(["b2000008", "b2000010"]);
    expect(data.entries).toHaveLength(22);
    expect(data.diagnostics).toEqual([]);
  });

  it("collapses long linear runs unless --full", async () => {
    const file = join(home, "long.jsonl");
    const lines = [
      JSON.stringify({
        type: "session",
        version: 3,
        id: "long-1",
        timestamp: "2026-01-01T00:00:00.000Z",
        cwd: "/x",
      }),
    ];
    let parent: string | null = null;
    for (let i = 0; i < 40; i++) {
      const id = `e${String(i).padStart(7, "0")}`;
      lines.push(
        JSON.stringify({
          type: "message",
          id,
          parentId: parent,
          timestamp: "2026-01-01T00:00:01.000Z",
          message: { role: "user", content: `m${i}`, timestamp: 1 },
        }),
      );
      parent = id;
    }
    writeFileSync(file, `${lines.join("\n")}\n`);
    const collapsed = await run(["tree", file]);
    expect(collapsed.stdout).toContain("more entries");
    expect(collapsed.stdout.split("\n").length).toBeLessThan(15);
    const full = await run(["tree", file, "--full"]);
    expect(full.stdout).not.toContain("more entries");
    expect(full.stdout.trim().split("\n")).toHaveLength(40);
  });
});

describe("context", () => {
  it("--json prints exactly {messages, thinkingLevel, model}", async () => {
    const data = json(await run(["context", join(sessions, V3), "--json"]));
    expect(Object.keys(data)).toEqual(["messages", "thinkingLevel", "model"]);
    expect(data.thinkingLevel).toBe("high");
    expect(data.model).toEqual({ provider: "anthropic", modelId: "claude-sonnet-4-5" });
    expect(data.messages[0].role).toBe("compactionSummary");
    // The context edit replaced the user's request.
    expect(JSON.stringify(data.messages)).toContain(
      "Make the rate limit configurable through the environment.",
    );
  });

  it("--llm converts summaries and bash runs to user text", async () => {
    const data = json(await run(["context", join(sessions, V3), "--json", "--llm"]));
    expect(
      data.messages.every((m: any) => ["user", "assistant", "toolResult", "system"].includes(m.role)),
    ).toBe(true);
    expect(data.messages[0].content[0].text).toContain(
      "The conversation history before this point was compacted",
    );
    const text = await run(["context", join(sessions, V3), "--llm"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("Ran `npm test -- upload`");
  });
});

describe("validate", () => {
  it("passes the examples and the upstream fixtures", async () => {
    const r = await run(["validate", sessions]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("ok (v3");
    const fixtures = await run([
      "validate",
      upstreamFixture("before-compaction"),
      upstreamFixture("large-session"),
      "--json",
    ]);
    expect(fixtures.code).toBe(0);
    const data = json(fixtures);
    expect(data.errors).toBe(0);
    expect(data.files.map((f: any) => f.version)).toEqual([1, 1]);
  });

  it("reports line, byte offset and reason, and exits 1 on errors", async () => {
    const file = join(home, "broken.jsonl");
    const header = JSON.stringify({
      type: "session",
      version: 3,
      id: "broken-1",
      timestamp: "2026-01-01T00:00:00.000Z",
      cwd: "/x",
    });
    const a = JSON.stringify({
      type: "message",
      id: "a",
      parentId: null,
      timestamp: "t",
      message: { role: "user", content: "hi", timestamp: 1 },
    });
    const dup = JSON.stringify({
      type: "message",
      id: "a",
      parentId: "zzz",
      timestamp: "t",
      message: { role: "user", content: "again", timestamp: 2 },
    });
    writeFileSync(file, `${header}\n${a}\nnot json\n${dup}\n{"torn":`);
    const r = await run(["validate", file]);
    expect(r.code).toBe(1);
    const notJsonOffset = Buffer.byteLength(`${header}\n${a}\n`);
    expect(r.stdout).toContain(`broken.jsonl:3 (byte ${notJsonOffset})`);
    expect(r.stdout).toContain("invalid-json");
    expect(r.stdout).toContain("torn-tail");
    expect(r.stdout).toContain("duplicate-id");
    const data = json(await run(["validate", file, "--json"]));
    expect(data.errors).toBeGreaterThan(0);
    expect(data.files[0].diagnostics.find((d: any) => d.code === "invalid-json")).toMatchObject({
      line: 3,
      offset: notJsonOffset,
    });
  });

  it("checks every line against the schema; --strict uses the strict schema", async () => {
    const header = JSON.stringify({
      type: "session",
      version: 3,
      id: "schema-1",
      timestamp: "2026-01-01T00:00:00.000Z",
      cwd: "/x",
    });
    const good = JSON.stringify({
      type: "message",
      id: "a1",
      parentId: null,
      timestamp: "2026-01-01T00:00:01.000Z",
      message: { role: "user", content: "hi", timestamp: 1 },
    });
    // An unknown field: fine for pi and the open schema, rejected by the strict one.
    const extra = JSON.stringify({
      type: "label",
      id: "a2",
      parentId: "a1",
      timestamp: "2026-01-01T00:00:02.000Z",
      targetId: "a1",
      label: "x",
      somethingNew: true,
    });
    const lenient = join(home, "schema-lenient.jsonl");
    writeFileSync(lenient, `${header}\n${good}\n${extra}\n`);
    expect((await run(["validate", lenient])).code).toBe(0);
    const strict = await run(["validate", lenient, "--strict", "--json"]);
    expect(strict.code).toBe(1);
    const data = json(strict);
    expect(data.strict).toBe(true);
    const d = data.files[0].diagnostics.find((x: any) => x.code === "schema");
    expect(d).toMatchObject({
      line: 3,
      offset: Buffer.byteLength(`${header}\n${good}\n`),
      severity: "error",
    });
    expect(d.reason).toContain("somethingNew");
    // A known field of the wrong type fails the default (open) schema too.
    const bad = JSON.stringify({
      type: "message",
      id: "a3",
      parentId: "a1",
      timestamp: "2026-01-01T00:00:03.000Z",
      message: { role: "user", content: 42, timestamp: 1 },
    });
    const wrong = join(home, "schema-wrong.jsonl");
    writeFileSync(wrong, `${header}\n${good}\n${bad}\n`);
    const r = await run(["validate", wrong]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`schema-wrong.jsonl:3 (byte ${Buffer.byteLength(`${header}\n${good}\n`)})`);
    expect(r.stdout).toContain("[schema]");
    expect(json(await run(["validate", wrong, "--json"])).strict).toBe(false);
    // The examples pass even the strict schema; the real v1 fixtures carry fields pi once
    // wrote that the strict schema does not know, so --strict reports them (exit 1).
    expect((await run(["validate", EXAMPLES, "--strict"])).code).toBe(0);
    const fixtures = await run(["validate", upstreamFixture("before-compaction"), "--strict", "--json"]);
    expect(fixtures.code).toBe(1);
    expect(json(fixtures).files[0].diagnostics.every((x: any) => x.code === "schema")).toBe(true);
  });

  it("reads files in chunks: lines across the 1 MiB read boundary are whole", async () => {
    const header = JSON.stringify({
      type: "session",
      version: 3,
      id: "big-1",
      timestamp: "2026-01-01T00:00:00.000Z",
      cwd: "/x",
    });
    const big = "x".repeat(1_500_000);
    const lines = [header];
    let parent: string | null = null;
    for (const [i, text] of ["first", big, "last"].entries()) {
      const id = `m${i}`;
      lines.push(
        JSON.stringify({
          type: "message",
          id,
          parentId: parent,
          timestamp: "2026-01-01T00:00:01.000Z",
          message: { role: "user", content: text, timestamp: 1 },
        }),
      );
      parent = id;
    }
    const file = join(home, "big.jsonl");
    writeFileSync(file, `${lines.join("\n")}\n`);
    expect((await run(["validate", file])).code).toBe(0);
    const shown = json(await run(["show", file, "--json"]));
    expect(shown.entries.map((e: any) => e.message.content.length)).toEqual([5, big.length, 4]);
    expect(json(await run(["context", file, "--json"])).messages).toHaveLength(3);
  });

  it("a missing path is an error with exit 1", async () => {
    const r = await run(["validate", join(home, "missing.jsonl")]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("no such file");
  });
});

describe("stats", () => {
  function usageOfIds(path: string, ids: (id: string) => boolean) {
    const totals = { input: 0, output: 0, cost: 0 };
    for (const line of readFileSync(path, "utf8").split("\n")) {
      if (!line) continue;
      const e = JSON.parse(line);
      const usage =
        e.message?.role === "assistant" ? e.message.usage : e.type === "usage" ? e.usage : e.usage;
      if (!usage || (typeof e.id === "string" && !ids(e.id))) continue;
      totals.input += usage.input;
      totals.output += usage.output;
      totals.cost += usage.cost.total;
    }
    return totals;
  }

  it("counts a fork's copied entries once per lineage", async () => {
    const all = json(await run(["stats", "--all", "--json"]));
    const v3 = json(await run(["stats", join(sessions, V3), "--json"]));
    const fork = json(await run(["stats", join(sessions, FORK), "--json"]));
    const forkOwn = usageOfIds(join(sessions, FORK), (id) => id.startsWith("c3"));
    expect(fork.totals.input).toBeGreaterThan(forkOwn.input);
    // webapp sessions: the v3 parent, its fork (own entries only), the v2 file; plus the cli-tool
    // v1 file and the copy made for `latest` (same lineage as the v3 session: not counted again).
    const v2 = json(await run(["stats", join(sessions, V2), "--json"]));
    const v1 = json(await run(["stats", join(sessions, V1), "--json"]));
    expect(all.totals.input).toBe(v3.totals.input + forkOwn.input + v2.totals.input + v1.totals.input);
    expect(all.duplicatesSkipped).toBeGreaterThan(0);
  });

  it("groups by model, day, project and session, and filters with --since", async () => {
    const byModel = json(await run(["stats", "--all", "--by", "model", "--json"]));
    expect(byModel.by).toBe("model");
    expect(byModel.rows.map((r: any) => r.key)).toContain("openai/gpt-4.1-mini");
    const sum = byModel.rows.reduce((n: number, r: any) => n + r.input, 0);
    expect(sum).toBe(byModel.totals.input);
    for (const by of ["day", "project", "session"]) {
      const data = json(await run(["stats", "--all", "--by", by, "--json"]));
      expect(data.rows.reduce((n: number, r: any) => n + r.output, 0)).toBe(data.totals.output);
    }
    const future = json(await run(["stats", "--all", "--since", "2099-01-01", "--json"]));
    expect(future.totals.records).toBe(0);
    expect((await run(["stats", "--all", "--by", "hour"])).code).toBe(2);
    expect((await run(["stats", "--all", "--since", "yesterday-ish"])).code).toBe(2);
  });

  it("flags costs recorded as 0 next to tokens", async () => {
    const file = join(home, "zero-cost.jsonl");
    const header = JSON.stringify({
      type: "session",
      version: 3,
      id: "zero-1",
      timestamp: "2026-01-01T00:00:00.000Z",
      cwd: "/x",
    });
    const usage = {
      input: 10,
      output: 5,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 15,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    };
    const msg = JSON.stringify({
      type: "message",
      id: "a1",
      parentId: null,
      timestamp: "2026-01-01T00:00:01.000Z",
      message: {
        role: "assistant",
        content: [],
        provider: "p",
        model: "m",
        usage,
        stopReason: "stop",
        timestamp: 1,
      },
    });
    writeFileSync(file, `${header}\n${msg}\n`);
    const data = json(await run(["stats", file, "--json"]));
    expect(data.totals.zeroCostWithTokens).toBe(1);
    expect((await run(["stats", file])).stdout).toContain("has a cost of 0 with tokens");
  });

  it("reads the upstream v1 fixtures", async () => {
    const r = await run(["stats", upstreamFixture("large-session"), "--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).totals.records).toBeGreaterThan(0);
  });
});

describe("ls", () => {
  it("lists every project with --all, newest first, and the current project by default", async () => {
    const all = json(await run(["ls", "--all", "--json"]));
    expect(all.length).toBe(5);
    const times = all.map((s: any) => s.modified);
    expect([...times].sort().reverse()).toEqual(times);
    expect(all.find((s: any) => s.id === "019a4c1e-7b2f-7c3d-9e4f-5a6b7c8d9e0f").name).toBe(
      "upload rate limiting",
    );
    const text = await run(["ls", "--all"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("upload rate limiting");
    expect(text.stdout).toContain("019a4c1e");
    expect(json(await run(["ls", "--json", "--cwd", "/home/dev/projects/cli-tool"]))).toHaveLength(1);
    expect(json(await run(["ls", "--all", "--limit", "2", "--json"]))).toHaveLength(2);
    expect(json(await run(["ls", "--all", "--since", "2099-01-01", "--json"]))).toHaveLength(0);
    const none = await run(["ls"], { cwd: tmpdir() });
    expect(none.code).toBe(0);
    expect(none.stderr).toContain("--all");
    expect((await run(["ls", "--limit", "many"])).code).toBe(2);
  });

  it("without --session-dir lists pi's store: PI_CODING_AGENT_DIR, the sessionDir setting, PI_CODING_AGENT_SESSION_DIR", async () => {
    // A fresh agent dir with one project directory, as pi lays it out.
    const agent = join(home, "agent-ls");
    const projectDir = join(agent, "sessions", "--home-dev-projects-webapp--");
    mkdirSync(projectDir, { recursive: true });
    cpSync(join(EXAMPLES, V3), join(projectDir, V3.split("/")[1] as string));
    const cache = join(home, "cache-ls");
    const env = { PI_CODING_AGENT_DIR: agent, XDG_CACHE_HOME: cache };
    const listed = json(await run(["ls", "--all", "--json"], { env }));
    expect(listed.map((x: any) => x.id)).toEqual(["019a4c1e-7b2f-7c3d-9e4f-5a6b7c8d9e0f"]);
    expect(listed[0].path).toBe(join(projectDir, V3.split("/")[1] as string));
    // The metadata cache was written, and a warm listing prints the same JSON.
    expect(readdirSync(join(cache, "pi-session")).some((n) => n.startsWith("list-"))).toBe(true);
    expect(json(await run(["ls", "--all", "--json"], { env }))).toEqual(listed);
    expect(json(await run(["ls", "--all", "--json", "--no-cache"], { env }))).toEqual(listed);
    // The sessionDir setting points somewhere else (a flat custom dir, as pi uses it).
    const custom = join(home, "custom-ls");
    mkdirSync(custom, { recursive: true });
    cpSync(join(EXAMPLES, V2), join(custom, V2.split("/")[1] as string));
    writeFileSync(join(agent, "settings.json"), JSON.stringify({ sessionDir: custom }));
    expect(json(await run(["ls", "--all", "--json"], { env })).map((x: any) => x.id)).toEqual([
      "6a0b1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c2d",
    ]);
    // The environment variable wins over the setting.
    const fromEnv = json(
      await run(["ls", "--all", "--json"], { env: { ...env, PI_CODING_AGENT_SESSION_DIR: projectDir } }),
    );
    expect(fromEnv.map((x: any) => x.id)).toEqual(["019a4c1e-7b2f-7c3d-9e4f-5a6b7c8d9e0f"]);
    // A project's .pi/settings.json wins over the global setting (pi merges them, project last).
    const project = join(home, "project-ls");
    mkdirSync(join(project, ".pi"), { recursive: true });
    writeFileSync(join(project, ".pi", "settings.json"), JSON.stringify({ sessionDir: projectDir }));
    const fromProject = json(await run(["ls", "--all", "--json"], { env, cwd: project }));
    expect(fromProject.map((x: any) => x.id)).toEqual(["019a4c1e-7b2f-7c3d-9e4f-5a6b7c8d9e0f"]);
  });

  it("lists a file whose header has no string id, as pi does, without crashing", async () => {
    const dir = join(home, "odd-headers", "--home-dev-odd--");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "2026-01-01T00-00-00-000Z_noid.jsonl"), '{"type":"session"}\n');
    writeFileSync(join(dir, "2026-01-01T00-00-00-000Z_numid.jsonl"), '{"type":"session","id":7}\n');
    const args = ["ls", "--all", "--session-dir", join(home, "odd-headers")];
    const listed = json(await run([...args, "--json"]));
    expect(listed).toHaveLength(2);
    expect(listed.map((s: any) => s.created)).toEqual([null, null]);
    const text = await run(args);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("(no id)");
    expect(text.stdout).toContain("7");
  });

  it("lists the examples through --session-dir", async () => {
    const r = json(await run(["ls", "--all", "--session-dir", EXAMPLES, "--json"]));
    expect(r.map((s: any) => s.id).sort()).toEqual([
      "019a4c1e-7b2f-7c3d-9e4f-5a6b7c8d9e0f",
      "019a4c2f-1a2b-7c3d-8e4f-6a7b8c9d0e1f",
      "3f1c2a9e-8b7d-4c6e-9a5f-1e2d3c4b5a69",
      "6a0b1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c2d",
    ]);
  });
});

describe("write commands", () => {
  let scratch: string;
  beforeAll(async () => {
    scratch = join(home, "scratch");
    mkdirSync(scratch, { recursive: true });
  });
  function copy(rel: string): string {
    const target = join(scratch, rel.split("/").pop() as string);
    cpSync(join(EXAMPLES, rel), target);
    return target;
  }
  function backups(file: string): string[] {
    const dir = dirname(file);
    const base = file.slice(dir.length + 1);
    return readdirSync(dir)
      .filter((n) => n.startsWith(`${base}.bak-`))
      .map((n) => join(dir, n));
  }

  it("migrate is a dry run by default and rewrites atomically with a backup under --write", async () => {
    const file = copy(V1);
    const before = readFileSync(file);
    const dry = await run(["migrate", file]);
    // Something to migrate is a finding of the dry run.
    expect(dry.code).toBe(1);
    expect(dry.stdout).toContain("1 session checked: 0 up to date, 1 needs migration (v1: 1)");
    expect(dry.stdout).toContain("v1 -> v3");
    expect(dry.stderr).toContain("dry run");
    expect(readFileSync(file)).toEqual(before);
    const report = json(await run(["migrate", file, "--write", "--json"]));
    expect(report.files[0]).toMatchObject({ fromVersion: 1, toVersion: 3, written: true });
    const [bak] = backups(file);
    expect(bak).toBeDefined();
    expect(readFileSync(bak as string)).toEqual(before);
    const after = readFileSync(file, "utf8");
    expect(JSON.parse(after.split("\n")[0] as string).version).toBe(3);
    expect((await run(["validate", file])).code).toBe(0);
    // Deterministic ids: migrating the original again gives the same bytes.
    const again = copy(V1);
    rmSync(`${again}`);
    writeFileSync(again, before);
    await run(["migrate", again, "--write"]);
    expect(readFileSync(again, "utf8")).toBe(after);
    // Up to date now: nothing to write.
    expect(json(await run(["migrate", file, "--write", "--json"])).files[0].written).toBe(false);
  });

  it("migrate keeps malformed lines and walks the upstream fixtures", async () => {
    const file = join(scratch, "with-garbage.jsonl");
    const lines = readFileSync(join(EXAMPLES, V1), "utf8").split("\n");
    lines.splice(3, 0, "garbage line");
    writeFileSync(file, lines.join("\n"));
    await run(["migrate", file, "--write"]);
    expect(readFileSync(file, "utf8").split("\n")[3]).toBe("garbage line");
    const fixtures = json(
      await run([
        "migrate",
        upstreamFixture("before-compaction"),
        upstreamFixture("large-session"),
        "--json",
      ]),
    );
    expect(fixtures.files.map((f: any) => f.fromVersion)).toEqual([1, 1]);
    expect(fixtures.files.every((f: any) => f.written === false)).toBe(true);
  });

  it("name and label append pi's entries to a v3 file and keep no backup (an append destroys nothing)", async () => {
    const file = copy(V3);
    const before = readFileSync(file);
    const named = json(await run(["name", file, "renamed", "--json"]));
    expect(named).toMatchObject({ name: "renamed", backupPath: null, convertedFrom: null });
    const after = readFileSync(file);
    expect(after.subarray(0, before.length)).toEqual(before);
    // One line more, nothing else.
    expect(after.toString("utf8").split("\n").length).toBe(before.toString("utf8").split("\n").length + 1);
    const last = JSON.parse(after.toString("utf8").trim().split("\n").pop() as string);
    expect(last).toMatchObject({ type: "session_info", name: "renamed", parentId: "b2000022" });
    const beforeLabel = readFileSync(file);
    const labelled = await run(["label", file, "b2000003", "start"]);
    expect(labelled.code).toBe(0);
    expect(labelled.stderr).toBe("");
    expect(labelled.stdout).toContain('labelled "start": b2000003');
    const afterLabel = readFileSync(file);
    expect(afterLabel.subarray(0, beforeLabel.length)).toEqual(beforeLabel);
    expect(afterLabel.toString("utf8").split("\n").length).toBe(
      beforeLabel.toString("utf8").split("\n").length + 1,
    );
    expect(json(await run(["show", file, "--json"])).labels.b2000003).toBe("start");
    expect(backups(file)).toEqual([]);
    expect(readdirSync(dirname(file)).filter((n) => n.startsWith(`${basename(file)}.`))).toEqual([]);
  });

  it("label without text is a usage error; --clear clears it; failures write nothing", async () => {
    const file = copy(V3);
    expect((await run(["label", file, "b2000003", "start"])).code).toBe(0);
    const before = readFileSync(file);
    const bare = await run(["label", file, "b2000003"]);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain("missing <label>");
    expect(bare.stderr).toContain("--clear");
    expect((await run(["label", file, "b2000003", ""])).code).toBe(2);
    expect((await run(["label", file, "b2000003", "x", "--clear"])).code).toBe(2);
    expect((await run(["label", file, "nope", "x"])).code).toBe(2);
    expect((await run(["name", file])).code).toBe(2);
    expect(readFileSync(file)).toEqual(before);
    expect(json(await run(["show", file, "--json"])).labels.b2000003).toBe("start");
    const cleared = json(await run(["label", file, "b2000003", "--clear", "--json"]));
    expect(cleared).toMatchObject({ targetId: "b2000003", label: null, backupPath: null });
    expect(json(await run(["show", file, "--json"])).labels.b2000003).toBeUndefined();
    const last = JSON.parse(readFileSync(file, "utf8").trim().split("\n").pop() as string);
    expect(last).toMatchObject({ type: "label", targetId: "b2000003" });
    expect(last.label).toBeUndefined();
    expect(readdirSync(dirname(file)).filter((n) => n.startsWith(`${basename(file)}.`))).toEqual([]);
  });

  it("name on a v1 file says it converted it and keeps exactly one backup, of the v1 bytes", async () => {
    const dir = join(scratch, "v1-name");
    mkdirSync(dir, { recursive: true });
    const file = join(dir, V1.split("/").pop() as string);
    cpSync(join(EXAMPLES, V1), file);
    const before = readFileSync(file);
    const r = await run(["name", file, "old one"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`converted v1 -> v3 to add the name; backup: ${file}.v1.bak\n`);
    const kept = readdirSync(dir).filter((n) => n !== basename(file));
    expect(kept).toEqual([`${basename(file)}.v1.bak`]);
    expect(readFileSync(`${file}.v1.bak`)).toEqual(before);
    expect(json(await run(["show", file, "--json"])).version).toBe(3);
    expect(
      json(await run(["ls", "--all", "--session-dir", dir, "--json"])).find((x: any) => x.path === file).name,
    ).toBe("old one");
    // Now v3: the next name is an append, with no word about converting.
    const again = await run(["name", file, "newer", "--json"]);
    expect(again.stderr).toBe("");
    expect(JSON.parse(again.stdout)).toMatchObject({ backupPath: null, convertedFrom: null });
    expect(readdirSync(dir).filter((n) => n !== basename(file))).toEqual([`${basename(file)}.v1.bak`]);
  });

  it("labels run at once all land", { tags: ["processes"] }, async () => {
    const file = copy(V3);
    const lines = readFileSync(file, "utf8").split("\n").length;
    const targets = ["b2000001", "b2000002", "b2000003", "b2000004", "b2000005", "b2000006"];
    const codes = await Promise.all(
      targets.map(
        (t) =>
          new Promise<number | null>((done) => {
            const child = spawn(process.execPath, [BIN, "label", file, t, `l-${t}`], {
              env: { PATH: process.env.PATH ?? "", HOME: home, PI_CODING_AGENT_DIR: agentDir, TZ: "UTC" },
              stdio: "ignore",
            });
            child.on("exit", (code) => done(code));
          }),
      ),
    );
    expect(codes).toEqual(targets.map(() => 0));
    expect(readFileSync(file, "utf8").split("\n").length).toBe(lines + targets.length);
    const labels = json(await run(["show", file, "--json"])).labels;
    for (const t of targets) expect(labels[t]).toBe(`l-${t}`);
  });

  describe("repair", () => {
    const header = (id: string) =>
      JSON.stringify({ type: "session", version: 3, id, timestamp: "2026-01-01T00:00:00.000Z", cwd: "/x" });
    const msg = (id: string, parentId: string | null, text: string) =>
      JSON.stringify({
        type: "message",
        id,
        parentId,
        timestamp: "2026-01-01T00:00:01.000Z",
        message: { role: "user", content: text, timestamp: 1 },
      });
    function sidecars(file: string): string[] {
      const dir = dirname(file);
      const base = file.slice(dir.length + 1);
      return readdirSync(dir)
        .filter((n) => n.startsWith(`${base}.removed-`))
        .map((n) => join(dir, n));
    }

    it("a dry run lists the fixes and changes nothing; --write cuts extra headers and a torn fragment", async () => {
      const file = join(scratch, "repair-both.jsonl");
      const head = `${header("r-1")}\n${msg("m1", null, "one")}\n`;
      const dup = `${header("r-1")}\n`;
      const rest = `${msg("m2", "m1", "two")}\nnot json\n${msg("m3", "m2", "three")}\n`;
      const fragment = '{"type":"message","id":"m4","par';
      writeFileSync(file, head + dup + rest + fragment);
      const before = readFileSync(file);

      const dry = await run(["repair", file]);
      expect(dry.code).toBe(1);
      expect(dry.stdout).toContain(`line 3 (byte ${Buffer.byteLength(head)}): duplicate-header`);
      expect(dry.stdout).toContain("torn-tail");
      expect(dry.stdout).toContain("invalid-json"); // reported, left alone
      expect(dry.stderr).toContain("dry run");
      const plan = json(await run(["repair", file, "--json"]));
      expect(plan).toMatchObject({
        write: false,
        written: false,
        clean: false,
        backupPath: null,
        removedPath: null,
      });
      expect(plan.fixes.map((f: any) => [f.kind, f.action, f.line])).toEqual([
        ["duplicate-header", "remove", 3],
        ["torn-tail", "remove", 7],
      ]);
      expect(plan.leftAlone.map((d: any) => d.code)).toEqual(["invalid-json"]);
      expect(plan.sizeAfter).toBe(before.length - Buffer.byteLength(dup) - Buffer.byteLength(fragment));
      expect(readFileSync(file)).toEqual(before);
      expect(backups(file)).toEqual([]);
      expect(sidecars(file)).toEqual([]);

      const done = json(await run(["repair", file, "--write", "--json"]));
      expect(done).toMatchObject({ write: true, written: true });
      // Every byte not cut is kept exactly, the malformed line included.
      expect(readFileSync(file, "utf8")).toBe(head + rest);
      expect(readFileSync(done.backupPath)).toEqual(before);
      expect(done.backupPath).toBe(backups(file)[0]);
      expect(readFileSync(done.removedPath, "utf8")).toBe(dup + fragment);
      expect(sidecars(file)).toEqual([done.removedPath]);
      const codes = json(await run(["validate", file, "--json"])).files[0].diagnostics.map(
        (d: any) => d.code,
      );
      expect(codes).toEqual(["invalid-json"]);
      const again = await run(["repair", file]);
      expect(again.code).toBe(0);
      expect(again.stdout).toContain("nothing to repair");
    });

    it("a complete last line without \\n gets its \\n, with a backup and no sidecar", async () => {
      const file = join(scratch, "repair-newline.jsonl");
      const text = `${header("r-2")}\n${msg("m1", null, "one")}`;
      writeFileSync(file, text);
      const dry = json(await run(["repair", file, "--json"]));
      expect(dry.fixes).toMatchObject([{ kind: "torn-tail", action: "complete", line: 2, removedBytes: 0 }]);
      const r = await run(["repair", file, "--write"]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("repaired");
      expect(r.stderr).toContain("backup:");
      expect(readFileSync(file, "utf8")).toBe(`${text}\n`);
      expect(readFileSync(backups(file)[0] as string, "utf8")).toBe(text);
      expect(sidecars(file)).toEqual([]);
    });

    it("clean files need nothing; bad input fails with exit 1 and changes nothing", async () => {
      const clean = join(scratch, "repair-clean.jsonl");
      cpSync(join(EXAMPLES, V3), clean);
      const before = readFileSync(clean);
      const r = await run(["repair", clean, "--write"]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("nothing to repair");
      expect(readFileSync(clean)).toEqual(before);
      expect(backups(clean)).toEqual([]);
      const garbage = join(scratch, "repair-garbage.jsonl");
      writeFileSync(garbage, 'not json at all\n{"half":');
      const g = await run(["repair", garbage, "--write"]);
      expect(g.code).toBe(1);
      expect(g.stderr).toContain("not a pi session");
      expect(readFileSync(garbage, "utf8")).toBe('not json at all\n{"half":');
      expect((await run(["repair", join(scratch, "missing.jsonl")])).code).toBe(1);
      expect((await run(["repair", "deadbeef"])).code).toBe(1);
      // No argument: the current project's sessions (there are none for HOME).
      const bare = await run(["repair"]);
      expect(bare.code).toBe(1);
      expect(bare.stderr).toContain("no sessions for");
      // Last: without pi's real sessions the test is skipped here (upstreamFixture).
      for (const name of upstreamFixtureNames)
        expect(json(await run(["repair", upstreamFixture(name), "--json"])).clean).toBe(true);
    });
  });

  it("fork --leaf writes the branch to a new file; --to copies into another project", async () => {
    const file = copy(V3);
    const before = readFileSync(file);
    const r = await run(["fork", file, "--leaf", "b2000009"]);
    expect(r.code).toBe(0);
    const path = r.stdout.trim();
    expect(existsSync(path)).toBe(true);
    expect(readFileSync(file)).toEqual(before);
    const forked = json(await run(["show", path, "--json"]));
    expect(forked.entries.map((e: any) => e.id)).toContain("b2000009");
    expect(forked.entries.map((e: any) => e.id)).not.toContain("b2000011");
    const header = JSON.parse(readFileSync(path, "utf8").split("\n")[0] as string);
    expect(header.parentSession).toBe(file);
    const target = join(home, "other-project");
    const to = json(await run(["fork", file, "--to", target, "--json"]));
    expect(to.path).toContain(sessions);
    expect(JSON.parse(readFileSync(to.path, "utf8").split("\n")[0] as string).cwd).toBe(target);
    expect((await run(["fork", file, "--leaf", "nope"])).code).toBe(2);
  });

  it("fork --leaf on a branch without a user or assistant message writes nothing and says so (exit 1)", async () => {
    const dir = join(scratch, "fork-no-conversation");
    mkdirSync(dir);
    const file = join(dir, "2026-11-04T10-00-00-000Z_0aa00000-0000-4000-8000-000000000001.jsonl");
    const t = "2026-11-04T10:00:00.000Z";
    const text = `${[
      { type: "session", version: 3, id: "0aa00000-0000-4000-8000-000000000001", timestamp: t, cwd: project },
      { type: "model_change", id: "m1", parentId: null, timestamp: t, provider: "p", modelId: "m" },
      {
        type: "message",
        id: "u1",
        parentId: "m1",
        timestamp: t,
        message: { role: "user", content: "hi", timestamp: 1 },
      },
    ]
      .map((e) => JSON.stringify(e))
      .join("\n")}\n`;
    writeFileSync(file, text);
    const r = await run(["fork", file, "--leaf", "m1"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("nothing written");
    expect(r.stdout).toBe("");
    expect(readdirSync(dir)).toEqual([file.slice(dir.length + 1)]);
    expect(readFileSync(file, "utf8")).toBe(text);
    expect((await run(["fork", file, "--leaf", "u1"])).code).toBe(0);
  });

  it("fork of an empty file: not a session (exit 1), the source stays empty", async () => {
    const dir = join(scratch, "fork-empty");
    mkdirSync(dir);
    const file = join(dir, "2026-11-04T11-00-00-000Z_0bb00000-0000-4000-8000-000000000001.jsonl");
    writeFileSync(file, "");
    for (const args of [[], ["--to", join(home, "elsewhere")]]) {
      const r = await run(["fork", file, ...args]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("not a pi session");
      expect(readFileSync(file, "utf8")).toBe("");
      expect(readdirSync(dir)).toEqual([file.slice(dir.length + 1)]);
    }
  });

  it("rm refuses without a terminal unless --yes, then removes", async () => {
    const file = copy(V2);
    const refused = await run(["rm", file]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("--yes");
    expect(existsSync(file)).toBe(true);
    const removed = json(await run(["rm", file, "--yes", "--json"]));
    expect(removed.removed[0].path).toBe(file);
    expect(existsSync(file)).toBe(false);
    expect((await run(["rm", file, "--yes"])).code).toBe(1);
  });
});
