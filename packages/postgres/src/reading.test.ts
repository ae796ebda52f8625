/**
 * Reading the shared database back as the web app does, against a real server: the sessions
 * of a source equal the local database's files (facts, identity, tokens and cost per session
 * id), one session's lines read as pi reads them equal the file read so (random stores, lines
 * pi reads in its own way included), the header is the file's own line (redacted when the sync
 * redacts; rebuilt from pi's fields for a row sent before schema 3, until the next sync adds it),
 * and the fingerprint changes with a sync that changed something and
 * only then, per source.
 *
 * @module-tag processes
 */
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SessionLineDecoder, utf8 } from "@pi-session/format";
import { keepLinesPiReads, readLinesAsPi, readSessionFile } from "@pi-session/node-store";
import { openSearchDatabase } from "@pi-session/search";
import { fcOptions, scaledRuns, tempDirs } from "@pi-session/testkit";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { arbOddity, arbVocabularySession, writeStore } from "../../search/src/testing/store.test.helper.js";
import { type PostgresDatabase, openPostgresDatabase } from "./index.js";
import { headerLine } from "./reading.js";
import { type Cluster, startCluster } from "./testing/cluster.js";

const dirs = tempDirs("pi-pg-read-");
let cluster: Cluster;
let db: PostgresDatabase;

beforeAll(async () => {
  cluster = await startCluster();
  db = await openPostgresDatabase({ url: cluster.url });
}, 120_000);

afterAll(async () => {
  await db?.close();
  cluster?.stop();
  dirs.cleanup();
});

/** The values pi takes from lines (header first), as the web app reads a file. */
function valuesOfLines(lines: readonly string[]): unknown[] {
  const decoder = new SessionLineDecoder({ keepRecord: keepLinesPiReads() });
  const records = lines.flatMap((l) => decoder.push(utf8(`${l}\n`)));
  records.push(...decoder.end());
  return readLinesAsPi(records).values;
}

async function valuesOfFile(path: string): Promise<unknown[]> {
  const contents = await readSessionFile(path, { keepRecord: keepLinesPiReads() });
  return readLinesAsPi(contents.records).values;
}

let run = 0;

describe("reading sessions back", () => {
  it("lists a source's sessions as the local database holds them, and reads each back line for line", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(arbVocabularySession(12), { minLength: 1, maxLength: 5 }),
        fc.array(arbOddity, { maxLength: 5 }),
        async (sessions, oddities) => {
          const root = dirs.make();
          const paths = writeStore(root, sessions, oddities);
          const source = `run-${run++}`;
          await db.sync({ root, source });
          const local = await openSearchDatabase({ root, persistent: false });
          try {
            await local.sync();
            const files = local.database.files();
            const totals = new Map((await local.stats({ by: "session" })).rows.map((r) => [r.key, r]));
            const listed = await db.sessions({ sources: [source] });
            const want = [...files]
              .flatMap(([path, file]) => {
                const meta = file.version > 0 ? local.database.file(path)?.meta : undefined;
                return meta ? [{ path, meta, size: file.size, mtimeMs: file.mtimeMs }] : [];
              })
              .sort((a, b) => (a.path < b.path ? -1 : 1));
            // Equal facts rely on vocabulary sessions having no NUL in them (PostgreSQL stores one
            // as U+FFFD, SQLite keeps it: store.test.helper.ts).
            expect(
              listed.map((s) => ({ path: s.path, meta: s.meta, size: s.size, mtimeMs: s.mtimeMs })),
            ).toEqual(want);
            for (const s of listed) {
              expect(s.source).toBe(source);
              expect(s.tokens).toBe(totals.get(s.meta.sessionId)?.totalTokens ?? 0);
              expect(s.cost).toBeCloseTo(totals.get(s.meta.sessionId)?.cost ?? 0, 9);
            }
            for (const path of paths) {
              const read = await db.sessionLines({ source, path });
              const isSession = listed.some((s) => s.path === path);
              expect(read !== undefined, path).toBe(isSession);
              if (!read) continue;
              const fromFile = await valuesOfFile(path);
              const fromDb = valuesOfLines(read.lines);
              expect(read.headerRebuilt).toBe(false);
              expect(fromDb).toEqual(fromFile);
            }
          } finally {
            local.close();
          }
        },
      ),
      fcOptions({ numRuns: scaledRuns(10) }),
    );
  }, 600_000);

  it("keeps the header line as written (redacted as the entries); a row sent before it had one gets it at the next sync", async () => {
    const root = dirs.make();
    const dir = join(root, "--work--");
    mkdirSync(dir, { recursive: true });
    const entry = {
      type: "message",
      id: "e1",
      parentId: null,
      timestamp: "2026-01-01T00:00:01.000Z",
      message: { role: "user", content: "hi", timestamp: 1767225601000 },
    };
    const short = {
      type: "session",
      version: 3,
      id: "s-short",
      timestamp: "2026-01-01T00:00:00.000Z",
      cwd: "/w",
      extra: { kept: true },
    };
    const long = {
      type: "session",
      version: 3,
      id: "s-long",
      timestamp: "2026-01-01T00:00:00.000Z",
      cwd: "/w",
      parentSession: `/home/${"x".repeat(300)}/parent.jsonl`,
      extra: 1,
    };
    const shortPath = join(dir, "a_s-short.jsonl");
    const longPath = join(dir, "b_s-long.jsonl");
    // Lines pi skips before the header and between entries are not kept.
    writeFileSync(shortPath, `not json\n\n${JSON.stringify(short)}\n${JSON.stringify(entry)}\n{broken\n`);
    writeFileSync(longPath, `${JSON.stringify(long)}\n${JSON.stringify(entry)}\n`);
    await db.sync({ root, source: "headers" });
    const a = await db.sessionLines({ source: "headers", path: shortPath });
    expect(a).toMatchObject({ headerRebuilt: false, lines: [JSON.stringify(short), JSON.stringify(entry)] });
    const b = await db.sessionLines({ source: "headers", path: longPath });
    expect(b).toMatchObject({ headerRebuilt: false, lines: [JSON.stringify(long), JSON.stringify(entry)] });
    expect(await db.sessionLines({ source: "headers", path: join(dir, "nope.jsonl") })).toBeUndefined();
    expect(await db.sessionLines({ source: "nobody", path: shortPath })).toBeUndefined();

    // As a database synced before schema 3 holds them: pi's fields rebuilt from the facts.
    cluster.psql("UPDATE pi_files SET header = NULL WHERE source = 'headers'");
    const { extra: _short, ...shortPis } = short;
    expect(await db.sessionLines({ source: "headers", path: shortPath })).toMatchObject({
      headerRebuilt: true,
      lines: [JSON.stringify(shortPis), JSON.stringify(entry)],
    });
    const { extra: _long, ...longPis } = long;
    expect(await db.sessionLines({ source: "headers", path: longPath })).toMatchObject({
      headerRebuilt: true,
      lines: [JSON.stringify(longPis), JSON.stringify(entry)],
    });
    // The next sync adds the lines (the files are unchanged), the one after writes nothing.
    expect(await db.sync({ root, source: "headers" })).toMatchObject({
      unchanged: 2,
      filesSent: 0,
      rowsSent: 2,
    });
    expect(await db.sync({ root, source: "headers" })).toMatchObject({ unchanged: 2, rowsSent: 0 });
    expect(await db.sessionLines({ source: "headers", path: longPath })).toMatchObject({
      headerRebuilt: false,
      lines: [JSON.stringify(long), JSON.stringify(entry)],
    });

    // Redacted as the entries are.
    const secretRoot = dirs.make();
    // A fake key in Anthropic's format (the shared detector knows providers' formats).
    const key = `sk-ant-api03-${"abcdefghijklmnopqrstuvwxyz0123456789".padEnd(93, "y")}AA`;
    mkdirSync(join(secretRoot, "--w--"), { recursive: true });
    const secretPath = join(secretRoot, "--w--", "c_s-secret.jsonl");
    writeFileSync(
      secretPath,
      `${JSON.stringify({ ...short, id: "s-secret", note: key })}\n${JSON.stringify(entry)}\n`,
    );
    await db.sync({ root: secretRoot, source: "redacted", redact: true });
    const redacted = await db.sessionLines({ source: "redacted", path: secretPath });
    expect(redacted?.lines[0]).toContain('"id":"s-secret"');
    expect(redacted?.lines[0]).not.toContain(key);
  });

  it("rebuilds a v1 header without a version, its parent as branchedFrom", () => {
    const meta = {
      sessionId: "v1",
      cwd: "",
      created: "2025-01-01T00:00:00.000Z",
      parentPath: "/p.jsonl",
      name: null,
      firstMessage: "",
      modifiedMs: 0,
      messageCount: 0,
      errored: false,
      leafId: null,
      entryCount: 0,
      usageRepeats: 0,
    };
    expect(headerLine(1, meta)).toBe(
      '{"type":"session","id":"v1","timestamp":"2025-01-01T00:00:00.000Z","branchedFrom":"/p.jsonl"}',
    );
  });

  it("the fingerprint changes with a sync that changed something, and only for the sources asked", async () => {
    const root = dirs.make();
    const other = dirs.make();
    const [first, second] = writeStore(root, fc.sample(arbVocabularySession(6), { numRuns: 2, seed: 7 }));
    const [theirs] = writeStore(other, fc.sample(arbVocabularySession(6), { numRuns: 1, seed: 8 }));
    await db.sync({ root, source: "fp-a" });
    await db.sync({ root: other, source: "fp-b" });
    const mark = () => db.fingerprint({ sources: ["fp-a"] });
    const start = await mark();
    const everyone = await db.fingerprint();
    await db.sync({ root, source: "fp-a" });
    expect(await mark()).toBe(start);
    const label = `${JSON.stringify({ type: "label", id: "zz1", parentId: null, timestamp: "2026-01-01T00:00:00.000Z", targetId: "x", label: "l" })}\n`;
    appendFileSync(first as string, label);
    await db.sync({ root, source: "fp-a" });
    const appended = await mark();
    expect(appended).not.toBe(start);
    // Another source's change is not this one's.
    appendFileSync(theirs as string, label);
    const theirSync = await db.sync({ root: other, source: "fp-b" });
    expect(theirSync.filesAppended).toBe(1);
    expect(await mark()).toBe(appended);
    rmSync(second as string);
    await db.sync({ root, source: "fp-a" });
    expect(await mark()).not.toBe(appended);
    expect(await db.fingerprint()).not.toBe(everyone);
    expect(await db.fingerprint({ sources: ["nobody"] })).toBe("0:-:-:-:-:-:-");
  });
});
