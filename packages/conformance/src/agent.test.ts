/**
 * Our `SessionManager` inside pi 1.6.0's own agent: `createAgentSession` from
 * `@earendil-works/pi-coding-agent`, with pi-ai's faux provider as the model (scripted
 * responses, no network), runs one conversation twice, once on pi's own manager and once on
 * ours: a prompt answered with a thinking block and a call of pi's `read` tool, its result and
 * a reply; a second prompt; a manual compaction; a move to an earlier entry with a branch
 * summary and a prompt there; then a resume from the file (`SessionManager.open`, each its own)
 * and one more prompt. The two files are equal line by line once ids, timestamps, durations and
 * response ids are renamed, and each manager reads the other's file to the same context.
 *
 * The cast in {@link ourAgentSession} is the one a user writes: `createAgentSession` is typed
 * with pi's `SessionManager` class, whose private members make it nominal.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type AgentSession,
  createAgentSession,
  ModelRuntime,
  SessionManager as PiSessionManager,
  SettingsManager,
} from "@earendil-works/pi-coding-agent";
import {
  type FauxProviderHandle,
  fauxAssistantMessage,
  fauxProvider,
  fauxText,
  fauxThinking,
  fauxToolCall,
} from "@earendil-works/pi-ai";
import { SessionManager } from "@pi-session/sdk";
import { afterAll, describe, expect, it } from "vitest";

const work = mkdtempSync(join(tmpdir(), "pi-session-agent-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The project the agent works in: one file for its `read` tool. */
const cwd = join(work, "project");
mkdirSync(cwd);
writeFileSync(join(cwd, "notes.txt"), "The build needs Node 22.19 or later.\n");

/** The last text of a tool result the model was sent (what the faux model answers from). */
function lastToolResult(context: { messages: readonly { role: string; content?: unknown }[] }): string {
  const result = context.messages.findLast((m) => m.role === "toolResult");
  const blocks = (result?.content ?? []) as { type: string; text?: string }[];
  return blocks.map((block) => block.text ?? "").join("");
}

/** The model's side of the conversation, in the order the agent asks for it. */
function script(faux: FauxProviderHandle): void {
  faux.setResponses([
    // Prompt 1: think, then read the file.
    fauxAssistantMessage(
      [
        fauxThinking("The answer is in notes.txt."),
        fauxToolCall("read", { path: "notes.txt" }, { id: "call-1" }),
      ],
      {
        stopReason: "toolUse",
      },
    ),
    // The reply, made from the tool result the model was sent.
    (context) => fauxAssistantMessage(fauxText(`notes.txt says: ${lastToolResult(context).trim()}`)),
    // Prompt 2.
    fauxAssistantMessage(fauxText("Node 22.19.")),
    // The compaction's summary.
    fauxAssistantMessage(
      fauxText("## Goal\nFind the Node version the build needs.\n## Done\nRead notes.txt: Node 22.19."),
    ),
    // The branch summary of the path left by the move.
    fauxAssistantMessage(fauxText("Asked for the version in one line; answered Node 22.19.")),
    // Prompt 3, on the branch.
    fauxAssistantMessage(fauxText("Yes: Node 24 works too.")),
    // Prompt 4, after the resume.
    fauxAssistantMessage(fauxText("You are welcome.")),
  ]);
}

/** Everything but the session manager: the faux model, settings and pi's `read` tool. */
async function agentOptions(faux: FauxProviderHandle, agentDir: string) {
  const modelRuntime = await ModelRuntime.create({
    authPath: join(agentDir, "auth.json"),
    modelsPath: null,
    refreshOnCreate: false,
  });
  modelRuntime.registerNativeProvider(faux.provider);
  return {
    cwd,
    agentDir,
    modelRuntime,
    model: faux.getModel(),
    thinkingLevel: "off" as const,
    tools: ["read"],
    // Manual compaction only; a small kept tail, for a small session.
    settingsManager: SettingsManager.inMemory({ compaction: { enabled: false, keepRecentTokens: 40 } }),
  };
}

/** pi's agent on pi's own manager. */
async function piAgentSession(
  faux: FauxProviderHandle,
  agentDir: string,
  manager: PiSessionManager,
): Promise<AgentSession> {
  const { session } = await createAgentSession({
    ...(await agentOptions(faux, agentDir)),
    sessionManager: manager,
  });
  return session;
}

/** pi's agent on ours: the one cast a user writes (pi's class is nominal). */
async function ourAgentSession(
  faux: FauxProviderHandle,
  agentDir: string,
  manager: SessionManager,
): Promise<AgentSession> {
  const { session } = await createAgentSession({
    ...(await agentOptions(faux, agentDir)),
    sessionManager: manager as unknown as PiSessionManager,
  });
  return session;
}

interface Run {
  file: string;
  /** What the agent held in memory at the end. */
  messages: unknown[];
}

/**
 * The conversation: `start` makes the agent of the first session (on a new manager), `resume`
 * the agent of the resumed one (on a manager that opens the file). Returns the file written and
 * the messages the resumed agent held at the end.
 */
async function converse(
  name: string,
  start: (faux: FauxProviderHandle, agentDir: string) => Promise<AgentSession>,
  resume: (faux: FauxProviderHandle, agentDir: string, file: string) => Promise<AgentSession>,
): Promise<Run> {
  const agentDir = join(work, name, "agent");
  mkdirSync(agentDir, { recursive: true });
  const faux = fauxProvider({ api: "faux", provider: "faux", models: [{ id: "faux-1", reasoning: true }] });
  script(faux);
  const session = await start(faux, agentDir);
  await session.prompt("What does notes.txt say?");
  await session.prompt("In one line?");
  await session.compact();
  // Back to the reply of the first prompt, summarizing the path left.
  const manager = session.sessionManager;
  const firstReply = manager
    .getEntries()
    .find((e) => e.type === "message" && e.message.role === "assistant" && e.message.stopReason === "stop");
  if (!firstReply) throw new Error("no reply to the first prompt");
  const moved = await session.navigateTree(firstReply.id, { summarize: true });
  expect(moved.cancelled).toBe(false);
  await session.prompt("Does Node 24 work too?");
  const file = session.sessionFile;
  if (!file) throw new Error("the session was not persisted");
  session.dispose();

  const resumed = await resume(faux, agentDir, file);
  await resumed.prompt("Thanks!");
  const messages = structuredClone(resumed.messages);
  resumed.dispose();
  expect(faux.getPendingResponseCount()).toBe(0);
  return { file, messages };
}

/**
 * Values with what differs between two runs renamed: entry ids and the values that point at
 * them by order of first appearance (a tool call's id is the model's, fixed by the script),
 * timestamps, durations, response ids.
 */
function normalized(values: readonly unknown[]): unknown[] {
  const names = new Map<string, string>();
  const rename = (id: string): string => {
    let name = names.get(id);
    if (name === undefined) {
      name = `#${names.size}`;
      names.set(id, name);
    }
    return name;
  };
  const walk = (
    value: unknown,
    key: string | undefined,
    owner: Record<string, unknown> | undefined,
  ): unknown => {
    if (Array.isArray(value)) return value.map((item) => walk(item, undefined, undefined));
    if (value !== null && typeof value === "object") {
      const object = value as Record<string, unknown>;
      return Object.fromEntries(Object.entries(object).map(([k, v]) => [k, walk(v, k, object)]));
    }
    if (key === "timestamp") return typeof value === "number" ? "<ms>" : "<iso>";
    if (key === "durationMs") return "<ms>";
    if (key === "responseId") return "<response>";
    if (
      typeof value === "string" &&
      key !== undefined &&
      ENTRY_REFERENCES.has(key) &&
      owner?.type !== "toolCall"
    )
      return value === "root" ? value : rename(value);
    return value;
  };
  return values.map((value) => walk(value, undefined, undefined));
}
const ENTRY_REFERENCES = new Set(["id", "parentId", "firstKeptEntryId", "targetId", "fromId"]);

/** A session file's lines, parsed. */
const linesOf = (file: string): unknown[] =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));

describe("pi 1.6.0's createAgentSession on our SessionManager", () => {
  let pi: Run;
  let ours: Run;

  it("runs the scripted conversation (tool call, compaction, branch summary, resume) and writes pi's file", async () => {
    pi = await converse(
      "pi",
      (faux, agentDir) =>
        piAgentSession(faux, agentDir, PiSessionManager.create(cwd, join(work, "pi", "sessions"))),
      (faux, agentDir, file) => piAgentSession(faux, agentDir, PiSessionManager.open(file)),
    );
    ours = await converse(
      "ours",
      (faux, agentDir) =>
        ourAgentSession(faux, agentDir, SessionManager.create(cwd, join(work, "ours", "sessions"))),
      (faux, agentDir, file) => ourAgentSession(faux, agentDir, SessionManager.open(file)),
    );
    // As text: the same keys in the same order make the same line.
    const piLines = normalized(linesOf(pi.file)).map((line) => JSON.stringify(line));
    // The script reached every kind of entry it was meant to.
    const types = piLines.map((line) => (JSON.parse(line) as { type: string }).type);
    for (const type of ["session", "message", "compaction", "branch_summary"]) expect(types).toContain(type);
    expect(normalized(linesOf(ours.file)).map((line) => JSON.stringify(line))).toEqual(piLines);
    expect(normalized(ours.messages)).toEqual(normalized(pi.messages));
  }, 120_000);

  it("each reads the other's file to the same context", () => {
    const context = (manager: { buildSessionContext(): unknown }) => manager.buildSessionContext();
    expect(context(SessionManager.open(pi.file))).toEqual(context(PiSessionManager.open(pi.file)));
    expect(context(PiSessionManager.open(ours.file))).toEqual(context(SessionManager.open(ours.file)));
    const entries = (manager: { getEntries(): unknown[] }) => manager.getEntries();
    expect(entries(SessionManager.open(pi.file))).toEqual(entries(PiSessionManager.open(pi.file)));
    expect(entries(PiSessionManager.open(ours.file))).toEqual(entries(SessionManager.open(ours.file)));
  });
});
