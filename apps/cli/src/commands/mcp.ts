/**
 * `mcp`: a read-only MCP server over stdio (the official SDK, `@modelcontextprotocol/sdk`)
 * with the agent tools of `@pi-session/agent-tools`: `search_sessions`, `read_session`,
 * `session_context`, `list_sessions`, `usage_stats`, over the session database `search` uses
 * (brought up to date before each answer), or with `--db` over a team's PostgreSQL database
 * (read-only, through the same seam `search --db` uses). stdout carries only the protocol;
 * warnings go to stderr. Runs until the client closes stdin, or Ctrl-C / SIGTERM.
 *
 * The SDK and its schema library are in this command's chunk of the bundle only.
 */
import {
  type AgentStore,
  type AgentToolsOptions,
  createAgentTools,
  openLocalStore,
} from "@pi-session/agent-tools";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { UsageError } from "../errors.js";
import type { Action, Context } from "../program.js";
import { sessionsRoot } from "../roots.js";
import { databaseUrl, listOption, openTeamDatabase, wantsDatabase } from "../team-db.js";
import { VERSION } from "../version.js";
import { intOption } from "./options.js";
import { teamStore } from "./mcp-team.js";

/** What the server tells a client about itself (its `instructions`). */
const INSTRUCTIONS =
  "Read-only access to the user's past pi coding-agent sessions. search_sessions finds where something was discussed or done (a word in a message, a command's output); read_session reads the conversation around a hit (session id and entry id); session_context shows what that session's model saw; list_sessions lists recent sessions of a project; usage_stats sums tokens and cost. Answers are bounded (maxChars) and say how to get what they cut; secrets are redacted.";

async function storeOf(ctx: Context, options: Record<string, unknown>): Promise<AgentStore> {
  if (!wantsDatabase(options)) {
    if (options.source !== undefined) throw new UsageError("--source filters a team database: give --db too");
    const { root } = sessionsRoot({ env: ctx.env, cwd: ctx.cwd, sessionDir: ctx.sessionDir });
    return openLocalStore({ root, env: ctx.env, onWarning: (m) => ctx.io.warn(m) });
  }
  const url = databaseUrl(options.db, "--db");
  const sources = listOption(options, "source", "--source");
  const database = await openTeamDatabase(ctx, url, { readOnly: true });
  return teamStore(ctx, database, { url, sources });
}

export const action: Action = async (ctx, _args, options) => {
  if (ctx.json) throw new UsageError("mcp speaks JSON-RPC on stdout already: leave --json out");
  const maxChars = intOption(options, "maxChars", "--max-chars");
  if (maxChars !== undefined && maxChars < 1000)
    throw new UsageError(`--max-chars needs at least 1000, got ${maxChars}`);
  const store = await storeOf(ctx, options);
  const timeLimit = options.timeLimit === undefined ? undefined : Number(options.timeLimit);
  if (
    timeLimit !== undefined &&
    (typeof options.timeLimit === "boolean" || !Number.isFinite(timeLimit) || timeLimit < 0)
  )
    throw new UsageError(
      `--time-limit needs a number of seconds (0: no limit), got \`${String(options.timeLimit)}\``,
    );
  const toolOptions: AgentToolsOptions = {
    redact: options.redact !== false,
    ...(maxChars !== undefined ? { maxChars } : {}),
    ...(timeLimit !== undefined ? { searchTimeLimitMs: timeLimit * 1000 } : {}),
  };
  const tools = createAgentTools(store, toolOptions);
  const server = new Server(
    { name: "pi-session", title: "pi-session: past pi sessions", version: VERSION },
    {
      capabilities: { tools: {} },
      instructions: INSTRUCTIONS,
      // Only for checking elicitation answers, which this server never asks for (the bundle
      // leaves the SDK's default, ajv, out: scripts/bundle.mjs).
      jsonSchemaValidator: {
        getValidator: () => {
          throw new Error("pi-session mcp validates no client answers");
        },
      },
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: tools.tools.map((tool) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: tool.inputSchema,
      annotations: { title: tool.title, readOnlyHint: true, openWorldHint: false },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const answer = await tools.call(request.params.name, request.params.arguments ?? {});
    return {
      content: [{ type: "text" as const, text: answer.text }],
      structuredContent: answer.structured,
      isError: answer.isError,
    };
  });
  // Until the client goes (stdin ends) or a signal comes; ready before the first message.
  const stopped = new Promise<void>((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
    process.stdin.on("end", stop);
    process.stdin.on("close", stop);
    server.onclose = stop;
  });
  try {
    await server.connect(new StdioServerTransport());
    await stopped;
  } finally {
    await server.close().catch(() => {});
    await store.close();
  }
  return 0;
};
