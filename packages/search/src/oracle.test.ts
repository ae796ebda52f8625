/**
 * Search results equal a brute-force scan of the same sessions, for random sessions (random
 * trees with vocabulary texts, some with lines pi reads in its own way) and random word,
 * phrase, substring (pieces of code from anywhere in it, CJK), regex and filter queries; and
 * newest first (search as you type), also for the short prefixes a person types first.
 */
import { utimesSync } from "node:fs";
import { fcOptions, scaledRuns, tempDirs } from "@pi-session/testkit";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import type { SearchFilters } from "./database.js";
import type { TextField } from "./documents/index.js";
import { openSearchDatabase } from "./search.js";
import { oracleSearch } from "./testing/oracle.js";
import {
  VOCABULARY,
  arbOddity,
  arbQuery,
  arbVocabularySession,
  writeStore,
} from "./testing/store.test.helper.js";

const dirs = tempDirs("pi-search-oracle-");
afterEach(dirs.cleanup);

const arbFilter: fc.Arbitrary<SearchFilters> = fc.oneof(
  fc.subarray(["user", "assistant", "tool"] as const, { minLength: 1 }).map((roles) => ({ roles })),
  fc.constantFrom("read", "bash", "edit").map((tool) => ({ tool })),
  fc
    .constantFrom("auth.ts", "src/auth.ts", "README.md", "/home/user/project/src/auth.ts", "th.ts")
    .map((file) => ({
      file,
    })),
  fc.constantFrom("claude-test", "anthropic/claude-test", "test").map((model) => ({ model })),
  fc.constant({ errored: true }),
  fc.constant({ named: true }),
  fc.integer({ min: 1_735_689_600_000, max: 1_798_761_600_000 }).map((sinceMs) => ({ sinceMs })),
  fc.integer({ min: 1_735_689_600_000, max: 1_798_761_600_000 }).map((untilMs) => ({ untilMs })),
);

/** Usually no filter, sometimes one or two. */
const arbFilters: fc.Arbitrary<SearchFilters> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({}) },
  { weight: 2, arbitrary: arbFilter },
  { weight: 1, arbitrary: fc.tuple(arbFilter, arbFilter).map(([a, b]) => ({ ...a, ...b })) },
);

async function indexHits(
  root: string,
  query: string,
  filters: SearchFilters,
  opts: { thinking: boolean; toolOutput: boolean; rankWindow: number | undefined },
) {
  const db = await openSearchDatabase({ root, persistent: false });
  try {
    await db.sync();
    const result = await db.search(query, {
      filters,
      thinking: opts.thinking,
      toolOutput: opts.toolOutput,
      ...(opts.rankWindow !== undefined ? { rankWindow: opts.rankWindow } : {}),
      limit: Number.POSITIVE_INFINITY,
      hitsPerSession: Number.POSITIVE_INFINITY,
    });
    // Current branch first: no session led by an abandoned-branch hit before one led by a current one.
    const leads = result.sessions.map((s) => s.hits[0]?.onBranch === true);
    expect(leads.indexOf(false) === -1 || leads.lastIndexOf(true) < leads.indexOf(false)).toBe(true);
    return result.sessions.flatMap((s) =>
      s.hits.map((h) => ({ path: s.path, line: h.line, onBranch: h.onBranch })),
    );
  } finally {
    db.close();
  }
}

const key = (h: { path: string; line: number; onBranch: boolean }) =>
  `${h.path}:${h.line}:${h.onBranch ? "on" : "off"}`;

describe("search equals a plain scan", () => {
  it("for random sessions, queries and filters", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(arbVocabularySession(), { minLength: 1, maxLength: 4 }),
        fc.array(arbOddity, { maxLength: 4 }),
        fc.array(fc.tuple(arbQuery, arbFilters, fc.boolean(), fc.boolean()), { minLength: 1, maxLength: 4 }),
        // Ranked in windows of a few matches now and then (10,000 by default).
        fc.constantFrom(undefined, 1, 3),
        async (sessions, oddities, queries, rankWindow) => {
          const root = dirs.make();
          writeStore(root, sessions, oddities);
          for (const [query, filters, thinking, toolOutput] of queries) {
            const fields: TextField[] = ["body", "tool"];
            if (toolOutput) fields.push("output");
            if (thinking) fields.push("thinking");
            const rest = filters;
            const got = (await indexHits(root, query, rest, { thinking, toolOutput, rankWindow }))
              .map(key)
              .sort();
            const want = oracleSearch(root, query, { filters: rest, fields }).map(key).sort();
            expect(got, `query ${JSON.stringify(query)} filters ${JSON.stringify(rest)}`).toEqual(want);
          }
          dirs.cleanup();
        },
      ),
      fcOptions({ numRuns: scaledRuns(40) }),
    );
  }, 120_000);
});

/** What a person has typed so far: a query, or the first 1-4 characters of a word. */
const arbTyped: fc.Arbitrary<string> = fc.oneof(
  arbQuery,
  fc
    .tuple(fc.constantFrom(...VOCABULARY), fc.integer({ min: 1, max: 4 }), fc.boolean())
    .map(([word, n, upper]) => (upper ? word.slice(0, n).toUpperCase() : word.slice(0, n))),
);

describe("newest first equals a plain scan in time order", () => {
  it("sessions by last change, each one's hits last first", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(arbVocabularySession(), { minLength: 1, maxLength: 4 }),
        fc.array(arbOddity, { maxLength: 4 }),
        fc.array(fc.tuple(arbTyped, arbFilters, fc.boolean(), fc.boolean()), { minLength: 1, maxLength: 4 }),
        fc.constantFrom(undefined, 1, 3),
        fc.integer({ min: 1, max: 3 }),
        async (sessions, oddities, queries, rankWindow, limit) => {
          const root = dirs.make();
          const paths = writeStore(root, sessions, oddities);
          // Distinct last changes, in an order unlike the paths'.
          const changed = new Map(paths.map((p, i) => [p, 1_770_000_000 + ((i * 7) % paths.length) * 60]));
          for (const [p, t] of changed) utimesSync(p, t, t);
          const db = await openSearchDatabase({ root, persistent: false });
          try {
            await db.sync();
            for (const [query, filters, thinking, toolOutput] of queries) {
              const fields: TextField[] = ["body", "tool"];
              if (toolOutput) fields.push("output");
              if (thinking) fields.push("thinking");
              const want = oracleSearch(root, query, { filters, fields }).sort(
                (a, b) => (changed.get(b.path) ?? 0) - (changed.get(a.path) ?? 0) || b.line - a.line,
              );
              const all = await db.search(query, {
                filters,
                thinking,
                toolOutput,
                newest: true,
                ...(rankWindow !== undefined ? { rankWindow } : {}),
                limit: Number.POSITIVE_INFINITY,
                hitsPerSession: Number.POSITIVE_INFINITY,
              });
              const got = all.sessions.flatMap((s) => s.hits.map((h) => ({ path: s.path, line: h.line })));
              const label = `query ${JSON.stringify(query)} filters ${JSON.stringify(filters)}`;
              expect(got, label).toEqual(want.map((h) => ({ path: h.path, line: h.line })));
              // A page: the newest sessions, their last hits, and whether more matched.
              const page = await db.search(query, {
                filters,
                thinking,
                toolOutput,
                newest: true,
                limit,
                hitsPerSession: 2,
              });
              const order = [...new Set(want.map((h) => h.path))];
              expect(
                page.sessions.map((s) => [s.path, s.hits.map((h) => h.line)]),
                label,
              ).toEqual(
                order.slice(0, limit).map((p) => [
                  p,
                  want
                    .filter((h) => h.path === p)
                    .slice(0, 2)
                    .map((h) => h.line),
                ]),
              );
              expect(page.more, label).toBe(order.length > limit);
            }
          } finally {
            db.close();
          }
          dirs.cleanup();
        },
      ),
      fcOptions({ numRuns: scaledRuns(40) }),
    );
  }, 120_000);
});
