/**
 * `validate <path...>`: every problem in session files, each with its line, byte offset and
 * reason: lines that are not JSON objects, torn tails, header problems, tree problems
 * (duplicate ids, cycles, dangling parents and label targets), and the format version.
 * Directories are searched for `*.jsonl`. Exit 1 when any file has an error.
 */
import { readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import type { CAC } from "cac";
import {
  type Diagnostic,
  detectVersion,
  formatDiagnostic,
  parseSessionBytes,
  splitSession,
} from "@pi-session/format";
import { SessionIndex } from "@pi-session/tree";
import { CliError, UsageError } from "../errors.js";
import { readBytes } from "../load.js";
import type { CommandSpec, Context, Runner } from "../program.js";

export interface FileReport {
  file: string;
  version: number | null;
  entries: number;
  errors: number;
  warnings: number;
  diagnostics: Diagnostic[];
}

/** Files named by the arguments: files as given, directories searched for `*.jsonl`. */
export function expandPaths(ctx: Context, args: readonly string[]): string[] {
  const files: string[] = [];
  for (const arg of args) {
    const full = resolve(ctx.cwd, arg);
    let st: ReturnType<typeof statSync>;
    try {
      st = statSync(full);
    } catch {
      throw new CliError(`${arg}: no such file or directory`, { hint: "Check the path." });
    }
    if (!st.isDirectory()) {
      files.push(full);
      continue;
    }
    const stack = [full];
    const found: string[] = [];
    while (stack.length > 0) {
      const dir = stack.pop() as string;
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) stack.push(path);
        else if (entry.isFile() && entry.name.endsWith(".jsonl")) found.push(path);
      }
    }
    files.push(...found.sort());
  }
  return files;
}

export function validateFile(path: string): FileReport {
  const { bytes } = readBytes(path);
  const parsed = parseSessionBytes(bytes);
  const view = splitSession(parsed.records);
  const diagnostics: Diagnostic[] = [...parsed.diagnostics, ...view.diagnostics];
  const version = view.header ? detectVersion(view.header.value) : null;
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

export const validate: CommandSpec = {
  register(cli: CAC, run: Runner) {
    return cli
      .command("validate <...paths>", "Check session files: bad lines, header, tree problems, version")
      .option("--strict", "Also check every entry against format's strict schema")
      .example("  $ pi-session validate ~/.pi/agent/sessions")
      .example("  $ pi-session validate broken.jsonl --json")
      .action(
        run(async (ctx, [paths], options) => {
          const args = paths as string[];
          if (args.length === 0) throw new UsageError("validate needs at least one path");
          if (options.strict === true) {
            throw new CliError(
              "--strict needs the strict schema of @pi-session/format, which is not available in this build",
            );
          }
          const files = expandPaths(ctx, args);
          const progress = ctx.io.progress("validating");
          const reports: FileReport[] = [];
          files.forEach((file, i) => {
            reports.push(validateFile(file));
            progress.update(i + 1, files.length);
          });
          progress.end();
          const errors = reports.reduce((n, r) => n + r.errors, 0);
          const warnings = reports.reduce((n, r) => n + r.warnings, 0);
          if (ctx.json) {
            ctx.io.printJson({ files: reports, errors, warnings });
          } else {
            const c = ctx.io.out;
            for (const r of reports) {
              const status =
                r.errors > 0 ? c.red("errors") : r.warnings > 0 ? c.yellow("warnings") : c.green("ok");
              const version = r.version === null ? "no header" : `v${r.version}`;
              ctx.io.line(
                `${r.file}: ${status} (${version}, ${r.entries} entries, ${r.errors} errors, ${r.warnings} warnings)`,
              );
              for (const d of r.diagnostics) ctx.io.line(`  ${formatDiagnostic(d)}`);
            }
            if (reports.length > 1)
              ctx.io.line(`${reports.length} files, ${errors} errors, ${warnings} warnings`);
          }
          return errors > 0 ? 1 : 0;
        }),
      );
  },
};
