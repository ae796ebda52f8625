/**
 * `rm <session...>`: moves session files to the desktop trash where one exists (else deletes
 * them). Asks on a terminal unless `--yes`; without a terminal it refuses unless `--yes`.
 */
import { removeSession } from "@pi-session/node-store";
import { CliError, UsageError } from "../errors.js";
import type { Action } from "../program.js";
import { sessionPath } from "./common.js";

export const action: Action = async (ctx, [args], options) => {
  const list = args as string[];
  if (list.length === 0) throw new UsageError("rm needs at least one <session>");
  const paths = [...new Set(list.map((a) => sessionPath(ctx, a)))];
  if (options.yes !== true) {
    if (!ctx.stdinIsTTY) {
      throw new CliError("refusing to remove sessions without confirmation", {
        exitCode: 2,
        hint: "stdin is not a terminal; pass --yes to remove without asking.",
      });
    }
    for (const p of paths) ctx.io.info(`  ${p}`);
    const answer = await ctx.prompt(`Remove ${paths.length} session${paths.length === 1 ? "" : "s"}? [y/N] `);
    if (!/^y(es)?$/i.test(answer.trim())) {
      ctx.io.info("nothing removed");
      return 1;
    }
  }
  const removed: unknown[] = [];
  for (const p of paths) {
    const result = removeSession(p);
    removed.push({ path: p, method: result.method, trashPath: result.trashPath ?? null });
    if (!ctx.json)
      ctx.io.line(
        `${result.method === "trash" ? "trashed" : "deleted"} ${p}${result.trashPath ? ` -> ${result.trashPath}` : ""}`,
      );
  }
  if (ctx.json) ctx.io.printJson({ removed });
  return 0;
};
