/**
 * `validate [session...] [--all]`: every problem in session files (named as `targets.ts` says:
 * ids, `latest`, paths, directories searched for `*.jsonl`, the store, the current project),
 * each with its line, byte offset and reason: lines that are no JSON objects, torn tails, the
 * header, the schema (`--strict` for the strict one), the tree, the version. Every problem is
 * counted, at most `--max-diagnostics` per file (default 1,000) listed; a summary line ends the
 * report. Exit 1 on an error, 3 when something could not be read.
 */
import { type Diagnostic, detectVersion, formatDiagnostic, splitSession } from "@pi-session/format";
import { validateRecords } from "@pi-session/format/schema";
import { SessionIndex } from "@pi-session/tree";
import { EXIT_FAILURE, EXIT_OK, UsageError } from "../errors.js";
import { stringOption } from "./common.js";
import { readRecords } from "../load.js";
import type { Action } from "../program.js";
import { sessionTargets } from "../targets.js";
import { exitCode, unreadable, warnSkipped } from "../unreadable.js";
import { oneLineField } from "../terminal-safe.js";

/** Diagnostics listed per file unless `--max-diagnostics` says otherwise. */
export const DEFAULT_MAX_DIAGNOSTICS = 1000;

export interface FileReport {
  file: string;
  version: number | null;
  entries: number;
  /** Every error and warning, listed or not. */
  errors: number;
  warnings: number;
  /** The first diagnostics in line order, up to the limit. */
  diagnostics: Diagnostic[];
  /** Diagnostics counted in `errors` and `warnings` but not listed. */
  omittedDiagnostics: number;
}

export async function validateFile(
  path: string,
  strict: boolean,
  maxDiagnostics: number,
): Promise<FileReport> {
  // A report never writes the file back, so the lines pi skips need not be kept (the codec
  // still reports each of them, up to the limit, and counts the rest).
  const parsed = await readRecords(path, { maxDiagnostics, onlyLinesPiReads: true });
  const view = splitSession(parsed.records);
  const diagnostics: Diagnostic[] = [...parsed.diagnostics, ...view.diagnostics];
  const version = view.header ? detectVersion(view.header.value) : null;
  // Schema of each JSON line, against the schemas of the file's own version.
  diagnostics.push(...validateRecords(parsed.records, { strict, ...(version !== null ? { version } : {}) }));
  // v1 files have no ids, so there is no tree to check.
  if (version !== null && version >= 2) {
    const index = SessionIndex.fromRecords(parsed.records);
    for (const d of index.diagnostics) {
      diagnostics.push({
        code: d.code,
        severity: d.severity,
        line: d.line ?? 0,
        offset: d.offset ?? 0,
        reason: d.reason,
      });
    }
  }
  diagnostics.sort((a, b) => a.line - b.line || a.offset - b.offset);
  // The codec kept its first `maxDiagnostics` (all it left out are errors), so the first ones
  // overall are among those kept.
  let errors = parsed.omittedDiagnostics;
  let warnings = 0;
  for (const d of diagnostics) {
    if (d.severity === "error") errors++;
    else warnings++;
  }
  const listed = diagnostics.length > maxDiagnostics ? diagnostics.slice(0, maxDiagnostics) : diagnostics;
  return {
    file: path,
    version,
    entries: view.entries.length,
    errors,
    warnings,
    diagnostics: listed.map((d) => ({ ...d, file: path })),
    omittedDiagnostics: parsed.omittedDiagnostics + diagnostics.length - listed.length,
  };
}

/** `--max-diagnostics N` (a whole number, or `all`). */
function maxDiagnosticsOption(options: Record<string, unknown>): number {
  const raw = stringOption(options, "maxDiagnostics", "--max-diagnostics");
  if (raw === undefined) return DEFAULT_MAX_DIAGNOSTICS;
  if (raw === "all") return Number.POSITIVE_INFINITY;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) {
    throw new UsageError(`--max-diagnostics needs a whole number or \`all\`, got \`${raw}\``);
  }
  return n;
}

/** The counts of the summary line and of `--json`'s `summary`. */
export interface ValidateSummary {
  checked: number;
  valid: number;
  needsMigration: number;
  withErrors: number;
  /** Errors and warnings of the files with errors. */
  diagnostics: number;
  unreadable: number;
}

export function summarize(reports: readonly FileReport[], unreadableCount: number): ValidateSummary {
  const withErrors = reports.filter((r) => r.errors > 0);
  const needsMigration = reports.filter((r) => r.errors === 0 && r.version !== null && r.version < 3).length;
  return {
    checked: reports.length,
    valid: reports.length - withErrors.length - needsMigration,
    needsMigration,
    withErrors: withErrors.length,
    diagnostics: withErrors.reduce((n, r) => n + r.errors + r.warnings, 0),
    unreadable: unreadableCount,
  };
}

/** `12 sessions checked: 10 valid, 1 needs migration, 1 has errors (3 diagnostics)`. */
function summaryLine(s: ValidateSummary): string {
  const parts = [`${s.valid} valid`];
  if (s.needsMigration > 0)
    parts.push(`${s.needsMigration} need${s.needsMigration === 1 ? "s" : ""} migration`);
  if (s.withErrors > 0)
    parts.push(
      `${s.withErrors} ha${s.withErrors === 1 ? "s" : "ve"} errors (${s.diagnostics} diagnostic${s.diagnostics === 1 ? "" : "s"})`,
    );
  if (s.unreadable > 0) parts.push(`${s.unreadable} could not be read`);
  return `${s.checked} session${s.checked === 1 ? "" : "s"} checked: ${parts.join(", ")}`;
}

export const action: Action = async (ctx, [paths], options) => {
  const args = (paths ?? []) as string[];
  const strict = options.strict === true;
  const maxDiagnostics = maxDiagnosticsOption(options);
  const { files, unreadable: skipped, notSessions } = await sessionTargets(ctx, args, options, "checking");
  const progress = ctx.io.progress("validating");
  const reports: FileReport[] = [];
  for (const [i, file] of files.entries()) {
    try {
      reports.push(await validateFile(file, strict, maxDiagnostics));
    } catch (error) {
      const item = unreadable(file, error);
      if (!item) throw error;
      skipped.push(item);
    }
    progress.update(i + 1, files.length);
  }
  progress.end();
  warnSkipped(ctx.io, skipped, notSessions);
  const errors = reports.reduce((n, r) => n + r.errors, 0);
  const warnings = reports.reduce((n, r) => n + r.warnings, 0);
  const summary = summarize(reports, skipped.length);
  if (ctx.json) {
    ctx.io.printJson({ strict, files: reports, errors, warnings, unreadable: skipped, summary });
  } else {
    const c = ctx.io.out;
    for (const r of reports) {
      const status = r.errors > 0 ? c.red("errors") : r.warnings > 0 ? c.yellow("warnings") : c.green("ok");
      const version = r.version === null ? "no header" : `v${r.version}`;
      ctx.io.line(
        `${oneLineField(r.file)}: ${status} (${version}, ${r.entries} entries, ${r.errors} errors, ${r.warnings} warnings)`,
      );
      for (const d of r.diagnostics) ctx.io.line(`  ${oneLineField(formatDiagnostic(d))}`);
      if (r.omittedDiagnostics > 0) {
        const more = `${r.omittedDiagnostics} more not listed`;
        ctx.io.line(`  … ${more} (counted above; \`--max-diagnostics all\` lists every one)`);
      }
    }
    ctx.io.line(summaryLine(summary));
  }
  return exitCode(skipped, errors > 0 ? EXIT_FAILURE : EXIT_OK);
};
