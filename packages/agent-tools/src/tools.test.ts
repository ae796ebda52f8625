import { join } from "node:path";
import { type AgentStore as TestStore, PLANTED, writeAgentStore } from "@pi-session/testkit/agent-store";
import { tempDir } from "@pi-session/testkit";
import fc from "fast-check";
import { fcOptions } from "@pi-session/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openLocalStore } from "./local-store.js";
import type { AgentStore } from "./store.js";
import { type AgentTools, createAgentTools } from "./tools.js";

const dir = tempDir("agent-tools-");
let fixture: TestStore;
let store: AgentStore;
let tools: AgentTools;

beforeAll(async () => {
  fixture = writeAgentStore(join(dir.path, "sessions"), join(dir.path, "work", "app"));
  store = await openLocalStore({ root: fixture.root, persistent: false });
  tools = createAgentTools(store, { now: () => Date.parse("2026-03-05T00:00:00Z"), timeZone: "UTC" });
});

afterAll(async () => {
  await store.close();
  dir.cleanup();
});

// biome-ignore lint/suspicious/noExplicitAny: the tests read the structured answers.
const structured = (answer: { structured: Record<string, unknown> }) => answer.structured as any;

describe("the agent tools", () => {
  it("lists five tools, each with an object schema", () => {
    expect(tools.tools.map((t) => t.name)).toEqual([
      "search_sessions",
      "read_session",
      "session_context",
      "list_sessions",
      "usage_stats",
    ]);
    for (const tool of tools.tools) {
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.inputSchema.properties.maxChars?.maximum).toBe(20_000);
    }
  });

  it("finds a word of a user message and a word only in a tool result", async () => {
    const user = await tools.call("search_sessions", { query: PLANTED.userWord });
    expect(user.isError).toBe(false);
    expect(structured(user).hits).toEqual([
      expect.objectContaining({
        sessionId: fixture.main.id,
        entryId: "a1",
        path: fixture.main.path,
        role: "user",
      }),
    ]);
    const sub = await tools.call("search_sessions", { query: PLANTED.subagentWord });
    expect(structured(sub).hits).toEqual([
      expect.objectContaining({
        sessionId: fixture.subagent.id,
        parent: { path: fixture.main.path, kind: "subagent" },
      }),
    ]);
    expect(sub.text).toContain(`subagent of ${fixture.main.path}`);
    const tool = await tools.call("search_sessions", { query: PLANTED.toolWord });
    expect(structured(tool).hits).toEqual([
      expect.objectContaining({
        sessionId: fixture.main.id,
        entryId: "a3",
        cwd: fixture.cwd,
        role: "toolResult",
      }),
    ]);
    expect(tool.text).toContain(fixture.main.id);
    expect(tool.text).toContain(PLANTED.toolWord);
  });

  it("filters by role, project and time", async () => {
    const asTool = await tools.call("search_sessions", { query: PLANTED.userWord, role: "tool" });
    expect(structured(asTool).hits).toEqual([]);
    expect(asTool.text).toMatch(/^No match/);
    const elsewhere = await tools.call("search_sessions", { query: "unrelated", project: fixture.cwd });
    expect(structured(elsewhere).hits).toEqual([]);
    const later = await tools.call("search_sessions", { query: PLANTED.userWord, since: "2026-03-02" });
    expect(structured(later).hits).toEqual([]);
    const span = await tools.call("search_sessions", { query: PLANTED.userWord, since: "7d" });
    expect(structured(span).hits).toHaveLength(1);
  });

  it("reads a session's branch, redacted, and the entries around one", async () => {
    const whole = await tools.call("read_session", { session: fixture.main.id.slice(0, 8) });
    expect(whole.isError).toBe(false);
    expect(structured(whole).entries.map((e: { entryId: string }) => e.entryId)).toEqual([
      "a1",
      "a2",
      "a3",
      "a4",
    ]);
    expect(whole.text).toContain("Fixed by waiting for the upload");
    expect(whole.text).not.toContain(PLANTED.secret);
    expect(whole.text).toContain("[REDACTED:anthropic]");
    expect(JSON.stringify(whole.structured)).not.toContain(PLANTED.secret);
    const around = await tools.call("read_session", {
      session: fixture.main.path,
      entryId: "a3",
      before: 1,
      after: 0,
    });
    expect(structured(around).entries.map((e: { entryId: string }) => e.entryId)).toEqual(["a2", "a3"]);
    expect(structured(around).next).toEqual({ entryId: "a3", before: 0, after: 1 });
    expect(around.text).toContain('entryId "a3", before 0 and after N');
  });

  it("keeps the secret when redaction is off", async () => {
    const open = createAgentTools(store, { redact: false });
    const answer = await open.call("read_session", { session: fixture.main.id });
    expect(answer.text).toContain(PLANTED.secret);
  });

  it("shows what the model saw", async () => {
    const answer = await tools.call("session_context", { session: fixture.fork.id });
    expect(answer.isError).toBe(false);
    expect(structured(answer).messages.map((m: { role: string }) => m.role)).toEqual(["user", "assistant"]);
    expect(answer.text).toContain("An answer in the fork.");
  });

  it("lists sessions newest first, with their parents", async () => {
    const answer = await tools.call("list_sessions", { project: fixture.cwd });
    const rows = structured(answer).sessions;
    expect(rows.map((r: { sessionId: string }) => r.sessionId)).toEqual([
      fixture.fork.id,
      fixture.subagent.id,
      fixture.main.id,
    ]);
    expect(rows[0].parent).toEqual({ path: fixture.main.path, kind: "fork" });
    expect(rows[1].parent).toEqual({ path: fixture.main.path, kind: "subagent" });
    expect(rows[2].firstMessage).toContain(PLANTED.userWord);
  });

  it("sums usage by model", async () => {
    const answer = await tools.call("usage_stats", { by: "model" });
    const s = structured(answer);
    expect(s.totals.cost).toBeCloseTo(0.02 + 0.03 + 0.05 + 0.01, 6);
    expect(s.rows.map((r: { key: string }) => r.key).sort()).toEqual([
      "anthropic/claude-haiku",
      "anthropic/claude-sonnet",
    ]);
  });

  it("answers bad arguments and unknown sessions with a tool error", async () => {
    const cases: [string, unknown, RegExp][] = [
      ["read_session", { session: "ffffffff" }, /no session with id, id prefix or path "ffffffff"/],
      ["read_session", { session: fixture.main.id, entryId: "zz" }, /no entry "zz"/],
      ["read_session", {}, /session is required/],
      ["search_sessions", { query: "x", limit: "ten" }, /limit must be a whole number, got "ten"/],
      ["search_sessions", { query: "x", limit: 0 }, /limit must be from 1 to 50, got 0/],
      ["search_sessions", { query: "x", since: "last tuesday" }, /since "last tuesday"/],
      ["search_sessions", { query: "x", colour: "red" }, /unknown argument colour/],
      ["search_sessions", { query: "re:(" }, /query "re:\("/],
      ["usage_stats", { by: "planet" }, /by must be one of day, week/],
      ["list_sessions", { maxChars: 10 }, /maxChars must be from 1000 to 20000/],
      ["no_such_tool", {}, /unknown tool "no_such_tool"/],
      ["list_sessions", [1, 2], /must be an object/],
    ];
    for (const [name, args, message] of cases) {
      const answer = await tools.call(name, args);
      expect(answer.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
      expect(answer.text).toMatch(message);
    }
  });

  it("keeps every answer within maxChars, both its text and its JSON, and says what it cut", async () => {
    const calls: [string, Record<string, unknown>][] = [
      ["search_sessions", { query: "upload" }],
      ["read_session", { session: fixture.main.id }],
      ["session_context", { session: fixture.main.id }],
      ["list_sessions", {}],
      ["usage_stats", { by: "session" }],
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...calls),
        fc.integer({ min: 1000, max: 4000 }),
        async ([name, args], maxChars) => {
          const answer = await tools.call(name, { ...args, maxChars });
          expect(answer.isError).toBe(false);
          expect(answer.text.length).toBeLessThanOrEqual(maxChars);
          expect(JSON.stringify(answer.structured).length).toBeLessThanOrEqual(maxChars);
        },
      ),
      fcOptions({ numRuns: 40 }),
    );
    const small = await tools.call("read_session", { session: fixture.main.id, maxChars: 1200 });
    expect(small.text).toMatch(
      /more entr(y|ies) after these \(cut to stay within 1200 characters\): read_session with entryId "a\d"/,
    );
  });
});
