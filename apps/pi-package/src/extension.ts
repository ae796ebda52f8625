/**
 * The pi extension of `@pi-session/pi`: the model gets `search_sessions` and `read_session`
 * (the agent tools of `@pi-session/agent-tools`: the same schemas and answers as `pi-session
 * mcp`), and the person gets `/sessions [query]`: a search (or, without a query, the newest
 * sessions of this project), a pick with pi's own selector, then a switch to the chosen session.
 *
 * It answers from the store pi itself uses (`--session-dir` aside, which an extension cannot
 * see: `PI_CODING_AGENT_SESSION_DIR`, the `sessionDir` setting, else `~/.pi/agent/sessions`),
 * through the session database `pi-session search` keeps (`$XDG_CACHE_HOME/pi-session`),
 * opened on first use and closed when the session shuts down. It never writes a session.
 */
import type { ExtensionAPI, ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import {
  type AgentStore,
  type AgentTools,
  createAgentTools,
  describeAgentTools,
  openLocalStore,
} from "@pi-session/agent-tools";
import { resolveSessionsRoot } from "@pi-session/node-store";
import { oneLine } from "@pi-session/render";

/** The tools the model gets (the others are for MCP clients and people). */
const MODEL_TOOLS = new Set(["search_sessions", "read_session"]);

/** Sessions `/sessions` offers to pick from. */
const PICK_LIMIT = 30;

interface Opened {
  store: AgentStore;
  tools: AgentTools;
}

/** One line of the picker: time, name or first message, short id, a snippet (one line each, controls visible). */
function pickLine(
  s: { meta: { sessionId: string; name: string | null; firstMessage: string; modifiedMs: number } },
  extra = "",
): string {
  const when = Number.isFinite(s.meta.modifiedMs)
    ? new Date(s.meta.modifiedMs).toISOString().slice(0, 16).replace("T", " ")
    : "?";
  const title = oneLine(s.meta.name ?? s.meta.firstMessage, 60) || "(no messages)";
  return `${when}  ${title}  ${s.meta.sessionId.slice(0, 8)}${extra ? `  ${oneLine(extra, 60)}` : ""}`;
}

export default function piSessionExtension(pi: ExtensionAPI): void {
  let opened: Promise<Opened> | undefined;
  const open = (cwd: string): Promise<Opened> => {
    opened ??= (async () => {
      const { dir } = resolveSessionsRoot({ env: process.env, cwd });
      const store = await openLocalStore({ root: dir, env: process.env });
      return { store, tools: createAgentTools(store) };
    })();
    // A failed open is tried again on the next call.
    opened.catch(() => {
      opened = undefined;
    });
    return opened;
  };

  for (const tool of describeAgentTools()) {
    if (!MODEL_TOOLS.has(tool.name)) continue;
    pi.registerTool({
      name: tool.name,
      label: tool.title,
      description: tool.description,
      promptSnippet:
        tool.name === "search_sessions"
          ? "Search the user's past pi sessions for how something was done or decided"
          : "Read a past pi session (or the entries around a search hit)",
      promptGuidelines:
        tool.name === "search_sessions"
          ? [
              'Use search_sessions when the user refers to earlier work ("like last time", "how did we fix X") or a past decision; then read_session with the session id and entry id of a hit.',
            ]
          : [],
      parameters: tool.inputSchema,
      async execute(_toolCallId, params, _signal, _onUpdate, ctx) {
        const { tools } = await open(ctx.cwd);
        const answer = await tools.call(tool.name, params);
        return {
          content: [{ type: "text" as const, text: answer.text }],
          details: answer.structured,
          ...(answer.isError ? { isError: true } : {}),
        };
      },
    });
  }

  pi.registerCommand("sessions", {
    description: "Find a past session (search words, or none for this project's newest) and switch to it",
    handler: async (args: string, ctx: ExtensionCommandContext) => {
      const query = args.trim();
      let store: AgentStore;
      try {
        ({ store } = await open(ctx.cwd));
      } catch (error) {
        ctx.ui.notify(`pi-session: cannot open the session database: ${(error as Error).message}`, "error");
        return;
      }
      const current = ctx.sessionManager.getSessionFile();
      const choices = new Map<string, string>();
      if (query === "") {
        const mine = (await store.sessions())
          .filter((s) => s.meta.cwd === ctx.cwd && s.path !== current)
          .sort((a, b) => b.meta.modifiedMs - a.meta.modifiedMs)
          .slice(0, PICK_LIMIT);
        for (const s of mine) choices.set(pickLine({ meta: await store.details(s) }), s.path);
      } else {
        let found: Awaited<ReturnType<AgentStore["search"]>>;
        try {
          found = await store.search(query, { limit: PICK_LIMIT, hitsPerSession: 1, snippetWidth: 80 });
        } catch (error) {
          ctx.ui.notify(`pi-session: ${(error as Error).message}`, "error");
          return;
        }
        for (const s of found.sessions) {
          if (s.path === current) continue;
          choices.set(pickLine(s, s.hits[0]?.snippet?.text ?? ""), s.path);
        }
      }
      if (choices.size === 0) {
        ctx.ui.notify(
          query === ""
            ? "pi-session: no other sessions of this project"
            : `pi-session: no session matches ${JSON.stringify(query)}`,
          "info",
        );
        return;
      }
      const picked = await ctx.ui.select(
        query === ""
          ? "Sessions of this project, newest first"
          : `Sessions matching ${JSON.stringify(query)}`,
        [...choices.keys()],
      );
      const path = picked === undefined ? undefined : choices.get(picked);
      if (path === undefined) return;
      await ctx.switchSession(path);
    },
  });

  pi.on("session_shutdown", async () => {
    const pending = opened;
    opened = undefined;
    if (pending) await (await pending.catch(() => undefined))?.store.close();
  });
}
