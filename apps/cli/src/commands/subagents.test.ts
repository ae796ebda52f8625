/**
 * Subagent sessions and forks in their place, through the CLI in-process (`runCli`), on
 * testkit's agent store (a session, its fork, its pi-subagents subagent in
 * `<session>/<run>/run-0/session.jsonl`): `ls` counts them on their parent and `--children`
 * lists them under it; `show` and `tree` name the parent and the children; `search` marks a hit
 * in a subagent; `stats --by session` shows a parent's cost with its children; `latest` is the
 * top row of `ls`, never a subagent.
 */
// biome-ignore-all lint/suspicious/noExplicitAny: the tests read --json output.
import { join } from "node:path";
import { tempDir } from "@pi-session/testkit";
import { type AgentStore, PLANTED, writeAgentStore } from "@pi-session/testkit/agent-store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Stream } from "../io.js";
import { runCli } from "../program.js";
import { COMMANDS } from "./index.js";

const dir = tempDir("subagents-");
const agentDir = join(dir.path, "agent");
let store: AgentStore;

function run(argv: string[], cwd = store.cwd) {
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
    env: {
      PI_CODING_AGENT_DIR: agentDir,
      XDG_CACHE_HOME: join(dir.path, "cache"),
      HOME: dir.path,
      TZ: "UTC",
    },
    cwd,
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
  store = writeAgentStore(join(agentDir, "sessions"), join(dir.path, "work", "app"));
});
afterAll(() => dir.cleanup());

describe("subagent sessions in their place", () => {
  it("ls shows a parent with the count of its children; --children lists them under it", async () => {
    const plain = await run(["ls"]);
    expect(plain.err).toBe("");
    const lines = plain.out.trim().split("\n");
    // The project line, the header, one row: the fork and the subagent are under the main session.
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(/under it +session/);
    expect(lines[2]).toMatch(/1 subagent, 1 fork +the zebrafishupload test is flaky/);
    const children = await run(["ls", "--children"]);
    const rows = children.out.trim().split("\n").slice(2);
    expect(rows).toHaveLength(3);
    expect(rows[0]).toContain("the zebrafishupload test is flaky");
    expect(rows[1]).toMatch(/└ fork: a different question in the fork/);
    expect(rows[2]).toMatch(/└ subagent: scout: marmosetaudit/);
    // For a script, --json lists every session: the children after their parent.
    const all = JSON.parse((await run(["ls", "--json"])).out) as any[];
    expect(all.map((s) => [s.id, s.children])).toEqual([
      [store.main.id, 2],
      [store.fork.id, 0],
      [store.subagent.id, 0],
    ]);
    expect(all.map((s) => [s.id, s.parent?.kind ?? null])).toEqual([
      [store.main.id, null],
      [store.fork.id, "fork"],
      [store.subagent.id, "subagent"],
    ]);
    expect(all[2].parent.path).toBe(store.main.path);
  });

  it("latest is the top row of ls, not a newer subagent or fork", async () => {
    const r = await run(["show", "latest", "--json"]);
    expect(JSON.parse(r.out).id).toBe(store.main.id);
  });

  it("show and tree name a session's parent and its children, both ways", async () => {
    const parent = await run(["show", store.main.id]);
    expect(parent.out).toContain(`subagent ${store.subagent.id}  scout: marmosetaudit`);
    expect(parent.out).toContain(`fork ${store.fork.id}  a different question in the fork`);
    const child = await run(["tree", store.subagent.id]);
    expect(child.out.split("\n")[0]).toBe(`subagent of ${store.main.id}  ${store.main.path}`);
    const json = JSON.parse((await run(["tree", store.main.id, "--json"])).out);
    expect(json.parent).toBeNull();
    expect(json.children).toEqual([
      { path: store.subagent.path, id: store.subagent.id, kind: "subagent" },
      { path: store.fork.path, id: store.fork.id, kind: "fork" },
    ]);
    const forkJson = JSON.parse((await run(["show", store.fork.id, "--json"])).out);
    expect(forkJson.parent).toEqual({ path: store.main.path, id: store.main.id, kind: "fork" });
  });

  it("search says when a hit is in a subagent", async () => {
    const r = await run(["search", PLANTED.subagentWord]);
    expect(r.code).toBe(0);
    expect(r.out.split("\n")[0]).toContain(`subagent of ${store.main.id.slice(0, 8)}`);
    const json = JSON.parse((await run(["search", PLANTED.subagentWord, "--json"])).out);
    expect(json.sessions[0].parent).toEqual({ path: store.main.path, kind: "subagent" });
    const main = await run(["search", PLANTED.userWord]);
    expect(main.out).not.toContain("subagent of");
  });

  it("stats --by session shows a parent's cost with its children, the project's subagents counted", async () => {
    const json = JSON.parse((await run(["stats", "--by", "session", "--json"])).out);
    // The subagent in its subfolder belongs to the project's report.
    expect(json.totals.cost).toBeCloseTo(0.11, 6);
    const main = json.rows.find((r: any) => r.session.id === store.main.id);
    expect(main.cost).toBeCloseTo(0.05, 6);
    expect(main.costWithChildren).toBeCloseTo(0.11, 6);
    const sub = json.rows.find((r: any) => r.session.id === store.subagent.id);
    expect(sub.session.parent).toEqual({ path: store.main.path, kind: "subagent" });
    const text = (await run(["stats", "--by", "session"])).out;
    expect(text).toContain("with children");
    expect(text).toContain("└ subagent");
  });
});
