/**
 * `pi-session label <session> <entry-id> <label>` (or `--clear`): appends a `label` entry (as
 * pi writes it) through the locked appender; a v1/v2 file is converted first, with one backup
 * (see `backup.ts`). No text without `--clear` is a usage error: a missing argument must not
 * clear a label without a word.
 */
import { UsageError } from "../errors.js";
import type { Action } from "../program.js";
import { appendTo, report } from "./backup.js";
import { entryId } from "./common.js";

export const action: Action = async (ctx, [arg, typed, value], options) => {
  if (typeof typed !== "string") throw new UsageError("missing <entry-id>");
  const clear = options.clear === true;
  const given = value === undefined ? undefined : String(value);
  if (clear && given !== undefined) throw new UsageError("give either a label or --clear, not both");
  if (!clear && (given === undefined || given === ""))
    throw new UsageError("missing <label>", "To remove the entry's label, pass --clear.");
  return appendTo(ctx, arg, "the label", (path, manager, { backupPath, convertedFrom }) => {
    const target = entryId(
      manager.getEntries().map((e) => e.id),
      typed,
      { what: "entry", path },
    );
    const id = manager.appendLabelChange(target, given);
    report(
      ctx,
      { file: path, entryId: id, targetId: target, label: given ?? null, backupPath, convertedFrom },
      `${given === undefined ? "cleared the label of" : `labelled ${JSON.stringify(given)}:`} ${target} in ${path}`,
    );
    return 0;
  });
};
