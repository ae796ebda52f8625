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
    total = {
      tried: total.tried + r.tried,
      correct: total.correct + r.correct,
      refused: total.refused + r.refused,
    };
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
async function judge(
  kind: string,
  root: string,
  cacheDir: string,
  warnings: string[] = [],
): Promise<Outcome> {
  const want = await truth(root);
  let got: Answer;
  try {
    got = await answerOf({ root, cacheDir }, warnings);
  } catch (error) {
    expectClearRefusal(kind, (error as Error).message);
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

/**
 * A refusal must say what is wrong and where (the session database, and why), not pass on
 * SQLite's word of a symptom ("cannot rollback - no transaction is active").
 */
function expectClearRefusal(kind: string, message: string): void {
  expect(message, kind).toMatch(/session database .*(damaged|cannot|full|permission|read-only)/);
}

/** A built database of a fresh store: the store, the cache dir, the database file. */
async function built(count = 8, seed = 3) {
  const root = store(count, seed);
  const cacheDir = dirs.make();
  await answerOf({ root, cacheDir });
  return { root, cacheDir, path: databasePath(cacheDir, root) };
}

describe("a damaged database file", () => {
  it("pages of each table damaged (random bytes or zeros): the answer equals --no-index", async () => {
    const probe = await built();
    const { roots } = await rootPages(probe.path);
    const names = [...roots.keys()].sort();
    expect(names).toEqual(
      expect.arrayContaining(["files", "details", "entries", "usage", "usage_totals", "words_data", "meta"]),
    );
    for (const [i, name] of names.entries()) {
      // Random bytes on one table, zeros on the next: each table's root page, one fault each.
      for (const fill of [i % 2 === 0 ? "random" : "zeros"] as const) {
        const { root, cacheDir, path } = await built();
        const { pageSize, roots: pages } = await rootPages(path);
        const bytes = fill === "random" ? randomBytes(pageSize) : new Uint8Array(pageSize);
        overwritePage(path, pages.get(name) as number, pageSize, bytes);
        const warnings: string[] = [];
        const outcome = await judge(
          `root page of each table damaged (random bytes or zeros)`,
          root,
          cacheDir,
          warnings,
        );
        if (outcome === "correct" && warnings.length > 0)
          expect(warnings.join("\n")).toMatch(/damaged|cannot use/);
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
    const changed = text.includes("parse")
      ? text.replace("parse", "xyzzy")
      : text.replace(/"text":"[a-z]/, '"text":"q');
    expect(BigInt(Buffer.byteLength(changed))).toBe(before.size);
    writeFileSync(file, changed);
    keepMtime(file, before.mtimeNs);
    expect(statSync(file, { bigint: true }).mtimeNs).toBe(before.mtimeNs);
    await judge("in-place rewrite, same size, mtime kept", root, cacheDir);
  });
});

/** A child process running the built package: `answer` prints the answer as JSON; `index` syncs, saying `file` after each file. */
function child(
  mode: "answer" | "index",
  root: string,
  cacheDir: string,
  opts: { as?: { uid: number; gid: number }; loops?: number } = {},
): ChildProcess {
  const code = `
    const { openSearchDatabase } = await import(${JSON.stringify(DIST)});
    const { answerOf } = await import(${JSON.stringify(ANSWERS)});
    const root = ${JSON.stringify(root)}, cacheDir = ${JSON.stringify(cacheDir)};
    if (${JSON.stringify(mode)} === "answer") {
      const warnings = [];
      try {
        const answer = await answerOf({ root, cacheDir }, warnings);
        process.stdout.write(JSON.stringify({ answer, warnings }));
      } catch (error) {
        process.stdout.write(JSON.stringify({ error: String(error?.message ?? error), warnings }));
      }
    } else {
      for (let i = 0; i < ${opts.loops ?? 1}; i++) {
        const db = await openSearchDatabase({ root, cacheDir });
        // A transaction per file, so a kill lands between files already kept, or inside one.
        await db.sync({ transactionBytes: 1, onProgress: () => process.stdout.write("file\\n") });
        db.close();
      }
      process.stdout.write("done\\n");
    }`;
  return spawn(process.execPath, ["--input-type=module", "-e", code], {
    stdio: ["ignore", "pipe", "pipe"],
    ...(opts.as ?? {}),
  });
}

function finished(c: ChildProcess): Promise<{ code: number | null; out: string; err: string }> {
  let out = "";
  let err = "";
  c.stdout?.on("data", (d: Buffer) => {
    out += d.toString();
  });
  c.stderr?.on("data", (d: Buffer) => {
    err += d.toString();
  });
  return new Promise((resolve) => c.on("close", (code) => resolve({ code, out, err })));
}

/** `nobody`, when this process may start children as that user (it runs as root); else undefined. */
function nobody(): { uid: number; gid: number } | undefined {
  if (typeof process.getuid !== "function" || process.getuid() !== 0) return undefined;
  const as = { uid: 65534, gid: 65534 };
  return spawnSync(process.execPath, ["-e", "0"], { ...as }).status === 0 ? as : undefined;
}

/** Lets `nobody` read the store and reach the cache dir: the temporary directories are private. */
function openToAll(...paths: string[]): void {
  for (const p of paths) {
    for (let dir = p; dir !== "/" && dir.startsWith("/tmp"); dir = join(dir, "..")) chmodSync(dir, 0o755);
    spawnSync("chmod", ["-R", "a+rX", p]);
  }
}

describe("a database that cannot be written", () => {
  const as = nobody();

  it.skipIf(!as)(
    "the file read-only (as nobody, in a cache dir it can write): answered from the files",
    async () => {
      const { root, cacheDir, path } = await built(8, 21);
      await rootPages(path);
      for (const suffix of ["-wal", "-shm"]) rmSync(path + suffix, { force: true });
      // The directory is nobody's; the database file is root's and read-only to the others.
      spawnSync("chown", ["65534:65534", cacheDir]);
      chmodSync(path, 0o644);
      openToAll(root, cacheDir);
      // A session more, so the answer needs a write.
      store(2, 22, root);
      openToAll(root);
      const r = await finished(child("answer", root, cacheDir, { as }));
      await judgeChild("database file read-only (nobody)", root, r);
    },
    60_000,
  );

  it.skipIf(!as)(
    "its directory read-only (as nobody): answered from the files",
    async () => {
      const { root, cacheDir, path } = await built(8, 23);
      await rootPages(path);
      openToAll(root, cacheDir);
      store(2, 24, root);
      openToAll(root);
      const r = await finished(child("answer", root, cacheDir, { as }));
      await judgeChild("cache directory read-only (nobody)", root, r);
    },
    60_000,
  );

  it("a full disk (tmpfs) during a first build and during an update", async (ctx) => {
    const mountPoint = dirs.make();
    if (spawnSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", mountPoint]).status !== 0) {
      ctx.skip("cannot mount a tmpfs here (not root?): the full-disk cases need one");
    }
    try {
      const root = store(30, 31);
      // 64 KiB: the first build fills it and fails part way.
      const warnings: string[] = [];
      const first = await judge("disk full during a first build (tmpfs)", root, mountPoint, warnings);
      if (first === "correct") expect(warnings.join("\n")).toMatch(/full|cannot/);
      // And again, with the half-built file left there.
      await judge("disk full during a first build (tmpfs)", root, mountPoint);
      // An update: a database that fits, then new sessions and the disk full.
      for (const name of readdirSync(mountPoint)) rmSync(join(mountPoint, name), { recursive: true });
      spawnSync("mount", ["-o", "remount,size=4m", mountPoint]);
      const small = store(4, 32);
      await judge("disk full during an update (tmpfs)", small, mountPoint);
      const free = Number(
        spawnSync("df", ["-B1", "--output=avail", mountPoint], { encoding: "utf8" }).stdout.split("\n")[1],
      );
      writeFileSync(join(mountPoint, "filler"), Buffer.alloc(Math.max(0, free - 16 * 1024)));
      store(12, 33, small);
      const updateWarnings: string[] = [];
      const update = await judge("disk full during an update (tmpfs)", small, mountPoint, updateWarnings);
      if (update === "correct") expect(updateWarnings.join("\n")).toMatch(/full|cannot/);
    } finally {
      spawnSync("umount", ["-l", mountPoint]);
    }
  }, 120_000);
});

/** Judges the answer a child printed. */
async function judgeChild(
  kind: string,
  root: string,
  r: { code: number | null; out: string; err: string },
): Promise<void> {
  expect(r.code, r.err).toBe(0);
  const printed = JSON.parse(r.out) as { answer?: Answer; error?: string; warnings: string[] };
  if (printed.error !== undefined) {
    expectClearRefusal(kind, printed.error);
    record(kind, "refused");
    return;
  }
  expect(printed.answer, `${kind}: ${printed.warnings.join("; ")}`).toEqual(await truth(root));
  record(kind, "correct");
}

/** Appends, rewrites, truncates and removes sessions of a store (an update for the indexer to find). */
function churn(root: string, seed: number): void {
  const files = readdirSync(root, { recursive: true })
    .map(String)
    .filter((n) => n.endsWith(".jsonl"))
    .map((n) => join(root, n))
    .sort();
  const pick = (k: number) => files[(seed + k) % files.length] as string;
  const [extra] = fc.sample(arbVocabularySession(6), { numRuns: 1, seed });
  const more = extra ? extra.entries.map((e) => JSON.stringify(e)).join("\n") : "";
  writeFileSync(pick(0), `${readFileSync(pick(0), "utf8")}${more}\n`);
  const rewritten = readFileSync(pick(1), "utf8").replace(/parse/g, "fixed");
  writeFileSync(`${pick(1)}.tmp`, rewritten);
  renameSync(`${pick(1)}.tmp`, pick(1));
  const lines = readFileSync(pick(2), "utf8").split("\n");
  writeFileSync(pick(2), `${lines.slice(0, Math.max(1, lines.length >> 1)).join("\n")}\n`);
  if (existsSync(pick(3)) && pick(3) !== pick(0)) unlinkSync(pick(3));
  const moved = pick(4);
  if (existsSync(moved)) renameSync(moved, moved.replace(/\.jsonl$/, "-moved.jsonl"));
  store(2, seed + 100, root);
}

describe("kill -9", () => {
  for (const phase of ["first build", "update"] as const) {
    it(`at random points of a ${phase}: the next answer equals --no-index`, async () => {
      for (const [i, point] of fc
        .sample(fc.tuple(fc.integer({ min: 0, max: 14 }), fc.integer({ min: 0, max: 120 })), {
          numRuns: 4,
          seed: phase === "update" ? 41 : 42,
        })
        .entries()) {
        const root = store(16, 50 + i);
        const cacheDir = dirs.make();
        if (phase === "update") {
          await answerOf({ root, cacheDir });
          churn(root, 60 + i);
        }
        const [files, ms] = point;
        const c = child("index", root, cacheDir);
        const done = finished(c);
        // Killed after `files` files, or `ms` milliseconds after the first, whichever comes first.
        let seen = 0;
        await new Promise<void>((resolve) => {
          let timer: NodeJS.Timeout | undefined;
          c.stdout?.on("data", (chunk: Buffer) => {
            seen += chunk.toString().split("file").length - 1;
            timer ??= setTimeout(() => {
              c.kill("SIGKILL");
              resolve();
            }, ms);
            if (seen > files) {
              c.kill("SIGKILL");
              resolve();
            }
          });
          c.on("exit", () => {
            clearTimeout(timer);
            resolve();
          });
        });
        await done;
        await judge(`kill -9 during a ${phase}`, root, cacheDir);
      }
    }, 120_000);
  }
});

describe("indexers at once while a writer changes the store", () => {
  for (const count of [2, 3]) {
    it(`${count} indexers, a writer appending, rewriting, truncating, deleting and renaming`, async () => {
      const root = store(16, 70 + count);
      const cacheDir = dirs.make();
      const children = Array.from({ length: count }, () =>
        finished(child("index", root, cacheDir, { loops: 3 })),
      );
      for (let round = 0; round < 6; round++) {
        churn(root, 80 + count * 10 + round);
        await new Promise((resolve) => setTimeout(resolve, 30));
      }
      const results = await Promise.all(children);
      for (const r of results) expect(r.code, r.err).toBe(0);
      await judge(`${count} indexers at once with a writer`, root, cacheDir);
    }, 120_000);
  }
});
