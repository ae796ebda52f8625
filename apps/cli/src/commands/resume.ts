/**
 * `resume <session|query>`: starts `pi --session <path>` in the session's own directory (the
 * `pi` found on PATH; pi's exit code is ours). The argument is a session as every command takes
 * it (a path, an id or a unique prefix, `latest`), else a search through the session database:
 * one matching session is resumed, several are listed. `--print` prints the command line,
 * shell-quoted, instead (`--json`: its parts); `--here` forks the session into the current
 * directory (pi's `--fork`), which a session whose directory is gone needs.
 */
import { openSearchDatabase } from "@pi-session/search";
import { CliError, EXIT_USAGE, UsageError } from "../errors.js";
import { resolveSession, sessionsRoot } from "../locate.js";
import type { Action, Context } from "../program.js";
import { findOnPath, resumePlan, runResume } from "../resume.js";
import { oneLineField } from "../terminal-safe.js";
import { shortDate } from "../text.js";

/** Sessions listed when a query matches several. */
const LISTED = 10;

/** The session `arg` names, or the one session a search for it finds. */
async function sessionOf(ctx: Context, arg: string): Promise<string> {
  const where = { env: ctx.env, cwd: ctx.cwd, sessionDir: ctx.sessionDir };
  try {
    return await resolveSession(arg, where);
  } catch (error) {
    // Not a path, id or prefix: a query, when it was not meant as a path.
    if (!(error instanceof CliError) || !error.message.startsWith("no session with id or prefix"))
      throw error;
  }
  const { root } = sessionsRoot(where);
  const db = await openSearchDatabase({ root, env: ctx.env, onWarning: (m) => ctx.io.warn(m) });
  try {
    await db.sync();
    const { sessions, more } = await db.search(arg, { limit: LISTED, hitsPerSession: 1 });
    if (sessions.length === 1 && !more) return (sessions[0] as (typeof sessions)[number]).path;
    if (sessions.length === 0)
      throw new CliError(`no session has the id, prefix or words \`${arg}\` under ${root}`, {
        hint: "See `pi-session ls --all`, or search with `pi-session search <words>`.",
      });
    const rows = sessions.map((s) => {
      const title = (s.meta.name ?? s.meta.firstMessage).replace(/\s+/g, " ").trim();
      return `  ${s.meta.sessionId.slice(0, 8)}  ${shortDate(s.meta.modifiedMs)}  ${oneLineField(title.slice(0, 60))}`;
    });
    if (more) rows.push("  ...");
    throw new CliError(`${sessions.length}${more ? " or more" : ""} sessions match \`${arg}\`:`, {
      exitCode: EXIT_USAGE,
      details: rows,
      hint: "Resume one by its id, or choose with `pi-session pick <words> --resume`.",
    });
  } finally {
    db.close();
  }
}

export const action: Action = async (ctx, [arg], options) => {
  if (typeof arg !== "string" || arg.trim() === "") throw new UsageError("missing <session|query>");
  const path = await sessionOf(ctx, arg);
  const plan = resumePlan(ctx, path, { here: options.here === true });
  if (ctx.json) {
    ctx.io.printJson({ path, cwd: plan.cwd, command: ["pi", ...plan.args], line: plan.line });
    return 0;
  }
  if (options.print === true) {
    ctx.io.line(plan.line);
    return 0;
  }
  const pi = findOnPath(
    ctx,
    "pi",
    "Install pi, the coding agent (npm install -g @earendil-works/pi-coding-agent), or print the command with --print.",
  );
  ctx.io.info(oneLineField(`resuming ${path} in ${plan.cwd}`));
  return runResume(ctx, pi, plan);
};
