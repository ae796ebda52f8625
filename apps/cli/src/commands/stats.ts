/**
 * `stats [<session> | --all]`: tokens and cost from assistant usage, `usage` entries and
 * compaction and branch-summary usage, counted once per lineage (see `../stats.ts`).
 */
import { resolve } from "node:path";
import { splitSession } from "@pi-session/format";
import { CliError, UsageError } from "../errors.js";
import { readRecords } from "../load.js";
import { listSessionFiles, projectDirName, sessionsRoot } from "../locate.js";
import type { Action, Context } from "../program.js";
import { type GroupBy, type StatsSession, type TokenTotals, computeStats } from "../stats.js";
import { formatCost, formatInt, table } from "../text.js";
import { oneLineField } from "../terminal-safe.js";
import { sessionPath, sinceOption, stringOption } from "./common.js";

const GROUPS: readonly GroupBy[] = ["model", "day", "project", "session"];

/** The header fields and raw entries of one file (usage needs no migration). */
export async function statsSession(path: string, project: string): Promise<StatsSession | undefined> {
  const view = splitSession((await readRecords(path)).records);
  if (!view.header) return undefined;
  const h = view.header.value;
  const parent =
    typeof h.parentSession === "string"
      ? h.parentSession
      : typeof h.branchedFrom === "string"
        ? h.branchedFrom
        : undefined;
  return {
    path,
    id: h.id,
    project: typeof h.cwd === "string" && h.cwd !== "" ? h.cwd : project,
    parentPath: parent,
    created: typeof h.timestamp === "string" ? h.timestamp : "",
    entries: view.entries.map((r) => r.value),
  };
}

function selectFiles(ctx: Context, arg: unknown, all: boolean): { path: string; project: string }[] {
  if (typeof arg === "string" && all) throw new UsageError("give either <session> or --all, not both");
  if (typeof arg === "string") return [{ path: sessionPath(ctx, arg), project: "" }];
  const { root } = sessionsRoot({ env: ctx.env, cwd: ctx.cwd, sessionDir: ctx.sessionDir });
  const files = listSessionFiles(root);
  if (all) return files.map((f) => ({ path: f.path, project: f.project }));
  const project = projectDirName(resolve(ctx.cwd));
  const mine = files.filter((f) => f.project === project);
  if (mine.length === 0) {
    throw new CliError(`no sessions for ${ctx.cwd} under ${root}`, {
      hint: "Use --all for every project, or pass a <session>.",
    });
  }
  return mine.map((f) => ({ path: f.path, project: f.project }));
}

function totalsJson(t: TokenTotals) {
  return {
    input: t.input,
    output: t.output,
    cacheRead: t.cacheRead,
    cacheWrite: t.cacheWrite,
    totalTokens: t.totalTokens,
    cost: t.cost,
    records: t.records,
    zeroCostWithTokens: t.zeroCostWithTokens,
  };
}

export const action: Action = async (ctx, [arg], options) => {
  const byRaw = stringOption(options, "by", "--by");
  if (byRaw !== undefined && !GROUPS.includes(byRaw as GroupBy)) {
    throw new UsageError(`--by must be one of ${GROUPS.join(", ")}; got \`${byRaw}\``);
  }
  const by = byRaw as GroupBy | undefined;
  const sinceMs = sinceOption(options);
  const files = selectFiles(ctx, arg, options.all === true);
  const progress = ctx.io.progress("reading");
  const sessions: StatsSession[] = [];
  let skipped = 0;
  for (const [i, f] of files.entries()) {
    const s = await statsSession(f.path, f.project);
    if (s) sessions.push(s);
    else {
      skipped++;
      ctx.io.warn(`${oneLineField(f.path)}: not a pi session (no header); skipped`);
    }
    progress.update(i + 1, files.length);
  }
  progress.end();
  const result = computeStats(sessions, {
    ...(by ? { by } : {}),
    ...(sinceMs !== undefined ? { sinceMs } : {}),
  });
  if (ctx.json) {
    ctx.io.printJson({
      sessions: result.sessions,
      skippedFiles: skipped,
      duplicatesSkipped: result.duplicatesSkipped,
      since: sinceMs === undefined ? null : new Date(sinceMs).toISOString(),
      totals: totalsJson(result.totals),
      by: result.by,
      rows: result.rows.map((r) => ({ key: r.key, ...totalsJson(r) })),
    });
    return 0;
  }
  const c = ctx.io.out;
  const header = [by ?? "total", "input", "output", "cache read", "cache write", "cost", "records"];
  const row = (key: string, t: TokenTotals) => [
    key,
    formatInt(t.input),
    formatInt(t.output),
    formatInt(t.cacheRead),
    formatInt(t.cacheWrite),
    formatCost(t.cost) + (t.zeroCostWithTokens > 0 ? c.yellow("*") : ""),
    String(t.records),
  ];
  const rows = [header.map((h) => c.bold(h))];
  for (const r of result.rows) rows.push(row(r.key, r));
  if (by) rows.push(row(c.bold("total"), result.totals));
  else rows.push(row("total", result.totals));
  for (const line of table(rows, new Set([1, 2, 3, 4, 5, 6]))) ctx.io.line(line);
  ctx.io.line(
    c.dim(
      `${result.sessions} session${result.sessions === 1 ? "" : "s"}; ${result.duplicatesSkipped} usage record${result.duplicatesSkipped === 1 ? "" : "s"} copied by forks counted once`,
    ),
  );
  if (result.totals.zeroCostWithTokens > 0) {
    ctx.io.line(
      c.yellow(
        `* ${result.totals.zeroCostWithTokens} usage record(s) report a cost of 0 with tokens: the cost shown is too low`,
      ),
    );
  }
  return 0;
};
