/**
 * A small session store for the tests of the agent-facing front-ends (the agent tools, `pi-session
 * mcp`, the pi package, `resume`, subagent views): a project session with planted words (one in
 * a user message, one only in a tool result), a secret, a fork, and a subagent session written
 * where pi-subagents writes them (a folder named after the parent session's file). Written with
 * plain `fs` calls, as pi would leave them.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Words planted in the store, each found in exactly one place. */
export const PLANTED = {
  /** In the main session's first user message. */
  userWord: "zebrafishupload",
  /** Only in the main session's tool result (no message, no tool call argument has it). */
  toolWord: "kumquatflake",
  /** In the subagent session's user message (its task). */
  subagentWord: "marmosetaudit",
  /**
   * A secret in an assistant message, in an Anthropic key's whole shape (93 characters after the
   * prefix, ending in `AA`): secretlint's rule, which the redaction shares, checks the format.
   */
  secret: `sk-ant-api03-${"A1b2C3d4E5".repeat(9)}-AbcdAA`,
} as const;

export interface AgentStore {
  /** The sessions root. */
  root: string;
  /** The project directory the sessions ran in (their header cwd). */
  cwd: string;
  main: { id: string; path: string };
  fork: { id: string; path: string };
  subagent: { id: string; path: string };
  other: { id: string; path: string };
}

const line = (v: unknown) => `${JSON.stringify(v)}\n`;

function message(id: string, parentId: string | null, time: string, msg: Record<string, unknown>) {
  return line({
    type: "message",
    id,
    parentId,
    timestamp: time,
    message: { timestamp: Date.parse(time), ...msg },
  });
}

function header(id: string, time: string, cwd: string, parentSession?: string) {
  return line({
    type: "session",
    version: 3,
    id,
    timestamp: time,
    cwd,
    ...(parentSession !== undefined ? { parentSession } : {}),
  });
}

const usage = (cost: number) => ({
  input: 100,
  output: 20,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 120,
  cost: { input: cost / 2, output: cost / 2, cacheRead: 0, cacheWrite: 0, total: cost },
});

/** pi's directory name for a cwd. */
export const projectDirName = (cwd: string) => `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;

/**
 * Writes the store under `root` for a project at `cwd` (created when `createCwd`, default
 * true; pass false for a project folder that no longer exists).
 */
export function writeAgentStore(root: string, cwd: string, opts: { createCwd?: boolean } = {}): AgentStore {
  if (opts.createCwd !== false) mkdirSync(cwd, { recursive: true });
  const dir = join(root, projectDirName(cwd));
  mkdirSync(dir, { recursive: true });
  const mainId = "aaaa1111-0000-4000-8000-000000000001";
  const mainBase = `2026-03-01T10-00-00-000Z_${mainId}`;
  const main = { id: mainId, path: join(dir, `${mainBase}.jsonl`) };
  writeFileSync(
    main.path,
    header(mainId, "2026-03-01T10:00:00.000Z", cwd) +
      message("a1", null, "2026-03-01T10:00:01.000Z", {
        role: "user",
        content: `the ${PLANTED.userWord} test is flaky again, how did we fix it?`,
      }) +
      message("a2", "a1", "2026-03-01T10:00:02.000Z", {
        role: "assistant",
        provider: "anthropic",
        model: "claude-sonnet",
        content: [
          { type: "text", text: `Let me look. The key in .env was ${PLANTED.secret} by the way.` },
          { type: "toolCall", id: "t1", name: "bash", arguments: { command: "npm test" } },
        ],
        usage: usage(0.02),
        stopReason: "toolUse",
      }) +
      message("a3", "a2", "2026-03-01T10:00:03.000Z", {
        role: "toolResult",
        toolCallId: "t1",
        toolName: "bash",
        isError: false,
        content: [{ type: "text", text: `1 failing: upload retries (${PLANTED.toolWord} in the fixture)` }],
      }) +
      message("a4", "a3", "2026-03-01T10:00:04.000Z", {
        role: "assistant",
        provider: "anthropic",
        model: "claude-sonnet",
        content: [{ type: "text", text: "Fixed by waiting for the upload to settle before asserting." }],
        usage: usage(0.03),
        stopReason: "stop",
      }),
  );
  // A fork of the main session (pi's /fork: parentSession in the header, the entries copied).
  const forkId = "cccc3333-0000-4000-8000-000000000003";
  const fork = { id: forkId, path: join(dir, `2026-03-02T09-00-00-000Z_${forkId}.jsonl`) };
  writeFileSync(
    fork.path,
    header(forkId, "2026-03-02T09:00:00.000Z", cwd, main.path) +
      message("a1", null, "2026-03-01T10:00:01.000Z", {
        role: "user",
        content: "a different question in the fork",
      }) +
      message("f2", "a1", "2026-03-02T09:00:02.000Z", {
        role: "assistant",
        provider: "anthropic",
        model: "claude-sonnet",
        content: [{ type: "text", text: "An answer in the fork." }],
        usage: usage(0.05),
        stopReason: "stop",
      }),
  );
  // A subagent session where pi-subagents writes one: <parent file without .jsonl>/<run>/run-0/session.jsonl.
  const subId = "dddd4444-0000-4000-8000-000000000004";
  const subDir = join(dir, mainBase, "7f3a9c", "run-0");
  mkdirSync(subDir, { recursive: true });
  const subagent = { id: subId, path: join(subDir, "session.jsonl") };
  writeFileSync(
    subagent.path,
    header(subId, "2026-03-01T10:00:05.000Z", cwd) +
      message("s1", null, "2026-03-01T10:00:06.000Z", {
        role: "user",
        content: `scout: ${PLANTED.subagentWord} of the upload code`,
      }) +
      message("s2", "s1", "2026-03-01T10:00:07.000Z", {
        role: "assistant",
        provider: "anthropic",
        model: "claude-haiku",
        content: [{ type: "text", text: "The upload code retries three times." }],
        usage: usage(0.01),
        stopReason: "stop",
      }),
  );
  // A session of another project.
  const otherCwd = join(cwd, "..", "other-project");
  const otherDir = join(root, projectDirName(otherCwd));
  mkdirSync(otherDir, { recursive: true });
  const otherId = "bbbb2222-0000-4000-8000-000000000002";
  const other = { id: otherId, path: join(otherDir, `2026-04-01T10-00-00-000Z_${otherId}.jsonl`) };
  writeFileSync(
    other.path,
    header(otherId, "2026-04-01T10:00:00.000Z", otherCwd) +
      message("b1", null, "2026-04-01T10:00:01.000Z", {
        role: "user",
        content: "unrelated work on the docs",
      }),
  );
  return { root, cwd, main, fork, subagent, other };
}
