/**
 * Syncing a store into PostgreSQL against a real server: a second run sends nothing; an
 * append, a rewrite and a removal reach the database on the next sync (and answer as the local
 * database does); excluded projects stay home; redaction happens before anything is sent;
 * four sources syncing at once; a sync killed with SIGKILL and run again leaves no duplicate
 * and no gap; a newer schema is refused and an older one migrated; a read-only role searches
 * and sums up; the password never shows.
 *
 * @module-tag processes
 */
import { execFileSync, spawn } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { openSearchDatabase } from "@pi-session/search";
import { tempDirs } from "@pi-session/testkit";
import fc from "fast-check";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { arbVocabularySession, writeStore } from "../../search/src/testing/store.test.helper.js";
import {
  NewerPostgresSchemaError,
  OlderPostgresSchemaError,
  POSTGRES_SCHEMA_VERSION,
  PostgresSchemaMissingError,
  type PostgresDatabase,
  PostgresDatabaseError,
  openPostgresDatabase,
} from "./index.js";
import { ensureSchema } from "./schema.js";
import { KNOWN_FILES_QUERY } from "./sync.js";
import { type Cluster, findBinDir, startCluster } from "./testing/cluster.js";

const dirs = tempDirs("pi-pg-sync-");
let cluster: Cluster;
let databases = 0;

beforeAll(async () => {
  cluster = await startCluster();
}, 120_000);

afterAll(() => {
  cluster?.stop();
  dirs.cleanup();
});

/** A new empty database on the cluster, and its superuser URL. */
function newDatabase(): { name: string; url: string } {
  const name = `t${databases++}`;
  cluster.psql(`CREATE DATABASE ${name}`);
  return { name, url: cluster.url.replace("/postgres?", `/${name}?`) };
}

/** A store of `n` random vocabulary sessions (fixed seed: the same store every run). */
function store(n: number, seed = 1): { root: string; paths: string[] } {
  const root = dirs.make();
  const sessions = fc.sample(arbVocabularySession(20), { numRuns: n, seed });
  return { root, paths: writeStore(root, sessions) };
}

/** Each store's local database, kept between checks: it is synced incrementally, as PostgreSQL is. */
const caches = new Map<string, string>();

async function sameHits(
  db: PostgresDatabase,
  root: string,
  source: string,
  queries: string[],
): Promise<void> {
  let cacheDir = caches.get(root);
  if (cacheDir === undefined) {
    cacheDir = dirs.make();
    caches.set(root, cacheDir);
  }
  const local = await openSearchDatabase({ root, cacheDir });
  try {
    await local.sync();
    for (const q of queries) {
      const opts = {
        limit: Number.POSITIVE_INFINITY,
        hitsPerSession: Number.POSITIVE_INFINITY,
        newest: true,
      };
      const flat = (r: { sessions: { path: string; hits: { line: number; onBranch: boolean }[] }[] }) =>
        r.sessions.flatMap((s) => s.hits.map((h) => `${s.path}:${h.line}:${h.onBranch}`));
      expect(flat(await db.search(q, { ...opts, sources: [source] })), q).toEqual(
        flat(await local.search(q, opts)),
      );
    }
    expect(await db.stats({ sources: [source], by: "model", timeZone: "UTC" })).toEqual(
      await local.stats({ by: "model", timeZone: "UTC" }),
    );
  } finally {
    local.close();
  }
}

const entryLine = (id: string, parentId: string | null, text: string) =>
  `${JSON.stringify({
    type: "message",
    id,
    parentId,
    timestamp: "2026-03-01T10:00:00.000Z",
    message: { role: "user", content: text, timestamp: 1772359200000 },
  })}\n`;

const assistantLine = (id: string, parentId: string | null, text: string, tokens: number) =>
  `${JSON.stringify({
    type: "message",
    id,
    parentId,
    timestamp: "2026-03-01T10:01:00.000Z",
    message: {
      role: "assistant",
      content: [{ type: "text", text }],
      provider: "acme",
      model: "zeta-1",
      usage: {
        input: tokens,
        output: 10,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: tokens + 10,
        cost: { total: 0.5 },
      },
      timestamp: 1772359260000,
    },
  })}\n`;

describe("sync", () => {
  it("a second run sends nothing; an append, a rewrite and a removal reach the database", async () => {
    const { name, url } = newDatabase();
    const db = await openPostgresDatabase({ url });
    try {
      const { root, paths } = store(6);
      const first = await db.sync({ root, source: "ada@one" });
      expect(first.filesSent).toBe(6);
      expect(first.entriesSent).toBeGreaterThan(6);
      const again = await db.sync({ root, source: "ada@one" });
      expect(again).toMatchObject({
        unchanged: 6,
        filesSent: 0,
        filesAppended: 0,
        entriesSent: 0,
        rowsSent: 0,
      });
      await sameHits(db, root, "ada@one", ["parse", "auth.ts", "日本", "re:time\\w+s"]);

      // An append: only the new entry is sent.
      const grown = paths[0] as string;
      const lines = readFileSync(grown, "utf8").trimEnd().split("\n");
      const leaf = (JSON.parse(lines[lines.length - 1] as string) as { id?: string }).id ?? null;
      appendFileSync(grown, entryLine("zz000001", leaf, "zebrafish appended"));
      const appended = await db.sync({ root, source: "ada@one" });
      expect(appended).toMatchObject({ filesAppended: 1, filesSent: 0, entriesSent: 1 });
      expect((await db.search("zebrafish")).sessions.map((s) => s.path)).toEqual([grown]);
      await sameHits(db, root, "ada@one", ["zebrafish", "parse", "timeo"]);
      // Appends with usage rows: a new one, then one whose entry id repeats the last (a repeat,
      // which the report counts once): the stored entries' keys are read back for them.
      appendFileSync(grown, assistantLine("zz00000a", "zz000001", "zebrafish answered", 120));
      expect(await db.sync({ root, source: "ada@one" })).toMatchObject({ filesAppended: 1, entriesSent: 1 });
      const repeats = () =>
        Number(cluster.psql(`SELECT usage_repeats FROM pi_files WHERE path = '${grown}'`, name).trim());
      const before = repeats();
      appendFileSync(grown, assistantLine("zz00000a", "zz00000a", "zebrafish repeated", 120));
      expect(await db.sync({ root, source: "ada@one" })).toMatchObject({ filesAppended: 1, entriesSent: 1 });
      expect(repeats()).toBe(before + 1);
      await sameHits(db, root, "ada@one", ["zebrafish", "answered"]);
      // An append that starts a new root: the old entries leave the branch (their flags sent).
      appendFileSync(grown, entryLine("zz000002", null, "zebrafish again"));
      const moved = await db.sync({ root, source: "ada@one" });
      expect(moved).toMatchObject({ filesAppended: 1, entriesSent: 1 });
      expect(moved.rowsSent).toBeGreaterThan(2);
      await sameHits(db, root, "ada@one", ["zebrafish", "parse", "the"]);

      // A rewrite (as a migration or a repair writes it): the session is sent again, whole.
      const rewritten = paths[1] as string;
      const header = `${JSON.stringify({ type: "session", version: 3, id: "11111111-2222-4333-8444-555555555555", timestamp: "2026-03-01T09:00:00.000Z", cwd: "/home/ada/web" })}\n`;
      writeFileSync(rewritten, header + entryLine("aa000001", null, "quokka rewritten"));
      const resent = await db.sync({ root, source: "ada@one" });
      expect(resent).toMatchObject({ filesSent: 1, filesAppended: 0, entriesSent: 1 });
      expect((await db.search("quokka")).sessions.map((s) => s.meta.sessionId)).toEqual([
        "11111111-2222-4333-8444-555555555555",
      ]);
      await sameHits(db, root, "ada@one", ["quokka", "parse", "auth"]);

      // A removal.
      rmSync(paths[2] as string);
      const removed = await db.sync({ root, source: "ada@one" });
      expect(removed).toMatchObject({ filesRemoved: 1, filesSent: 0, entriesSent: 0 });
      await sameHits(db, root, "ada@one", ["parse", "the", "日本語"]);
      expect(await db.sources()).toEqual([{ name: "ada@one", sessions: 5, lastSyncMs: expect.any(Number) }]);
    } finally {
      await db.close();
    }
  }, 120_000);

  it("a path with quotes and backslashes is sent, appended to and removed", async () => {
    const { url } = newDatabase();
    const db = await openPostgresDatabase({ url });
    try {
      const root = dirs.make();
      const dir = join(root, "--o'brien\\x--");
      mkdirSync(dir, { recursive: true });
      const path = join(dir, "2026-03-01T10-00-00-000Z_q.jsonl");
      const header = `${JSON.stringify({ type: "session", version: 3, id: "22222222-2222-4333-8444-555555555555", timestamp: "2026-03-01T09:00:00.000Z", cwd: "/home/o'brien\\x" })}\n`;
      writeFileSync(path, header + entryLine("bb000001", null, "narwhal first"));
      expect(await db.sync({ root, source: "o'brien\\" })).toMatchObject({ filesSent: 1 });
      appendFileSync(path, entryLine("bb000002", "bb000001", "narwhal second"));
      expect(await db.sync({ root, source: "o'brien\\" })).toMatchObject({
        filesAppended: 1,
        entriesSent: 1,
      });
      expect((await db.search("narwhal")).sessions.flatMap((s) => s.hits.map((h) => h.line))).toHaveLength(2);
      rmSync(path);
      expect(await db.sync({ root, source: "o'brien\\" })).toMatchObject({ filesRemoved: 1 });
    } finally {
      await db.close();
    }
  }, 60_000);

  it("leaves excluded projects home, and removes them once excluded", async () => {
    const { url } = newDatabase();
    const db = await openPostgresDatabase({ url });
    try {
      const { root } = store(3);
      const other = join(root, "--home-bob-secret--");
      mkdirSync(other);
      writeFileSync(
        join(other, "2026-03-01T09-00-00-000Z_s.jsonl"),
        `${JSON.stringify({ type: "session", version: 3, id: "22222222-2222-4333-8444-555555555555", timestamp: "2026-03-01T09:00:00.000Z", cwd: "/home/bob/secret/app" })}\n${entryLine("bb000001", null, "wombat private")}`,
      );
      const first = await db.sync({ root, source: "bob", exclude: ["/home/bob/secret/"] });
      expect(first).toMatchObject({ filesSent: 3, filesExcluded: 1 });
      expect((await db.search("wombat")).sessions).toEqual([]);
      // Sent before, excluded now: removed.
      await db.sync({ root, source: "bob2" });
      expect((await db.search("wombat", { sources: ["bob2"] })).sessions).toHaveLength(1);
      const later = await db.sync({ root, source: "bob2", exclude: ["/home/bob/secret"] });
      expect(later).toMatchObject({ filesRemoved: 1, filesSent: 0 });
      expect((await db.search("wombat")).sessions).toEqual([]);
    } finally {
      await db.close();
    }
  }, 120_000);

  it("redacts before anything is sent", async () => {
    const { url } = newDatabase();
    const db = await openPostgresDatabase({ url });
    // A fake key in Anthropic's format (the shared detector knows providers' formats).
    const secret = `sk-ant-api03-${"Zyx987Wvu654Tsr321Qpo098Nml765".padEnd(93, "x")}AA`;
    try {
      const root = dirs.make();
      mkdirSync(join(root, "--p--"));
      writeFileSync(
        join(root, "--p--", "2026-03-01T09-00-00-000Z_r.jsonl"),
        `${JSON.stringify({ type: "session", version: 3, id: "33333333-2222-4333-8444-555555555555", timestamp: "2026-03-01T09:00:00.000Z", cwd: "/p", note: secret })}\n${entryLine("cc000001", null, `my key is ${secret} ok`)}`,
      );
      await db.sync({ root, source: "r", redact: true });
      // Nowhere in the database: not in a column read here, nor in the probes of the file's
      // first bytes and last line (kept as digests), nor in the header line.
      const dump = execFileSync(join(findBinDir() as string, "pg_dump"), ["--data-only", `--dbname=${url}`], {
        encoding: "utf8",
      });
      expect(dump).toContain("[REDACTED:anthropic]");
      expect(dump).toContain("33333333-2222-4333-8444-555555555555");
      expect(dump).not.toContain("Zyx987");
      // bytea columns are dumped in hex.
      expect(dump).not.toContain(Buffer.from("Zyx987").toString("hex"));
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const dump = await client.query(
          `SELECT (SELECT string_agg(raw || doc || fold, '') FROM pi_entries) || (SELECT string_agg(coalesce(first_message, ''), '') FROM pi_files) AS all`,
        );
        expect(dump.rows[0].all).not.toContain("Zyx987");
        expect(dump.rows[0].all).toContain("[REDACTED:anthropic]");
      } finally {
        await client.end();
      }
      expect((await db.search('"Zyx987"')).sessions).toEqual([]);
      expect((await db.search("key")).sessions[0]?.meta.firstMessage).toBe(
        "my key is [REDACTED:anthropic] ok",
      );
    } finally {
      await db.close();
    }
  }, 120_000);

  // A NUL in an entry's id (or type, role, session facts) is stored as U+FFFD, where
  // SQLite keeps it (`pgText`); the search document keeps it, and hits are compared by line.
  it("keeps text PostgreSQL cannot hold as it is (NUL, lone surrogates)", async () => {
    const { url } = newDatabase();
    const db = await openPostgresDatabase({ url });
    try {
      const root = dirs.make();
      mkdirSync(join(root, "--p--"));
      const header = {
        type: "session",
        version: 3,
        id: "44444444-2222-4333-8444-555555555555",
        timestamp: "2026-03-01T09:00:00.000Z",
        cwd: "/p",
      };
      const entry = {
        type: "message",
        id: "dd\u0000001",
        parentId: null,
        timestamp: "2026-03-01T10:00:00.000Z",
        message: {
          role: "user",
          content: "nul\u0000byte and \ud800 lone capybara",
          timestamp: 1772359200000,
        },
      };
      writeFileSync(
        join(root, "--p--", "2026-03-01T09-00-00-000Z_n.jsonl"),
        `${JSON.stringify(header)}\n${JSON.stringify(entry)}\n`,
      );
      expect((await db.sync({ root, source: "n" })).filesSent).toBe(1);
      const hit = (await db.search("capybara")).sessions[0]?.hits[0];
      expect(hit?.snippet?.text).toContain("nul\u0000byte and \ud800 lone capybara");
      await sameHits(db, root, "n", ["capybara", '"\u0000byte"', "lone"]);
    } finally {
      await db.close();
    }
  }, 120_000);

  it("four sources syncing at once lose nothing", async () => {
    const { url } = newDatabase();
    const stores = [1, 2, 3, 4].map((seed) => store(8, seed));
    const handles = await Promise.all(stores.map(() => openPostgresDatabase({ url })));
    try {
      const stats = await Promise.all(
        handles.map((db, i) => db.sync({ root: stores[i]?.root as string, source: `s${i}` })),
      );
      for (const s of stats) expect(s.filesSent).toBe(8);
      const db = handles[0] as PostgresDatabase;
      expect((await db.sources()).map((s) => [s.name, s.sessions])).toEqual([
        ["s0", 8],
        ["s1", 8],
        ["s2", 8],
        ["s3", 8],
      ]);
      for (let i = 0; i < 4; i++)
        await sameHits(db, stores[i]?.root as string, `s${i}`, ["parse", "auth.ts"]);
      // Across sources: each hit says whose it is.
      const all = await db.search("parse", { limit: 1000 });
      expect(new Set(all.sessions.map((s) => s.source)).size).toBeGreaterThan(1);
      const bySource = await db.stats({ bySource: true });
      expect(bySource.rows.map((r) => r.key).sort()).toEqual(
        ["s0", "s1", "s2", "s3"].filter((s) => bySource.rows.some((r) => r.key === s)),
      );
    } finally {
      await Promise.all(handles.map((h) => h.close()));
    }
  }, 180_000);

  it("a sync killed with SIGKILL and run again leaves no duplicate and no gap", async () => {
    const { url } = newDatabase();
    const { root } = store(60, 7);
    const dist = fileURLToPath(new URL("../dist/index.js", import.meta.url));
    expect(existsSync(dist), "build the package first (pnpm build)").toBe(true);
    const script = `import { openPostgresDatabase } from ${JSON.stringify(dist)};
      const db = await openPostgresDatabase({ url: process.env.URL });
      await db.sync({ root: process.env.ROOT, source: "k", onProgress: (p) => console.log(p.done) });`;
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
      env: { ...process.env, URL: url, ROOT: root },
      stdio: ["ignore", "pipe", "inherit"],
    });
    // Killed once it has sent some files, mid-way.
    await new Promise<void>((resolve) => {
      child.stdout.on("data", (chunk: Buffer) => {
        if (Number(chunk.toString().trim().split("\n").pop()) >= 5) {
          child.kill("SIGKILL");
          resolve();
        }
      });
      child.on("exit", () => resolve());
    });
    await new Promise((resolve) => child.once("exit", resolve).once("close", resolve));
    const db = await openPostgresDatabase({ url });
    try {
      const partial = (await db.sources()).length;
      expect(partial).toBe(0); // killed before its end: the source's sync time was never written
      const rerun = await db.sync({ root, source: "k" });
      expect(rerun.filesSent + rerun.unchanged).toBe(60);
      expect(rerun.unchanged).toBeGreaterThanOrEqual(5);
      // Every entry once: the stored count per file equals what the file has.
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const bad = await client.query(
          `SELECT f.path FROM pi_files f LEFT JOIN pi_entries e ON e.source = f.source AND e.path = f.path
           GROUP BY f.path, f.entry_count HAVING count(e.ordinal) <> coalesce(f.entry_count, 0)
             OR coalesce(max(e.ordinal) + 1, 0) <> coalesce(f.entry_count, 0)`,
        );
        expect(bad.rows).toEqual([]);
      } finally {
        await client.end();
      }
      await sameHits(db, root, "k", ["parse", "auth.ts", "run"]);
    } finally {
      await db.close();
    }
  }, 180_000);
});

describe("schema and access", () => {
  it("refuses a newer schema, migrates an older one", async () => {
    const newer = newDatabase();
    const db = await openPostgresDatabase({ url: newer.url });
    await db.close();
    cluster.psql(
      `INSERT INTO pi_session_schema (version) VALUES (${POSTGRES_SCHEMA_VERSION + 1})`,
      newer.name,
    );
    await expect(openPostgresDatabase({ url: newer.url })).rejects.toThrow(NewerPostgresSchemaError);
    await expect(openPostgresDatabase({ url: newer.url })).rejects.toThrow(
      /newer than this pi-session supports/,
    );

    // A reader never creates or migrates: nothing there yet, or an older schema, is an error.
    const empty = newDatabase();
    await expect(openPostgresDatabase({ url: empty.url, readOnly: true })).rejects.toThrow(
      PostgresSchemaMissingError,
    );
    expect(cluster.psql("SELECT to_regclass('pi_session_schema') IS NULL", empty.name).trim()).toBe("t");

    const older = newDatabase();
    const pool = new pg.Pool({ connectionString: older.url });
    const client = await pool.connect();
    await ensureSchema(client, false, 1);
    client.release();
    await pool.end();
    await expect(openPostgresDatabase({ url: older.url, readOnly: true })).rejects.toThrow(
      OlderPostgresSchemaError,
    );
    const warnings: string[] = [];
    const migrated = await openPostgresDatabase({ url: older.url, onWarning: (m) => warnings.push(m) });
    try {
      expect(warnings).toEqual(["the session database was migrated from schema version 1"]);
      const { root } = store(2);
      expect((await migrated.sync({ root, source: "m" })).filesSent).toBe(2);
      expect(cluster.psql("SELECT max(version) FROM pi_session_schema", older.name).trim()).toBe(
        String(POSTGRES_SCHEMA_VERSION),
      );
    } finally {
      await migrated.close();
    }
  }, 120_000);

  it("a sync's first question reads index pages only (schema 4)", async () => {
    // A new backend pays a page fault for each shared page it first touches; the table's pages
    // hold every column of every source's files, the indexes only what the question needs.
    const { name, url } = newDatabase();
    const db = await openPostgresDatabase({ url });
    try {
      for (const [source, seed] of [
        ["a", 1],
        ["b", 2],
        ["c", 3],
      ] as const)
        await db.sync({ root: store(4, seed).root, source });
    } finally {
      await db.close();
    }
    cluster.psql("VACUUM ANALYZE pi_files", name);
    // So few rows make a table scan the cheapest plan: forbid it, to see what the indexes cover.
    const plan = cluster.psql(
      `SET enable_seqscan = off; SET enable_bitmapscan = off; EXPLAIN ${KNOWN_FILES_QUERY.replaceAll("$1", "'b'")}`,
      name,
    );
    expect(plan).toContain("Index Only Scan using pi_files_identity");
    expect(plan).toContain("Index Only Scan using pi_files_headerless");
    expect(plan).not.toMatch(/Seq Scan|Index Scan|Bitmap/);
  }, 120_000);

  it("migrates a version-2 database: its probes become digests, an append still resumes, headers come at the next sync", async () => {
    const { name, url } = newDatabase();
    const { root, paths } = store(2, 5);
    const first = await openPostgresDatabase({ url });
    await first.sync({ root, source: "v2" });
    await first.close();
    // As version 2 left it: no header column (nor version 4's indexes), the probes as the file's bytes.
    cluster.psql(
      "ALTER TABLE pi_files DROP COLUMN header; DROP INDEX pi_files_identity; DELETE FROM pi_session_schema WHERE version > 2",
      name,
    );
    for (const path of paths) {
      const bytes = readFileSync(path);
      const head = bytes.subarray(0, Math.min(256, bytes.length)).toString("hex");
      const tail = bytes.subarray(Math.max(0, bytes.length - 256)).toString("hex");
      cluster.psql(
        `UPDATE pi_files SET head = decode('${head}', 'hex'), tail = decode('${tail}', 'hex') WHERE path = '${path}'`,
        name,
      );
    }
    const warnings: string[] = [];
    const db = await openPostgresDatabase({ url, onWarning: (m) => warnings.push(m) });
    try {
      expect(warnings).toEqual(["the session database was migrated from schema version 2"]);
      appendFileSync(paths[0] as string, entryLine("ff000001", null, "after the migration"));
      const synced = await db.sync({ root, source: "v2" });
      expect(synced).toMatchObject({ filesAppended: 1, filesSent: 0, unchanged: 1, entriesSent: 1 });
      for (const path of paths) {
        const read = await db.sessionLines({ source: "v2", path });
        expect(read?.headerRebuilt).toBe(false);
        expect(read?.lines[0]).toBe(readFileSync(path, "utf8").split("\n")[0]);
      }
      expect((await db.sync({ root, source: "v2" })).rowsSent).toBe(0);
      expect(
        cluster
          .psql("SELECT count(*) FROM pi_files WHERE length(head) <> 32 OR length(tail) <> 32", name)
          .trim(),
      ).toBe("0");
    } finally {
      await db.close();
    }
  }, 120_000);

  it("a read-only role searches and sums up; the password never shows", async () => {
    const { name, url } = newDatabase();
    const writer = await openPostgresDatabase({ url });
    const { root } = store(4);
    try {
      await writer.sync({ root, source: "w" });
    } finally {
      await writer.close();
    }
    const password = "s3cret-Pa55";
    cluster.psql(`CREATE ROLE reader LOGIN PASSWORD '${password}'`);
    cluster.psql(`GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader`, name);
    const readerUrl = cluster.tcpUrl("reader", password, name);
    const reader = await openPostgresDatabase({ url: readerUrl, readOnly: true });
    try {
      expect(reader.location).not.toContain(password);
      expect(reader.backend).toMatch(/^postgresql \d+/);
      await sameHits(reader, root, "w", ["parse", "auth.ts"]);
      await expect(reader.sync({ root, source: "w" })).rejects.toThrow(/read-only/);
    } finally {
      await reader.close();
    }
    // Without the grant the role cannot even read: the error names no password.
    const wrong = cluster.tcpUrl("reader", `${password}-wrong`, name);
    const error = await openPostgresDatabase({ url: wrong, readOnly: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PostgresDatabaseError);
    expect(String((error as Error).message)).not.toContain(password);
    expect(String((error as Error).stack)).not.toContain(password);
  }, 120_000);
});
