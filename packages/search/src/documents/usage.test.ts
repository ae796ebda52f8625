/**
 * Unit and property tests of the lineage-aware token totals (moved here from the CLI with the
 * code: the same cases, the same numbers).
 */
import { fcOptions } from "@pi-session/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type StatsSession, computeStats, lineageRoots, usageRows } from "./usage.js";

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
