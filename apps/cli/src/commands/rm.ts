/**
 * `rm <session...>`: moves session files to the desktop trash where one exists (else deletes
 * them), each with its companion files (backups `<file>.bak-<time>`, sidecars
 * `<file>.torn-<time>` / `<file>.removed-<time>`, migration backups `<file>.v<N>.bak`), which
 * hold its content too (`--keep-companions` leaves them). Asks on a terminal unless `--yes`; without a terminal it refuses unless
 * `--yes`. A companion that cannot be removed is a warning and exit code 1.
 */
import { removeSession } from "@pi-session/node-store";
import { CliError, UsageError } from "../errors.js";
import type { Action } from "../program.js";
import { oneLineField } from "../terminal-safe.js";
import { sessionPath } from "./common.js";

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export const action: Action = async (ctx, [args], options) => {
  const list = args as string[];
  if (list.length === 0) throw new UsageError("rm needs at least one <session>");
  const resolved: string[] = [];
  for (const a of list) resolved.push(await sessionPath(ctx, a));
  const paths = [...new Set(resolved)];
  if (options.yes !== true) {
    if (!ctx.stdinIsTTY) {
      throw new CliError("refusing to remove sessions without confirmation", {
        exitCode: 2,
        hint: "stdin is not a terminal; pass --yes to remove without asking.",
      });
    }
    for (const p of paths) ctx.io.info(`  ${oneLineField(p)}`);
    const answer = await ctx.prompt(`Remove ${paths.length} session${paths.length === 1 ? "" : "s"}? [y/N] `);
    if (!/^y(es)?$/i.test(answer.trim())) {
      ctx.io.info("nothing removed");
      return 1;
    }
  }
  const removed: unknown[] = [];
  let code = 0;
  for (const p of paths) {
    // The trash is found through the CLI's environment (XDG_DATA_HOME, HOME).
    const result = removeSession(p, {
      env: ctx.env,
      ...(ctx.env.HOME ? { home: ctx.env.HOME } : {}),
      ...(options.keepCompanions === true ? { keepCompanions: true } : {}),
    });
    const verb = result.method === "trash" ? "trashed" : "deleted";
    const item: Record<string, unknown> = {
      path: p,
      method: result.method,
      trashPath: result.trashPath ?? null,
      companions: result.companions.map((c) => ({ path: c.path, trashPath: c.trashPath ?? null })),
    };
    if (!ctx.json) {
      ctx.io.line(oneLineField(`${verb} ${p}${result.trashPath ? ` -> ${result.trashPath}` : ""}`));
      for (const c of result.companions)
        ctx.io.line(oneLineField(`  ${verb} ${c.path}${c.trashPath ? ` -> ${c.trashPath}` : ""}`));
    }
    if (result.failed) {
      code = 1;
      item.failed = result.failed.map((f) => ({ path: f.path, error: messageOf(f.error) }));
      for (const f of result.failed)
        ctx.io.warn(oneLineField(`could not remove ${f.path} (it is still there): ${messageOf(f.error)}`));
    }
    removed.push(item);
  }
  if (ctx.json) ctx.io.printJson({ removed });
  return code;
};
