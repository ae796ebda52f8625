/**
 * The PostgreSQL schema of the shared session database, its version, and how an older one
 * is brought up to date: a `pi_session_schema` row holds the version; a database of a newer
 * version is refused ({@link NewerPostgresSchemaError}); a read-only connection never creates
 * or migrates anything ({@link PostgresSchemaMissingError} when there is nothing yet).
 *
 * Use {@link ensureSchema} right after connecting.
 */
import type { Queryable } from "./connection.js";

/** The schema version this package writes and reads. */
export const POSTGRES_SCHEMA_VERSION = 4;

/** The database was made by a newer pi-session: left alone. */
export class NewerPostgresSchemaError extends Error {
  override readonly name = "NewerPostgresSchemaError";
  constructor(
    readonly found: number,
    readonly supported: number,
  ) {
    super(
      `the session database has schema version ${found}, newer than this pi-session supports (${supported}); upgrade pi-session`,
    );
  }
}

/** A read-only connection found no session database (nobody has synced into it yet). */
export class PostgresSchemaMissingError extends Error {
  override readonly name = "PostgresSchemaMissingError";
}

/** A read-only connection found an older schema it may not migrate. */
export class OlderPostgresSchemaError extends Error {
  override readonly name = "OlderPostgresSchemaError";
}

/**
 * Version 1: files and entries. Version 2 adds `pi_sources` and each file's `seq`, taken when it is
 * first sent and copied to its entries (`file_seq`): the index order, newest first, that
 * windows of matches are read in, as the local database's file ids. Version 3 adds each
 * file's `header` line as written (redacted as the entries are), so a session can be read back
 * whole (rows sent before it get theirs at the next sync), and keeps the `head` and `tail`
 * probes as their SHA-256 rather than the file's bytes (which `redact` did not cover). Version 4
 * adds two indexes that answer a sync's first question (which files of this source, with which
 * identities, and which still lack their header) without reading the table's pages (decision 145).
 * Each step runs once, in order, in one transaction.
 */
const STEPS: Record<number, string[]> = {
  1: [
    `CREATE EXTENSION IF NOT EXISTS pg_trgm`,
    `CREATE TABLE pi_files (
      source text NOT NULL,
      path text NOT NULL,
      size bigint NOT NULL,
      mtime_ms double precision NOT NULL,
      ctime_ms double precision NOT NULL,
      ino numeric NOT NULL,
      indexed_offset bigint NOT NULL,
      next_line integer NOT NULL,
      version integer NOT NULL,
      head bytea NOT NULL,
      tail bytea NOT NULL,
      session_id text,
      cwd text,
      created text,
      parent_path text,
      name text,
      first_message text,
      modified_ms double precision,
      message_count integer,
      errored boolean,
      leaf_id text,
      entry_count integer,
      usage_repeats integer,
      tools text[] NOT NULL DEFAULT '{}',
      models text[] NOT NULL DEFAULT '{}',
      touched text[] NOT NULL DEFAULT '{}',
      project_dir text NOT NULL DEFAULT '',
      PRIMARY KEY (source, path)
    )`,
    `CREATE INDEX pi_files_session ON pi_files (session_id)`,
    `CREATE TABLE pi_entries (
      source text NOT NULL,
      path text NOT NULL,
      ordinal integer NOT NULL,
      line integer NOT NULL,
      byte_offset bigint NOT NULL,
      length integer NOT NULL,
      entry_id text,
      parent_id text,
      type text NOT NULL,
      role text,
      role_class text,
      time_ms double precision,
      on_branch boolean NOT NULL,
      raw text NOT NULL,
      doc text NOT NULL,
      fold text NOT NULL,
      tsv tsvector NOT NULL,
      usage text,
      PRIMARY KEY (source, path, ordinal),
      FOREIGN KEY (source, path) REFERENCES pi_files (source, path) ON DELETE CASCADE
    )`,
    `CREATE INDEX pi_entries_fold ON pi_entries USING gin (fold gin_trgm_ops)`,
    `CREATE INDEX pi_entries_tsv ON pi_entries USING gin (tsv)`,
  ],
  2: [
    `CREATE SEQUENCE pi_change_seq`,
    `ALTER TABLE pi_files ADD COLUMN seq bigint NOT NULL DEFAULT nextval('pi_change_seq')`,
    `ALTER TABLE pi_entries ADD COLUMN file_seq bigint`,
    `UPDATE pi_entries e SET file_seq = f.seq FROM pi_files f WHERE f.source = e.source AND f.path = e.path`,
    `ALTER TABLE pi_entries ALTER COLUMN file_seq SET NOT NULL`,
    `CREATE INDEX pi_entries_order ON pi_entries (file_seq, ordinal)`,
    `CREATE TABLE pi_sources (name text PRIMARY KEY, last_sync_ms double precision NOT NULL)`,
    `INSERT INTO pi_sources SELECT source, 0 FROM pi_files GROUP BY source`,
  ],
  3: [
    `ALTER TABLE pi_files ADD COLUMN header text`,
    `UPDATE pi_files SET head = sha256(head), tail = sha256(tail)`,
  ],
  4: [
    `CREATE INDEX pi_files_identity ON pi_files (source, path)
      INCLUDE (size, mtime_ms, ctime_ms, ino, indexed_offset, cwd)`,
    `CREATE INDEX pi_files_headerless ON pi_files (source, path) WHERE header IS NULL AND version > 0`,
  ],
};

/** The schema version (undefined: no session database yet) and the server's version. */
async function currentVersion(client: Queryable): Promise<{ version: number | undefined; server: string }> {
  const exists = await client.query<{ t: string | null; v: string }>(
    `SELECT to_regclass('pi_session_schema')::text AS t, current_setting('server_version') AS v`,
  );
  const server = exists.rows[0]?.v ?? "";
  if (exists.rows[0]?.t == null) return { version: undefined, server };
  const row = await client.query<{ version: number }>(
    `SELECT max(version) AS version FROM pi_session_schema`,
  );
  return { version: row.rows[0]?.version ?? 0, server };
}

/**
 * Creates the schema, or migrates an older one, up to `target` (default the current version;
 * lower only to make an older database in tests); read-only: checks only.
 */
export async function ensureSchema(
  client: Queryable,
  readOnly: boolean,
  target = POSTGRES_SCHEMA_VERSION,
): Promise<{ created: boolean; migratedFrom?: number; serverVersion: string }> {
  const { version: seen, server: serverVersion } = await currentVersion(client);
  if (seen !== undefined && seen > POSTGRES_SCHEMA_VERSION)
    throw new NewerPostgresSchemaError(seen, POSTGRES_SCHEMA_VERSION);
  if (seen !== undefined && seen >= target) return { created: false, serverVersion };
  if (readOnly) {
    if (seen === undefined)
      throw new PostgresSchemaMissingError(
        "no session database here yet: run `pi-session sync` into it first",
      );
    throw new OlderPostgresSchemaError(
      `the session database has schema version ${seen}, older than ${POSTGRES_SCHEMA_VERSION}; a sync (with a role that may write) migrates it`,
    );
  }
  // One migrator at a time (held across the transaction, so the next one starts after its
  // commit); the others find the work done.
  await client.query(`SELECT pg_advisory_lock(7141592653)`);
  await client.query("BEGIN");
  try {
    const { version: now } = await currentVersion(client);
    if (now !== undefined && now > POSTGRES_SCHEMA_VERSION)
      throw new NewerPostgresSchemaError(now, POSTGRES_SCHEMA_VERSION);
    const from = now ?? 0;
    if (now === undefined)
      await client.query(
        `CREATE TABLE pi_session_schema (version integer NOT NULL, migrated_at timestamptz NOT NULL DEFAULT now())`,
      );
    for (let v = from + 1; v <= target; v++) {
      for (const sql of STEPS[v] ?? []) await client.query(sql);
      await client.query(`INSERT INTO pi_session_schema (version) VALUES ($1)`, [v]);
    }
    await client.query("COMMIT");
    return now === undefined
      ? { created: true, serverVersion }
      : { created: false, migratedFrom: from, serverVersion };
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    await client.query(`SELECT pg_advisory_unlock(7141592653)`).catch(() => {});
  }
}
