/**
 * `migrate [session...] [--all]`: from and to version of each file (named as `targets.ts` says)
 * and what would change; with `--write`, an atomic rewrite in v3 with a backup of the previous
 * bytes. Malformed lines stay where they were. Ids given to v1 entries are derived from the
 * session id and line (the same bytes on every run); `--random-ids` draws them as pi does. A
 * file or directory that cannot be read is reported and skipped (exit 3); the others are
 * migrated. A summary line ends the report; a dry run lists only the first files that change
 * unless `--verbose`, and exits 1 when any does.
 */
import { randomUUID } from "node:crypto";
import { splitSession } from "@pi-session/format";
import { type MigrationReport, migrateRecords } from "@pi-session/migrate";
import { rewriteSessionFile } from "@pi-session/node-store";
import { EXIT_FAILURE, EXIT_OK, UsageError } from "../errors.js";
import { readRecords } from "../load.js";
import type { Action } from "../program.js";
import { oneLineField } from "../terminal-safe.js";
import { sessionTargets } from "../targets.js";
import { exitCode, unreadable, warnSkipped } from "../unreadable.js";

/** Files listed in a dry run without `--verbose` (the summary counts them all). */
const DRY_RUN_LISTED = 10;

type Result = MigrationReport & {
  file: string;
  written: boolean;
  backupPath: string | null;
  error: string | null;
};

/** `12 sessions checked: 10 up to date, 2 need migration (v1: 2)`. */
function summaryLine(s: MigrateSummary, write: boolean): string {
  const parts = [`${s.upToDate} up to date`];
  const from = Object.entries(s.fromVersions)
    .map(([v, n]) => `v${v}: ${n}`)
    .join(", ");
  const changed = s.migrated + s.needMigration + s.failed;
  if (write) {
    if (s.migrated > 0) parts.push(`${s.migrated} migrated (${from})`);
    if (s.failed > 0) parts.push(`${s.failed} failed`);
  } else if (changed > 0) parts.push(`${changed} need${changed === 1 ? "s" : ""} migration (${from})`);
  if (s.notSessions > 0) parts.push(`${s.notSessions} not ${s.notSessions === 1 ? "a session" : "sessions"}`);
  if (s.unreadable > 0) parts.push(`${s.unreadable} could not be read`);
  return `${s.checked} session${s.checked === 1 ? "" : "s"} checked: ${parts.join(", ")}`;
}

export interface MigrateSummary {
  checked: number;
  upToDate: number;
  /** Files that change (dry run). */
  needMigration: number;
  migrated: number;
  failed: number;
  /** How many of the files that change come from each version. */
  fromVersions: Record<string, number>;
  unreadable: number;
  /** Files without a session header (skipped, said on stderr). */
  notSessions: number;
}

function summarize(
  results: readonly Result[],
  unreadableCount: number,
  notSessions: number,
  write: boolean,
): MigrateSummary {
  const changed = results.filter((r) => r.changed);
  const fromVersions: Record<string, number> = {};
  for (const r of changed) fromVersions[r.fromVersion] = (fromVersions[r.fromVersion] ?? 0) + 1;
  const migrated = changed.filter((r) => r.written).length;
  const failed = changed.filter((r) => r.error !== null).length;
  return {
    checked: results.length + notSessions,
    upToDate: results.length - changed.length,
    needMigration: write ? 0 : changed.length,
    migrated,
    failed,
    fromVersions,
    unreadable: unreadableCount,
    notSessions,
  };
}

export const action: Action = async (ctx, [paths], options) => {
  const args = (paths ?? []) as string[];
  if (options.randomIds === true && options.deterministic === true) {
    throw new UsageError("give either --deterministic or --random-ids, not both");
  }
  const randomId = options.randomIds === true ? () => randomUUID().slice(0, 8) : undefined;
  const named = await sessionTargets(ctx, args, options, "checking");
  const { files, notSessions } = named;
  const skipped = named.unreadable;
  const write = options.write === true;
  // One file, or --verbose: every file's line; else those that change, the first ones in a dry run.
  const verbose = options.verbose === true || named.single;
  const progress = ctx.io.progress(write ? "migrating" : "checking");
  const results: Result[] = [];
  let listed = 0;
  let unlisted = 0;
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
    if (!splitSession(read.records).header) {
      // No header: nothing to migrate (pi does not read it as a session); said, not migrated.
      notSessions.push({ path: file, kind: size === 0 ? "empty" : "not a session" });
      progress.update(i + 1, files.length);
      continue;
    }
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
        error = e instanceof Error ? e.message : String(e);
      }
    }
    results.push({ file, ...report, written, backupPath, error });
    progress.update(i + 1, files.length);
    if (ctx.json) continue;
    if (error) ctx.io.error(oneLineField(`${file}: not written: ${error}`));
    const shown = verbose || (report.changed && (write || listed < DRY_RUN_LISTED));
    if (!shown) {
      if (report.changed) unlisted++;
      continue;
    }
    if (report.changed) listed++;
    const c = ctx.io.out;
    const what = report.changed
      ? `v${report.fromVersion} -> v${report.toVersion}: ${report.idsAssigned} ids assigned, ${report.indexesMapped.length} compaction indexes mapped, ${report.rolesRenamed} roles renamed, ${report.rawRecordsKept} malformed lines kept`
      : `v${report.fromVersion}: up to date`;
    ctx.io.line(`${oneLineField(file)}: ${what}`);
    for (const u of report.unmappedIndexes)
      ctx.io.line(c.yellow(oneLineField(`  line ${u.line}: firstKeptEntryIndex ${u.index}: ${u.reason}`)));
    for (const note of report.notes) ctx.io.line(c.dim(`  ${oneLineField(note)}`));
    if (written) ctx.io.line(c.green(`  written; backup: ${oneLineField(backupPath ?? "(none)")}`));
  }
  progress.end();
  warnSkipped(ctx.io, skipped, notSessions);
  const summary = summarize(results, skipped.length, notSessions.length, write);
  const changed = results.some((r) => r.changed);
  if (ctx.json) ctx.io.printJson({ write, files: results, unreadable: skipped, summary });
  else {
    if (unlisted > 0) ctx.io.line(`… and ${unlisted} more to migrate (--verbose lists every file)`);
    ctx.io.line(summaryLine(summary, write));
    if (!write && changed) ctx.io.info("dry run: nothing written; run again with --write to migrate");
  }
  // Something to migrate in a dry run, or a write that failed, needs fixing (exit 1).
  const needsFixing = summary.failed > 0 || (!write && changed);
  return exitCode(skipped, needsFixing ? EXIT_FAILURE : EXIT_OK);
};
