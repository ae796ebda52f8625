/**
 * The database follows the store: after appends (on the branch and off it), rewrites
 * (migrate, repair: a new inode), same-size rewrites, forks, deletions and renames, results
 * equal a plain scan and equal a database built from nothing; unchanged files are not read.
 */
import { appendFileSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fcOptions, scaledRuns, tempDirs, toJsonl } from "@pi-session/testkit";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { openSearchDatabase } from "./search.js";
import { oracleSearch } from "./testing/oracle.js";
import { arbSentence, arbVocabularySession, writeStore } from "./testing/store.test.helper.js";

const dirs = tempDirs("pi-search-inc-");
afterEach(dirs.cleanup);

const QUERIES = ["parse", "timeo", '"auth.ts"', "日本", "re:run\\w*", "error -fix", "JSON.parse"];

const NEWEST_QUERIES = ["pa", "ti", "e", "parse t", "ab"];

async function hitsOf(
  db: Awaited<ReturnType<typeof openSearchDatabase>>,
  q: string,
  newest = false,
): Promise<string[]> {
  const r = await db.search(q, {
    limit: Number.POSITIVE_INFINITY,
    hitsPerSession: Number.POSITIVE_INFINITY,
    ...(newest ? { newest } : {}),
  });
  return r.sessions.flatMap((s) => s.hits.map((h) => `${s.path}:${h.line}:${h.onBranch}`)).sort();
}

function oracle(root: string, q: string): string[] {
  return oracleSearch(root, q, { fields: ["body", "tool", "output"] })
    .map((h) => `${h.path}:${h.line}:${h.onBranch}`)
    .sort();
}

type Op =
  | { kind: "append"; file: number; text: string; branchFrom: number | null }
  | { kind: "rewrite"; file: number; text: string }
  | { kind: "sameSize"; file: number }
  | { kind: "fork"; file: number }
  | { kind: "delete"; file: number }
  | { kind: "rename"; file: number }
  | { kind: "torn"; file: number; text: string };

const arbOp: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("append" as const),
      file: fc.nat(),
      text: arbSentence,
      branchFrom: fc.option(fc.nat(), { nil: null }),
    }),
  },
  fc.record({ kind: fc.constant("rewrite" as const), file: fc.nat(), text: arbSentence }),
  fc.record({ kind: fc.constant("sameSize" as const), file: fc.nat() }),
  fc.record({ kind: fc.constant("fork" as const), file: fc.nat() }),
  fc.record({ kind: fc.constant("delete" as const), file: fc.nat() }),
  fc.record({ kind: fc.constant("rename" as const), file: fc.nat() }),
  fc.record({ kind: fc.constant("torn" as const), file: fc.nat(), text: arbSentence }),
);

let counter = 0;

/** An assistant message with usage (so appends change the usage sums too). */
function assistantLine(id: string, parentId: string | null, text: string): string {
  const usage = {
    input: text.length,
    output: 1,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: text.length + 1,
    cost: { total: 0.01 },
  };
  return `${JSON.stringify({ type: "message", id, parentId, timestamp: "2026-02-01T00:00:00.000Z", message: { role: "assistant", provider: "p", model: text.length % 3 === 0 ? "m" : "n", content: [{ type: "text", text }], usage, timestamp: 1_770_000_000_000 } })}\n`;
}

function userLine(id: string, parentId: string | null, text: string): string {
  return `${JSON.stringify({ type: "message", id, parentId, timestamp: "2026-02-01T00:00:00.000Z", message: { role: "user", content: text, timestamp: 1_770_000_000_000 } })}\n`;
}

/** Ids of the entries of a JSONL file. */
function idsOf(text: string): string[] {
  return text
    .split("\n")
    .slice(1)
    .flatMap((l) => {
      try {
        const v = JSON.parse(l) as { id?: unknown };
        return typeof v.id === "string" ? [v.id] : [];
      } catch {
        return [];
      }
    });
}

describe("incremental indexing", () => {
  it("equals a plain scan and a fresh build after any sequence of store changes", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(arbVocabularySession(12), { minLength: 1, maxLength: 3 }),
        fc.array(arbOp, { minLength: 1, maxLength: 8 }),
        async (sessions, ops) => {
          const root = dirs.make();
          const cacheDir = dirs.make();
          const files = writeStore(root, sessions);
          const texts = new Map(files.map((f, i) => [f, toJsonl(sessions[i] as never)]));
          const db = await openSearchDatabase({ root, cacheDir });
          try {
            await db.sync();
            for (const op of ops) {
              const live = [...texts.keys()];
              if (live.length === 0) break;
              const file = live[op.file % live.length] as string;
              const text = texts.get(file) as string;
              const ids = idsOf(text);
              switch (op.kind) {
                case "append":
                case "torn": {
                  const parent =
                    op.kind === "append" && op.branchFrom !== null && ids.length > 0
                      ? (ids[op.branchFrom % ids.length] as string)
                      : (ids.at(-1) ?? null);
                  const make = op.text.length % 2 === 0 ? assistantLine : userLine;
                  let line = make(`n${counter++}`, parent, op.text);
                  if (op.kind === "torn") line = line.slice(0, -1);
                  // A torn line from an earlier step is completed by this append.
                  const add = text.endsWith("\n") ? line : `\n${line}`;
                  appendFileSync(file, add);
                  texts.set(file, text + add);
                  break;
                }
                case "rewrite": {
                  // As migrate and repair do: a new file renamed over the old one.
                  const lines = text.split("\n");
                  lines.splice(1, 1, userLine(`r${counter++}`, null, op.text).trimEnd());
                  const next = lines.join("\n");
                  writeFileSync(`${file}.tmp`, next);
                  renameSync(`${file}.tmp`, file);
                  texts.set(file, next);
                  break;
                }
                case "sameSize": {
                  const next = text.replace(/parse/g, "PARSE");
                  writeFileSync(file, next);
                  texts.set(file, next);
                  break;
                }
                case "fork": {
                  const dest = join(root, "--fork--", `f${counter++}.jsonl`);
                  mkdirSync(join(root, "--fork--"), { recursive: true });
                  writeFileSync(dest, text);
                  texts.set(dest, text);
                  break;
                }
                case "delete":
                  rmSync(file);
                  texts.delete(file);
                  break;
                case "rename": {
                  const dest = `${file.slice(0, -6)}-moved${counter++}.jsonl`;
                  renameSync(file, dest);
                  texts.delete(file);
                  texts.set(dest, text);
                  break;
                }
              }
              await db.sync();
              for (const q of QUERIES)
                expect(await hitsOf(db, q), `${op.kind} then ${q}`).toEqual(oracle(root, q));
              // Newest first spells short prefixes out from the index's terms, kept until it changes.
              for (const q of NEWEST_QUERIES)
                expect(await hitsOf(db, q, true), `${op.kind} then newest ${q}`).toEqual(oracle(root, q));
            }
            const again = await db.sync();
            expect(again.indexed + again.resumed).toBe(0);
            const fresh = await openSearchDatabase({ root, persistent: false });
            await fresh.sync();
            for (const q of QUERIES) expect(await hitsOf(db, q)).toEqual(await hitsOf(fresh, q));
            // The usage summed as files grew (its first and last times too) equals the usage
            // summed from nothing, exactly.
            for (const by of [undefined, "model", "session"] as const) {
              expect(await db.stats(by ? { by } : {})).toEqual(await fresh.stats(by ? { by } : {}));
            }
            fresh.close();
          } finally {
            db.close();
            dirs.cleanup();
          }
        },
      ),
      fcOptions({ numRuns: scaledRuns(30) }),
    );
  }, 240_000);

  it("leaves out a file that vanishes between the listing and its read, and keeps the others", async () => {
    const root = dirs.make();
    const files = writeStore(root, fc.sample(arbVocabularySession(12), { numRuns: 4, seed: 3 }) as never[]);
    const db = await openSearchDatabase({ root, persistent: false });
    // Several small transactions, and one file gone in the middle of one of them.
    const stats = await db.sync({ transactionBytes: 1, onStart: () => rmSync(files[1] as string) });
    expect(stats).toMatchObject({ files: 4, indexed: 3, removed: 1 });
    for (const q of QUERIES) expect(await hitsOf(db, q)).toEqual(oracle(root, q));
    // A file that grew, gone before it is read from where it was indexed.
    appendFileSync(files[2] as string, userLine("gone1", null, "parse"));
    const again = await db.sync({ onStart: () => rmSync(files[2] as string) });
    expect(again).toMatchObject({ indexed: 0, resumed: 0, removed: 1 });
    for (const q of QUERIES) expect(await hitsOf(db, q)).toEqual(oracle(root, q));
    db.close();
  });

  it("newest first in a second connection sees the terms the first one adds", async () => {
    const root = dirs.make();
    const cacheDir = dirs.make();
    const [s] = fc.sample(arbVocabularySession(8), { numRuns: 1, seed: 11 });
    const [file] = writeStore(root, [s as never]);
    const writer = await openSearchDatabase({ root, cacheDir });
    await writer.sync();
    const reader = await openSearchDatabase({ root, cacheDir, recover: false });
    try {
      const lines = async () =>
        (await reader.search("zq", { newest: true, hitsPerSession: 10 })).sessions.flatMap((x) =>
          x.hits.map((h) => h.line),
        );
      appendFileSync(file as string, userLine("zq1", null, "zqalpha"));
      await writer.sync();
      // Spelled out as the one term `zqalpha`, until the writer's commit.
      const first = await lines();
      expect(first).toHaveLength(1);
      appendFileSync(file as string, userLine("zq2", null, "zqbeta"));
      await writer.sync();
      const second = await lines();
      expect(second).toHaveLength(2);
      expect(second[1]).toBe(first[0]);
    } finally {
      reader.close();
      writer.close();
    }
  });

  it("reads only the new bytes of a file that grew", async () => {
    const root = dirs.make();
    const [s] = fc.sample(arbVocabularySession(20), { numRuns: 1, seed: 7 });
    const [file] = writeStore(root, [s as never]);
    const db = await openSearchDatabase({ root, persistent: false });
    const first = await db.sync();
    expect(first.indexed).toBe(1);
    const line = userLine("zz1", null, "appended words here");
    appendFileSync(file as string, line);
    const second = await db.sync();
    expect(second).toMatchObject({ resumed: 1, indexed: 0, bytesRead: Buffer.byteLength(line) });
    expect((await db.search("appended")).sessions).toHaveLength(1);
    db.close();
  });
});
