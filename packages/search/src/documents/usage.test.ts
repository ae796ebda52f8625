/**
 * Unit and property tests of the lineage-aware token totals: the cases moved here from the CLI,
 * and properties over generated stores of forked sessions (every grouping adds up to the same
 * totals, exactly; no entry is counted twice across forks; a range splits cleanly).
 */
import { fcOptions } from "@pi-session/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  GROUPINGS,
  type GroupBy,
  type StatsResult,
  type StatsSession,
  type TokenTotals,
  type UsageRow,
  computeStats,
  lineageRoots,
  roundCost,
  usageRows,
} from "./index.js";

function assistant(id: string, input: number, cost: number): Record<string, unknown> {
  return {
    type: "message",
    id,
    parentId: null,
    timestamp: "2026-01-01T00:00:00.000Z",
    message: {
      role: "assistant",
      provider: "p",
      model: "m",
      content: [],
      usage: { input, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: input + 1, cost: { total: cost } },
      timestamp: 0,
    },
  };
}

function session(
  id: string,
  entries: Record<string, unknown>[],
  parentPath?: string,
  created = "2026-01-01T00:00:00.000Z",
): StatsSession {
  return { path: `/s/2026_${id}.jsonl`, id, project: "/p", parentPath, created, usage: usageRows(entries) };
}

describe("computeStats", () => {
  it("counts usage from assistant messages, usage entries, compactions and branch summaries", () => {
    const usage = { input: 5, output: 5, cacheRead: 1, cacheWrite: 2, totalTokens: 13, cost: { total: 0.5 } };
    const s = session("a", [
      assistant("x1", 10, 1),
      { type: "usage", id: "u1", parentId: "x1", kind: "title", provider: "o", model: "g", usage },
      { type: "compaction", id: "c1", parentId: "u1", summary: "", tokensBefore: 1, usage },
      { type: "branch_summary", id: "b1", parentId: "c1", summary: "", usage },
      { type: "message", id: "m1", parentId: "b1", message: { role: "user", content: "hi", timestamp: 0 } },
    ]);
    const r = computeStats([s], { by: "model" });
    expect(r.totals).toMatchObject({
      input: 25,
      cacheRead: 3,
      cacheWrite: 6,
      cost: 2.5,
      records: 4,
      zeroCostWithTokens: 0,
    });
    expect(r.rows.map((row) => row.key).sort()).toEqual(["(branch summary)", "(compaction)", "o/g", "p/m"]);
  });

  it("resolves lineage through a parent path that moved, by the id in its file name", () => {
    const parent = session("root-1", []);
    const child = session("kid-1", [], "/elsewhere/2025_root-1.jsonl");
    const orphan = session("kid-2", [], "/gone/2025_missing-9.jsonl");
    const roots = lineageRoots([parent, child, orphan]);
    expect(roots.get(child)).toBe("root-1");
    expect(roots.get(orphan)).toBe("missing-9");
  });

  it("a session plus any number of forks that copy it costs what the session alone costs, plus the forks' own entries", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ input: fc.nat(10_000), cost: fc.nat(1000) }), { minLength: 1, maxLength: 20 }),
        fc.array(fc.tuple(fc.nat(20), fc.array(fc.nat(10_000), { maxLength: 5 })), { maxLength: 5 }),
        (usages, forks) => {
          const parentEntries = usages.map((u, i) => assistant(`p${i}`, u.input, u.cost / 100));
          const parent = session("parent", parentEntries);
          let ownInput = 0;
          const children = forks.map(([cut, own], k) => {
            const copied = parentEntries.slice(0, Math.min(cut, parentEntries.length));
            const extra = own.map((input, j) => assistant(`f${k}-${j}`, input, 0.01));
            ownInput += own.reduce((n, x) => n + x, 0);
            return session(
              `fork-${k}`,
              [...copied, ...extra],
              parent.path,
              `2026-01-0${k + 2}T00:00:00.000Z`,
            );
          });
          const alone = computeStats([parent]);
          const all = computeStats([...children, parent], { by: "session" });
          expect(all.totals.input).toBe(alone.totals.input + ownInput);
          // Copied entries are credited to the parent.
          expect(all.rows.find((r) => r.key === "parent")?.input).toBe(alone.totals.input);
        },
      ),
      fcOptions(),
    );
  });

  it("groupOf: rows by two keys at once (project and model), copies of a fork credited where they were made", () => {
    const parent = session("par", [assistant("p1", 10, 1), assistant("p2", 20, 2)]);
    const fork = {
      ...session(
        "frk",
        [assistant("p1", 10, 1), assistant("p2", 20, 2), assistant("f1", 5, 0.5)],
        parent.path,
        "2026-01-02T00:00:00.000Z",
      ),
      project: "/q",
    };
    const r = computeStats([fork, parent], { groupOf: (row, s) => `${s.project} ${row.model}` });
    expect(r.rows.map((row) => [row.key, row.input])).toEqual([
      ["/p p/m", 30],
      ["/q p/m", 5],
    ]);
    expect(r.totals.input).toBe(computeStats([fork, parent]).totals.input);
    expect(r.duplicatesSkipped).toBe(2);
  });

  it("flags zero costs with tokens and filters by --since", () => {
    const s = session("z", [
      assistant("a", 10, 0),
      { ...assistant("b", 10, 1), timestamp: "2026-03-01T00:00:00.000Z" },
    ]);
    expect(computeStats([s]).totals.zeroCostWithTokens).toBe(1);
    const since = computeStats([s], { sinceMs: Date.parse("2026-02-01T00:00:00.000Z") });
    expect(since.totals).toMatchObject({ input: 10, records: 1 });
  });
});

describe("computeStats groupings", () => {
  const day = (iso: string) => Date.parse(iso);

  function row(key: string, time: number, model: string, cost: number, input = 100): UsageRow {
    return {
      key,
      source: "assistant",
      model,
      time,
      input,
      output: 10,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: input + 10,
      cost,
    };
  }

  function plain(id: string, usage: UsageRow[], extra: Partial<StatsSession> = {}): StatsSession {
    return {
      path: `/s/2026_${id}.jsonl`,
      id,
      project: "/p",
      parentPath: undefined,
      created: "2026-01-01T00:00:00.000Z",
      usage,
      ...extra,
    };
  }

  it("groups by week and month in the time zone asked, split by model with breakdown", () => {
    const s = plain("a", [
      row("id:1", day("2026-03-01T23:30:00Z"), "p/a", 0.1), // Sunday in UTC, Monday in Tokyo
      row("id:2", day("2026-03-02T10:00:00Z"), "p/b", 0.2),
      row("id:3", day("2026-03-09T10:00:00Z"), "p/a", 0.3),
      row("id:4", day("2026-04-01T10:00:00Z"), "p/a", 0.4),
    ]);
    const utc = computeStats([s], { by: "week", breakdown: true, timeZone: "UTC" });
    expect(utc.timeZone).toBe("UTC");
    expect(utc.rows.map((r) => [r.key, r.records])).toEqual([
      ["2026-02-23", 1],
      ["2026-03-02", 1],
      ["2026-03-09", 1],
      ["2026-03-30", 1],
    ]);
    const tokyo = computeStats([s], { by: "week", breakdown: true, timeZone: "Asia/Tokyo" });
    expect(tokyo.rows[0]?.key).toBe("2026-03-02");
    expect(tokyo.rows[0]?.models?.map((m) => [m.key, m.cost])).toEqual([
      ["p/b", 0.2],
      ["p/a", 0.1],
    ]);
    const months = computeStats([s], { by: "month", timeZone: "UTC" });
    expect(months.rows.map((r) => [r.key, r.cost])).toEqual([
      ["2026-03", 0.6],
      ["2026-04", 0.4],
    ]);
    expect(months.breakdown).toBe(false);
    expect(computeStats([s], { by: "model", breakdown: true }).breakdown).toBe(false);
  });

  it("adds costs exactly: 0.1 + 0.2 is 0.3, and JSON rounding keeps 6 places", () => {
    const s = plain("c", [row("id:1", 0, "m", 0.1), row("id:2", 0, "m", 0.2)]);
    expect(computeStats([s]).totals.cost).toBe(0.3);
    expect(roundCost(176.74248199999963)).toBe(176.742482);
    expect(roundCost(0.0000004)).toBe(0);
    expect(roundCost(1.005, 2)).toBe(1);
  });

  it("describes session rows by name, project and dates, and counts only covered sessions", () => {
    const named = plain(
      "n",
      [row("id:1", day("2026-03-01T10:00:00Z"), "m", 1), row("id:2", day("2026-03-05T10:00:00Z"), "m", 1)],
      {
        name: "upload limits",
        project: "/home/u/web",
        created: "2026-02-28T09:00:00.000Z",
      },
    );
    const old = plain("o", [row("id:9", day("2025-01-01T10:00:00Z"), "m", 5)]);
    const none = plain("e", []);
    const r = computeStats([named, old, none], { by: "session", sinceMs: day("2026-01-01T00:00:00Z") });
    expect(r.sessions).toBe(1);
    expect(r.sessionsRead).toBe(3);
    expect(r.outsideRange).toBe(1);
    expect(r.rows).toHaveLength(1);
    expect(r.rows[0]?.session).toEqual({
      id: "n",
      path: "/s/2026_n.jsonl",
      name: "upload limits",
      project: "/home/u/web",
      created: "2026-02-28T09:00:00.000Z",
      firstUsageMs: day("2026-03-01T10:00:00Z"),
      lastUsageMs: day("2026-03-05T10:00:00Z"),
    });
    expect([r.firstUsageMs, r.lastUsageMs]).toEqual([
      day("2026-03-01T10:00:00Z"),
      day("2026-03-05T10:00:00Z"),
    ]);
  });

  it("keeps unpriced usage apart: a 0 cost with tokens counts its tokens, not a price", () => {
    const s = plain("z", [row("id:1", 0, "free", 0, 1000), row("id:2", 0, "paid", 0.5, 10)]);
    const r = computeStats([s], { by: "model" });
    expect(r.totals).toMatchObject({ zeroCostWithTokens: 1, unpricedTokens: 1010, cost: 0.5 });
    expect(r.rows.find((x) => x.key === "free")).toMatchObject({
      zeroCostWithTokens: 1,
      records: 1,
      cost: 0,
    });
  });

  it("puts usage without a time in an `unknown` period, last, and out of any range", () => {
    const s = plain("u", [row("id:1", Number.NaN, "m", 1), row("id:2", day("2026-03-01T00:00:00Z"), "m", 1)]);
    expect(computeStats([s], { by: "day", timeZone: "UTC" }).rows.map((r) => r.key)).toEqual([
      "2026-03-01",
      "unknown",
    ]);
    expect(computeStats([s], { untilMs: day("2030-01-01T00:00:00Z") }).outsideRange).toBe(1);
  });
});

/** A generated store: lineages of sessions, forks copying a prefix of a parent's usage. */
interface Store {
  sessions: StatsSession[];
  /** Every usage record once, with the session that produced it. */
  originals: { row: UsageRow; producer: string }[];
}

const MODELS = ["a/x", "a/y", "b/z"];
const ZONES = ["UTC", "Europe/Paris", "America/Los_Angeles", "Asia/Kathmandu", "Pacific/Chatham"];
// 2025-06-01 to 2026-06-01.
const TIME = fc.option(fc.integer({ min: 1_748_736_000_000, max: 1_780_272_000_000 }), { freq: 8 });

const usageSpec = fc.record({
  time: TIME,
  model: fc.constantFrom(...MODELS),
  input: fc.nat(5000),
  output: fc.nat(500),
  cacheRead: fc.nat(20_000),
  // A cost in millionths, 0 about one time in five (unpriced when there are tokens).
  micros: fc.oneof({ weight: 1, arbitrary: fc.constant(0) }, { weight: 4, arbitrary: fc.nat(3_000_000) }),
});

const sessionSpec = fc.record({
  /** Which earlier session of the lineage it forks (an index taken modulo), or none. */
  parent: fc.option(fc.nat(), { freq: 2 }),
  /** How much of the parent's usage it copies (an index taken modulo). */
  cut: fc.nat(),
  own: fc.array(usageSpec, { maxLength: 6 }),
  project: fc.constantFrom("/p/one", "/p/two"),
});

const storeArb: fc.Arbitrary<Store> = fc
  .array(fc.array(sessionSpec, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 3 })
  .map((lineages) => {
    const sessions: StatsSession[] = [];
    const originals: Store["originals"] = [];
    let clock = 0;
    lineages.forEach((specs, l) => {
      const mine: StatsSession[] = [];
      specs.forEach((spec, k) => {
        const id = `l${l}-s${k}`;
        const parent = k > 0 && spec.parent !== null ? mine[spec.parent % mine.length] : undefined;
        const copied = parent ? parent.usage.slice(0, spec.cut % (parent.usage.length + 1)) : [];
        const own = spec.own.map((u, i): UsageRow => {
          const row: UsageRow = {
            key: `id:${id}-e${i}`,
            source: "assistant",
            model: u.model,
            time: u.time ?? Number.NaN,
            input: u.input,
            output: u.output,
            cacheRead: u.cacheRead,
            cacheWrite: 0,
            totalTokens: u.input + u.output + u.cacheRead,
            cost: u.micros / 1e6,
          };
          originals.push({ row, producer: id });
          return row;
        });
        clock++;
        const session: StatsSession = {
          path: `/s/${l}/2026_${id}.jsonl`,
          id,
          project: spec.project,
          parentPath: parent?.path,
          created: `2026-01-01T00:00:${String(clock).padStart(2, "0")}.000Z`,
          name: k === 0 ? `lineage ${l}` : null,
          usage: [...copied, ...own],
        };
        mine.push(session);
        sessions.push(session);
      });
    });
    return { sessions, originals };
  });

const nanos = (cost: number) => Math.round(cost * 1e9);
const FIELDS = [
  "input",
  "output",
  "cacheRead",
  "cacheWrite",
  "totalTokens",
  "records",
  "zeroCostWithTokens",
  "unpricedTokens",
] as const;

function sumOf(rows: readonly TokenTotals[]): Record<string, number> {
  const out: Record<string, number> = { costNanos: 0 };
  for (const f of FIELDS) out[f] = 0;
  for (const r of rows) {
    for (const f of FIELDS) out[f] = (out[f] ?? 0) + r[f];
    out.costNanos = (out.costNanos ?? 0) + nanos(r.cost);
  }
  return out;
}

function shape(t: TokenTotals): Record<string, number> {
  return sumOf([t]);
}

describe("computeStats properties", () => {
  it("every grouping, with or without breakdown, in any zone, adds up to the ungrouped totals exactly", () => {
    fc.assert(
      fc.property(
        storeArb,
        fc.constantFrom(...GROUPINGS),
        fc.boolean(),
        fc.constantFrom(...ZONES),
        (store, by, breakdown, timeZone) => {
          const plainTotals = computeStats(store.sessions).totals;
          const r = computeStats(store.sessions, { by, breakdown, timeZone });
          expect(shape(r.totals)).toEqual(shape(plainTotals));
          expect(sumOf(r.rows)).toEqual(shape(r.totals));
          for (const row of r.rows) {
            if (r.breakdown) expect(sumOf(row.models ?? [])).toEqual(shape(row));
            else expect(row.models).toBeUndefined();
          }
          expect(new Set(r.rows.map((x) => x.key)).size).toBe(r.rows.length);
        },
      ),
      fcOptions(),
    );
  });

  it("counts every entry once however many forks copy it, credited to the session that made it", () => {
    fc.assert(
      fc.property(storeArb, fc.boolean(), (store, shuffled) => {
        const sessions = shuffled ? [...store.sessions].reverse() : store.sessions;
        const r = computeStats(sessions, { by: "session" });
        const rows = store.originals.map((o) => o.row);
        expect(shape(r.totals)).toEqual(
          sumOf(
            rows.map((x) => ({
              ...x,
              records: 1,
              zeroCostWithTokens: x.cost === 0 && x.totalTokens > 0 ? 1 : 0,
              unpricedTokens: x.cost === 0 && x.totalTokens > 0 ? x.totalTokens : 0,
            })),
          ),
        );
        const copies = store.sessions.reduce((n, s) => n + s.usage.length, 0) - rows.length;
        expect(r.duplicatesSkipped).toBe(copies);
        const producers = new Set(store.originals.map((o) => o.producer));
        expect(r.sessions).toBe(producers.size);
        for (const row of r.rows) {
          const own = store.originals.filter((o) => o.producer === row.key);
          expect(row.records).toBe(own.length);
          expect(row.session?.id).toBe(row.key);
        }
      }),
      fcOptions(),
    );
  });

  it("a range splits at any instant: before plus from-then-on is everything with a time", () => {
    fc.assert(
      fc.property(storeArb, fc.integer({ min: 1_748_736_000_000, max: 1_780_272_000_000 }), (store, cut) => {
        const all = computeStats(store.sessions);
        const before = computeStats(store.sessions, { untilMs: cut });
        const after = computeStats(store.sessions, { sinceMs: cut });
        const untimed = store.originals.filter((o) => Number.isNaN(o.row.time)).length;
        expect(before.totals.records + after.totals.records + untimed).toBe(all.totals.records);
        expect(before.outsideRange).toBe(after.totals.records + untimed);
        expect(nanos(before.totals.cost) + nanos(after.totals.cost)).toBeLessThanOrEqual(
          nanos(all.totals.cost),
        );
        const groupedBefore = computeStats(store.sessions, { untilMs: cut, by: "day", timeZone: "UTC" });
        expect(
          groupedBefore.rows.every(
            (x) =>
              x.key < new Date(cut).toISOString().slice(0, 10) ||
              x.key === new Date(cut).toISOString().slice(0, 10),
          ),
        ).toBe(true);
      }),
      fcOptions(),
    );
  });

  it("the result does not depend on the order sessions are given in", () => {
    fc.assert(
      fc.property(storeArb, fc.constantFrom<GroupBy>(...GROUPINGS), (store, by) => {
        const a: StatsResult = computeStats(store.sessions, { by, breakdown: true, timeZone: "UTC" });
        const b: StatsResult = computeStats([...store.sessions].reverse(), {
          by,
          breakdown: true,
          timeZone: "UTC",
        });
        expect(b).toEqual(a);
      }),
      fcOptions(),
    );
  });
});
