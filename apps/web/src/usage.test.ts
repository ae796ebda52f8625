/**
 * The usage charts the server sends, made from one pass of `stats` (`usageCells`, then
 * `chartOf` per request), on a generated store with forks, several models, projects and days:
 * each chart's numbers equal a `stats` pass keyed by that period and split; its periods run
 * without a gap; a project or a range of days narrows it to what `stats` counts there; each
 * period's sessions add up to its bar.
 */
import { type TokenTotals, zonedCalendar } from "@pi-session/search/documents";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeStore, type TestStore } from "../test/store.js";
import { StoreView } from "./store-view.js";
import { PERIODS, SPLITS, type UsageCells, chartOf, periodOf, periodsBetween, usageCells } from "./usage.js";

describe("usage charts from one pass", () => {
  let store: TestStore;
  let view: StoreView;
  let cells: UsageCells;

  beforeAll(async () => {
    store = makeStore(40);
    view = await StoreView.open({ root: store.root, persistent: false });
    cells = await view.exclusive(() => usageCells(view.db));
  });

  afterAll(() => {
    view?.close();
    store?.cleanup();
  });

  /** A `stats` pass keyed by period and split: what a chart must show. */
  async function statsBy(period: (typeof PERIODS)[number], split: (typeof SPLITS)[number]) {
    const calendar = zonedCalendar();
    const result = await view.exclusive(() =>
      view.db.stats({
        groupOf: (usage, session) =>
          `${periodOf(usage.time, period, calendar)}\u0000${split === "model" ? usage.model : session.project}`,
      }),
    );
    const cell = new Map<string, TokenTotals>(result.rows.map((r) => [r.key, r]));
    return { result, cell };
  }

  it("equal a stats pass by that period and split, on a time axis without gaps", async () => {
    let series = 0;
    for (const period of PERIODS)
      for (const split of SPLITS) {
        const chart = chartOf(cells, { period, split });
        const { result, cell } = await statsBy(period, split);
        expect(chart.totals.totalTokens).toBe(result.totals.totalTokens);
        expect(chart.totals.cost).toBeCloseTo(result.totals.cost, 9);
        expect(chart.duplicatesSkipped).toBe(result.duplicatesSkipped);
        const known = chart.periods.filter((p) => p !== "unknown");
        expect(known).toEqual(periodsBetween(known[0] as string, known.at(-1) as string, period));
        for (const s of chart.series)
          chart.periods.forEach((p, i) => {
            const want = cell.get(`${p}\u0000${s.key}`);
            expect(s.tokens[i], `${period} ${split} ${p} ${s.key}`).toBe(want?.totalTokens ?? 0);
            expect(s.cost[i]).toBeCloseTo(want?.cost ?? 0, 9);
            expect(s.unpricedTokens[i]).toBe(want?.unpricedTokens ?? 0);
          });
        // Every period's sessions add up to its bar.
        chart.periods.forEach((_, i) => {
          const bar = chart.series.reduce((n, s) => n + (s.tokens[i] ?? 0), 0);
          expect((chart.sessionsByPeriod[i] ?? []).reduce((n, s) => n + s.tokens, 0)).toBe(bar);
        });
        series += chart.series.length;
      }
    expect(series).toBeGreaterThan(6);
    const days = chartOf(cells, { period: "day", split: "model" });
    expect(days.periods.length).toBeGreaterThan(1);
    expect(days.duplicatesSkipped).toBeGreaterThan(0);
  });

  it("fills the days without usage with zeros", () => {
    expect(periodsBetween("2026-02-27", "2026-03-02", "day")).toEqual([
      "2026-02-27",
      "2026-02-28",
      "2026-03-01",
      "2026-03-02",
    ]);
    expect(periodsBetween("2026-03-02", "2026-03-16", "week")).toEqual([
      "2026-03-02",
      "2026-03-09",
      "2026-03-16",
    ]);
    expect(periodsBetween("2025-11", "2026-02", "month")).toEqual([
      "2025-11",
      "2025-12",
      "2026-01",
      "2026-02",
    ]);
  });

  it("narrows to one project and a range of days as stats counts them there", async () => {
    const all = chartOf(cells, { period: "day", split: "project" });
    const projects = all.projects;
    expect(projects.length).toBeGreaterThan(1);
    let tokens = 0;
    for (const project of projects) {
      const one = chartOf(cells, { period: "day", split: "model", project });
      tokens += one.totals.totalTokens;
      expect(one.project).toBe(project);
      expect(one.projects).toEqual(projects);
    }
    expect(tokens).toBe(all.totals.totalTokens);
    const known = all.periods.filter((p) => p !== "unknown");
    const from = known[1] as string;
    const to = known.at(-2) as string;
    const range = chartOf(cells, { period: "day", split: "model", fromDay: from, toDay: to });
    expect(range.periods[0]! >= from && range.periods.at(-1)! <= to).toBe(true);
    const inRange = cells.cells
      .filter((c) => c.day >= from && c.day <= to)
      .reduce((n, c) => n + c.totals.totalTokens, 0);
    expect(range.totals.totalTokens).toBe(inRange);
  });
});
