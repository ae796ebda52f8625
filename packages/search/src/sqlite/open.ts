/**
 * Opening the SQLite session database: the connection's settings (WAL, mmap, busy timeout),
 * the schema created, or rebuilt empty when older; a newer schema or a damaged file refused
 * with an error the caller can tell apart. Use `openSqliteDatabase`; the indexer and the
 * queries only see the {@link SessionDatabase} it returns.
 */
import type { SessionDatabase } from "../database.js";
import { SqliteSessionDatabase } from "./database.js";
import { type SqlConnection, openConnection } from "./driver.js";
import { SCHEMA, SCHEMA_VERSION } from "./schema.js";

/** What opening found, for the caller to warn about. */
export type OpenOutcome = "opened" | "created" | "rebuilt-older";

/** The database file was written by a newer pi-session (a newer schema). */
export class NewerSchemaError extends Error {
  override readonly name = "NewerSchemaError";
  constructor(
    readonly path: string,
    readonly version: number,
  ) {
    super(`${path}: the session database has schema version ${version}, newer than ${SCHEMA_VERSION}`);
  }
}

/** Whether an error is SQLite saying the file is not a database, or a damaged one. */
export function isCorruptionError(error: unknown): boolean {
  const e = error as { code?: unknown; errcode?: unknown; message?: unknown } | null;
  const code = typeof e?.code === "string" ? e.code : "";
  const message = typeof e?.message === "string" ? e.message : "";
  const errcode = typeof e?.errcode === "number" ? e.errcode & 0xff : -1;
  return (
    code.startsWith("SQLITE_CORRUPT") ||
    code.startsWith("SQLITE_NOTADB") ||
    errcode === 11 ||
    errcode === 26 ||
    /database disk image is malformed|file is not a database|malformed/i.test(message)
  );
}

/** The pending index FTS5 holds in memory before it writes a segment (see `createSchema`). */
const FTS_HASH_BYTES = 32 * 1024 * 1024;

/** Segments on one level of the word index before FTS5 merges them (see `createSchema`). */
const FTS_AUTOMERGE = 16;

/** How long opening waits for another process that holds the lock (as `busy_timeout`). */
const BUSY_WAIT_MS = 30_000;

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  const message = (error as { message?: unknown } | null)?.message;
  return (
    (typeof code === "string" && code.startsWith("SQLITE_BUSY")) ||
    (typeof message === "string" && /database is locked/.test(message))
  );
}

/**
 * Switches the file to WAL. Two processes opening a new database at once can both ask, and
 * SQLite answers the second with SQLITE_BUSY at once (the busy timeout does not cover a change
 * of journal mode), so it is asked again until the other one is done.
 */
async function useWal(db: SqlConnection): Promise<void> {
  const end = Date.now() + BUSY_WAIT_MS;
  for (;;) {
    try {
      db.exec("PRAGMA journal_mode = WAL");
      return;
    } catch (error) {
      if (!isBusy(error) || Date.now() > end) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

/** The connection settings every database gets. */
async function configure(db: SqlConnection, persistent: boolean): Promise<void> {
  db.exec(`PRAGMA busy_timeout = ${BUSY_WAIT_MS}`);
  if (persistent) {
    // Index pages read straight from the page cache: a query reads many (FTS5 doclists).
    db.exec("PRAGMA mmap_size = 268435456");
    await useWal(db);
    // A cache: losing the last transactions to a power cut only costs re-indexing them.
    db.exec("PRAGMA synchronous = NORMAL");
  }
}

function schemaVersion(db: SqlConnection): number | undefined {
  const table = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'meta'`).get();
  if (!table) return undefined;
  const row = db.prepare(`SELECT value FROM meta WHERE key = 'schema'`).get();
  return row ? Number(row.value) : 0;
}

function createSchema(db: SqlConnection): void {
  db.exec("BEGIN IMMEDIATE");
  try {
    // Another process may have created it while this one waited for the lock.
    if (schemaVersion(db) === SCHEMA_VERSION) {
      db.exec("COMMIT");
      return;
    }
    const tables = (virtual: boolean) =>
      db
        .prepare(
          `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND sql ${virtual ? "" : "NOT "}LIKE 'CREATE VIRTUAL TABLE%'`,
        )
        .all()
        .map((r) => String(r.name));
    const drop = (t: string) => db.exec(`DROP TABLE IF EXISTS "${t.replace(/"/g, '""')}"`);
    // Virtual tables first: each takes its shadow tables (`words_data`, ...) with it; then every
    // other table, whatever its name (`usage_totals` too).
    for (const t of tables(true)) drop(t);
    for (const t of tables(false)) drop(t);
    db.exec(SCHEMA);
    db.prepare(`INSERT INTO meta (key, value) VALUES ('schema', ?)`).run(String(SCHEMA_VERSION));
    // FTS5 writes its pending index out as a segment each time it holds this much (default
    // 1 MB), and merges the segments as they pile up: larger ones make far fewer merges.
    db.exec(`INSERT INTO words (words, rank) VALUES ('hashsize', ${FTS_HASH_BYTES})`);
    // FTS5 merges segments once this many pile up on a level (default 4): a build merges less
    // often and is merged into one segment at its end (`optimize`); small updates stay small
    // segments, which a query reads quickly.
    db.exec(`INSERT INTO words (words, rank) VALUES ('automerge', ${FTS_AUTOMERGE})`);
    db.exec("COMMIT");
  } catch (error) {
    try {
      db.exec("ROLLBACK");
    } catch {
      // SQLite rolled it back itself (a full disk): what failed is rethrown.
    }
    throw error;
  }
}

/**
 * Opens (or creates) the session database at `path` (`:memory:` for none). A database of an
 * older schema is rebuilt empty; one of a newer schema throws {@link NewerSchemaError}; a file
 * that is not a database or is damaged throws an error {@link isCorruptionError} recognizes.
 */
export async function openSqliteDatabase(
  path: string,
): Promise<{ database: SessionDatabase; outcome: OpenOutcome }> {
  const db = await openConnection(path);
  try {
    const persistent = path !== ":memory:";
    await configure(db, persistent);
    const version = schemaVersion(db);
    let outcome: OpenOutcome = "opened";
    if (version === undefined || version < SCHEMA_VERSION) {
      outcome = version === undefined ? "created" : "rebuilt-older";
      createSchema(db);
    } else if (version > SCHEMA_VERSION) {
      throw new NewerSchemaError(path, version);
    }
    return { database: new SqliteSessionDatabase(db, path), outcome };
  } catch (error) {
    db.close();
    throw error;
  }
}
