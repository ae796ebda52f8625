/**
 * Resuming a session in pi: the command that does it (`pi --session <path>` in the session's
 * own directory, as pi runs a session; `pi --fork <path>` in the current one when that
 * directory is gone, which pi turns into a new session of the current directory), shown as a
 * shell line or run on this terminal with the `pi` found on PATH. `resume` and `pick --resume`
 * both go through here; the web app shows the same line.
 */
import { spawn } from "node:child_process";
import { delimiter, join } from "node:path";
import { resumeCommand, scanHeaderSync, shellQuote, statPath } from "@pi-session/node-store";
import { CliError } from "./errors.js";
import type { Context } from "./program.js";

/** What to run to resume a session. */
export interface ResumePlan {
  /** The directory pi starts in. */
  cwd: string;
  /** pi's arguments. */
  args: string[];
  /** The line a person would type (node-store's `resumeCommand`). */
  line: string;
}

/** Exit code of a run stopped by Ctrl-C (128 + SIGINT). */
const EXIT_INTERRUPTED = 130;

function isDirectory(path: string): boolean {
  try {
    return statPath(path)?.kind === "a directory";
  } catch {
    return false;
  }
}

/**
 * How to resume the session at `path` (read from its header): in its own directory, or with
 * `here`, forked into the current one. A session whose directory is gone needs `here`: that is
 * said, with the command that does it.
 */
export function resumePlan(ctx: Context, path: string, opts: { here: boolean }): ResumePlan {
  let cwd: unknown;
  try {
    cwd = scanHeaderSync(path)?.cwd;
  } catch (error) {
    throw new CliError(`${path}: cannot read its header (${(error as Error).message})`);
  }
  const sessionDir = ctx.sessionDir;
  const plan = (fork: boolean, dir: string): ResumePlan => {
    const command = resumeCommand(path, { cwd: dir, fork, sessionDir, here: ctx.cwd });
    return { cwd: command.cwd ?? ctx.cwd, args: command.args, line: command.line };
  };
  if (opts.here) return plan(true, ctx.cwd);
  const forkHint = `\`pi-session resume ${shellQuote(path)} --here\` forks it into the current directory as a new session (pi --fork); the original stays as it is.`;
  if (typeof cwd !== "string" || cwd === "")
    throw new CliError(`${path} names no working directory in its header`, { hint: forkHint });
  if (!isDirectory(cwd))
    throw new CliError(`the session's directory ${cwd} no longer exists`, { hint: forkHint });
  return plan(false, cwd);
}

/** The executable `name` on PATH, or a clear error saying what is missing. */
export function findOnPath(ctx: Context, name: string, why: string): string {
  for (const dir of (ctx.env.PATH ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, name);
    try {
      // A file that is not executable fails when it is run, with an error saying so.
      if (statPath(candidate)?.kind === "file") return candidate;
    } catch {
      // Not there.
    }
  }
  throw new CliError(`\`${name}\` not found on PATH`, { hint: why });
}

/** Runs the plan with `pi` (a path) on this terminal; pi's exit code is ours. */
export function runResume(ctx: Context, pi: string, plan: ResumePlan): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(pi, plan.args, {
      stdio: "inherit",
      cwd: plan.cwd,
      env: ctx.env as NodeJS.ProcessEnv,
    });
    child.on("error", (error) => reject(new CliError(`cannot run pi: ${error.message}`)));
    child.on("exit", (code, signal) => resolve(code ?? (signal === "SIGINT" ? EXIT_INTERRUPTED : 1)));
  });
}
