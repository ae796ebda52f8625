/**
 * The usage charts' numbers: tokens and cost by day, week or month, split by model or by
 * project, from the session database's `stats`, every record counted once per fork lineage
 * (the same code, and so the same totals, as `pi-session stats`), from the local session database
 * or a team's PostgreSQL database alike (both sum with `computeStats`). Periods are keyed as `stats --by day|week|month` keys them, in the
 * server's time zone: `YYYY-MM-DD`, the Monday of an ISO week, `YYYY-MM`.
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

export interface UsageSeries {
  /** A model (`provider/model`) or a project. */
  key: string;
  totals: TokenTotals;
  /** Per period, in the order of {@link UsageChart.periods} (zeros where none). */
  tokens: number[];
  cost: number[];
}

export interface UsageChart {
  period: Period;
  split: Split;
  /** Period keys in time order (`unknown` last, for records without a time). */
  periods: string[];
  /** Most expensive first. */
  series: UsageSeries[];
  totals: TokenTotals;
  sessions: number;
  duplicatesSkipped: number;
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

/**
 * Every chart (each period by each split, in the order of {@link PERIODS} then {@link SPLITS})
 * from one pass of the database's `stats`: its rows grouped by day, week, month, model and
 * project at once, then summed per chart (sums of fork-deduplicated rows are sums still). The
 * server uses this: the six charts cost one pass rather than six. Equal to {@link usageChart}
 * per chart (costs up to the order of their float sums).
 */
export async function usageCharts(db: UsageStats): Promise<UsageChart[]> {
  const SEP = "\u0000";
  const calendar = zonedCalendar();
  const result = await db.stats({
    groupOf: (usage, session) =>
      [
        periodOf(usage.time, "day", calendar),
        periodOf(usage.time, "week", calendar),
        periodOf(usage.time, "month", calendar),
        usage.model,
        session.project,
      ].join(SEP),
  });
  const rows = result.rows.map((row) => ({ parts: row.key.split(SEP), row }));
  const charts: UsageChart[] = [];
  for (const [p, period] of PERIODS.entries())
    for (const split of SPLITS) {
      const cells = new Map<string, TokenTotals>();
      for (const { parts, row } of rows) {
        const cell = `${parts[p]}${SEP}${split === "model" ? parts[3] : parts[4]}`;
        let sum = cells.get(cell);
        if (!sum) {
          sum = zeroTotals();
          cells.set(cell, sum);
        }
        addTotals(sum, row);
      }
      charts.push(
        chartOf(
          period,
          split,
          [...cells].map(([key, totals]) => ({ ...totals, key })),
          result,
        ),
      );
    }
  return charts;
}

/**
 * The chart of the store by `period`, split by `split`: the database's `stats` (sums where it
 * keeps them, forks added up record by record), keyed by period and model or project.
 */
export async function usageChart(db: UsageStats, period: Period, split: Split): Promise<UsageChart> {
  const SEP = "\u0000";
  const calendar = zonedCalendar();
  const result = await db.stats({
    groupOf: (usage, session) =>
      `${periodOf(usage.time, period, calendar)}${SEP}${split === "model" ? usage.model : session.project}`,
  });
  return chartOf(period, split, result.rows, result);
}

/** A chart from rows keyed `<period key>\u0000<model or project>`. */
function chartOf(
  period: Period,
  split: Split,
  rows: readonly (TokenTotals & { key: string })[],
  result: { totals: TokenTotals; sessions: number; duplicatesSkipped: number },
): UsageChart {
  const SEP = "\u0000";
  const periodSet = new Set<string>();
  const bySeries = new Map<string, Map<string, TokenTotals>>();
  const seriesTotals = new Map<string, TokenTotals>();
  for (const row of rows) {
    const cut = row.key.indexOf(SEP);
    const when = row.key.slice(0, cut);
    const key = row.key.slice(cut + 1);
    periodSet.add(when);
    let cells = bySeries.get(key);
    if (!cells) {
      cells = new Map();
      bySeries.set(key, cells);
    }
    cells.set(when, row);
    const sum = seriesTotals.get(key) ?? zeroTotals();
    addTotals(sum, row);
    seriesTotals.set(key, sum);
  }
  const periods = [...periodSet].sort((a, b) =>
    a === UNKNOWN_TIME ? 1 : b === UNKNOWN_TIME ? -1 : a < b ? -1 : a > b ? 1 : 0,
  );
  const series = [...bySeries.entries()].map(([key, cells]) => ({
    key,
    totals: seriesTotals.get(key) as TokenTotals,
    tokens: periods.map((p) => cells.get(p)?.totalTokens ?? 0),
    cost: periods.map((p) => cells.get(p)?.cost ?? 0),
  }));
  series.sort((a, b) => b.totals.cost - a.totals.cost || b.totals.totalTokens - a.totals.totalTokens);
  return {
    period,
    split,
    periods,
    series,
    totals: result.totals,
    sessions: result.sessions,
    duplicatesSkipped: result.duplicatesSkipped,
  };
}
