/**
 * The CLI run in the test's own process: `runCli` with the command table, the arguments, an
 * environment and a directory, stdout and stderr collected as strings (stdout a terminal that
 * wide when `columns` is given: tables fitted, colours unless `NO_COLOR`; stderr never a terminal),
 * stdin not a terminal (`input`'s lines answer confirmations). No build and no process start,
 * so the fast loop covers the commands; what needs the bundle or a real process (the binary's
 * start-up, exit codes set by the process, signals, a pseudo-terminal, the pager) stays with
 * the end-to-end tests that spawn `dist/pi-session.cjs` (`harness.ts`).
 *
 * `runInProcess` is the binary's case, where the environment is `process.env`: the run sees
 * `env` there too (set for the run, restored after it; `TZ` included), so runs are awaited one at
 * a time. `runCaptured` hands `env` to `runCli` alone and leaves `process.env` as it is.
 */
import { COMMANDS } from "../src/commands/index.js";
import type { Stream } from "../src/io.js";
import { runCli } from "../src/program.js";

export interface InProcessResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface InProcessOptions {
  env: Record<string, string | undefined>;
  cwd: string;
  /** Lines answering the command's confirmations, in order (none: an empty answer). */
  input?: string;
  /** Makes stdout a terminal this many columns wide. */
  columns?: number;
}

/**
 * `runCli` with its output collected and `options.env` as the environment it is given, while
 * `process.env` stays as it is: for tests of commands that read only the environment they are
 * handed (no library below them reads `process.env`), and that may run side by side.
 */
export async function runCaptured(
  args: readonly string[],
  options: InProcessOptions,
): Promise<InProcessResult> {
  let stdout = "";
  let stderr = "";
  const stream = (sink: (chunk: string) => void, columns?: number): Stream => ({
    write: (chunk: string) => {
      sink(chunk);
      return true;
    },
    isTTY: columns !== undefined,
    ...(columns !== undefined ? { columns } : {}),
  });
  const answers = (options.input ?? "").split("\n");
  const code = await runCli({
    argv: [...args],
    env: options.env,
    cwd: options.cwd,
    stdout: stream((chunk) => {
      stdout += chunk;
    }, options.columns),
    stderr: stream((chunk) => {
      stderr += chunk;
    }),
    stdinIsTTY: false,
    prompt: async (question) => {
      stderr += question;
      return answers.shift() ?? "";
    },
    commands: COMMANDS,
  });
  return { code, stdout, stderr };
}

let running = false;

/** Runs `pi-session <args>` in this process and resolves once everything it started has ended. */
export async function runInProcess(
  args: readonly string[],
  options: InProcessOptions,
): Promise<InProcessResult> {
  if (running) throw new Error("runInProcess: one run at a time (the environment is the process's)");
  running = true;
  const saved = { ...process.env };
  for (const key of Object.keys(process.env)) delete process.env[key];
  Object.assign(
    process.env,
    Object.fromEntries(Object.entries(options.env).filter(([, v]) => v !== undefined)),
  );
  try {
    return await runCaptured(args, { ...options, env: process.env });
  } finally {
    for (const key of Object.keys(process.env)) delete process.env[key];
    Object.assign(process.env, saved);
    running = false;
  }
}
