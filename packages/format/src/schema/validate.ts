/**
 * The validation API: {@link validateEntry} and {@link validateHeader} check one value,
 * {@link validateRecords} the JSON records of a whole file, as diagnostics with line and byte
 * offset. Use these to check untrusted data; the checks behind them are compiled on first use.
 */
import type { Diagnostic, SessionRecord } from "../records.js";
import { headerVersion } from "../types.js";
import { fastCheck } from "./checks.js";
import { checkEntry } from "./dispatch.js";
import { type ValidationIssue, explainFailure } from "./explain.js";
import { type ValidateOptions, schemasFor } from "./sets.js";

/** Issues reported per record at most; the rest are summarised. */
const MAX_ISSUES_PER_RECORD = 5;

/** Checks one entry line (not the header). Empty result = valid. */
export function validateEntry(value: unknown, opts: ValidateOptions = {}): ValidationIssue[] {
  const schema = schemasFor(opts).Entry;
  return checkEntry(schema, value) ? [] : explainFailure(schema, value);
}

/** Checks a header line. Empty result = valid. */
export function validateHeader(value: unknown, opts: ValidateOptions = {}): ValidationIssue[] {
  const schema = schemasFor(opts).Header;
  return fastCheck(schema)(value) ? [] : explainFailure(schema, value);
}

/**
 * Validates the JSON records of a file: `type:"session"` lines as headers, the rest as
 * entries of the file's version (from `opts.version`, else from the first header, else 3).
 * One `schema` diagnostic per issue, with the record's line and offset.
 */
export function validateRecords(records: readonly SessionRecord[], opts: ValidateOptions = {}): Diagnostic[] {
  let version = opts.version;
  if (version === undefined) {
    const header = records.find((r) => r.kind === "json" && r.value.type === "session");
    version = header?.kind === "json" ? headerVersion(header.value) : 3;
  }
  const set = schemasFor({ strict: opts.strict === true, version });
  const entrySchema = set.Entry;
  const header = fastCheck(set.Header);
  const out: Diagnostic[] = [];
  for (const rec of records) {
    if (rec.kind !== "json") continue;
    const value = rec.value;
    const isHeader = value.type === "session";
    // Valid records (nearly all) cost one compiled check and allocate nothing.
    if (isHeader ? header(value) : checkEntry(entrySchema, value)) continue;
    const issues = explainFailure(isHeader ? set.Header : entrySchema, value);
    const what = isHeader ? "header" : `${describeType(value.type)} entry`;
    issues.slice(0, MAX_ISSUES_PER_RECORD).forEach((issue, k) => {
      const more =
        k === MAX_ISSUES_PER_RECORD - 1 && issues.length > MAX_ISSUES_PER_RECORD
          ? ` (and ${issues.length - MAX_ISSUES_PER_RECORD} more)`
          : "";
      out.push({
        code: "schema",
        severity: "error",
        line: rec.line,
        offset: rec.offset,
        reason: `${what}: ${issue.path || "/"}: ${issue.message}${more}`,
      });
    });
  }
  return out;
}

function describeType(type: unknown): string {
  return typeof type === "string" ? JSON.stringify(type) : "untyped";
}
