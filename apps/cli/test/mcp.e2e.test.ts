/**
 * End-to-end tests of `pi-session mcp`: the built binary spawned by the MCP SDK's own client
 * over stdio (`StdioClientTransport`), against a store written here: the five tools listed
 * with their schemas, planted words found (one in a user message, one only in a tool result,
 * one in a subagent session), a session read, a tool error for a bogus session and for bad
 * arguments (the server keeps answering), the budget and redaction, and nothing but the
 * protocol on stdout.
 * @module-tag processes
 */
// biome-ignore-all lint/suspicious/noExplicitAny: the tests read structured answers.
import { readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { PLANTED, type AgentStore, writeAgentStore } from "@pi-session/testkit/agent-store";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { BIN, CliHome } from "./harness.js";

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

let home: CliHome;
let store: AgentStore;
let client: Client;
let stderr = "";

async function connect(args: string[] = []): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "mcp", ...args],
    env: home.env(),
    cwd: home.home,
    stderr: "pipe",
  });
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const c = new Client({ name: "pi-session-e2e", version: "1.0.0" });
  await c.connect(transport);
  return c;
}

const text = (result: any): string => result.content.map((c: { text: string }) => c.text).join("\n");

beforeAll(async () => {
  home = new CliHome("pi-session-mcp-");
  store = writeAgentStore(home.sessions, join(home.home, "work", "app"));
  client = await connect();
});

afterAll(async () => {
  await client?.close();
  rmSync(home.home, { recursive: true, force: true });
});

describe("pi-session mcp", () => {
  it("introduces itself and lists the five tools, read-only, with JSON Schema inputs", async () => {
    expect(client.getServerVersion()?.name).toBe("pi-session");
    expect(client.getInstructions()).toMatch(/past pi coding-agent sessions/);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      "search_sessions",
      "read_session",
      "session_context",
      "list_sessions",
      "usage_stats",
    ]);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.annotations?.readOnlyHint).toBe(true);
    }
    expect(tools[0]?.inputSchema.required).toEqual(["query"]);
    expect(tools[1]?.inputSchema.required).toEqual(["session"]);
  });

  it("finds a word of a user message, one only in a tool result, and one in a subagent", async () => {
    const user: any = await client.callTool({
      name: "search_sessions",
      arguments: { query: PLANTED.userWord },
    });
    expect(user.isError).toBe(false);
    expect(user.structuredContent.hits).toEqual([
      expect.objectContaining({
        sessionId: store.main.id,
        entryId: "a1",
        path: store.main.path,
        cwd: store.cwd,
        timestamp: "2026-03-01T10:00:01.000Z",
      }),
    ]);
    expect(user.structuredContent.hits[0].snippet).toContain(PLANTED.userWord);
    const tool: any = await client.callTool({
      name: "search_sessions",
      arguments: { query: PLANTED.toolWord },
    });
    expect(tool.structuredContent.hits).toEqual([
      expect.objectContaining({ sessionId: store.main.id, entryId: "a3", role: "toolResult" }),
    ]);
    expect(text(tool)).toContain(store.main.id);
    const sub: any = await client.callTool({
      name: "search_sessions",
      arguments: { query: PLANTED.subagentWord },
    });
    expect(sub.structuredContent.hits[0]).toMatchObject({
      sessionId: store.subagent.id,
      parent: { path: store.main.path, kind: "subagent" },
    });
  });

  it("reads a session, its secret redacted", async () => {
    const read: any = await client.callTool({
      name: "read_session",
      arguments: { session: store.main.id.slice(0, 8) },
    });
    expect(read.isError).toBe(false);
    expect(text(read)).toContain("Fixed by waiting for the upload to settle");
    expect(text(read)).toContain("[REDACTED:anthropic]");
    expect(JSON.stringify(read)).not.toContain(PLANTED.secret);
    expect(read.structuredContent.entries.map((e: any) => e.entryId)).toEqual(["a1", "a2", "a3", "a4"]);
    const context: any = await client.callTool({
      name: "session_context",
      arguments: { session: store.fork.path },
    });
    expect(text(context)).toContain("An answer in the fork.");
  });

  it("answers a bogus session and bad arguments with tool errors, and goes on answering", async () => {
    const bogus: any = await client.callTool({
      name: "read_session",
      arguments: { session: "no-such-session" },
    });
    expect(bogus.isError).toBe(true);
    expect(text(bogus)).toMatch(/no session with id, id prefix or path "no-such-session"/);
    const bad: any = await client.callTool({
      name: "list_sessions",
      arguments: { limit: -3, colour: "red" },
    });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toMatch(/limit must be from 1 to 200, got -3; unknown argument colour/);
    const unknown: any = await client.callTool({ name: "delete_everything", arguments: {} });
    expect(unknown.isError).toBe(true);
    const list: any = await client.callTool({ name: "list_sessions", arguments: { project: store.cwd } });
    expect(list.isError).toBe(false);
    expect(list.structuredContent.sessions).toHaveLength(3);
    const usage: any = await client.callTool({ name: "usage_stats", arguments: { by: "project" } });
    expect(usage.structuredContent.totals.cost).toBeCloseTo(0.11, 6);
  });

  it("a catastrophic regex answers within the search's time limit, and a plain search right after answers", async () => {
    // Linear-time regexes (the session database's engine) and its time limit: the call returns
    // (within the test's timeout, far beyond the limit) with an answer, not a hung server.
    const regex: any = await client.callTool({ name: "search_sessions", arguments: { query: "re:(.*)*b" } });
    expect(regex.isError).toBe(false);
    expect(regex.structuredContent.sessions).toBeGreaterThan(0);
    const plain: any = await client.callTool({
      name: "search_sessions",
      arguments: { query: PLANTED.userWord },
    });
    expect(plain.structuredContent.hits.map((h: any) => h.entryId)).toEqual(["a1"]);
    const refused: any = await client.callTool({
      name: "search_sessions",
      arguments: { query: "re:(a)\\1" },
    });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/query "re:\(a\)\\\\1"/);
  });

  it("keeps an answer within the budget the client asks for, and says so", async () => {
    const small: any = await client.callTool({
      name: "read_session",
      arguments: { session: store.main.id, maxChars: 1000 },
    });
    expect(text(small).length).toBeLessThanOrEqual(1000);
    expect(JSON.stringify(small.structuredContent).length).toBeLessThanOrEqual(1000);
    expect(text(small)).toMatch(/more entr(y|ies) after these .*read_session with entryId/);
  });

  it("with --no-redact and --max-chars, as told; warnings only on stderr", async () => {
    const other = await connect(["--no-redact", "--max-chars", "5000"]);
    try {
      const { tools } = await other.listTools();
      const properties = tools[0]?.inputSchema.properties as any;
      expect(properties?.maxChars?.maximum).toBe(5000);
      const read: any = await other.callTool({ name: "read_session", arguments: { session: store.main.id } });
      expect(text(read)).toContain(PLANTED.secret);
    } finally {
      await other.close();
    }
    expect(stderr).not.toMatch(/jsonrpc/);
  });

  it("only mcp's chunk holds the MCP SDK and its schema library, and no ajv", () => {
    const meta = JSON.parse(readFileSync(join(dirname(BIN), "bundle-meta.json"), "utf8")) as {
      outputs: Record<string, { inputs: Record<string, unknown> }>;
    };
    const holding = (re: RegExp) =>
      Object.keys(meta.outputs).filter((out) =>
        Object.keys(meta.outputs[out]?.inputs ?? {}).some((i) => re.test(i)),
      );
    const sdk = holding(/node_modules\/@modelcontextprotocol\/sdk\//);
    expect(sdk).toHaveLength(1);
    expect(sdk[0]).toMatch(/^dist\/chunks\/mcp-/);
    expect(holding(/node_modules\/zod\//)).toEqual(sdk);
    expect(holding(/node_modules\/(ajv|ajv-formats|fast-uri)\//)).toEqual([]);
  });

  it("refuses bad options before it starts", () => {
    const r = home.run(["mcp", "--max-chars", "10"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--max-chars needs at least 1000/);
    expect(r.stdout).toBe("");
  });
});
