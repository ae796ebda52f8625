/**
 * `migrate <path...>`: from and to version of each file and what would change; with
 * `--write`, an atomic rewrite in v3 with a backup of the previous bytes. Malformed lines
 * stay where they were. Ids given to v1 entries are derived from the session id and line
 * (the same bytes on every run); `--random-ids` draws them as pi does. A file or directory
 * that cannot be read is reported and skipped (exit 3); the others are migrated.
 */
import { randomUUID } from "node:crypto";
import { migrateRecords } from "@pi-session/migrate";
import { rewriteSessionFile } from "@pi-session/node-store";
import { EXIT_FAILURE, EXIT_OK, UsageError } from "../errors.js";
import { readRecords } from "../load.js";
import type { Action } from "../program.js";
import { oneLineField } from "../terminal-safe.js";
import { expandPaths } from "../paths.js";
import { exitCode, unreadable, warnUnreadable } from "../unreadable.js";

export const action: Action = async (ctx, [paths], options) => {
  const args = paths as string[];
  if (args.length === 0) throw new UsageError("migrate needs at least one path");
  if (options.randomIds === true && options.deterministic === true) {
    throw new UsageError("give either --deterministic or --random-ids, not both");
  }
  const randomId = options.randomIds === true ? () => randomUUID().slice(0, 8) : undefined;
  const { files, unreadable: skipped } = expandPaths(ctx, args);
  const write = options.write === true;
  const progress = ctx.io.progress(write ? "migrating" : "checking");
  const results: unknown[] = [];
  let failures = 0;
  for (const [i, file] of files.entries()) {
    let read: Awaited<ReturnType<typeof readRecords>>;
    try {
      read = await readRecords(file);
    } catch (e) {
      const item = unreadable(file, e);
      if (!item) throw e;
      skipped.push(item);
      progress.update(i + 1, files.length);
      continue;
    }
    const { size } = read;
    const { records, report } = migrateRecords(read.records, randomId ? { randomId } : {});
    let backupPath: string | null = null;
    let written = false;
    let error: string | null = null;
    if (write && report.changed) {
      try {
        // A line read as pi reads it (invalid UTF-8) and left unchanged goes back as its bytes.
        const result = rewriteSessionFile(file, records.map(read.original), {
          backup: true,
          expectedSize: size,
          keepTornTail: true,
        });
        backupPath = result.backupPath ?? null;
        written = true;
      } catch (e) {
        failures++;
        error = e instanceof Error ? e.message : String(e);
      }
    }
    results.push({ file, ...report, written, backupPath, error });
    progress.update(i + 1, files.length);
    if (ctx.json) continue;
    const c = ctx.io.out;
    const what = report.changed
      ? `v${report.fromVersion} -> v${report.toVersion}: ${report.idsAssigned} ids assigned, ${report.indexesMapped.length} compaction indexes mapped, ${report.rolesRenamed} roles renamed, ${report.rawRecordsKept} malformed lines kept`
      : `v${report.fromVersion}: up to date`;
    ctx.io.line(`${oneLineField(file)}: ${what}`);
    for (const u of report.unmappedIndexes)
      ctx.io.line(c.yellow(oneLineField(`  line ${u.line}: firstKeptEntryIndex ${u.index}: ${u.reason}`)));
    for (const note of report.notes) ctx.io.line(c.dim(`  ${oneLineField(note)}`));
    if (written) ctx.io.line(c.green(`  written; backup: ${oneLineField(backupPath ?? "(none)")}`));
    if (error) ctx.io.error(oneLineField(`${file}: not written: ${error}`));
  }
  progress.end();
  warnUnreadable(ctx.io, skipped);
  if (ctx.json) ctx.io.printJson({ write, files: results, unreadable: skipped });
  else if (!write && results.some((r) => (r as { changed: boolean }).changed)) {
    ctx.io.info("dry run: nothing written; run again with --write to migrate");
  }
  return exitCode(skipped, failures > 0 ? EXIT_FAILURE : EXIT_OK);
};
