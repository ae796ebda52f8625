/**
 * The usage charts' numbers: tokens and cost by day, week or month, split by model or by
 * project, from the session database's `stats`, every record counted once per fork lineage
 * (the same code, and so the same totals, as `pi-session stats`), from the local session
 * database or a team's PostgreSQL database alike (both sum with `computeStats`).
 *
 * One pass of `stats` ({@link usageCells}) gives the cells: usage summed by day, week, month,
 * model, project and session file at once. A chart ({@link chartOf}) is made from them per
 * request: a period and a split, optionally one project and a range of days; its periods run
 * without a gap from the first to the last (a day without usage is a zero, not left out), and
 * each period lists the sessions it holds (a bar's drill-down). Periods are keyed as `stats --by
 * day|week|month` keys them, in the server's time zone: `YYYY-MM-DD`, the Monday of an ISO
 * week, `YYYY-MM`.
 */
import type { StatsQuery } from "@pi-session/search";
import {
  type StatsResult,
  type TokenTotals,
  UNKNOWN_TIME,
  type ZonedCalendar,
  zonedCalendar,
} from "@pi-session/search/documents";

export const PERIODS = ["day", "week", "month"] as const;
export type Period = (typeof PERIODS)[number];
export const SPLITS = ["model", "project"] as const;
export type Split = (typeof SPLITS)[number];

/** Where the charts' numbers come from: the local session database, or a team's (`stats` with its sources). */
export interface UsageStats {
  stats(query: StatsQuery): Promise<StatsResult>;
}

/** Usage of one day, model, project and session file, counted once per lineage. */
export interface UsageCell {
  day: string;
  week: string;
  month: string;
  model: string;
  project: string;
  /** The session file (the list's rows name it by its path). */
  path: string;
  totals: TokenTotals;
}

/** Every cell of a store's usage, from one pass of `stats`. */
export interface UsageCells {
  cells: UsageCell[];
  /** Usage records copied by forks, counted once. */
  duplicatesSkipped: number;
  timeZone: string;
}

/** What a chart shows: which periods and split, of which project and days. */
export interface ChartRequest {
  period: Period;
  split: Split;
  /** Only this project (its full path, as the list's rows have it). */
  project?: string;
  /** Only days from this one (`YYYY-MM-DD`, inclusive). */
  fromDay?: string;
  /** Only days up to this one (`YYYY-MM-DD`, inclusive). */
  toDay?: string;
}

export interface UsageSeries {
  /** A model (`provider/model`) or a project. */
  key: string;
  totals: TokenTotals;
  /** Per period, in the order of {@link UsageChart.periods} (zeros where none). */
  tokens: number[];
  cost: number[];
  /** Per period, the tokens whose price is unknown (a cost of 0 with tokens). */
  unpricedTokens: number[];
}

/** A session's share of one period (a bar's drill-down). */
export interface PeriodSession {
  path: string;
  tokens: number;
  cost: number;
  unpricedTokens: number;
}

export interface UsageChart {
  period: Period;
  split: Split;
  project: string | null;
  fromDay: string | null;
  toDay: string | null;
  /** Period keys in time order, every one from the first to the last (`unknown` last, for records without a time). */
  periods: string[];
  /** Most expensive first. */
  series: UsageSeries[];
  /** Per period, its sessions, most expensive first. */
  sessionsByPeriod: PeriodSession[][];
  totals: TokenTotals;
  sessions: number;
  duplicatesSkipped: number;
  /** Every project with usage (for the project filter), whatever the request. */
  projects: string[];
}

/** The key of the period a time (ms) falls in, as `pi-session stats --by <period>` keys it. */
export function periodOf(ms: number, period: Period, calendar: ZonedCalendar): string {
  if (Number.isNaN(ms)) return UNKNOWN_TIME;
  return period === "day"
    ? calendar.dayOf(ms)
    : period === "week"
      ? calendar.weekOf(ms)
      : calendar.monthOf(ms);
}

const zeroTotals = (): TokenTotals => ({
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 0,
  cost: 0,
  records: 0,
  zeroCostWithTokens: 0,
  unpricedTokens: 0,
});

function addTotals(into: TokenTotals, row: TokenTotals): void {
  for (const field of Object.keys(into) as (keyof TokenTotals)[]) into[field] += row[field];
}

const SEP = "\u0000";

/**
 * Every cell of the store's usage, from one pass of the database's `stats`: its rows grouped
 * by day, week, month, model, project and file at once (sums of fork-deduplicated rows are sums
 * still). The server keeps them per change of the store and makes each chart from them.
 */
export async function usageCells(db: UsageStats): Promise<UsageCells> {
  const calendar = zonedCalendar();
  const result = await db.stats({
    groupOf: (usage, session) =>
      [
        periodOf(usage.time, "day", calendar),
        periodOf(usage.time, "week", calendar),
        periodOf(usage.time, "month", calendar),
        usage.model,
        session.project,
        session.path,
      ].join(SEP),
  });
  const cells = result.rows.map((row) => {
    const [day, week, month, model, project, path] = row.key.split(SEP) as string[];
    const { key: _key, session: _session, models: _models, ...totals } = row;
    return {
      day: day ?? UNKNOWN_TIME,
      week: week ?? UNKNOWN_TIME,
      month: month ?? UNKNOWN_TIME,
      model: model ?? "",
      project: project ?? "",
      path: path ?? "",
      totals,
    };
  });
  return { cells, duplicatesSkipped: result.duplicatesSkipped, timeZone: calendar.timeZone };
}

/** Calendar keys from `first` to `last` without a gap (`YYYY-MM-DD` by days or weeks, `YYYY-MM` by months). */
export function periodsBetween(first: string, last: string, period: Period): string[] {
  const out: string[] = [];
  if (period === "month") {
    let [year, month] = first.split("-").map(Number) as [number, number];
    for (let key = first; key <= last; ) {
      out.push(key);
      month++;
      if (month > 12) {
        month = 1;
        year++;
      }
      key = `${String(year).padStart(4, "0")}-${String(month).padStart(2, "0")}`;
    }
    return out;
  }
  const step = period === "week" ? 7 : 1;
  const end = Date.parse(`${last}T00:00:00Z`);
  for (let t = Date.parse(`${first}T00:00:00Z`); t <= end; t += step * 86_400_000)
    out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}

/** The chart `request` asks for, from the store's cells. */
export function chartOf(data: UsageCells, request: ChartRequest): UsageChart {
  const { period, split } = request;
  const project = request.project || undefined;
  const kept = data.cells.filter(
    (c) =>
      (project === undefined || c.project === project) &&
      (request.fromDay === undefined || (c.day !== UNKNOWN_TIME && c.day >= request.fromDay)) &&
      (request.toDay === undefined || (c.day !== UNKNOWN_TIME && c.day <= request.toDay)),
  );
  const known = [...new Set(kept.map((c) => c[period]).filter((p) => p !== UNKNOWN_TIME))].sort();
  const periods =
    known.length === 0 ? [] : periodsBetween(known[0] as string, known[known.length - 1] as string, period);
  if (kept.some((c) => c[period] === UNKNOWN_TIME)) periods.push(UNKNOWN_TIME);
  const at = new Map(periods.map((p, i) => [p, i]));

  const series = new Map<string, UsageSeries>();
  const bySession = periods.map(() => new Map<string, PeriodSession>());
  const totals = zeroTotals();
  const paths = new Set<string>();
  for (const cell of kept) {
    const i = at.get(cell[period]) as number;
    const key = split === "model" ? cell.model : cell.project;
    let s = series.get(key);
    if (!s) {
      s = {
        key,
        totals: zeroTotals(),
        tokens: periods.map(() => 0),
        cost: periods.map(() => 0),
        unpricedTokens: periods.map(() => 0),
      };
      series.set(key, s);
    }
    addTotals(s.totals, cell.totals);
    addTotals(totals, cell.totals);
    s.tokens[i] = (s.tokens[i] as number) + cell.totals.totalTokens;
    s.cost[i] = (s.cost[i] as number) + cell.totals.cost;
    s.unpricedTokens[i] = (s.unpricedTokens[i] as number) + cell.totals.unpricedTokens;
    paths.add(cell.path);
    const sessions = bySession[i] as Map<string, PeriodSession>;
    const share = sessions.get(cell.path) ?? { path: cell.path, tokens: 0, cost: 0, unpricedTokens: 0 };
    share.tokens += cell.totals.totalTokens;
    share.cost += cell.totals.cost;
    share.unpricedTokens += cell.totals.unpricedTokens;
    sessions.set(cell.path, share);
  }
  const ordered = [...series.values()].sort(
    (a, b) => b.totals.cost - a.totals.cost || b.totals.totalTokens - a.totals.totalTokens,
  );
  return {
    period,
    split,
    project: project ?? null,
    fromDay: request.fromDay ?? null,
    toDay: request.toDay ?? null,
    periods,
    series: ordered,
    sessionsByPeriod: bySession.map((m) =>
      [...m.values()].sort((a, b) => b.cost - a.cost || b.tokens - a.tokens),
    ),
    totals,
    sessions: paths.size,
    duplicatesSkipped: data.duplicatesSkipped,
    projects: [...new Set(data.cells.map((c) => c.project))].sort(),
  };
}
