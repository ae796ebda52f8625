/**
 * The binary's run: wires the real process (argv, env, streams, stdin) into {@link runCli}
 * with a command table, and exits with its code once stdout and stderr have drained. Used by
 * `main.ts` (every command) and `sync-main.ts` (the `sync` path, decision 150).
 */
import type { CommandSpec } from "./commands/index.js";
import { runCli } from "./program.js";

async function prompt(question: string): Promise<string> {
  // Loaded when a command asks (a confirmation): not on every start.
  const { createInterface } = await import("node:readline");
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  return new Promise((resolve) => {
    rl.question(question, (answer) => {
      rl.close();
      resolve(answer);
    });
  });
}

/** Runs the CLI on this process's arguments with `commands`, then exits the process. */
export async function runProcess(commands: readonly CommandSpec[]): Promise<never> {
  // A closed pipe (`pi-session ls | head`) is not an error worth a stack trace.
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(0);
    throw error;
  });
  const code = await runCli({
    argv: process.argv.slice(2),
    env: process.env,
    cwd: process.cwd(),
    stdout: process.stdout,
    stderr: process.stderr,
    stdinIsTTY: process.stdin.isTTY === true,
    prompt,
    pager: true,
    commands,
  });
  await Promise.all([drained(process.stdout), drained(process.stderr)]);
  // The run has ended everything it started (runCli's contract), so exit now: a process left to
  // end by itself first frees its whole heap, which nobody waits for (decision 146).
  process.exit(code);
}

/** Resolves once `stream` has handed all its buffered output to the system (or failed). */
function drained(stream: NodeJS.WriteStream): Promise<void> {
  if (stream.writableLength === 0 || stream.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      stream.off("drain", done);
      stream.off("close", done);
      stream.off("error", done);
      resolve();
    };
    stream.on("drain", done);
    stream.on("close", done);
    stream.on("error", done);
  });
}
