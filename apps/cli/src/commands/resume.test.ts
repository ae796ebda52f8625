/**
 * `resume`, in-process through `runCli`: the command line it prints (shell-quoted, in the
 * session's directory), its parts with --json, a query that finds one session or several, a
 * session whose directory is gone (refused, with the --here command that forks it), and a run
 * of the `pi` found on PATH (a stand-in script that says where and with what it ran).
 */
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "@pi-session/testkit";
import { type AgentStore, writeAgentStore } from "@pi-session/testkit/agent-store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Stream } from "../io.js";
import { runCli } from "../program.js";
import { COMMANDS } from "./index.js";

const dir = tempDir("resume-");
const agentDir = join(dir.path, "agent");
const cache = join(dir.path, "cache");
let store: AgentStore;
/** A project whose directory was removed after its session was written. */
let gone: AgentStore;
const bin = join(dir.path, "bin");

function run(argv: string[], opts: { cwd?: string; path?: string } = {}) {
  let out = "";
  let err = "";
  const stream = (sink: (s: string) => void): Stream => ({
    write: (chunk: string) => {
      sink(chunk);
      return true;
    },
    isTTY: false,
  });
  return runCli({
    argv,
    env: { PI_CODING_AGENT_DIR: agentDir, XDG_CACHE_HOME: cache, PATH: opts.path ?? "", HOME: dir.path },
    cwd: opts.cwd ?? dir.path,
    stdout: stream((s) => {
      out += s;
    }),
    stderr: stream((s) => {
      err += s;
    }),
    stdinIsTTY: false,
    prompt: async () => "",
    commands: COMMANDS,
  }).then((code) => ({ code, out, err }));
}

beforeAll(() => {
  store = writeAgentStore(join(agentDir, "sessions"), join(dir.path, "work", "my app"));
  // Another store, its files named by path: its project directory was never made.
  gone = writeAgentStore(join(dir.path, "elsewhere"), join(dir.path, "gone", "removed"), {
    createCwd: false,
  });
  mkdirSync(bin, { recursive: true });
  // A stand-in for pi: records its arguments and directory, exits 7.
  writeFileSync(
    join(bin, "pi"),
    `#!/bin/sh\nprintf '%s\\n' "$PWD" "$@" > "${join(dir.path, "pi-ran")}"\nexit 7\n`,
  );
  chmodSync(join(bin, "pi"), 0o755);
});

afterAll(() => dir.cleanup());

describe("resume", () => {
  it("--print prints `cd <dir> && pi --session <path>`, shell-quoted", async () => {
    const r = await run(["resume", store.main.id.slice(0, 8), "--print"]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    // The project's name has a space, so has its sessions' directory: both quoted.
    expect(r.out).toBe(`cd '${store.cwd}' && pi --session '${store.main.path}'\n`);
  });

  it("in the session's own directory the line is pi's alone; --json gives its parts", async () => {
    const r = await run(["resume", store.fork.path, "--print"], { cwd: store.cwd });
    expect(r.out).toBe(`pi --session '${store.fork.path}'\n`);
    const j = await run(["resume", store.fork.id, "--json"]);
    expect(JSON.parse(j.out)).toEqual({
      path: store.fork.path,
      cwd: store.cwd,
      command: ["pi", "--session", store.fork.path],
      line: `cd '${store.cwd}' && pi --session '${store.fork.path}'`,
    });
  });

  it("finds a subagent session by its header id, and a session by words", async () => {
    const sub = await run(["resume", store.subagent.id, "--print"]);
    expect(sub.out).toContain(`pi --session '${store.subagent.path}'`);
    const found = await run(["resume", "marmosetaudit", "--print"], { cwd: store.cwd });
    expect(found.out).toBe(`pi --session '${store.subagent.path}'\n`);
  });

  it("words several sessions match are listed, not guessed", async () => {
    const r = await run(["resume", "upload", "--print"]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/sessions match `upload`:/);
    expect(r.err).toContain(store.main.id.slice(0, 8));
    expect(r.err).toMatch(/pick <words> --resume/);
    const none = await run(["resume", "nothingmatchesthis", "--print"]);
    expect(none.code).toBe(1);
    expect(none.err).toMatch(/no session has the id, prefix or words `nothingmatchesthis`/);
  });

  it("a session whose directory is gone is refused, with the --here command; --here forks it here", async () => {
    const r = await run(["resume", gone.main.path, "--print"]);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`the session's directory ${gone.cwd} no longer exists`);
    expect(r.err).toContain(`pi-session resume ${gone.main.path} --here`);
    const here = await run(["resume", gone.main.path, "--print", "--here"], { cwd: store.cwd });
    expect(here.code).toBe(0);
    expect(here.out).toBe(`pi --fork ${gone.main.path}\n`);
  });

  it("runs the pi found on PATH in the session's directory; pi's exit code is its own", async () => {
    const r = await run(["resume", store.main.path], { path: bin });
    expect(r.code).toBe(7);
    expect(readFileSync(join(dir.path, "pi-ran"), "utf8")).toBe(
      `${store.cwd}\n--session\n${store.main.path}\n`,
    );
    rmSync(join(dir.path, "pi-ran"));
    const missing = await run(["resume", store.main.path], { path: join(dir.path, "nowhere") });
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/`pi` not found on PATH/);
    expect(missing.err).toMatch(/--print/);
  });
});
