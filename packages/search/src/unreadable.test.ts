/**
 * What the store holds but no one can read (a file that was indexed and is now a dangling
 * link) leaves the index and is reported by `sync()` in `unreadable`, with why; what is no
 * session (a directory named like one) is passed by; the rest is indexed. Permissions are tested
 * through the CLI (`apps/cli/src/hostile.test.ts`), which can run as another user.
 */
import { mkdirSync, renameSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { tempDirs } from "@pi-session/testkit";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { openSearchDatabase } from "./search.js";
import { arbVocabularySession, writeStore } from "./testing/store.test.helper.js";

const dirs = tempDirs("pi-search-unreadable-");
afterEach(dirs.cleanup);

describe("sync and what cannot be read", () => {
  it("reports each unreadable item, indexes the rest, and drops what became unreadable", async () => {
    const root = dirs.make();
    const paths = writeStore(root, fc.sample(arbVocabularySession(10), { numRuns: 3, seed: 7 }));
    const project = join(paths[1] as string, "..");
    const db = await openSearchDatabase({ root, persistent: false });
    try {
      expect((await db.sync()).unreadable).toEqual([]);
      const first = (await db.stats()).sessions;
      // One indexed file turns into a dangling link; a directory takes a session's name.
      const moved = paths[1] as string;
      renameSync(moved, `${moved}.gone`);
      symlinkSync(join(project, "nowhere"), moved);
      mkdirSync(join(project, "dir.jsonl"));
      const synced = await db.sync();
      // The directory is no session: passed by; the dangling link is reported.
      expect(synced.unreadable.map((u) => [u.path, (u.error as { code?: string }).code])).toEqual([
        [moved, "ENOENT"],
      ]);
      expect((await db.stats()).sessions).toBe(first - 1);
    } finally {
      db.close();
    }
  });
});
