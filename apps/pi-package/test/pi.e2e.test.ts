/**
 * The pi package loaded into pi 1.6.0 itself, as `pi -e ./package` loads it: pi's
 * `DefaultResourceLoader` resolves the package's `pi` manifest (the built extension and the
 * skill), `createAgentSession` runs a model scripted with pi-ai's faux provider (no network),
 * and the model calls `search_sessions` and `read_session`: the tool results name the planted
 * session and show its conversation, redacted. `/sessions <query>` searches, offers the hits in
 * pi's selector and switches to the one picked. Build first (`pnpm build`): it loads dist/.
 * @module-tag processes
 */
// biome-ignore-all lint/suspicious/noExplicitAny: the tests read pi's messages.
import { mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type AssistantMessage,
  fauxAssistantMessage,
  fauxProvider,
  fauxToolCall,
} from "@earendil-works/pi-ai";
import {
  type AgentSession,
  DefaultResourceLoader,
  ModelRuntime,
  SessionManager,
  SettingsManager,
  createAgentSession,
} from "@earendil-works/pi-coding-agent";
import { tempDir } from "@pi-session/testkit";
import { type AgentStore, PLANTED, writeAgentStore } from "@pi-session/testkit/agent-store";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const dir = tempDir("pi-package-");
const agentDir = join(dir.path, "agent");
const cwd = join(dir.path, "work", "app");
let store: AgentStore;
const savedEnv = { ...process.env };

/** The text of every tool result pi sent back to the model, in order. */
function toolResults(session: AgentSession): { name: string; text: string; isError: boolean }[] {
  return session.messages
    .filter((m: any) => m.role === "toolResult")
    .map((m: any) => ({
      name: m.toolName,
      text: m.content.map((c: any) => c.text ?? "").join("\n"),
      isError: m.isError === true,
    }));
}

async function startPi(
  steps: Parameters<ReturnType<typeof fauxProvider>["setResponses"]>[0],
  bindings: Parameters<AgentSession["bindExtensions"]>[0] = {},
) {
  const faux = fauxProvider({ api: "faux", provider: "faux", models: [{ id: "faux-1" }] });
  faux.setResponses(steps);
  const modelRuntime = await ModelRuntime.create({
    authPath: join(agentDir, "auth.json"),
    modelsPath: join(agentDir, "models.json"),
  });
  modelRuntime.registerNativeProvider(faux.provider);
  const resourceLoader = new DefaultResourceLoader({ cwd, agentDir, additionalExtensionPaths: [packageDir] });
  await resourceLoader.reload();
  const { session, extensionsResult } = await createAgentSession({
    cwd,
    agentDir,
    model: faux.getModel(),
    thinkingLevel: "off",
    modelRuntime,
    resourceLoader,
    noTools: "builtin",
    sessionManager: SessionManager.inMemory(cwd),
    settingsManager: SettingsManager.inMemory({ compaction: { enabled: false } }),
  });
  await session.bindExtensions(bindings);
  return { session, faux, extensionsResult, resourceLoader };
}

beforeAll(() => {
  mkdirSync(agentDir, { recursive: true });
  store = writeAgentStore(join(agentDir, "sessions"), cwd);
  // The extension reads pi's store and the session database's cache from the environment, as in pi.
  process.env.PI_CODING_AGENT_DIR = agentDir;
  process.env.XDG_CACHE_HOME = join(dir.path, "cache");
  delete process.env.PI_CODING_AGENT_SESSION_DIR;
});

afterAll(() => {
  process.env = savedEnv;
  dir.cleanup();
});

describe("@pi-session/pi in pi 1.6.0", () => {
  it("loads from its manifest: the tools, the command and the skill, without errors", async () => {
    const { session, extensionsResult, resourceLoader } = await startPi([]);
    try {
      expect(extensionsResult.errors).toEqual([]);
      const names = session.getActiveToolNames();
      expect(names).toEqual(expect.arrayContaining(["search_sessions", "read_session"]));
      expect(names).not.toContain("bash");
      const commands = extensionsResult.extensions.flatMap((e: any) => [...e.commands.keys()]);
      expect(commands).toContain("sessions");
      expect(resourceLoader.getSkills().skills.map((s: any) => s.name)).toContain("past-sessions");
    } finally {
      session.dispose();
    }
  });

  it("a scripted model calls search_sessions; the result names the planted session; read_session reads it", async () => {
    let seenBySecondCall = "";
    const { session } = await startPi([
      fauxAssistantMessage(fauxToolCall("search_sessions", { query: PLANTED.toolWord }), {
        stopReason: "toolUse",
      }),
      (context) => {
        const last = context.messages.at(-1) as any;
        seenBySecondCall = last.content.map((c: any) => c.text ?? "").join("\n");
        const id = /session ([0-9a-f-]{36})/.exec(seenBySecondCall)?.[1] ?? "none";
        return fauxAssistantMessage(
          fauxToolCall("read_session", { session: id, entryId: "a3", before: 2, after: 1 }),
          {
            stopReason: "toolUse",
          },
        ) as AssistantMessage;
      },
      fauxAssistantMessage("We fixed it by waiting for the upload to settle."),
    ]);
    try {
      await session.prompt("How did we fix the flaky upload test last time?");
      const results = toolResults(session);
      expect(results.map((r) => [r.name, r.isError])).toEqual([
        ["search_sessions", false],
        ["read_session", false],
      ]);
      expect(results[0]?.text).toContain(store.main.id);
      expect(results[0]?.text).toContain(store.main.path);
      expect(results[0]?.text).toContain(PLANTED.toolWord);
      expect(seenBySecondCall).toContain(store.main.id);
      expect(results[1]?.text).toContain("Fixed by waiting for the upload to settle");
      expect(results[1]?.text).toContain("[REDACTED:anthropic]");
      expect(results[1]?.text).not.toContain(PLANTED.secret);
    } finally {
      session.dispose();
    }
  });

  it("a bad call is a tool error the model sees, not a crash", async () => {
    const { session } = await startPi([
      fauxAssistantMessage(fauxToolCall("read_session", { session: "no-such-session" }), {
        stopReason: "toolUse",
      }),
      fauxAssistantMessage("No such session."),
    ]);
    try {
      await session.prompt("read it");
      const [result] = toolResults(session);
      expect(result?.isError).toBe(true);
      expect(result?.text).toMatch(/no session with id, id prefix or path "no-such-session"/);
    } finally {
      session.dispose();
    }
  });

  it("/sessions <query> searches, offers the hits in pi's selector and switches to the one picked", async () => {
    const offered: string[][] = [];
    const switched: string[] = [];
    // pi's interactive mode binds these to its session runtime; here they record what the command asks.
    const { session } = await startPi([], {
      uiContext: {
        select: async (_title: string, options: string[]) => {
          offered.push(options);
          return options[0];
        },
        notify: () => {},
      } as any,
      commandContextActions: {
        switchSession: async (path: string) => {
          switched.push(path);
          return { cancelled: false };
        },
      } as any,
    });
    try {
      await session.prompt(`/sessions ${PLANTED.subagentWord}`);
      expect(offered).toHaveLength(1);
      expect(offered[0]).toHaveLength(1);
      expect(offered[0]?.[0]).toContain(store.subagent.id.slice(0, 8));
      expect(offered[0]?.[0]).toContain(PLANTED.subagentWord);
      expect(switched).toEqual([store.subagent.path]);
      // Without a query: this project's sessions, newest first.
      await session.prompt("/sessions");
      expect(offered[1]?.map((o) => o.split("  ").at(-1))).toEqual([
        store.fork.id.slice(0, 8),
        store.subagent.id.slice(0, 8),
        store.main.id.slice(0, 8),
      ]);
      expect(switched.at(-1)).toBe(store.fork.path);
    } finally {
      session.dispose();
    }
  });
});
