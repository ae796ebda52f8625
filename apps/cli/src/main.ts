/**
 * Entry point of the `pi-session` binary: wires the real process (argv, env, streams, stdin)
 * into {@link runCli} and exits with its code once stdout has drained.
 */
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
});
process.exitCode = code;
