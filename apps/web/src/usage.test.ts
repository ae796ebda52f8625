/**
 * The usage charts the server sends (`usageCharts`: all six from one pass of `stats`) equal
 * the charts made one at a time (`usageChart`, a `stats` pass keyed by that period and split),
 * on a generated store with forks, several models, projects and days: same periods, same series
 * in the same order, same numbers (costs up to their float sums' order).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeStore, type TestStore } from "../test/store.js";
import { StoreView } from "./store-view.js";
import { PERIODS, SPLITS, usageChart, usageCharts } from "./usage.js";

describe("usage charts in one pass", () => {
  let store: TestStore;
  let view: StoreView;

  beforeAll(async () => {
    store = makeStore(40);
    view = await StoreView.open({ root: store.root, persistent: false });
  });

  afterAll(() => {
    view?.close();
    store?.cleanup();
  });

  it("equal each chart made by itself", async () => {
    const all = await view.exclusive(() => usageCharts(view.db));
    expect(all.map((c) => `${c.period} ${c.split}`)).toEqual(
      PERIODS.flatMap((p) => SPLITS.map((s) => `${p} ${s}`)),
    );
    let series = 0;
    for (const chart of all) {
      const one = await view.exclusive(() => usageChart(view.db, chart.period, chart.split));
      expect(chart.periods).toEqual(one.periods);
      expect(chart.series.map((s) => s.key)).toEqual(one.series.map((s) => s.key));
      expect(chart.totals).toEqual(one.totals);
      expect(chart.sessions).toBe(one.sessions);
      expect(chart.duplicatesSkipped).toBe(one.duplicatesSkipped);
      for (const [i, s] of chart.series.entries()) {
        const o = one.series[i];
        if (!o) throw new Error("a series missing");
        expect(s.tokens).toEqual(o.tokens);
        const { cost, ...counts } = s.totals;
        const { cost: oneCost, ...oneCounts } = o.totals;
        expect(counts).toEqual(oneCounts);
        expect(cost).toBeCloseTo(oneCost, 9);
        expect(s.cost.length).toBe(o.cost.length);
        for (const [j, c] of s.cost.entries()) expect(c).toBeCloseTo(o.cost[j] as number, 9);
      }
      series += chart.series.length;
    }
    // Not a vacuous store: charts with several series and periods.
    expect(series).toBeGreaterThan(6);
    expect(Math.max(...all.map((c) => c.periods.length))).toBeGreaterThan(1);
    expect(all[0]?.duplicatesSkipped).toBeGreaterThan(0);
  });
});
