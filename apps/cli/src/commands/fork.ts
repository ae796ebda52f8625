/**
 * `pi-session fork <session>`: a new session file through the SDK, from the path to the leaf
 * (or `--leaf`: `createBranchedSession`) or, with `--to <cwd>`, the whole session for another
 * project (`forkFrom`). The source is never written.
 */
import { resolve } from "node:path";
import { scanHeaderSync, statPath } from "@pi-session/node-store";
import { SessionManager } from "@pi-session/sdk";
import { CliError, UsageError } from "../errors.js";
import type { Action } from "../program.js";
import { report } from "./backup.js";
import { entryId, sessionPath, stringOption } from "./common.js";

/** Whether a file is at `path` (as `existsSync`: any failure to look counts as no). */
function fileIsThere(path: string): boolean {
  try {
    return statPath(path) !== null;
  } catch {
    return false;
  }
}

export const action: Action = async (ctx, [arg], options) => {
  const leaf = stringOption(options, "leaf", "--leaf");
  const to = stringOption(options, "to", "--to");
  if (leaf !== undefined && to !== undefined) throw new UsageError("give either --leaf or --to, not both");
  const source = await sessionPath(ctx, arg);
  // Checked read-only first: `SessionManager.open` would write a header into an empty file (as
  // pi does), and the source of a fork is never changed.
  let header: ReturnType<typeof scanHeaderSync>;
  try {
    header = scanHeaderSync(source);
  } catch (e) {
    throw new CliError(e instanceof Error ? e.message : String(e));
  }
  if (header === null) {
    throw new CliError(`${source}: not a pi session (no session header); nothing written`, {
      hint: "Run `pi-session validate` on the file.",
    });
  }
  let path: string | undefined;
  try {
    if (to !== undefined) {
      const manager = SessionManager.forkFrom(
        source,
        resolve(ctx.cwd, to),
        ctx.sessionDir ? resolve(ctx.cwd, ctx.sessionDir) : undefined,
      );
      path = manager.getSessionFile();
    } else {
      const manager = SessionManager.open(source);
      const ids = manager.getEntries().map((e) => e.id);
      const target =
        leaf !== undefined ? entryId(ids, leaf, { what: "--leaf", path: source }) : manager.getLeafId();
      if (target === null || !manager.getEntry(target)) {
        throw new UsageError(
          `no entry ${String(target)} in ${source}`,
          "See the ids with `pi-session tree <session>`.",
        );
      }
      path = manager.createBranchedSession(target);
    }
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError(e instanceof Error ? e.message : String(e));
  }
  // pi's createBranchedSession returns the new path even when it writes nothing (no user or
  // assistant message on the branch yet): what counts is whether the file is there.
  if (path === undefined || !fileIsThere(path)) {
    throw new CliError(
      "the branch has no user or assistant message yet, so pi would not write a file; nothing written",
    );
  }
  report(ctx, { source, path }, path);
  return 0;
};
