/** `pi-session name <session> <name>`: appends a `session_info` entry (as pi writes it), after a backup. */
import { UsageError } from "../errors.js";
import type { Action } from "../program.js";
import { report, withBackup } from "./backup.js";

export const action: Action = async (ctx, [arg, value]) => {
  if (typeof value !== "string") throw new UsageError("missing <name>");
  return withBackup(ctx, arg, (path, manager, backupPath) => {
    const id = manager.appendSessionInfo(value);
    report(
      ctx,
      { file: path, entryId: id, name: manager.getSessionName() ?? null, backupPath },
      `named ${path}: ${JSON.stringify(value)} (backup: ${backupPath})`,
    );
    return 0;
  });
};
