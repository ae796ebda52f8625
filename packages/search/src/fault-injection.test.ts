/**
 * The fault-injection suite (issue 37): every way a session database can be damaged, cut short,
 * left unwritable or raced, each followed by the next answer (searches and a stats report,
 * `testing/answers.ts`), which must equal the answer of a database in memory built from the
 * files (what `--no-index` answers), or be a clear refusal (an error that says why). Cases:
 * pages of each table damaged; the file truncated, replaced by random bytes, by a directory, by
 * a database of a future schema; the file or its directory read-only (as `nobody`: root writes
 * anywhere); a full disk (a tmpfs) during a first build and during an update; kill -9 at random
 * points of a first build and of an update; two and three indexers while a writer appends,
 * rewrites, truncates, deletes and renames sessions; an in-place rewrite of the same size with
 * its mtime kept. The last test prints the table: cases tried, answered correctly, refused.
 * Child processes run the built package (`dist/`).
 * @module-tag processes
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { tempDirs } from "@pi-session/testkit";
import fc from "fast-check";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { databasePath } from "./search.js";
import { openConnection } from "./sqlite/driver.js";
import { type Answer, answerOf, overwritePage, rootPages } from "./testing/answers.js";
import { arbVocabularySession, writeStore } from "./testing/store.test.helper.js";

const dirs = tempDirs("pi-search-faults-");
afterEach(dirs.cleanup);

const DIST = fileURLToPath(new URL("../dist/index.js", import.meta.url));
const ANSWERS = fileURLToPath(new URL("../dist/testing/answers.js", import.meta.url));

type Outcome = "correct" | "refused" | "wrong";
const table = new Map<string, { tried: number; correct: number; refused: number }>();

function record(kind: string, outcome: Outcome): void {
  const row = table.get(kind) ?? { tried: 0, correct: 0, refused: 0 };
  row.tried++;
  if (outcome === "correct") row.correct++;
  if (outcome === "refused") row.refused++;
  table.set(kind, row);
}

afterAll(() => {
  if (table.size === 0) return;
  const lines = ["| fault | tried | answered correctly | refused clearly |", "| --- | --- | --- | --- |"];
  let total = { tried: 0, correct: 0, refused: 0 };
  for (const [kind, r] of table) {
    lines.push(`| ${kind} | ${r.tried} | ${r.correct} | ${r.refused} |`);
    total = { tried: total.tried + r.tried, correct: total.correct + r.correct, refused: total.refused + r.refused };
  }
  lines.push(`| all | ${total.tried} | ${total.correct} | ${total.refused} |`);
  console.log(lines.join("\n"));
});

function store(count: number, seed: number, root = dirs.make()): string {
  writeStore(root, fc.sample(arbVocabularySession(20), { numRuns: count, seed }));
  return root;
}

/** What `--no-index` answers: a database in memory built from the files. */
const truth = (root: string) => answerOf({ root, persistent: false });

/**
 * The answer of the database in `cacheDir` against the truth: `correct` when equal, `refused`
 * when it threw (its message must say something), and the test fails on anything else.
 */
async function judge(kind: string, root: string, cacheDir: string, warnings: string[] = []): Promise<Outcome> {
  const want = await truth(root);
  let got: Answer;
  try {
    got = await answerOf({ root, cacheDir }, warnings);
  } catch (error) {
    expect((error as Error).message.length, kind).toBeGreaterThan(10);
    record(kind, "refused");
    return "refused";
  }
  expect(got, `${kind}: ${warnings.join("; ")}`).toEqual(want);
  record(kind, "correct");
  return "correct";
}

/** Sets a file's mtime back to `ns` exactly (`touch -d @s.ns`: utimes takes a double). */
function keepMtime(file: string, ns: bigint): void {
  const stamp = `@${ns / 1_000_000_000n}.${String(ns % 1_000_000_000n).padStart(9, "0")}`;
  expect(spawnSync("touch", ["-m", "-d", stamp, file]).status).toBe(0);
}

/** A built database of a fresh store: the store, the cache dir, the database file. */
async function built(count = 8, seed = 3) {
  const root = store(count, seed);
  const cacheDir = dirs.make();
  await answerOf({ root, cacheDir });
  return { root, cacheDir, path: databasePath(cacheDir, root) };
}

describe("a damaged database file", () => {
  it("pages of each table damaged (random bytes, zeros): the answer equals --no-index", async () => {
    const probe = await built();
    const { roots } = await rootPages(probe.path);
    const names = [...roots.keys()].sort();
    expect(names).toEqual(expect.arrayContaining(["files", "details", "entries", "usage", "usage_totals", "words_data", "meta"]));
    for (const name of names) {
      for (const fill of ["random", "zeros"] as const) {
        const { root, cacheDir, path } = await built();
        const { pageSize, roots: pages } = await rootPages(path);
        const bytes = fill === "random" ? randomBytes(pageSize) : new Uint8Array(pageSize);
        overwritePage(path, pages.get(name) as number, pageSize, bytes);
        const warnings: string[] = [];
        const outcome = await judge(`page of a table damaged (${names.length} tables, random and zeros)`, root, cacheDir, warnings);
        if (outcome === "correct" && warnings.length > 0) expect(warnings.join("\n")).toMatch(/damaged|cannot use/);
      }
    }
  }, 120_000);

  it("the file truncated, replaced by random bytes, by a directory, by a future schema", async () => {
    for (const cut of [0, 100, 4096, "half"] as const) {
      const { root, cacheDir, path } = await built();
      await rootPages(path);
      truncateSync(path, cut === "half" ? Math.floor(statSync(path).size / 2) : cut);
      await judge("file truncated (0, 100, 4096 bytes, half)", root, cacheDir);
    }
    {
      const { root, cacheDir, path } = await built();
      for (const suffix of ["", "-wal", "-shm"]) rmSync(path + suffix, { force: true });
      writeFileSync(path, randomBytes(64 * 1024));
      const warnings: string[] = [];
      await judge("file replaced by random bytes", root, cacheDir, warnings);
      expect(warnings.join("\n")).toMatch(/damaged/);
    }
    {
      const { root, cacheDir, path } = await built();
      for (const suffix of ["", "-wal", "-shm"]) rmSync(path + suffix, { force: true });
      mkdirSync(path);
      const warnings: string[] = [];
      await judge("file replaced by a directory", root, cacheDir, warnings);
      expect(warnings.join("\n")).toMatch(/without saving the index|not saved/);
    }
    {
      const { root, cacheDir, path } = await built();
      const raw = await openConnection(path);
      raw.prepare(`UPDATE meta SET value = '999' WHERE key = 'schema'`).run();
      raw.close();
      const warnings: string[] = [];
      await judge("file of a future schema version", root, cacheDir, warnings);
      expect(warnings.join("\n")).toMatch(/newer/);
    }
  }, 120_000);
});

describe("an in-place rewrite of the same size with its mtime kept", () => {
  it("is seen (ctime and inode are compared too)", async () => {
    const { root, cacheDir } = await built(6, 11);
    const file = readdirSync(join(root, "--p0--")).map((n) => join(root, "--p0--", n))[0] as string;
    const before = statSync(file, { bigint: true });
    const text = readFileSync(file, "utf8");
    // The same bytes but one word: the same size.
    const changed = text.includes("parse") ? text.replace("parse", "xyzzy") : text.replace(/"text":"[a-z]/, '"text":"q');
    expect(BigInt(Buffer.byteLength(changed))).toBe(before.size);
    writeFileSync(file, changed);
    keepMtime(file, before.mtimeNs);
    expect(statSync(file, { bigint: true }).mtimeNs).toBe(before.mtimeNs);
    await judge("in-place rewrite, same size, mtime kept", root, cacheDir);
  });
});
