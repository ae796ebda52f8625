/**
 * The backup the explicit write commands (`name`, `label`) take before they open a session:
 * its bytes copied to `<file>.bak-<time>`, so the backup holds the previous bytes whatever the
 * SDK then writes (an appended line, or for a v1/v2 file the migrated v3 form, for which the
 * SDK keeps its own `<file>.v1.bak` too). A failed command removes its backup. Also their
 * one-line report.
 */
import { type SessionBackup, backupSessionFile } from "@pi-session/node-store";
import { SessionManager } from "@pi-session/sdk";
import { CliError } from "../errors.js";
import type { Context } from "../program.js";
import { oneLineField } from "../terminal-safe.js";
import { sessionPath } from "./common.js";

/** node-store's backup copy (`<path>.bak-<time>[-n]`, never over an existing file), its error as a CLI error. */
function backup(path: string): SessionBackup {
  try {
    return backupSessionFile(path);
  } catch (e) {
    throw new CliError(e instanceof Error ? e.message : String(e));
  }
}

/**
 * Backs the session up, opens it and runs `write`; the backup is removed again when nothing
 * was written (the file is not a session, the entry id is unknown, the write failed).
 */
export async function withBackup<T>(
  ctx: Context,
  arg: unknown,
  write: (path: string, manager: SessionManager, backupPath: string) => T,
): Promise<T> {
  const path = await sessionPath(ctx, arg);
  const taken = backup(path);
  const backupPath = taken.path;
  try {
    let manager: SessionManager;
    try {
      manager = SessionManager.open(path);
    } catch (e) {
      throw new CliError(e instanceof Error ? e.message : String(e), {
        hint: "Run `pi-session validate` on the file.",
      });
    }
    return write(path, manager, backupPath);
  } catch (error) {
    taken.discard();
    throw error;
  }
}

/** `data` as JSON, or `text` as one line (a `\n` in a path is shown, not obeyed). */
export function report(ctx: Context, data: Record<string, unknown>, text: string): void {
  if (ctx.json) ctx.io.printJson(data);
  else ctx.io.line(oneLineField(text));
}
