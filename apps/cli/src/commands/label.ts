/** `pi-session label <session> <entry-id> [label]`: appends a `label` entry (as pi writes it), after a backup. */
import { UsageError } from "../errors.js";
import type { Action } from "../program.js";
import { report, withBackup } from "./backup.js";
import { entryId } from "./common.js";

export const action: Action = async (ctx, [arg, typed, value]) => {
  if (typeof typed !== "string") throw new UsageError("missing <entry-id>");
  return withBackup(ctx, arg, (path, manager, backupPath) => {
    const target = entryId(
      manager.getEntries().map((e) => e.id),
      typed,
      { what: "entry", path },
    );
    const text = typeof value === "string" && value !== "" ? value : undefined;
    const id = manager.appendLabelChange(target, text);
    report(
      ctx,
      { file: path, entryId: id, targetId: target, label: text ?? null, backupPath },
      `${text === undefined ? "cleared the label of" : `labelled ${JSON.stringify(text)}:`} ${target} in ${path} (backup: ${backupPath})`,
    );
    return 0;
  });
};
