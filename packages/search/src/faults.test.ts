/**
 * Faults: a damaged database file is set aside and rebuilt with a warning; an unwritable
 * cache dir searches in memory with a warning; a newer schema is left alone; a process killed
 * mid-index (SIGKILL) leaves a usable index; two processes indexing at once neither corrupt
 * nor duplicate anything. The child processes run the built package (`dist/`).
 * @module-tag processes
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { tempDirs } from "@pi-session/testkit";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { databasePath, openSearchDatabase } from "./search.js";
import { openSqliteDatabase } from "./sqlite/open.js";
import { SCHEMA_VERSION } from "./sqlite/schema.js";
import { oracleSearch } from "./testing/oracle.js";
import { arbVocabularySession, writeStore } from "./testing/store.test.helper.js";

const dirs = tempDirs("pi-search-faults-");
afterEach(dirs.cleanup);

const DIST = fileURLToPath(new URL("../dist/index.js", import.meta.url));

function store(count: number, seed = 1): string {
  const root = dirs.make();
  writeStore(root, fc.sample(arbVocabularySession(30), { numRuns: count, seed }));
  return root;
}

async function hits(root: string, cacheDir: string, q: string): Promise<string[]> {
  const db = await openSearchDatabase({ root, cacheDir });
  await db.sync();
  const r = await db.search(q, { limit: Number.POSITIVE_INFINITY, hitsPerSession: Number.POSITIVE_INFINITY });
  db.close();
  return r.sessions.flatMap((s) => s.hits.map((h) => `${s.path}:${h.line}`)).sort();
}

function expected(root: string, q: string): string[] {
  return oracleSearch(root, q, { fields: ["body", "tool", "output"] })
    .map((h) => `${h.path}:${h.line}`)
    .sort();
}

/** A child that syncs `root` into `cacheDir`, printing `file` after each indexed file. */
function indexer(root: string, cacheDir: string): ChildProcess {
  const code = `
    const { openSearchDatabase } = await import(${JSON.stringify(DIST)});
    const db = await openSearchDatabase({ root: ${JSON.stringify(root)}, cacheDir: ${JSON.stringify(cacheDir)} });
    // A transaction per file, so a kill lands between files already kept.
    await db.sync({ transactionBytes: 1, onProgress: () => process.stdout.write("file\\n") });
    db.close();
    process.stdout.write("done\\n");`;
  return spawn(process.execPath, ["--input-type=module", "-e", code], {
    stdio: ["ignore", "pipe", "inherit"],
  });
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.on("exit", (code) => resolve(code)));
}

describe("faults", () => {
  it("sets a damaged database aside, rebuilds it and says so", async () => {
    const root = store(3);
    const cacheDir = dirs.make();
    const want = expected(root, "parse");
    expect(await hits(root, cacheDir, "parse")).toEqual(want);
    const path = databasePath(cacheDir, root);
    writeFileSync(path, Buffer.alloc(8192, 0x5a));
    const warnings: string[] = [];
    const db = await openSearchDatabase({ root, cacheDir, onWarning: (m) => warnings.push(m) });
    await db.sync();
    const r = await db.search("parse", {
      limit: Number.POSITIVE_INFINITY,
      hitsPerSession: Number.POSITIVE_INFINITY,
    });
    db.close();
    expect(r.sessions.flatMap((s) => s.hits.map((h) => `${s.path}:${h.line}`)).sort()).toEqual(want);
    expect(warnings.join("\n")).toMatch(/damaged; moved to .*corrupt-.* and rebuilt/);
    expect(readdirSync(cacheDir).some((n) => n.includes(".corrupt-"))).toBe(true);
  });

  it("searches in memory, with a warning, when the cache dir cannot be written", async () => {
    // Root writes anywhere, so the cache dir is a file (a directory cannot be made there).
    const root = store(2);
    const parent = dirs.make();
    const cacheDir = join(parent, "cache");
    writeFileSync(cacheDir, "not a directory");
    const warnings: string[] = [];
    const db = await openSearchDatabase({ root, cacheDir, onWarning: (m) => warnings.push(m) });
    expect(db.location).toBe(":memory:");
    await db.sync();
    const r = await db.search("parse", {
      limit: Number.POSITIVE_INFINITY,
      hitsPerSession: Number.POSITIVE_INFINITY,
    });
    db.close();
    expect(r.sessions.flatMap((s) => s.hits.map((h) => `${s.path}:${h.line}`)).sort()).toEqual(
      expected(root, "parse"),
    );
    expect(warnings.join("\n")).toMatch(/without saving the index/);
  });

  it("rebuilds a database of an older schema, every table of it, with a warning", async () => {
    const root = store(3);
    const cacheDir = dirs.make();
    const path = databasePath(cacheDir, root);
    const before = await hits(root, cacheDir, "parse");
    expect(before).toEqual(expected(root, "parse"));
    const raw = await import("./sqlite/driver.js").then((m) => m.openConnection(path));
    raw.prepare(`UPDATE meta SET value = ? WHERE key = 'schema'`).run(String(SCHEMA_VERSION - 1));
    // A table the older schema had and this one does not.
    raw.exec("CREATE TABLE old_things (x)");
    raw.close();
    const warnings: string[] = [];
    const db = await openSearchDatabase({ root, cacheDir, onWarning: (m) => warnings.push(m) });
    expect(db.location).toBe(path);
    await db.sync();
    const r = await db.search("parse", {
      limit: Number.POSITIVE_INFINITY,
      hitsPerSession: Number.POSITIVE_INFINITY,
    });
    db.close();
    expect(warnings.join("\n")).toMatch(/older pi-session; rebuilding/);
    expect(r.sessions.flatMap((s) => s.hits.map((h) => `${s.path}:${h.line}`)).sort()).toEqual(before);
    const check = await import("./sqlite/driver.js").then((m) => m.openConnection(path));
    expect(check.prepare(`SELECT value FROM meta WHERE key = 'schema'`).get()?.value).toBe(
      String(SCHEMA_VERSION),
    );
    expect(check.prepare(`SELECT name FROM sqlite_master WHERE name = 'old_things'`).get()).toBeUndefined();
    check.close();
  });

  it("leaves a database of a newer schema alone", async () => {
    const root = store(1);
    const cacheDir = dirs.make();
    const path = databasePath(cacheDir, root);
    await hits(root, cacheDir, "parse");
    const { database } = await openSqliteDatabase(path);
    database.close();
    const raw = await import("./sqlite/driver.js").then((m) => m.openConnection(path));
    raw.prepare(`UPDATE meta SET value = '999' WHERE key = 'schema'`).run();
    raw.close();
    const warnings: string[] = [];
    const db = await openSearchDatabase({ root, cacheDir, onWarning: (m) => warnings.push(m) });
    expect(db.location).toBe(":memory:");
    db.close();
    expect(warnings.join("\n")).toMatch(/newer .*left alone/);
    const check = await import("./sqlite/driver.js").then((m) => m.openConnection(path));
    expect(check.prepare(`SELECT value FROM meta WHERE key = 'schema'`).get()?.value).toBe("999");
    check.close();
  });

  it("a process killed while indexing leaves an index the next run completes", async () => {
    expect(existsSync(DIST), "build the package first (pnpm build)").toBe(true);
    const root = store(40, 5);
    const cacheDir = dirs.make();
    const child = indexer(root, cacheDir);
    let seen = 0;
    await new Promise<void>((resolve) => {
      child.stdout?.on("data", (chunk: Buffer) => {
        seen += chunk.toString().split("file").length - 1;
        if (seen >= 5) {
          child.kill("SIGKILL");
          resolve();
        }
      });
      child.on("exit", () => resolve());
    });
    await exited(child);
    for (const q of ["parse", '"auth.ts"', "日本"])
      expect(await hits(root, cacheDir, q)).toEqual(expected(root, q));
  }, 60_000);

  it("two processes indexing at once neither corrupt nor duplicate", async () => {
    expect(existsSync(DIST), "build the package first (pnpm build)").toBe(true);
    const root = store(30, 9);
    const cacheDir = dirs.make();
    const a = indexer(root, cacheDir);
    const b = indexer(root, cacheDir);
    expect(await Promise.all([exited(a), exited(b)])).toEqual([0, 0]);
    const { database } = await openSqliteDatabase(databasePath(cacheDir, root));
    const raw = await import("./sqlite/driver.js").then((m) =>
      m.openConnection(databasePath(cacheDir, root)),
    );
    const dup = raw
      .prepare(
        `SELECT COUNT(*) AS n FROM files f WHERE f.version > 0 AND f.entry_count != (SELECT COUNT(*) FROM entries e WHERE e.file_id = f.id)`,
      )
      .get();
    const fts = raw
      .prepare(`SELECT (SELECT COUNT(*) FROM words) - (SELECT COUNT(*) FROM entries WHERE fields != 0) AS d`)
      .get();
    raw.close();
    database.close();
    expect(dup?.n).toBe(0);
    expect(fts?.d).toBe(0);
    for (const q of ["parse", "re:time\\w+"])
      expect(await hits(root, cacheDir, q)).toEqual(expected(root, q));
  }, 60_000);
});
