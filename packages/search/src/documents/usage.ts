/**
 * `computeStats`: token and cost totals across sessions, counted once per lineage. Pure: the
 * session database stores the usage rows of every entry (`usage-rows.ts`), and this adds them
 * up (`usage-totals.ts`), by lineage (`lineage.ts`). Use it for any report of usage.
 *
 * A fork (`parentSession`, legacy `branchedFrom`) starts with a verbatim copy of its parent's
 * entries, ids included, so summing files naively counts the parent's spend once per fork.
 * Here every usage row is keyed by (lineage root, entry key) and counted the first time it is
 * seen; sessions are visited ancestors first, so a copied entry is credited to the session that
 * produced it. A cost recorded as 0 (or missing) next to non-zero tokens is not trusted: it adds
 * nothing to the cost, and such records and their tokens are counted apart (the tokens are real,
 * the price is unknown).
 *
 * Rows group by model, project, session or calendar period (day, ISO week, month) in a time
 * zone (`calendar.ts`), each optionally split by model; every grouping adds up to the same
 * totals, costs exactly (they are summed in billionths).
 */
import { zonedCalendar } from "./calendar.js";
import { lineageRoots } from "./lineage.js";
import type { UsageRow } from "./usage-rows.js";
import {
  type Accumulator,
  type TokenTotals,
  addSum,
  addUsage,
  emptyAccumulator,
  totalsOf,
} from "./usage-totals.js";

/** What stats needs of one session: its header fields and its usage rows in file order. */
export interface StatsSession {
  path: string;
  id: string;
  /** Project label (the header cwd, else the directory name). */
  project: string;
  /** Header `parentSession` or legacy `branchedFrom`. */
  parentPath: string | undefined;
  /** Header timestamp (ISO), used to visit parents before their forks. */
  created: string;
  /** The session's name (latest `session_info`), for `by: "session"` rows. */
  name?: string | null;
  usage: readonly UsageRow[];
}

export type GroupBy = "model" | "day" | "week" | "month" | "project" | "session";

/** The groupings, in the order a help text lists them. */
export const GROUPINGS: readonly GroupBy[] = ["day", "week", "month", "session", "project", "model"];

/** The groupings by calendar period. */
export const PERIODS: readonly GroupBy[] = ["day", "week", "month"];

/** A session a `by: "session"` row stands for. */
export interface StatsRowSession {
  id: string;
  path: string;
  /** Its name (latest `session_info`), or null. */
  name: string | null;
  project: string;
  /** Header timestamp (ISO, as written). */
  created: string;
  /** Times (ms) of the first and last usage record counted in the row; NaN when unknown. */
  firstUsageMs: number;
  lastUsageMs: number;
}

export interface StatsRow extends TokenTotals {
  key: string;
  /** With `breakdown`: the row split by model, most expensive first (they add up to the row). */
  models?: StatsRow[];
  /** With `by: "session"`: the session. */
  session?: StatsRowSession;
}

export interface StatsResult {
  /** Sessions the report covers: those with at least one usage record counted. */
  sessions: number;
  /** Sessions read (covered or not: no usage in the range, or only copies of a parent's). */
  sessionsRead: number;
  /** Usage records skipped because an ancestor in the same lineage already counted them. */
  duplicatesSkipped: number;
  /** Usage records left out by `sinceMs` / `untilMs` (an unknown time is out of any range). */
  outsideRange: number;
  totals: TokenTotals;
  by: GroupBy | null;
  breakdown: boolean;
  /** The time zone periods were taken in. */
  timeZone: string;
  /** Times (ms) of the first and last usage record counted; NaN when none has a time. */
  firstUsageMs: number;
  lastUsageMs: number;
  rows: StatsRow[];
}

export interface StatsOptions {
  by?: GroupBy;
  /** Split each row by model (not with `by: "model"`). */
  breakdown?: boolean;
  /** Only usage whose entry time is at or after this time (ms). */
  sinceMs?: number;
  /** Only usage whose entry time is before this time (ms). */
  untilMs?: number;
  /** The time zone of day, week and month periods (IANA name); default the runtime's. */
  timeZone?: string;
  /**
   * The row key of counted usage, instead of `by`'s: for a report grouped by two things at once
   * (a week and a project, a day and a model), counted once per lineage all the same. `time` is
   * the record's (NaN when unknown), or the start of its quarter hour for usage summed elsewhere.
   */
  groupOf?: (usage: { model: string; time: number }, session: Omit<StatsSession, "usage">) => string;
}

/** The key of the row of usage records whose time is unknown, in a report by period. */
export const UNKNOWN_TIME = "unknown";

/**
 * Usage of one session summed where it is stored (a database sums the sessions that need no
 * deduplication: alone in their lineage, no entry key repeated), for {@link computeStats}.
 */
export interface SummedSession {
  session: Omit<StatsSession, "usage">;
  /**
   * Its usage records in the range, summed by model and, for a report by period, by quarter
   * hour (every zone's offset is a whole number of them, so a quarter hour lies in one day).
   */
  parts: readonly UsagePart[];
  /** Its usage records the range left out. */
  outsideRange: number;
}

/** Usage records of one session and model (and quarter hour), summed. */
export interface UsagePart extends Accumulator {
  model: string;
  /**
   * The start (ms) of the quarter hour the records fall in, NaN for records without a time;
   * absent when the parts are not split by time (then no report by period can use them).
   */
  quarterMs?: number;
  /** Times (ms) of the first and last of the records; NaN when none has a time. */
  firstMs: number;
  lastMs: number;
}

/** A row being added up. */
interface Group {
  totals: Accumulator;
  models: Map<string, Accumulator> | undefined;
  session: StatsRowSession | undefined;
}

const byCost = (a: StatsRow, b: StatsRow) =>
  b.cost - a.cost || b.totalTokens - a.totalTokens || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

/** Periods in time order; the records without a time last. */
const byPeriod = (a: StatsRow, b: StatsRow) =>
  a.key === b.key ? 0 : a.key === UNKNOWN_TIME ? 1 : b.key === UNKNOWN_TIME ? -1 : a.key < b.key ? -1 : 1;

const earlier = (a: number, b: number) => (Number.isNaN(a) || b < a ? b : a);
const later = (a: number, b: number) => (Number.isNaN(a) || b > a ? b : a);

/**
 * Token and cost totals of sessions, each usage record counted once per lineage (see the
 * module header), grouped as `options` asks: by model, project, session, or calendar period in
 * a time zone, each row optionally split by model. Every grouping adds up to the same totals.
 *
 * `summed` are sessions whose usage was summed elsewhere (they must need no deduplication, and
 * be summed by quarter hour for a report by period); they count as if their rows were given.
 */
export function computeStats(
  sessions: readonly StatsSession[],
  options: StatsOptions = {},
  summed: readonly SummedSession[] = [],
): StatsResult {
  const by = options.by;
  const breakdown = options.breakdown === true && by !== undefined && by !== "model";
  const calendar = zonedCalendar(options.timeZone);
  const roots = lineageRoots(sessions);
  // Ancestors first: a parent is created before its forks; ties by path for stable output.
  const ordered = [...sessions].sort((a, b) =>
    a.created < b.created ? -1 : a.created > b.created ? 1 : a.path < b.path ? -1 : a.path > b.path ? 1 : 0,
  );
  const seen = new Set<string>();
  const totals = emptyAccumulator();
  const groups = new Map<string, Group>();
  let duplicatesSkipped = 0;
  let outsideRange = 0;
  let covered = 0;
  let firstUsageMs = Number.NaN;
  let lastUsageMs = Number.NaN;

  /** Credits records (one, or a sum) of `session` and `model` to the totals and their row. */
  function credit(
    session: Omit<StatsSession, "usage">,
    model: string,
    time: number,
    firstMs: number,
    lastMs: number,
    addTo: (into: Accumulator) => void,
  ): void {
    addTo(totals);
    if (!Number.isNaN(firstMs)) {
      firstUsageMs = earlier(firstUsageMs, firstMs);
      lastUsageMs = later(lastUsageMs, lastMs);
    }
    if (!by && !options.groupOf) return;
    let groupKey = "";
    if (options.groupOf) groupKey = options.groupOf({ model, time }, session);
    else
      switch (by) {
        case "model":
          groupKey = model;
          break;
        case "day":
          groupKey = Number.isNaN(time) ? UNKNOWN_TIME : calendar.dayOf(time);
          break;
        case "week":
          groupKey = Number.isNaN(time) ? UNKNOWN_TIME : calendar.weekOf(time);
          break;
        case "month":
          groupKey = Number.isNaN(time) ? UNKNOWN_TIME : calendar.monthOf(time);
          break;
        case "project":
          groupKey = session.project;
          break;
        case "session":
          groupKey = session.id;
          break;
      }
    let group = groups.get(groupKey);
    if (!group) {
      group = {
        totals: emptyAccumulator(),
        models: breakdown ? new Map() : undefined,
        session:
          by === "session"
            ? {
                id: session.id,
                path: session.path,
                name: session.name ?? null,
                project: session.project,
                created: session.created,
                firstUsageMs: Number.NaN,
                lastUsageMs: Number.NaN,
              }
            : undefined,
      };
      groups.set(groupKey, group);
    }
    addTo(group.totals);
    if (group.session && !Number.isNaN(firstMs)) {
      group.session.firstUsageMs = earlier(group.session.firstUsageMs, firstMs);
      group.session.lastUsageMs = later(group.session.lastUsageMs, lastMs);
    }
    if (group.models) {
      let sum = group.models.get(model);
      if (!sum) {
        sum = emptyAccumulator();
        group.models.set(model, sum);
      }
      addTo(sum);
    }
  }

  for (const session of ordered) {
    const root = roots.get(session) ?? session.id;
    let counted = false;
    for (const row of session.usage) {
      const key = `${root}\u0000${row.key}`;
      if (seen.has(key)) {
        duplicatesSkipped++;
        continue;
      }
      seen.add(key);
      const time = row.time;
      if (
        (options.sinceMs !== undefined && !(time >= options.sinceMs)) ||
        (options.untilMs !== undefined && !(time < options.untilMs))
      ) {
        outsideRange++;
        continue;
      }
      counted = true;
      credit(session, row.model, time, time, time, (into) => addUsage(into, row));
    }
    if (counted) covered++;
  }
  const periods = by !== undefined && PERIODS.includes(by);
  for (const { session, parts, outsideRange: out } of summed) {
    outsideRange += out;
    let counted = false;
    for (const part of parts) {
      if (part.records === 0) continue;
      if (periods && part.quarterMs === undefined)
        throw new Error(`computeStats: a report by ${by} needs usage summed by quarter hour`);
      counted = true;
      credit(session, part.model, part.quarterMs ?? Number.NaN, part.firstMs, part.lastMs, (into) =>
        addSum(into, part),
      );
    }
    if (counted) covered++;
  }
  const rows: StatsRow[] = [...groups.entries()].map(([key, group]) => {
    const row: StatsRow = { key, ...totalsOf(group.totals) };
    if (group.models)
      row.models = [...group.models.entries()]
        .map(([model, t]) => ({ key: model, ...totalsOf(t) }))
        .sort(byCost);
    if (group.session) row.session = group.session;
    return row;
  });
  rows.sort(periods ? byPeriod : byCost);
  return {
    sessions: covered,
    sessionsRead: sessions.length + summed.length,
    duplicatesSkipped,
    outsideRange,
    totals: totalsOf(totals),
    by: by ?? null,
    breakdown,
    timeZone: calendar.timeZone,
    firstUsageMs,
    lastUsageMs,
    rows,
  };
}
