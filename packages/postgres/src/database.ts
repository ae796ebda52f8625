/**
 * The session database on PostgreSQL, as callers use it: opened from a URL (or
 * `PI_SESSION_DATABASE_URL`, or pg's own `PG*` variables and `.pgpass`), its schema created or
 * migrated (never with `readOnly`), synced into from a local store as one source, searched and
 * summed up for `stats` with the same answers as the local SQLite database, per source or
 * across them; listed and read back session by session, with a fingerprint to poll for changes
 * (what `pi-session serve --db` shows). The password never appears in `location` nor in an error from here.
 *
 * Use {@link openPostgresDatabase}; see the README for an example.
 */
import type { SearchOptions, SearchResult, SessionHit, SessionMeta, StatsQuery } from "@pi-session/search";
import {
  type EntryDocument,
  type StatsResult,
  type TextField,
  computeStats,
  parseQuery,
  snippetOf,
} from "@pi-session/search/documents";
import pg from "pg";
import { poolTarget } from "./libpq-ssl.js";
import { META_COLUMNS, type MetaColumns, metaOfRow } from "./meta-row.js";
import {
  type PostgresSession,
  type PostgresSessionLines,
  readFiles,
  readFingerprint,
  readSessionLines,
  readSessions,
  readUsage,
  statsSessionsOf,
} from "./reading.js";
import { ensureSchema } from "./schema.js";
import type { PostgresSyncOptions, PostgresSyncStats } from "./sync.js";
import { compileQuery, likePattern, rankQuery, termLiterals } from "./terms.js";
import { PostgresUrlError, postgresUrlProblem, redactUrl, urlSecrets } from "./url.js";

export interface OpenPostgresOptions {
  /** A `postgres://` URL (default: `PI_SESSION_DATABASE_URL`, else pg's `PG*` variables). */
  url?: string;
  env?: Record<string, string | undefined>;
  /** Never create or migrate the schema, never write: for a role that may only read. */
  readOnly?: boolean;
  onWarning?: (message: string) => void;
  /** Connections kept at most (default 4). */
  maxConnections?: number;
}

/** A session hit of the shared database: which source (person or machine) it came from. */
export interface PostgresSessionHit extends SessionHit {
  source: string;
}

export interface PostgresSearchResult extends SearchResult {
  sessions: PostgresSessionHit[];
}

export interface PostgresSearchOptions extends SearchOptions {
  /** Only these sources (default: all). */
  sources?: string[];
}

export interface PostgresStatsQuery extends StatsQuery {
  /** Only these sources (default: all). */
  sources?: string[];
  /** One row per source (person or machine) instead of `by`'s. */
  bySource?: boolean;
}

export interface PostgresStatsResult extends StatsResult {
  /** Files that are no pi session (no header), which count nowhere. */
  skippedFiles: string[];
}

export interface SourceInfo {
  name: string;
  sessions: number;
  lastSyncMs: number;
}

/** A connection or query failed (its message scrubbed of the URL's password). */
export class PostgresDatabaseError extends Error {
  override readonly name = "PostgresDatabaseError";
  constructor(
    message: string,
    /** pg's SQLSTATE code, when it gave one. */
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

/**
 * Turns an error into one whose message has no password of `url` (the URL itself shown
 * redacted); one from pg or Node (it has a `code`) always becomes a new
 * {@link PostgresDatabaseError}, so no property of the original (Node's URL errors keep their
 * `input`) travels on. The package's own errors (schema versions, a bad query) pass.
 */
function scrubber(url: string | undefined): (error: unknown) => unknown {
  // Longest first: a secret that holds another is replaced whole.
  const secrets = (url === undefined ? [] : urlSecrets(url)).sort((a, b) => b.length - a.length);
  const location = url === undefined ? undefined : redactUrl(url);
  return (error) => {
    if (!(error instanceof Error)) return error;
    let message = error.message;
    if (url !== undefined && location !== undefined) message = message.split(url).join(location);
    for (const s of secrets) message = message.split(s).join("***");
    const code = (error as { code?: unknown }).code;
    if (message === error.message && typeof code !== "string") return error;
    return new PostgresDatabaseError(message, typeof code === "string" ? code : undefined);
  };
}

interface CandidateRow {
  source: string;
  path: string;
  ordinal: number;
  line: number;
  entry_id: string | null;
  type: string;
  role: string | null;
  time_ms: number | null;
  on_branch: boolean;
  doc: string;
}

/** Matches ranked at a time (the local database's default window). */
const WINDOW = 10_000;
/** The first window of `newest` (then four times larger, up to the window). */
const FIRST_NEWEST_WINDOW = 128;
/** Candidates whose documents are read at a time. */
const DOC_BATCH = 200;

/** A match as a window lists it (its document is read when it is needed). */
interface WindowRow {
  source: string;
  path: string;
  ordinal: number;
  file_seq: string;
  on_branch: boolean;
  rank: number;
}

/** The shared session database on PostgreSQL. */
export class PostgresDatabase {
  private constructor(
    private readonly pool: pg.Pool,
    readonly backend: string,
    readonly location: string,
    readonly readOnly: boolean,
    private readonly scrub: (error: unknown) => unknown,
  ) {}

  static async open(options: OpenPostgresOptions = {}): Promise<PostgresDatabase> {
    const env = options.env ?? process.env;
    const url = options.url ?? env.PI_SESSION_DATABASE_URL;
    const problem = url === undefined ? undefined : postgresUrlProblem(url);
    if (url !== undefined && problem !== undefined) throw new PostgresUrlError(problem, redactUrl(url));
    const scrub = scrubber(url);
    const location = url === undefined ? "(PG* environment)" : redactUrl(url);
    let target: ReturnType<typeof poolTarget>;
    try {
      target = poolTarget(url, env);
    } catch (error) {
      throw scrub(error);
    }
    const pool = new pg.Pool({
      ...target,
      max: options.maxConnections ?? 4,
      application_name: "pi-session",
    });
    // An idle connection that fails (server restart) must not crash the process.
    pool.on("error", (error) =>
      options.onWarning?.(`database connection lost: ${(scrub(error) as Error).message}`),
    );
    try {
      const client = await pool.connect();
      try {
        const outcome = await ensureSchema(client, options.readOnly === true);
        if (outcome.migratedFrom !== undefined)
          options.onWarning?.(
            `the session database was migrated from schema version ${outcome.migratedFrom}`,
          );
        const backend = `postgresql ${outcome.serverVersion.split(" ")[0]}`;
        return new PostgresDatabase(pool, backend, location, options.readOnly === true, scrub);
      } finally {
        client.release();
      }
    } catch (error) {
      await pool.end().catch(() => {});
      throw scrub(error);
    }
  }

  private async guard<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      throw this.scrub(error);
    }
  }

  /** Sends the store under `options.root` as `options.source` (see {@link PostgresSyncOptions}). */
  sync(options: PostgresSyncOptions): Promise<PostgresSyncStats> {
    if (this.readOnly) return Promise.reject(new Error("a read-only session database cannot be synced into"));
    return this.guard(async () => {
      // Loaded by a writer's first sync: a reader never loads the sync's code.
      const { syncToPostgres } = await import("./sync.js");
      return syncToPostgres(this.pool, options);
    });
  }

  /** Searches, as `SearchDatabase.search` does; throws `QuerySyntaxError` for an unusable query. */
  search(query: string, options: PostgresSearchOptions = {}): Promise<PostgresSearchResult> {
    return this.guard(() => this.searchNow(query, options));
  }

  private async searchNow(query: string, options: PostgresSearchOptions): Promise<PostgresSearchResult> {
    const parsed = parseQuery(query);
    const fields: TextField[] = ["body", "tool"];
    if (options.toolOutput !== false) fields.push("output");
    if (options.thinking === true) fields.push("thinking");
    const limit = options.limit ?? 20;
    const perSession = options.hitsPerSession ?? 3;
    const width = options.snippetWidth ?? 160;
    const order = options.newest === true ? "newest" : options.allBranches === true ? "rank" : "branch";
    const params: unknown[] = [];
    const p = (value: unknown) => {
      params.push(value);
      return `$${params.length}`;
    };
    const where: string[] = ["f.version > 0"];
    const literals: string[] = [];
    for (const term of parsed.terms) {
      const alternatives = termLiterals(term);
      if (!alternatives) continue;
      literals.push(...alternatives);
      where.push(`(${alternatives.map((l) => `e.fold LIKE ${p(likePattern(l))}`).join(" OR ")})`);
    }
    const f = options.filters ?? {};
    if (options.sources) where.push(`e.source = ANY(${p(options.sources)}::text[])`);
    if (f.projects) {
      const prefixes = f.projects.map((d) => (d.endsWith("/") ? d : `${d}/`));
      where.push(
        `(f.cwd = ANY(${p(f.projects)}::text[]) OR EXISTS (SELECT 1 FROM unnest(${p(prefixes)}::text[]) AS q(pre) WHERE starts_with(f.cwd, q.pre)))`,
      );
    }
    if (f.sinceMs !== undefined) where.push(`e.time_ms >= ${p(f.sinceMs)}`);
    if (f.untilMs !== undefined) where.push(`e.time_ms < ${p(f.untilMs)}`);
    if (f.roles) where.push(`e.role_class = ANY(${p(f.roles)}::text[])`);
    if (f.tool !== undefined) where.push(`${p(f.tool)} = ANY(f.tools)`);
    const sameOrTail = (column: string, value: string) => {
      const v = p(value);
      return `EXISTS (SELECT 1 FROM unnest(${column}) AS x WHERE x = ${v} OR right(x, length(${v}) + 1) = '/' || ${v})`;
    };
    if (f.model !== undefined) where.push(sameOrTail("f.models", f.model));
    if (f.file !== undefined) where.push(sameOrTail("f.touched", f.file));
    if (f.errored) where.push(`f.errored`);
    if (f.named) where.push(`f.name IS NOT NULL`);
    // Ranked by the query's words, as the local index ranks by BM25; substrings and regexes only: newest first.
    const ranked = order !== "newest" && parsed.terms.some((t) => t.kind === "word" && !t.negated);
    const tsq = ranked ? rankQuery(literals) : undefined;
    const rank = tsq ? `ts_rank(w.tsv, to_tsquery('simple', ${p(tsq)}))` : "0";
    // Matches are read in index order, newest first (sessions by when first sent, entries last
    // first), a window at a time, and ranked within the window, as the local database does:
    // a word found everywhere costs a window, not every match.
    const conditions = where.join(" AND ");
    const windowSql = (bounded: boolean, size: number) => {
      const bound = bounded
        ? `AND (e.file_seq, e.ordinal) < ($${params.length + 1}, $${params.length + 2})`
        : "";
      return `SELECT w.source, w.path, w.ordinal, w.file_seq, w.on_branch, ${rank}::float8 AS rank FROM (
          SELECT e.source, e.path, e.ordinal, e.file_seq, e.on_branch, e.tsv
          FROM pi_entries e JOIN pi_files f ON f.source = e.source AND f.path = e.path
          WHERE ${conditions} ${bound}
          ORDER BY e.file_seq DESC, e.ordinal DESC LIMIT ${size}) w`;
    };
    const fullWindow = Math.max(1, Math.floor(options.rankWindow ?? WINDOW));
    const compiled = compileQuery(parsed.terms, fields);
    const client = await this.pool.connect();
    const candidates = async function* (): AsyncGenerator<WindowRow> {
      const later: WindowRow[][] = [];
      let upper: [string, number] | undefined;
      let size = order === "newest" ? Math.min(FIRST_NEWEST_WINDOW, fullWindow) : fullWindow;
      for (;;) {
        const args = upper ? [...params, ...upper] : params;
        const batch = (await client.query<WindowRow>(windowSql(upper !== undefined, size), args)).rows;
        if (batch.length === 0) break;
        const last = batch[batch.length - 1] as WindowRow;
        if (tsq)
          batch.sort(
            (x, y) => y.rank - x.rank || Number(y.file_seq) - Number(x.file_seq) || y.ordinal - x.ordinal,
          );
        const off: WindowRow[] = [];
        for (const r of batch) {
          if (order === "branch" && !r.on_branch) off.push(r);
          else yield r;
        }
        if (off.length > 0) later.push(off);
        if (batch.length < size) break;
        upper = [last.file_seq, last.ordinal];
        size = Math.min(size * 4, fullWindow);
      }
      for (const off of later) yield* off;
    };
    try {
      // One snapshot for every window.
      await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
      const sessions = new Map<string, PostgresSessionHit>();
      let more = false;
      // A time limit, checked between batches of candidates: it and what was checked are said.
      const started = performance.now();
      let checked = 0;
      let cut: PostgresSearchResult["cut"];
      // Documents are read for a few candidates at a time, in candidate order.
      const it = candidates();
      let done = false;
      outer: while (!done) {
        if (options.budgetMs !== undefined && performance.now() - started >= options.budgetMs) {
          cut = { budgetMs: options.budgetMs, checked };
          break;
        }
        const batch: WindowRow[] = [];
        while (!done && batch.length < DOC_BATCH) {
          const next = await it.next();
          if (next.done) done = true;
          else {
            const r = next.value;
            const existing = sessions.get(`${r.source}\n${r.path}`);
            if (!existing || existing.hits.length < perSession) batch.push(r);
          }
        }
        if (batch.length === 0) break;
        const docs = await client.query<CandidateRow>(
          `SELECT e.source, e.path, e.ordinal, e.line, e.entry_id, e.type, e.role, e.time_ms, e.on_branch, e.doc
           FROM pi_entries e JOIN unnest($1::text[], $2::text[], $3::int[]) AS k(source, path, ordinal)
             ON e.source = k.source AND e.path = k.path AND e.ordinal = k.ordinal`,
          [batch.map((r) => r.source), batch.map((r) => r.path), batch.map((r) => r.ordinal)],
        );
        const byKey = new Map(docs.rows.map((d) => [`${d.source}\n${d.path}\n${d.ordinal}`, d]));
        for (const c of batch) {
          const row = byKey.get(`${c.source}\n${c.path}\n${c.ordinal}`);
          if (!row) continue;
          const key = `${row.source}\n${row.path}`;
          const existing = sessions.get(key);
          if (existing && existing.hits.length >= perSession) continue;
          const doc = JSON.parse(row.doc) as EntryDocument;
          checked++;
          if (!compiled.check(doc)) continue;
          if (!existing && sessions.size >= limit) {
            more = true;
            break outer;
          }
          let session = existing;
          if (!session) {
            session = {
              source: row.source,
              path: row.path,
              meta: undefined as unknown as SessionMeta,
              hits: [],
            };
            sessions.set(key, session);
          }
          session.hits.push({
            entryId: row.entry_id,
            line: row.line,
            type: row.type,
            role: row.role,
            timeMs: row.time_ms,
            onBranch: row.on_branch,
            score: -c.rank,
            snippet: snippetOf(doc, parsed.terms, fields, width),
          });
        }
      }
      await it.return(undefined);
      const list = [...sessions.values()];
      if (list.length > 0) {
        const metas = await client.query<MetaColumns & { source: string; path: string }>(
          `SELECT source, path, ${META_COLUMNS} FROM pi_files
           WHERE (source, path) IN (SELECT * FROM unnest(${"$1"}::text[], ${"$2"}::text[]))`,
          [list.map((s) => s.source), list.map((s) => s.path)],
        );
        const byKey = new Map(metas.rows.map((m) => [`${m.source}\n${m.path}`, metaOfRow(m)]));
        for (const s of list) s.meta = byKey.get(`${s.source}\n${s.path}`) as SessionMeta;
      }
      await client.query("COMMIT");
      return { sessions: list.filter((s) => s.meta !== undefined), more, ...(cut ? { cut } : {}) };
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  /**
   * Token and cost totals, as `SearchDatabase.stats` gives them for one store: lineages (forks)
   * counted once within a source; `sources` to narrow, `bySource` for a row per source.
   */
  stats(query: PostgresStatsQuery = {}): Promise<PostgresStatsResult> {
    return this.guard(() => this.statsNow(query));
  }

  private async statsNow(query: PostgresStatsQuery): Promise<PostgresStatsResult> {
    const { dirs, sources, bySource, ...statsOptions } = query;
    const { files, usage } = await this.snapshot(async (client) => ({
      files: await readFiles(client, sources),
      usage: await readUsage(client, sources),
    }));
    const { sessions, skipped } = statsSessionsOf(files, usage, dirs);
    const options = bySource
      ? {
          ...statsOptions,
          by: undefined,
          groupOf: (_u: unknown, s: { path: string }) => s.path.slice(0, s.path.indexOf("\n")),
        }
      : statsOptions;
    const result = computeStats(sessions, options);
    for (const row of result.rows)
      if (row.session)
        row.session = { ...row.session, path: row.session.path.slice(row.session.path.indexOf("\n") + 1) };
    return { ...result, skippedFiles: skipped };
  }

  /** Runs `fn` in a read-only transaction: what it reads is one snapshot. */
  private async snapshot<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
      const out = await fn(client);
      await client.query("COMMIT");
      return out;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  /**
   * The sessions of these sources (default all), as a list of sessions shows them: each file's
   * facts, its identity, and the tokens and cost of its session id within its source, counted
   * once per lineage (what `stats --by session` gives). Files that are no session are left out.
   */
  sessions(options: { sources?: readonly string[] } = {}): Promise<PostgresSession[]> {
    return this.guard(() => this.snapshot((client) => readSessions(client, options.sources)));
  }

  /**
   * One session's lines: its header, then every entry's line as it was sent, in file order
   * (what a reader of the file would take in; lines pi skips were never sent). Undefined
   * when the database has no such session.
   */
  sessionLines(file: { source: string; path: string }): Promise<PostgresSessionLines | undefined> {
    return this.guard(() => this.snapshot((client) => readSessionLines(client, file)));
  }

  /**
   * A short text that changes whenever a sync adds, changes or removes a session of these
   * sources (default all); one aggregate query, cheap to poll every few seconds.
   */
  fingerprint(options: { sources?: readonly string[] } = {}): Promise<string> {
    return this.guard(() => readFingerprint(this.pool, options.sources));
  }

  /** The sources that have synced, with their sessions and when they last synced. */
  sources(): Promise<SourceInfo[]> {
    return this.guard(async () => {
      const r = await this.pool.query<{ name: string; sessions: string; last_sync_ms: number }>(
        `SELECT s.name, count(f.path) AS sessions, s.last_sync_ms FROM pi_sources s
         LEFT JOIN pi_files f ON f.source = s.name AND f.version > 0
         GROUP BY s.name, s.last_sync_ms ORDER BY s.name`,
      );
      return r.rows.map((x) => ({ name: x.name, sessions: Number(x.sessions), lastSyncMs: x.last_sync_ms }));
    });
  }

  /** Ends every connection. */
  async close(): Promise<void> {
    await this.pool.end();
  }
}

/** Opens (and creates or migrates, unless `readOnly`) the shared session database. */
export function openPostgresDatabase(options: OpenPostgresOptions = {}): Promise<PostgresDatabase> {
  return PostgresDatabase.open(options);
}
