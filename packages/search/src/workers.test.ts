/**
 * Reading ahead in a worker thread gives the database reading in-process gives: the same
 * hits, branch flags, facets and usage, for random stores; a file that vanishes before it is
 * read leaves the index as it does in-process. The worker is the built `dist/index-worker.js`
 * (a build from the sources has none, and reads in-process).
 * @module-tag processes
 */
import { existsSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { fcOptions, scaledRuns, tempDirs } from "@pi-session/testkit";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { oracleSearch } from "./testing/oracle.js";
import { arbOddity, arbVocabularySession, writeStore } from "./testing/store.test.helper.js";

const dirs = tempDirs("pi-search-workers-");
afterEach(dirs.cleanup);

const DIST = fileURLToPath(new URL("../dist/index.js", import.meta.url));
const QUERIES = ["parse", '"auth.ts"', "日本", "Timeout", "re:run\\w*", "error -fix", "the"];

type Module = typeof import("./index.js");

async function snapshot(mod: Module, root: string, workers: boolean) {
  const db = await mod.openSearchDatabase({ root, persistent: false });
  try {
    const synced = await db.sync({ workers, transactionBytes: 2048 });
    expect(synced.readAhead).toBe(workers ? synced.indexed : 0);
    const out: Record<string, unknown> = { indexed: synced.indexed };
    for (const q of QUERIES) {
      const r = await db.search(q, {
        limit: Number.POSITIVE_INFINITY,
        hitsPerSession: Number.POSITIVE_INFINITY,
        filters: q === "the" ? { tool: "read" } : {},
      });
      out[q] = r.sessions.map((s) => [s.path, s.meta, s.hits.map((h) => [h.line, h.onBranch, h.score])]);
    }
    out.stats = await db.stats({ by: "model" });
    return out;
  } finally {
    db.close();
  }
}

describe("reading ahead in a worker", () => {
  it("indexes exactly as reading in-process", async () => {
    expect(existsSync(DIST), "build the package first (pnpm build)").toBe(true);
    const mod = (await import(DIST)) as Module;
    await fc.assert(
      fc.asyncProperty(
        fc.array(arbVocabularySession(40), { minLength: 1, maxLength: 8 }),
        fc.array(arbOddity, { maxLength: 8 }),
        async (sessions, oddities) => {
          const root = dirs.make();
          writeStore(root, sessions, oddities);
          const inProcess = await snapshot(mod, root, false);
          const ahead = await snapshot(mod, root, true);
          expect(ahead).toEqual(inProcess);
          rmSync(root, { recursive: true, force: true });
        },
      ),
      fcOptions({ numRuns: scaledRuns(15) }),
    );
  }, 240_000);

  it("leaves out a file that vanishes before it is read, and keeps the rest", async () => {
    const mod = (await import(DIST)) as Module;
    const root = dirs.make();
    const files = writeStore(root, fc.sample(arbVocabularySession(30), { numRuns: 6, seed: 11 }) as never[]);
    const db = await mod.openSearchDatabase({ root, persistent: false });
    const stats = await db.sync({
      workers: true,
      transactionBytes: 4096,
      onStart: () => rmSync(files[3] as string),
    });
    expect(stats).toMatchObject({ files: 6, indexed: 5, removed: 1 });
    // The files of the batch that was done again were read in-process.
    expect(stats.readAhead).toBeGreaterThan(0);
    for (const q of QUERIES) {
      const r = await db.search(q, {
        limit: Number.POSITIVE_INFINITY,
        hitsPerSession: Number.POSITIVE_INFINITY,
      });
      const got = r.sessions.flatMap((s) => s.hits.map((h) => `${s.path}:${h.line}`)).sort();
      const want = oracleSearch(root, q, { fields: ["body", "tool", "output"] })
        .map((h) => `${h.path}:${h.line}`)
        .sort();
      expect(got, q).toEqual(want);
    }
    db.close();
  }, 60_000);
});
