/**
 * One property drives both backends: random stores (vocabulary sessions, some with lines pi
 * reads in its own way) and random queries, filters and stats reports give the same answers
 * from the local SQLite database and from PostgreSQL after a sync: the same hits (session,
 * line, branch flag) as sets for ranked orders, the same order for `newest`, equal stats;
 * also when files are read in parts of a few bytes.
 *
 * @module-tag processes
 */
import { utimesSync } from "node:fs";
import { openSearchDatabase } from "@pi-session/search";
import type { SearchFilters } from "@pi-session/search";
import { fcOptions, scaledRuns, tempDirs } from "@pi-session/testkit";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  arbOddity,
  arbQuery,
  arbVocabularySession,
  writeStore,
} from "../../search/src/testing/store.test.helper.js";
import { type PostgresDatabase, openPostgresDatabase } from "./index.js";
import { type Cluster, startCluster } from "./testing/cluster.js";

const dirs = tempDirs("pi-pg-same-");
let cluster: Cluster;
let db: PostgresDatabase;

beforeAll(async () => {
  cluster = await startCluster();
  db = await openPostgresDatabase({ url: cluster.url });
}, 120_000);

afterAll(async () => {
  await db?.close();
  cluster?.stop();
  dirs.cleanup();
});

const arbFilter: fc.Arbitrary<SearchFilters> = fc.oneof(
  fc.subarray(["user", "assistant", "tool"] as const, { minLength: 1 }).map((roles) => ({ roles })),
  fc.constantFrom("read", "bash", "edit").map((tool) => ({ tool })),
  fc
    .constantFrom("auth.ts", "src/auth.ts", "README.md", "/home/user/project/src/auth.ts")
    .map((file) => ({ file })),
  fc.constantFrom("claude-test", "anthropic/claude-test", "test").map((model) => ({ model })),
  fc.constant({ errored: true }),
  fc.constant({ named: true }),
  fc.integer({ min: 1_735_689_600_000, max: 1_798_761_600_000 }).map((sinceMs) => ({ sinceMs })),
  fc.integer({ min: 1_735_689_600_000, max: 1_798_761_600_000 }).map((untilMs) => ({ untilMs })),
);
const arbFilters = fc.oneof(
  { weight: 3, arbitrary: fc.constant<SearchFilters>({}) },
  { weight: 2, arbitrary: arbFilter },
);

const arbStats = fc.record({
  by: fc.constantFrom(undefined, "day", "month", "model", "project", "session"),
  breakdown: fc.boolean(),
  sinceMs: fc.option(fc.integer({ min: 1_735_689_600_000, max: 1_798_761_600_000 }), { nil: undefined }),
});

type Hit = { path: string; line: number; onBranch: boolean };
const key = (h: Hit) => `${h.path}:${h.line}:${h.onBranch ? "on" : "off"}`;

let run = 0;

describe("SQLite and PostgreSQL answer alike", () => {
  it("for random stores, queries, filters and stats", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(arbVocabularySession(), { minLength: 1, maxLength: 4 }),
        fc.array(arbOddity, { maxLength: 4 }),
        fc.array(fc.tuple(arbQuery, arbFilters, fc.boolean(), fc.boolean()), { minLength: 1, maxLength: 3 }),
        arbStats,
        // Files read in parts now and then (each an append to the part before).
        fc.constantFrom(undefined, 1, 300, 2000),
        // Matches ranked in windows of a few now and then (10,000 by default).
        fc.constantFrom(undefined, 1, 3),
        async (sessions, oddities, queries, statsQuery, chunkBytes, rankWindow) => {
          const root = dirs.make();
          const paths = writeStore(root, sessions, oddities);
          // Distinct last changes, in an order unlike the paths' (the newest order follows them).
          paths.forEach((p, i) => {
            const t = 1_770_000_000 + ((i * 7) % paths.length) * 60;
            utimesSync(p, t, t);
          });
          const source = `run-${run++}`;
          const local = await openSearchDatabase({ root, persistent: false });
          try {
            await local.sync();
            await db.sync({ root, source, ...(chunkBytes !== undefined ? { chunkBytes } : {}) });
            for (const [query, filters, thinking, toolOutput] of queries) {
              const label = `query ${JSON.stringify(query)} filters ${JSON.stringify(filters)}`;
              const all = {
                filters,
                thinking,
                toolOutput,
                limit: Number.POSITIVE_INFINITY,
                hitsPerSession: Number.POSITIVE_INFINITY,
                ...(rankWindow !== undefined ? { rankWindow } : {}),
              };
              const flat = (r: {
                sessions: { path: string; hits: { line: number; onBranch: boolean }[] }[];
              }) =>
                r.sessions.flatMap((s) =>
                  s.hits.map((h) => ({ path: s.path, line: h.line, onBranch: h.onBranch })),
                );
              const want = flat(await local.search(query, all));
              const ranked = await db.search(query, { ...all, sources: [source] });
              const got = flat(ranked);
              expect(got.map(key).sort(), label).toEqual(want.map(key).sort());
              // Current branch first: no session led by an abandoned-branch hit before one led by a current one.
              const leads = ranked.sessions.map((s) => s.hits[0]?.onBranch === true);
              expect(
                leads.indexOf(false) === -1 || leads.lastIndexOf(true) < leads.indexOf(false),
                label,
              ).toBe(true);
              // Newest first: the same order exactly.
              const wantNewest = flat(await local.search(query, { ...all, newest: true }));
              const gotNewest = flat(await db.search(query, { ...all, newest: true, sources: [source] }));
              expect(gotNewest, `${label} newest`).toEqual(wantNewest);
              // A page of it: the same sessions, hits and `more`.
              const page = { filters, thinking, toolOutput, newest: true, limit: 1, hitsPerSession: 2 };
              const a = await local.search(query, page);
              const b = await db.search(query, { ...page, sources: [source] });
              expect(flat(b), `${label} page`).toEqual(flat(a));
              expect(b.more, `${label} more`).toBe(a.more);
              // Equal facts rely on vocabulary sessions having no NUL in them (PostgreSQL stores
              // one as U+FFFD, SQLite keeps it: store.test.helper.ts).
              expect(
                b.sessions.map((s) => s.meta),
                `${label} meta`,
              ).toEqual(a.sessions.map((s) => s.meta));
            }
            const options = Object.fromEntries(
              Object.entries({ ...statsQuery, timeZone: "UTC" }).filter(([, v]) => v !== undefined),
            );
            const wantStats = await local.stats(options);
            const gotStats = await db.stats({ ...options, sources: [source] });
            expect(gotStats, JSON.stringify(options)).toEqual(wantStats);
          } finally {
            local.close();
          }
          dirs.cleanup();
        },
      ),
      fcOptions({ numRuns: scaledRuns(25) }),
    );
  }, 600_000);
});
