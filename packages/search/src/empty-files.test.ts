/**
 * Files with nothing to probe: an empty `.jsonl` in a store (pi's session directory can hold
 * one) is indexed as no session, and the database keeps its empty head and tail. node:sqlite
 * binds a zero-length view of an empty `ArrayBuffer` as NULL: the probes must still be blobs.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDirs } from "@pi-session/testkit";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { openSearchDatabase } from "./search.js";
import { arbVocabularySession, writeStore } from "./testing/store.test.helper.js";

const dirs = tempDirs("pi-search-empty-");
afterEach(dirs.cleanup);

describe("an empty file in the store", () => {
  it("is no session: the sync indexes the rest, and again after it grew", async () => {
    const root = dirs.make();
    writeStore(root, fc.sample(arbVocabularySession(6), { numRuns: 1, seed: 5 }));
    mkdirSync(join(root, "--p--"), { recursive: true });
    const empty = join(root, "--p--", "empty.jsonl");
    writeFileSync(empty, "");
    const db = await openSearchDatabase({ root, persistent: false });
    const versions = () => [...db.database.files()].map(([path, file]) => [path === empty, file.version]);
    try {
      expect((await db.sync()).unreadable).toEqual([]);
      expect(versions().sort()).toEqual([
        [false, 3],
        [true, 0],
      ]);
      writeFileSync(empty, "not a session\n");
      expect((await db.sync()).unreadable).toEqual([]);
      expect(versions().sort()).toEqual([
        [false, 3],
        [true, 0],
      ]);
    } finally {
      db.close();
    }
  });
});
