/**
 * better-sqlite3 loaded with its addon found directly (not through the `bindings` package), and
 * the default way kept when the addon is not where a normal install puts it.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { tempDirs } from "@pi-session/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { betterSqliteAddonPath, openConnection } from "./driver.js";

const dirs = tempDirs("pi-search-driver-");
afterEach(dirs.cleanup);

const require = createRequire(import.meta.url);

describe("better-sqlite3's addon", () => {
  it("is found in the installed package", () => {
    const file = betterSqliteAddonPath(require.resolve("better-sqlite3/package.json"));
    expect(file).toMatch(/[/\\]build[/\\]Release[/\\]better_sqlite3\.node$/);
  });

  it("is not claimed where the package has no build", () => {
    const dir = dirs.make();
    writeFileSync(join(dir, "package.json"), "{}");
    mkdirSync(join(dir, "build"));
    expect(betterSqliteAddonPath(join(dir, "package.json"))).toBeUndefined();
  });

  it("opens a database without the bindings package, its errors SQLite's", async () => {
    const db = await openConnection(":memory:", "better-sqlite3");
    try {
      db.exec("CREATE TABLE t (x)");
      db.prepare("INSERT INTO t VALUES (?)").run(42);
      expect(db.prepare("SELECT x FROM t").get()).toEqual({ x: 42 });
      // The error constructor is set on the addon however it was loaded: codes reach the caller.
      expect(() => db.exec("SELECT * FROM missing")).toThrow(
        expect.objectContaining({ name: "SqliteError", code: "SQLITE_ERROR" }),
      );
    } finally {
      db.close();
    }
    expect(Object.keys(require.cache).filter((k) => /[/\\]bindings[/\\]/.test(k))).toEqual([]);
  });
});
