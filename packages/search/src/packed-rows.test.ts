/**
 * Packed rows unpack to the rows that were packed (the documents' texts empty: they travel as
 * the index texts), for the rows of random sessions.
 */
import { fcOptions, scaledRuns, tempDirs } from "@pi-session/testkit";
import { listStoreFiles } from "@pi-session/node-store";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import type { EntryRow } from "./database.js";
import { packRows, packedKiB, unpackRows } from "./packed-rows.js";
import { readWhole } from "./read-file.js";
import { arbOddity, arbVocabularySession, writeStore } from "./testing/store.test.helper.js";

const dirs = tempDirs("pi-search-packed-");
afterEach(dirs.cleanup);

function rowsOf(root: string): EntryRow[][] {
  const batches: EntryRow[][] = [];
  for (const f of listStoreFiles(root))
    readWhole(f.path, f.size, f.mtimeMs, {
      add: (rows) => void batches.push([...rows]),
      setBranch: () => {},
      addFacets: () => {},
      links: () => [],
      usageKeys: () => [],
    });
  return batches;
}

describe("packed rows", () => {
  it("unpack to the rows packed, the documents' texts left to the index texts", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(arbVocabularySession(12), arbOddity), { minLength: 1, maxLength: 4 }),
        (pairs) => {
          const root = dirs.make();
          writeStore(
            root,
            pairs.map(([s]) => s),
            pairs.map(([, o]) => o),
          );
          for (const rows of rowsOf(root)) {
            const packed = packRows(rows);
            const back = unpackRows(structuredClone(packed));
            expect(back).toEqual(
              rows.map((r) => ({ ...r, doc: { ...r.doc, body: "", thinking: "", tool: "", output: "" } })),
            );
            const chars = rows.reduce(
              (n, r) =>
                n +
                Object.values(r.indexed.texts).join("").length +
                Object.values(r.indexed.parts).join("").length,
              0,
            );
            expect(packedKiB(packed)).toBe(Math.ceil(chars / 1024));
          }
        },
      ),
      fcOptions({ numRuns: scaledRuns(20) }),
    );
  });
});
