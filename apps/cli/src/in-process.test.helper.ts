/**
 * Test helper (named `.test.helper` so it is neither built nor held to the layer rules): runs
 * `pi-session` in-process through `runCli` over a sessions root of the test's own, with the
 * session database in a cache dir of its own, and collects stdout, stderr and the exit code.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { COMMANDS } from "./commands/index.js";
import type { Stream } from "./io.js";
import { runCli } from "./program.js";

export interface Ran {
  code: number;
  out: string;
  err: string;
}

export interface Sandbox {
  /** The sessions root (`PI_CODING_AGENT_SESSION_DIR`). */
  root: string;
  env: Record<string, string | undefined>;
  /** Writes a session file into the root's project directory; returns its path. */
  write(name: string, text: string): string;
  run(argv: string[], options?: RunOptions): Promise<Ran>;
}

export interface RunOptions {
  cwd?: string;
  /** Run as on a terminal this many columns wide (stdout a TTY). */
  columns?: number;
  /** stdin a terminal, answering every question with this. */
  answer?: string;
}

/** A sandbox under `dir` (a fresh temporary directory). */
export function sandbox(dir: string): Sandbox {
  const root = join(dir, "sessions");
  const env = {
    PI_CODING_AGENT_SESSION_DIR: root,
    PI_CODING_AGENT_DIR: join(dir, "agent"),
    XDG_CACHE_HOME: join(dir, "cache"),
    HOME: join(dir, "home"),
    NO_COLOR: "1",
  };
  mkdirSync(join(root, "--work-proj--"), { recursive: true });
  return {
    root,
    env,
    write(name, text) {
      const path = join(root, "--work-proj--", name);
      writeFileSync(path, text);
      return path;
    },
    async run(argv, options = {}) {
      let out = "";
      let err = "";
      const stream = (sink: (s: string) => void, tty: boolean): Stream => ({
        write: (chunk: string) => {
          sink(chunk);
          return true;
        },
        isTTY: tty,
        ...(options.columns !== undefined ? { columns: options.columns } : {}),
      });
      const code = await runCli({
        argv,
        env: { ...env, ...(options.columns !== undefined ? { COLUMNS: String(options.columns) } : {}) },
        cwd: options.cwd ?? dir,
        stdout: stream((s) => {
          out += s;
        }, options.columns !== undefined),
        stderr: stream((s) => {
          err += s;
        }, false),
        stdinIsTTY: options.answer !== undefined,
        prompt: async () => options.answer ?? "",
        commands: COMMANDS,
      });
      return { code, out, err };
    },
  };
}

/** A session file's text: a v3 header of `id` in `cwd`, then the entries. */
export function sessionText(id: string, cwd: string, entries: readonly Record<string, unknown>[]): string {
  const header = { type: "session", version: 3, id, timestamp: "2026-03-01T10:00:00.000Z", cwd };
  return `${[header, ...entries].map((e) => JSON.stringify(e)).join("\n")}\n`;
}

function at(minute: number): { timestamp: string; ms: number } {
  const ms = Date.UTC(2026, 2, 1, 10, minute);
  return { timestamp: new Date(ms).toISOString(), ms };
}

/** A user message entry. */
export function userEntry(id: string, parentId: string | null, text: string, minute = 0) {
  const t = at(minute);
  return {
    type: "message",
    id,
    parentId,
    timestamp: t.timestamp,
    message: { role: "user", content: text, timestamp: t.ms },
  };
}

/** An assistant message entry: its text, tool calls, usage and stop reason. */
export function assistantEntry(
  id: string,
  parentId: string | null,
  options: {
    text?: string;
    calls?: { name: string; arguments: Record<string, unknown> }[];
    minute?: number;
    tokens?: number;
    cost?: number;
    stopReason?: string;
  } = {},
) {
  const t = at(options.minute ?? 0);
  const tokens = options.tokens ?? 0;
  return {
    type: "message",
    id,
    parentId,
    timestamp: t.timestamp,
    message: {
      role: "assistant",
      content: [
        ...(options.text !== undefined ? [{ type: "text", text: options.text }] : []),
        ...(options.calls ?? []).map((c, i) => ({ type: "toolCall", id: `${id}-call-${i}`, ...c })),
      ],
      api: "faux",
      provider: "faux",
      model: "faux-1",
      usage: {
        input: tokens,
        output: 0,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: tokens,
        cost: { input: options.cost ?? 0, output: 0, cacheRead: 0, cacheWrite: 0, total: options.cost ?? 0 },
      },
      stopReason: options.stopReason ?? ((options.calls ?? []).length > 0 ? "toolUse" : "stop"),
      timestamp: t.ms,
    },
  };
}

/** A tool result entry. */
export function toolResultEntry(id: string, parentId: string | null, text: string, minute = 0) {
  const t = at(minute);
  return {
    type: "message",
    id,
    parentId,
    timestamp: t.timestamp,
    message: {
      role: "toolResult",
      toolCallId: `${parentId}-call-0`,
      toolName: "bash",
      content: [{ type: "text", text }],
      isError: false,
      timestamp: t.ms,
    },
  };
}
