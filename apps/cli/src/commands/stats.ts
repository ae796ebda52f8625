/**
 * `stats [<session> | --all]`: tokens and cost from assistant usage, `usage` entries and
 * compaction and branch-summary usage, counted once per lineage (`@pi-session/search`'s
 * `computeStats`). A store-wide or project report answers from the session database (brought
 * up to date first: a stat per file when nothing changed); one session is read directly. A
 * file or directory of the store that cannot be read is reported and left out (exit 3).
 */
import { dirname, join, resolve } from "node:path";
import { splitSession } from "@pi-session/format";
import { readLinesAsPi } from "@pi-session/node-store";
import { CliError, EXIT_OK, UsageError } from "../errors.js";
import { readRecords } from "../load.js";
import { projectDirName, sessionsRoot } from "../locate.js";
import type { Action } from "../program.js";
import { openSearchDatabase } from "@pi-session/search";
import {
  type GroupBy,
  type StatsResult,
  type StatsSession,
  type TokenTotals,
  computeStats,
  usageRows,
} from "@pi-session/search/documents";
import { formatCost, formatInt, table } from "../text.js";
import { oneLineField } from "../terminal-safe.js";
import { type Unreadable, exitCode, unreadable, warnUnreadable } from "../unreadable.js";
import { sessionPath, stringOption, timeBoundsOptions } from "./common.js";

const GROUPS: readonly GroupBy[] = ["model", "day", "project", "session"];

/**
 * The header fields and raw entries of one file (usage needs no migration); undefined when pi
 * would not read it as a session (its first parsed line is not a header), as the session
 * database decides for a store-wide report.
 */
export async function statsSession(path: string, project: string): Promise<StatsSession | undefined> {
  // Only entries count: the lines pi skips are not kept (pi's header rule holds without them).
  const { records } = await readRecords(path, { onlyLinesPiReads: true });
  const view = splitSession(records);
  if (!view.header || !readLinesAsPi(records).isSession) return undefined;
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
    usage: usageRows(view.entries.map((r) => r.value)),
  };
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
  const { sinceMs } = timeBoundsOptions(options);
  if (typeof arg === "string" && options.all === true)
    throw new UsageError("give either <session> or --all, not both");
  const query = { ...(by ? { by } : {}), ...(sinceMs !== undefined ? { sinceMs } : {}) };
  let result: StatsResult;
  let skipped = 0;
  const unreadableItems: Unreadable[] = [];
  if (typeof arg === "string") {
    const path = await sessionPath(ctx, arg);
    const s = await statsSession(path, "");
    if (!s) {
      skipped = 1;
      ctx.io.warn(`${oneLineField(path)}: not a pi session (no header); skipped`);
    }
    result = computeStats(s ? [s] : [], query);
  } else {
    const { root } = sessionsRoot({ env: ctx.env, cwd: ctx.cwd, sessionDir: ctx.sessionDir });
    const dirs = options.all === true ? undefined : [join(resolve(root), projectDirName(resolve(ctx.cwd)))];
    const db = await openSearchDatabase({ root, env: ctx.env, onWarning: (m) => ctx.io.warn(m) });
    try {
      const progress = ctx.io.progress("indexing");
      try {
        const synced = await db.sync({ onProgress: (p) => progress.update(p.done, p.total) });
        // Without --all, only what cannot be read in the root or this project's directory.
        const mine = (path: string) =>
          !dirs || [resolve(root), ...dirs].some((dir) => path === dir || dirname(path) === dir);
        for (const { path, error } of synced.unreadable) {
          if (mine(path))
            unreadableItems.push(unreadable(path, error) ?? { path, code: null, reason: error.message });
        }
      } finally {
        progress.end();
      }
      warnUnreadable(ctx.io, unreadableItems);
      const found = await db.stats({ ...query, ...(dirs ? { dirs } : {}) });
      result = found;
      skipped = found.skippedFiles.length;
      for (const path of found.skippedFiles)
        ctx.io.warn(`${oneLineField(path)}: not a pi session (no header); skipped`);
    } finally {
      db.close();
    }
    if (dirs && result.sessions === 0 && skipped === 0 && unreadableItems.length === 0) {
      throw new CliError(`no sessions for ${ctx.cwd} under ${root}`, {
        hint: "Use --all for every project, or pass a <session>.",
      });
    }
  }
  if (ctx.json) {
    ctx.io.printJson({
      sessions: result.sessions,
      skippedFiles: skipped,
      unreadable: unreadableItems,
      duplicatesSkipped: result.duplicatesSkipped,
      since: sinceMs === undefined ? null : new Date(sinceMs).toISOString(),
      totals: totalsJson(result.totals),
      by: result.by,
      rows: result.rows.map((r) => ({ key: r.key, ...totalsJson(r) })),
    });
    return exitCode(unreadableItems, EXIT_OK);
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
  return exitCode(unreadableItems, EXIT_OK);
};
