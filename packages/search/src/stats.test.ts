/**
 * `stats` from the database equals `computeStats` over every stored usage row (the lineage
 * deduplication done in full, as before the database summed anything), for random stores with
 * forks (copies of a session's entries under a new header naming it), files that repeat an
 * entry, every grouping with and without a breakdown by model, time zones with offsets of
 * quarter and half hours, since and until times and a project directory: the database sums
 * only what needs no deduplication, and the report is the same to the last figure.
 */
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fcOptions, scaledRuns, tempDirs } from "@pi-session/testkit";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { GROUPINGS, type GroupBy, computeStats } from "./documents/index.js";
import { openSearchDatabase } from "./search.js";
import { arbVocabularySession, writeStore } from "./testing/store.test.helper.js";

const dirs = tempDirs("pi-search-stats-");
afterEach(dirs.cleanup);

/** A fork of `path`: its lines under a new header that names it as the parent. */
function fork(path: string, n: number): string {
  const [head, ...rest] = readFileSync(path, "utf8").split("\n");
  const header = JSON.parse(head as string) as Record<string, unknown>;
  const id = `fork${n}-${String(header.id)}`;
  const dest = join(dirname(path), `2026-02-0${(n % 9) + 1}T00-00-00-000Z_${id}.jsonl`);
  writeFileSync(
    dest,
    `${JSON.stringify({ ...header, id, timestamp: "2026-02-01T00:00:00.000Z", parentSession: path })}\n${rest.join("\n")}`,
  );
  return dest;
}

describe("stats from the session database", () => {
  it("equal computeStats over every usage row, for forks, repeats, groupings, zones, ranges and dirs", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(arbVocabularySession(20), { minLength: 1, maxLength: 5 }),
        fc.array(fc.nat(), { maxLength: 3 }),
        fc.array(fc.nat(), { maxLength: 2 }),
        fc.constantFrom<GroupBy | undefined>(undefined, ...GROUPINGS),
        fc.boolean(),
        fc.option(fc.integer({ min: 1_735_689_600_000, max: 1_798_761_600_000 }), { nil: undefined }),
        fc.option(fc.integer({ min: 1_735_689_600_000, max: 1_798_761_600_000 }), { nil: undefined }),
        fc.constantFrom("UTC", "Asia/Kathmandu", "America/St_Johns"),
        fc.boolean(),
        async (sessions, forks, repeats, by, breakdown, sinceMs, untilMs, timeZone, oneDir) => {
          const root = dirs.make();
          const files = writeStore(root, sessions);
          for (const [n, k] of forks.entries()) files.push(fork(files[k % files.length] as string, n));
          for (const k of repeats) {
            // A file with one of its entries twice (as a careless copy leaves it).
            const path = files[k % files.length] as string;
            const lines = readFileSync(path, "utf8").split("\n").filter(Boolean);
            const again = lines.find((l) => l.includes('"usage"')) ?? lines[lines.length - 1];
            appendFileSync(path, `${again}\n`);
          }
          const db = await openSearchDatabase({ root, persistent: false });
          try {
            await db.sync();
            const query = {
              ...(by ? { by } : {}),
              breakdown,
              timeZone,
              ...(sinceMs !== undefined ? { sinceMs } : {}),
              ...(untilMs !== undefined ? { untilMs } : {}),
              ...(oneDir ? { dirs: [dirname(files[0] as string)] } : {}),
            };
            const everything = db.database.usage(query.dirs ? { dirs: query.dirs } : {});
            const want = computeStats(
              everything.map((s) => ({
                path: s.path,
                id: s.meta.sessionId,
                project: s.meta.cwd !== "" ? s.meta.cwd : basename(dirname(s.path)),
                parentPath: s.meta.parentPath ?? undefined,
                created: s.meta.created,
                name: s.meta.name,
                usage: s.usage,
              })),
              query,
            );
            const { skippedFiles, ...got } = await db.stats(query);
            // Exactly: costs are summed in billionths on both sides, tokens are integers.
            expect(got).toEqual(want);
          } finally {
            db.close();
            dirs.cleanup();
          }
        },
      ),
      fcOptions({ numRuns: scaledRuns(40) }),
    );
  }, 240_000);
});
