/**
 * `repair [session...] [--all] [--write]`: what a repair would fix in session files (named as
 * `targets.ts` says; several end with a summary line), and with `--write` the fix: a torn tail
 * (a whole JSON line gets its `\n`, a fragment is cut) and extra header lines (cut); the rest
 * is reported and left alone. Bytes not cut are kept as they are; the file is rewritten
 * atomically by node-store with a backup, the cut bytes kept in `<file>.removed-<time>`.
 */
import { dirname } from "node:path";
import { type Diagnostic, type RawRecord, splitSession } from "@pi-session/format";
import {
  type ByteRange,
  SessionFileChangedError,
  readByteRanges,
  removeDeadTempFiles,
  rewriteSessionFile,
  statPath,
} from "@pi-session/node-store";
import { CliError, EXIT_FAILURE, EXIT_OK } from "../errors.js";
import { type FileRecords, readRecords } from "../load.js";
import type { Action, Context } from "../program.js";
import { sessionTargets } from "../targets.js";
import { oneLineField } from "../terminal-safe.js";
import { exitCode, unreadable, warnSkipped } from "../unreadable.js";

/** One change the repair makes. */
export interface Fix {
  /** `torn-tail` (last line without `\n`) or `duplicate-header` (an extra session line). */
  kind: "torn-tail" | "duplicate-header";
  /** `complete`: append the missing `\n`; `remove`: cut the line (saved in the sidecar). */
  action: "complete" | "remove";
  line: number;
  offset: number;
  /** Bytes cut (the line and its `\n`, if it had one); 0 for `complete`. */
  removedBytes: number;
  reason: string;
}

export interface RepairPlan {
  fixes: Fix[];
  /** Problems repair does not change (malformed lines inside the file, header order, ...). */
  leftAlone: Diagnostic[];
  sizeBefore: number;
  sizeAfter: number;
}

/** Works out the fixes for a file that has a usable header. */
export function planRepair(read: FileRecords): RepairPlan {
  const view = splitSession(read.records);
  const fixes: Fix[] = [];
  const removedLines = new Set<number>();
  for (const rec of view.extraHeaders) {
    const removedBytes = rec.byteLength + (rec.terminated ? 1 : 0);
    removedLines.add(rec.line);
    fixes.push({
      kind: "duplicate-header",
      action: "remove",
      line: rec.line,
      offset: rec.offset,
      removedBytes,
      reason: `extra "session" header line (the header is line ${view.header?.line ?? "?"}); pi ignores it`,
    });
  }
  const torn = read.tornTail;
  if (torn && !removedLines.has(torn.line)) {
    fixes.push(
      torn.kind === "json"
        ? {
            kind: "torn-tail",
            action: "complete",
            line: torn.line,
            offset: torn.offset,
            removedBytes: 0,
            reason: "the last line is complete JSON but has no \\n",
          }
        : {
            kind: "torn-tail",
            action: "remove",
            line: torn.line,
            offset: torn.offset,
            removedBytes: torn.byteLength,
            reason: `the last line is a fragment of ${torn.byteLength} bytes without \\n (an interrupted write)`,
          },
    );
  }
  fixes.sort((a, b) => a.offset - b.offset);
  const fixedCodes = new Set(["torn-tail", "duplicate-header"]);
  const fixedLines = new Set(fixes.map((f) => f.line));
  const leftAlone = [...read.diagnostics, ...view.diagnostics]
    .filter((d) => !fixedCodes.has(d.code) && !fixedLines.has(d.line))
    .map((d) => ({ ...d, file: read.path }))
    .sort((a, b) => a.line - b.line || a.offset - b.offset);
  const removed = fixes.reduce((n, f) => n + f.removedBytes, 0);
  const completed = fixes.some((f) => f.action === "complete") ? 1 : 0;
  return { fixes, leftAlone, sizeBefore: read.size, sizeAfter: read.size - removed + completed };
}

/** The bytes of `ranges`, read from one open of the file; a file that shrank meanwhile stops the repair. */
function readRanges(path: string, ranges: readonly ByteRange[]): Buffer[] {
  try {
    return readByteRanges(path, ranges);
  } catch (error) {
    if (error instanceof SessionFileChangedError && error.reason === "truncated")
      throw new CliError("the file got shorter while it was being repaired; nothing written");
    throw error;
  }
}

/**
 * The repaired file as records for node-store's rewrite (each kept stretch of bytes as one raw
 * record, so nothing is re-serialized), and the cut bytes in file order.
 */
function splitBytes(path: string, plan: RepairPlan): { records: RawRecord[]; removed: Buffer } {
  const cuts: ByteRange[] = plan.fixes
    .filter((f) => f.action === "remove")
    .map((f) => ({ start: f.offset, end: f.offset + f.removedBytes }));
  const kept: ByteRange[] = [];
  let at = 0;
  for (const cut of cuts) {
    if (cut.start > at) kept.push({ start: at, end: cut.start });
    at = cut.end;
  }
  if (plan.sizeBefore > at) kept.push({ start: at, end: plan.sizeBefore });
  const bytes = readRanges(path, [...cuts, ...kept]);
  const removed = Buffer.concat(bytes.slice(0, cuts.length));
  const records = kept.map((range, i): RawRecord => {
    const stretch = bytes[cuts.length + i] as Buffer;
    // The serializer adds one `\n` after each record: drop the stretch's own final `\n`.
    // A stretch at the end of a file without a final `\n` keeps all its bytes and so gets
    // the `\n` it was missing (the `complete` fix).
    const body = stretch[stretch.length - 1] === 10 ? stretch.subarray(0, stretch.length - 1) : stretch;
    return {
      kind: "raw",
      bytes: body,
      text: "",
      reason: "kept as is",
      line: 0,
      offset: range.start,
      byteLength: body.length,
      terminated: true,
    };
  });
  return { records, removed };
}

function where(line: number, offset: number): string {
  return `line ${line} (byte ${offset})`;
}

/** One file's repair, as `--json` gives it. */
export interface RepairResult {
  file: string;
  write: boolean;
  written: boolean;
  clean: boolean;
  fixes: Fix[];
  leftAlone: Diagnostic[];
  sizeBefore: number;
  sizeAfter: number;
  backupPath: string | null;
  removedPath: string | null;
  deadTempFiles: string[];
}

/**
 * Plans (and with `write` makes) the repair of one file and prints it (text output); throws a
 * {@link CliError} when the file cannot be repaired. Dead temp files are looked for once per
 * directory (`tempDirs` holds those done).
 */
async function repairFile(
  ctx: Context,
  path: string,
  write: boolean,
  tempDirs: Set<string>,
  onNotSession?: () => void,
): Promise<RepairResult | null> {
  // The lines pi skips are not kept: a repair cuts byte ranges of the file (read again when
  // it writes), not records, and reports those lines from their diagnostics.
  const read = await readRecords(path, { onlyLinesPiReads: true });
  const view = splitSession(read.records);
  if (!view.header && onNotSession) {
    onNotSession();
    return null;
  }
  if (!view.header) {
    const first = view.diagnostics.find((d) => d.code === "missing-header");
    throw new CliError(
      `${path}${first ? `:${first.line} (byte ${first.offset})` : ""}: not a pi session (${first?.reason ?? "no session header"}); repair needs a valid header and changes nothing`,
      { hint: "Run `pi-session validate` on it for every problem in the file." },
    );
  }
  const plan = planRepair(read);
  // Temp files that killed writers (a `migrate --write`, a `name` on a v1 file, a `fork`) left
  // beside it: removed with --write, listed without (only those whose writer is provably gone).
  const deadTempFiles = tempDirs.has(dirname(path))
    ? []
    : removeDeadTempFiles(dirname(path), { dryRun: !write });
  tempDirs.add(dirname(path));
  let backupPath: string | null = null;
  let removedPath: string | null = null;
  let written = false;
  if (write && plan.fixes.length > 0) {
    const { records, removed } = splitBytes(path, plan);
    try {
      // The cut bytes go to a `.removed-<time>` sidecar, removed again if the rewrite fails.
      const result = rewriteSessionFile(path, records, {
        backup: true,
        expectedSize: plan.sizeBefore,
        removedBytes: removed,
      });
      backupPath = result.backupPath ?? null;
      removedPath = result.removedPath ?? null;
      written = true;
    } catch (error) {
      if (error instanceof SessionFileChangedError) {
        throw new CliError(`${path}: changed while repairing (${error.reason}); nothing written`, {
          hint: "Another process is writing it; run the repair again once it is idle.",
        });
      }
      throw error;
    }
  }
  const result: RepairResult = {
    file: path,
    write,
    written,
    clean: plan.fixes.length === 0,
    fixes: plan.fixes,
    leftAlone: plan.leftAlone,
    sizeBefore: plan.sizeBefore,
    sizeAfter: plan.sizeAfter,
    backupPath,
    removedPath,
    deadTempFiles,
  };
  if (!ctx.json) {
    const c = ctx.io.out;
    if (plan.fixes.length === 0) ctx.io.line(`${oneLineField(path)}: ${c.green("nothing to repair")}`);
    else {
      const n = `${plan.fixes.length} fix${plan.fixes.length === 1 ? "" : "es"}`;
      ctx.io.line(`${oneLineField(path)}: ${written ? c.green(`repaired, ${n}`) : c.yellow(`${n} to make`)}`);
      for (const f of plan.fixes) {
        const what =
          f.action === "complete"
            ? "add the missing \\n"
            : `cut ${f.removedBytes} bytes (kept in the sidecar)`;
        ctx.io.line(oneLineField(`  ${where(f.line, f.offset)}: ${f.kind}: ${f.reason}: ${what}`));
      }
      ctx.io.line(`  size ${plan.sizeBefore} -> ${plan.sizeAfter} bytes`);
    }
    if (plan.leftAlone.length > 0) {
      ctx.io.line(c.dim("  left alone (pi copes with these; see `pi-session validate`):"));
      for (const d of plan.leftAlone)
        ctx.io.line(c.dim(oneLineField(`    ${where(d.line, d.offset)}: ${d.reason} [${d.code}]`)));
    }
    if (deadTempFiles.length > 0) {
      const n = `${deadTempFiles.length} temp file${deadTempFiles.length === 1 ? "" : "s"} left by killed writers`;
      ctx.io.line(`  ${write ? `removed ${n}` : `${n} (--write removes them)`}:`);
      for (const temp of deadTempFiles) ctx.io.line(`    ${oneLineField(temp)}`);
    }
    if (written) {
      ctx.io.info(`backup: ${oneLineField(backupPath ?? "(none)")}`);
      if (removedPath !== null) ctx.io.info(`removed bytes: ${oneLineField(removedPath)}`);
    }
  }
  return result;
}

/** `12 sessions checked: 10 clean, 1 needs repair (2 fixes), 1 cannot be repaired`. */
function summaryLine(
  results: readonly RepairResult[],
  failed: number,
  unreadableCount: number,
  notSessions: number,
): string {
  const clean = results.filter((r) => r.clean).length;
  const repaired = results.filter((r) => r.written).length;
  const pending = results.filter((r) => !r.clean && !r.written);
  const fixes = pending.reduce((n, r) => n + r.fixes.length, 0);
  const parts = [`${clean} clean`];
  if (repaired > 0) parts.push(`${repaired} repaired`);
  if (pending.length > 0)
    parts.push(
      `${pending.length} need${pending.length === 1 ? "s" : ""} repair (${fixes} fix${fixes === 1 ? "" : "es"})`,
    );
  if (failed > 0) parts.push(`${failed} cannot be repaired`);
  if (notSessions > 0) parts.push(`${notSessions} not ${notSessions === 1 ? "a session" : "sessions"}`);
  if (unreadableCount > 0) parts.push(`${unreadableCount} could not be read`);
  const n = results.length + failed + notSessions;
  return `${n} session${n === 1 ? "" : "s"} checked: ${parts.join(", ")}`;
}

export const action: Action = async (ctx, [paths], options) => {
  const args = (paths ?? []) as string[];
  const write = options.write === true;
  const named = await sessionTargets(ctx, args, options, "checking");
  const { files, notSessions } = named;
  const skipped = named.unreadable;
  const tempDirs = new Set<string>();
  // A dry run that finds something to fix is a finding (exit 1); a clean or repaired file is 0.
  const needsFixing = (r: RepairResult) => !r.clean && !r.written;
  if (named.single) {
    // One file: its report as it always was (an error when it cannot be repaired).
    const result = (await repairFile(ctx, files[0] as string, write, tempDirs)) as RepairResult;
    if (ctx.json) ctx.io.printJson(result);
    else if (needsFixing(result)) ctx.io.info("dry run: nothing written; run again with --write to repair");
    return needsFixing(result) ? EXIT_FAILURE : EXIT_OK;
  }
  const results: RepairResult[] = [];
  const failures: { file: string; error: string }[] = [];
  for (const file of files) {
    try {
      // In a batch a file without a header is left out, said, as by the other batches.
      const size = () => statPath(file)?.size ?? 0;
      const notSession = () =>
        notSessions.push({ path: file, kind: size() === 0 ? "empty" : "not a session" });
      const result = await repairFile(ctx, file, write, tempDirs, notSession);
      if (result) results.push(result);
    } catch (error) {
      // A file that cannot be read is skipped (exit 3); one that is no session cannot be repaired.
      const item = unreadable(file, error);
      if (item) {
        skipped.push(item);
        continue;
      }
      if (!(error instanceof CliError)) throw error;
      failures.push({ file, error: error.message });
      if (!ctx.json) ctx.io.error(oneLineField(error.message));
    }
  }
  warnSkipped(ctx.io, skipped, notSessions);
  const summary = summaryLine(results, failures.length, skipped.length, notSessions.length);
  if (ctx.json) ctx.io.printJson({ write, files: results, failed: failures, unreadable: skipped, summary });
  else {
    ctx.io.line(summary);
    if (results.some(needsFixing)) ctx.io.info("dry run: nothing written; run again with --write to repair");
  }
  const fix = failures.length > 0 || results.some(needsFixing);
  return exitCode(skipped, fix ? EXIT_FAILURE : EXIT_OK);
};
