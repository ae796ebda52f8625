/**
 * The session database's answers on a fixed store (`testing/vectors.ts`): words, phrases,
 * CJK, regular expressions, branches, filters by file, model and tool, and the stats totals.
 */
import { tempDirs } from "@pi-session/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { runVectors } from "./testing/vectors.js";

const dirs = tempDirs("pi-search-vectors-");
afterEach(dirs.cleanup);

describe("the session database", () => {
  it("answers the vectors", async () => {
    const got = (await runVectors(dirs.make())) as Record<string, unknown>;
    expect(got.backend).toBe("sqlite (node:sqlite)");
    expect(got.parser).toEqual([
      [
        "/--home-u-app--/2026-03-01T10-00-00-000Z_aaaa.jsonl",
        [[2, true, "where did we fix the parser timeout?"]],
      ],
    ]);
    expect((got['"auth.ts"'] as unknown[]).length).toBe(1);
    expect((got.日本 as unknown[]).length).toBe(1);
    expect((got.東京 as unknown[]).length).toBe(1);
    expect((got["re:indexOf\\("] as unknown[]).length).toBe(1);
    // a4 is the leaf: a1 and a4 are the current branch, a2 and a3 an abandoned one.
    expect(got["parsing -timeout"]).toEqual([
      ["/--home-u-app--/2026-03-01T10-00-00-000Z_aaaa.jsonl", [[5, true, "parsing on another branch"]]],
    ]);
    expect(got.filtered).toBe(1);
    expect(got.named).toBe(1);
    expect(got.files).toEqual({
      "src/auth.ts": 1,
      "auth.ts": 1,
      "/home/u/app/src/auth.ts": 1,
      "app/src/auth.ts": 1,
      "th.ts": 0,
      "uth.ts": 0,
    });
    expect(got.models).toEqual({ "p/m": 1, m: 1, "x/m": 0, p: 0 });
    expect(got.tools).toBe(1);
    // A word from inside an identifier; a substring from an identifier part.
    expect((got.Timeout as unknown[]).length).toBe(2);
    expect(got.AuthToken).toEqual([
      [
        "/--home-u-app--/2026-03-01T10-00-00-000Z_aaaa.jsonl",
        [[4, false, expect.stringContaining("getAuthToken")]],
      ],
    ]);
    expect(got.stats).toMatchObject({ input: 10, cost: 0.5, records: 1 });
  });
});
