/**
 * `stats [<session> | --all]`: tokens and cost from assistant usage, `usage` entries and
 * compaction and branch-summary usage, counted once per lineage, grouped by calendar period (in
 * a time zone), session, project or model, optionally split by model (`@pi-session/search`'s
 * `computeStats`). A store-wide or project report answers from the session database (brought
 * up to date first: a stat per file when nothing changed); one session is read directly. A
 * file or directory of the store that cannot be read is reported and left out (exit 3).
 *
 * Text output is a table fitted to the terminal (figures give way from the least telling:
 * records, cache writes, cache reads, input, output; then names are cut), costs to the cent,
 * sessions with their shortest unique ids, paths under the home directory as `~/...`;
 * `--json` has every figure, costs to 1e-6 (docs/cli.md has the shape).
 */
import { dirname, join, resolve, sep } from "node:path";
import { splitSession } from "@pi-session/format";
import { type SessionParent, readLinesAsPi, sessionParentOf } from "@pi-session/node-store";
import { openSearchDatabase } from "@pi-session/search";
import {
  GROUPINGS,
  type GroupBy,
  PERIODS,
  type StatsResult,
  type StatsRow,
  type StatsSession,
  type TokenTotals,
  UNKNOWN_TIME,
  type ZonedCalendar,
  computeStats,
  roundCost,
  statsSessionOf,
  zonedCalendar,
} from "@pi-session/search/documents";
import { type Cell, type Column, fitTable, joinNotes } from "../columns.js";
import { CliError, EXIT_OK, UsageError } from "../errors.js";
import { readRecords } from "../load.js";
import { projectDirName, sessionsRoot } from "../locate.js";
import type { Action, Context } from "../program.js";
import { databaseUrl, guarded, listOption, openTeamDatabase, wantsDatabase } from "../team-db.js";
import { oneLineField } from "../terminal-safe.js";
import { shortIds } from "../ids.js";
import { formatCost, formatInt, homeOf, tildePath } from "../text.js";
import { type NotSession, type Unreadable, exitCode, unreadable, warnSkipped } from "../unreadable.js";
import { sessionPath, stringOption, timeBoundsOptions, timeZoneOption } from "./common.js";

/**
 * The header fields, name and usage rows of one file (usage needs no migration); undefined
 * when pi would not read it as a session (its first parsed line is not a header), as the
 * session database decides for a store-wide report.
 */
export async function statsSession(path: string, project: string): Promise<StatsSession | undefined> {
  // Only entries count: the lines pi skips are not kept (pi's header rule holds without them).
  const { records } = await readRecords(path, { onlyLinesPiReads: true });
  const view = splitSession(records);
  if (!view.header || !readLinesAsPi(records).isSession) return undefined;
  return statsSessionOf({
    path,
    project,
    // Read as the JSON object it is: stats checks each field it takes.
    header: view.header.value as object as Record<string, unknown>,
    entries: view.entries.map((r) => r.value),
  });
}

const iso = (ms: number) => (Number.isNaN(ms) ? null : new Date(ms).toISOString());

function totalsJson(t: TokenTotals) {
  return {
    input: t.input,
    output: t.output,
    cacheRead: t.cacheRead,
    cacheWrite: t.cacheWrite,
    totalTokens: t.totalTokens,
    cost: roundCost(t.cost),
    records: t.records,
    zeroCostWithTokens: t.zeroCostWithTokens,
    unpricedTokens: t.unpricedTokens,
  };
}

/**
 * `--by session`: each session's parent (a subagent's, a fork's) and the cost of its family: its
 * own and that of every session under it in the report, so a session that spawns subagents
 * shows what it cost with them.
 */
interface Families {
  parents: ReadonlyMap<string, SessionParent>;
  /** Cost of the session and of the sessions under it, for the sessions that have any. */
  withChildren: ReadonlyMap<string, number>;
}

function familiesOf(rows: readonly StatsRow[], parents: ReadonlyMap<string, SessionParent>): Families {
  const withChildren = new Map<string, number>();
  const inReport = new Set(rows.flatMap((r) => (r.session ? [r.session.path] : [])));
  for (const r of rows) {
    if (!r.session) continue;
    // Up the chain of parents (guarded against a cycle of headers naming each other).
    const seen = new Set([r.session.path]);
    for (
      let p = parents.get(r.session.path);
      p && inReport.has(p.path) && !seen.has(p.path);
      p = parents.get(p.path)
    ) {
      seen.add(p.path);
      const own = rows.find((x) => x.session?.path === p?.path)?.cost ?? 0;
      withChildren.set(p.path, (withChildren.get(p.path) ?? own) + r.cost);
    }
  }
  return { parents, withChildren };
}

function rowJson(r: StatsRow, families: Families | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = { key: r.key, ...totalsJson(r) };
  if (r.session) {
    const s = r.session;
    const parent = families?.parents.get(s.path);
    out.session = {
      id: s.id,
      path: s.path,
      name: s.name,
      project: s.project,
      created: s.created,
      firstUsage: iso(s.firstUsageMs),
      lastUsage: iso(s.lastUsageMs),
      parent: parent ? { path: parent.path, kind: parent.kind } : null,
    };
    const family = families?.withChildren.get(s.path);
    if (family !== undefined) out.costWithChildren = roundCost(family);
  }
  if (r.models) out.models = r.models.map((m) => ({ key: m.key, ...totalsJson(m) }));
  return out;
}

interface Query {
  by: GroupBy | undefined;
  /** `--by source` (with --db): a row per source, person or machine. */
  bySource: boolean;
  breakdown: boolean;
  sinceMs: number | undefined;
  untilMs: number | undefined;
  timeZone: string;
  calendar: ZonedCalendar;
}

function queryOf(options: Record<string, unknown>): Query {
  const byRaw = stringOption(options, "by", "--by");
  const bySource = byRaw === "source";
  if (bySource && !wantsDatabase(options))
    throw new UsageError("--by source groups a team database's sources: give --db too");
  if (byRaw !== undefined && !bySource && !GROUPINGS.includes(byRaw as GroupBy))
    throw new UsageError(
      `--by must be one of ${GROUPINGS.join(", ")}${wantsDatabase(options) ? ", source" : ""}; got \`${byRaw}\``,
    );
  const by = bySource ? undefined : (byRaw as GroupBy | undefined);
  const breakdown = options.breakdown === true;
  if (breakdown && !bySource && (by === undefined || by === "model"))
    throw new UsageError(
      "--breakdown splits the rows of --by day, week, month, session or project by model",
      "For totals by model alone, use --by model.",
    );
  // Dates are read in the report's zone, so `--since 2026-03-02` starts its first day.
  const zone = timeZoneOption(options);
  const calendar = zonedCalendar(zone);
  const { sinceMs, untilMs } = timeBoundsOptions(options, { timeZone: calendar.timeZone });
  return { by, bySource, breakdown, sinceMs, untilMs, timeZone: calendar.timeZone, calendar };
}

export const action: Action = async (ctx, [arg], options) => {
  const query = queryOf(options);
  if (typeof arg === "string" && options.all === true)
    throw new UsageError("give either <session> or --all, not both");
  const statsOptions = {
    ...(query.by ? { by: query.by } : {}),
    breakdown: query.breakdown,
    ...(query.sinceMs !== undefined ? { sinceMs: query.sinceMs } : {}),
    ...(query.untilMs !== undefined ? { untilMs: query.untilMs } : {}),
    timeZone: query.timeZone,
  };
  let result: StatsResult;
  let skipped = 0;
  let families: Families | undefined;
  const unreadableItems: Unreadable[] = [];
  if (wantsDatabase(options)) {
    if (typeof arg === "string")
      throw new UsageError("--db reports over the team database's sessions: give --all, not a <session>");
    if (options.all !== true)
      throw new UsageError(
        "--db needs --all (a team database has every machine's projects; narrow it with --source or --since)",
      );
    const url = databaseUrl(options.db, "--db");
    const sources = listOption(options, "source", "--source");
    const db = await openTeamDatabase(ctx, url, { readOnly: true });
    try {
      const found = await guarded(() =>
        db.stats({
          ...statsOptions,
          ...(query.bySource ? { bySource: true } : {}),
          ...(sources.length > 0 ? { sources } : {}),
        }),
      );
      result = found;
      skipped = found.skippedFiles.length;
      warnSkipped(
        ctx.io,
        [],
        found.skippedFiles.map((path): NotSession => ({ path, kind: "not a session" })),
      );
    } finally {
      await db.close();
    }
  } else if (options.source !== undefined) {
    throw new UsageError("--source filters a team database: give --db too");
  } else if (typeof arg === "string") {
    const path = await sessionPath(ctx, arg);
    const s = await statsSession(path, "");
    if (!s) {
      skipped = 1;
      ctx.io.warn(`${oneLineField(path)}: not a pi session (no header); skipped`);
    }
    result = computeStats(s ? [s] : [], statsOptions);
  } else {
    const { root } = sessionsRoot({ env: ctx.env, cwd: ctx.cwd, sessionDir: ctx.sessionDir });
    const projectDir = join(resolve(root), projectDirName(resolve(ctx.cwd)));
    let dirs = options.all === true ? undefined : [projectDir];
    const db = await openSearchDatabase({ root, env: ctx.env, onWarning: (m) => ctx.io.warn(m) });
    // Also drawn by a rebuild a damaged database needs before it answers (the sync's callbacks).
    const progress = ctx.io.progress("indexing");
    try {
      const synced = await db.sync({ onProgress: (p) => progress.update(p.done, p.total) });
      progress.end();
      // Without --all, only what cannot be read in the root or this project's directory.
      const mine = (path: string) =>
        !dirs || [resolve(root), ...dirs].some((dir) => path === dir || dirname(path) === dir);
      for (const { path, error } of synced.unreadable) {
        if (mine(path))
          unreadableItems.push(unreadable(path, error) ?? { path, code: null, reason: error.message });
      }
      // A project's subagent sessions are in subfolders of its directory: their folders too.
      if (dirs) {
        const below = new Set<string>();
        for (const path of db.database.files().keys())
          if (path.startsWith(`${projectDir}${sep}`)) below.add(dirname(path));
        dirs = [projectDir, ...below];
      }
      const found = await db.stats({ ...statsOptions, ...(dirs ? { dirs } : {}) });
      result = found;
      if (statsOptions.by === "session") {
        const known = db.database.files();
        const parents = new Map<string, SessionParent>();
        for (const u of db.database.usage({ rows: false })) {
          const parent = sessionParentOf(root, { path: u.path, headerParent: u.meta.parentPath }, (p) =>
            known.has(p),
          );
          if (parent) parents.set(u.path, parent);
        }
        families = familiesOf(found.rows, parents);
      }
      skipped = found.skippedFiles.length;
      const notSessions = found.skippedFiles.map((path): NotSession => ({ path, kind: "not a session" }));
      warnSkipped(ctx.io, unreadableItems, notSessions);
    } finally {
      progress.end();
      db.close();
    }
    if (dirs && result.sessionsRead === 0 && skipped === 0 && unreadableItems.length === 0) {
      throw new CliError(`no sessions for ${ctx.cwd} under ${root}`, {
        hint: "Use --all for every project, or pass a <session>.",
      });
    }
  }
  if (ctx.json) {
    ctx.io.printJson({
      sessions: result.sessions,
      sessionsRead: result.sessionsRead,
      skippedFiles: skipped,
      unreadable: unreadableItems,
      duplicatesSkipped: result.duplicatesSkipped,
      outsideRange: result.outsideRange,
      since: query.sinceMs === undefined ? null : new Date(query.sinceMs).toISOString(),
      until: query.untilMs === undefined ? null : new Date(query.untilMs).toISOString(),
      timeZone: result.timeZone,
      firstUsage: iso(result.firstUsageMs),
      lastUsage: iso(result.lastUsageMs),
      by: query.bySource ? "source" : result.by,
      breakdown: result.breakdown,
      totals: totalsJson(result.totals),
      rows: result.rows.map((r) => rowJson(r, families)),
    });
    return exitCode(unreadableItems, EXIT_OK);
  }
  printReport(ctx, result, query, families);
  return exitCode(unreadableItems, EXIT_OK);
};

const KEY_HEADERS: Record<GroupBy, string> = {
  day: "day",
  week: "week of",
  month: "month",
  session: "session",
  project: "project",
  model: "model",
};

function s(n: number, word: string): string {
  return `${formatInt(n)} ${word}${n === 1 ? "" : "s"}`;
}

/** The table and its footer. */
function printReport(ctx: Context, result: StatsResult, query: Query, families: Families | undefined): void {
  const c = ctx.io.out;
  const width = ctx.io.columns;
  const by = result.by;
  const keyHeader = query.bySource ? "source" : by ? KEY_HEADERS[by] : "total";
  const figures: Column[] = [
    { header: "input", align: "right", drop: 3 },
    { header: "output", align: "right", drop: 2 },
    { header: "cache read", align: "right", drop: 4 },
    { header: "cache write", align: "right", drop: 5 },
    { header: "tokens", align: "right" },
    { header: "cost", align: "right" },
    { header: "records", align: "right", drop: 6 },
  ];
  const bySession = by === "session";
  // Sessions with subagents or forks in the report: their cost with them, in a column of its own
  // (kept longer than the token columns but the output one on a narrow terminal).
  const family = bySession && families !== undefined && families.withChildren.size > 0 ? families : undefined;
  if (family) figures.splice(6, 0, { header: "with children", align: "right", drop: 2.5 });
  const home = homeOf(ctx.env);
  // Sessions that share a name are told apart by their ids (the shortest that is unique here).
  const sessionRows = result.rows.flatMap((r) => (r.session ? [r.session.id] : []));
  const ids = shortIds(sessionRows, sessionRows);
  const keyColumns: Column[] = bySession
    ? [
        { header: "session", align: "left", cut: "start", minWidth: 20 },
        // Cut at its end when the table is narrow: what is left still starts the id.
        { header: "id", align: "left", cut: "start", minWidth: 13 },
        { header: "project", align: "left", cut: "end", minWidth: 12, drop: 1 },
        { header: "last used", align: "left" },
      ]
    : [
        {
          header: keyHeader,
          align: "left",
          cut: by === "project" ? "end" : "start",
          minWidth: 30,
        },
      ];
  const columns = [...keyColumns, ...figures];
  let noPrice = false;
  const cost = (t: TokenTotals): Cell => {
    if (t.cost === 0 && t.zeroCostWithTokens > 0) {
      noPrice = true;
      return { text: "?", style: c.yellow };
    }
    const text = formatCost(t.cost);
    return t.zeroCostWithTokens > 0 ? { text: `${text}*`, style: c.yellow } : { text };
  };
  const numbers = (t: TokenTotals, path?: string): Cell[] => {
    const withChildren = path === undefined ? undefined : family?.withChildren.get(path);
    return [
      { text: formatInt(t.input) },
      { text: formatInt(t.output) },
      { text: formatInt(t.cacheRead) },
      { text: formatInt(t.cacheWrite) },
      { text: formatInt(t.totalTokens) },
      cost(t),
      ...(family ? [{ text: withChildren === undefined ? "" : formatCost(withChildren) }] : []),
      { text: formatInt(t.records) },
    ];
  };
  const blank = () => keyColumns.slice(1).map(() => ({ text: "" }));
  const rows: Cell[][] = [];
  let sessionAt = 0;
  for (const r of result.rows) {
    if (r.session) {
      const when = r.session.lastUsageMs;
      // A subagent or fork in the report is marked under its parent's name.
      const parent = family?.parents.get(r.session.path);
      const under = parent && family?.withChildren.has(parent.path) ? `└ ${parent.kind} ` : "";
      rows.push([
        r.session.name !== null
          ? { text: `${under}${r.session.name}`, style: c.bold }
          : { text: `${under}(no name)`, style: c.dim },
        { text: ids[sessionAt++] ?? r.session.id, style: c.dim },
        { text: r.session.project ? tildePath(r.session.project, home) : "-", style: c.cyan },
        { text: Number.isNaN(when) ? "-" : query.calendar.dayOf(when) },
        ...numbers(r, r.session.path),
      ]);
    } else {
      const key =
        r.key === UNKNOWN_TIME && by && PERIODS.includes(by)
          ? "(no time)"
          : by === "project"
            ? tildePath(r.key, home)
            : r.key;
      rows.push([{ text: key, ...(r.models ? { style: c.bold } : {}) }, ...numbers(r)]);
    }
    for (const m of r.models ?? [])
      rows.push([{ text: `  ${m.key}`, style: c.dim }, ...blank(), ...numbers(m)]);
  }
  if (by || query.bySource)
    rows.push([{ text: "total", style: c.bold }, ...blank(), ...numbers(result.totals)]);
  else rows.push([{ text: "total" }, ...numbers(result.totals)]);
  for (const line of fitTable(columns, rows, width, c.bold)) ctx.io.line(line);

  const notes: string[] = [s(result.sessions, "session")];
  if (result.sessionsRead > result.sessions)
    notes.push(`${formatInt(result.sessionsRead - result.sessions)} more without usage in range`);
  const first = result.firstUsageMs;
  const last = result.lastUsageMs;
  if (!Number.isNaN(first))
    notes.push(
      `${query.calendar.dayOf(first)}${query.calendar.dayOf(last) !== query.calendar.dayOf(first) ? ` to ${query.calendar.dayOf(last)}` : ""} (${result.timeZone})`,
    );
  if (result.duplicatesSkipped > 0)
    notes.push(`${s(result.duplicatesSkipped, "usage record")} copied by forks counted once`);
  if (result.outsideRange > 0)
    notes.push(`${s(result.outsideRange, "usage record")} outside the range left out`);
  for (const line of joinNotes(notes, width)) ctx.io.line(c.dim(line));
  if (result.totals.zeroCostWithTokens > 0) {
    const t = result.totals;
    const note = [
      `* ${s(t.zeroCostWithTokens, "usage record")} (${s(t.unpricedTokens, "token")}) ${t.zeroCostWithTokens === 1 ? "has" : "have"} a cost of 0 with tokens:`,
      "their price is unknown, so the cost shown is too low",
      ...(noPrice ? ["(? : nothing in the row has a price)"] : []),
    ];
    for (const line of joinNotes(note, width, " ")) ctx.io.line(c.yellow(line));
  }
}
