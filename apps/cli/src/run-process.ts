/**
 * The binary's run: wires the real process (argv, env, streams, stdin) into {@link runCli}
 * with a command table, and sets the process's exit code. Used by
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

/** Runs the CLI on this process's arguments with `commands`; the process ends with its code. */
export async function runProcess(commands: readonly CommandSpec[]): Promise<void> {
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
  // Node ends the process once the run has ended everything it started (runCli's contract).
  process.exitCode = code;
}
