/**
 * `validate <path...>`: every problem in session files, each with its line, byte offset and
 * reason: lines that are not JSON objects, torn tails, header problems, schema problems of
 * each line (format's open schema, or the strict one with `--strict`), tree problems
 * (duplicate ids, cycles, dangling parents and label targets), and the format version.
 * Directories are searched for `*.jsonl`. Exit 1 when any file has an error; 3 when a file
 * or directory could not be read (each is reported, the others are checked).
 */
import { type Diagnostic, detectVersion, formatDiagnostic, splitSession } from "@pi-session/format";
import { validateRecords } from "@pi-session/format/schema";
import { SessionIndex } from "@pi-session/tree";
import { EXIT_FAILURE, EXIT_OK, UsageError } from "../errors.js";
import { readRecords } from "../load.js";
import { expandPaths } from "../paths.js";
import type { Action } from "../program.js";
import { exitCode, unreadable, warnUnreadable } from "../unreadable.js";
import { oneLineField } from "../terminal-safe.js";

export interface FileReport {
  file: string;
  version: number | null;
  entries: number;
  errors: number;
  warnings: number;
  diagnostics: Diagnostic[];
}

export async function validateFile(path: string, strict: boolean): Promise<FileReport> {
  const parsed = await readRecords(path);
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
  const withFile = diagnostics.map((d) => ({ ...d, file: path }));
  return {
    file: path,
    version,
    entries: view.entries.length,
    errors: withFile.filter((d) => d.severity === "error").length,
    warnings: withFile.filter((d) => d.severity === "warning").length,
    diagnostics: withFile,
  };
}

export const action: Action = async (ctx, [paths], options) => {
  const args = paths as string[];
  if (args.length === 0) throw new UsageError("validate needs at least one path");
  const strict = options.strict === true;
  const { files, unreadable: skipped } = expandPaths(ctx, args);
  const progress = ctx.io.progress("validating");
  const reports: FileReport[] = [];
  for (const [i, file] of files.entries()) {
    try {
      reports.push(await validateFile(file, strict));
    } catch (error) {
      const item = unreadable(file, error);
      if (!item) throw error;
      skipped.push(item);
    }
    progress.update(i + 1, files.length);
  }
  progress.end();
  warnUnreadable(ctx.io, skipped);
  const errors = reports.reduce((n, r) => n + r.errors, 0);
  const warnings = reports.reduce((n, r) => n + r.warnings, 0);
  if (ctx.json) {
    ctx.io.printJson({ strict, files: reports, errors, warnings, unreadable: skipped });
  } else {
    const c = ctx.io.out;
    for (const r of reports) {
      const status = r.errors > 0 ? c.red("errors") : r.warnings > 0 ? c.yellow("warnings") : c.green("ok");
      const version = r.version === null ? "no header" : `v${r.version}`;
      ctx.io.line(
        `${oneLineField(r.file)}: ${status} (${version}, ${r.entries} entries, ${r.errors} errors, ${r.warnings} warnings)`,
      );
      for (const d of r.diagnostics) ctx.io.line(`  ${oneLineField(formatDiagnostic(d))}`);
    }
    const cannot = skipped.length > 0 ? `, ${skipped.length} could not be read` : "";
    if (reports.length > 1 || cannot) {
      ctx.io.line(`${reports.length} files, ${errors} errors, ${warnings} warnings${cannot}`);
    }
  }
  return exitCode(skipped, errors > 0 ? EXIT_FAILURE : EXIT_OK);
};
