/**
 * `pi-session name <session> <name>`: appends a `session_info` entry (as pi writes it) through
 * the locked appender; a v1/v2 file is converted first, with one backup (see `backup.ts`).
 */
import { UsageError } from "../errors.js";
import type { Action } from "../program.js";
import { appendTo, report } from "./backup.js";

export const action: Action = async (ctx, [arg, value]) => {
  if (typeof value !== "string") throw new UsageError("missing <name>");
  return appendTo(ctx, arg, "the name", (path, manager, { backupPath, convertedFrom }) => {
    const id = manager.appendSessionInfo(value);
    report(
      ctx,
      { file: path, entryId: id, name: manager.getSessionName() ?? null, backupPath, convertedFrom },
      `named ${path}: ${JSON.stringify(value)}`,
    );
    return 0;
  });
};
