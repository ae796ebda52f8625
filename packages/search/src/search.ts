/**
 * The session database as callers use it: opened in the cache dir (or in memory, with a
 * warning, when that cannot be), brought up to date before every query, searched, and summed
 * up for `stats`. It never answers from a database it cannot trust: a damaged file found at
 * any point is set aside and rebuilt from the session files before the answer (with the last
 * sync's progress callbacks); a file that cannot be written (read-only, disk full, an I/O
 * error) or a second failure gives way to a database in memory built from the files, the
 * `--no-index` path; each with a warning. What cannot be answered at all throws.
 *
 * Use {@link openSearchDatabase}; see the README for an example.
 */
import { hash } from "node:crypto";
import { mkdirSync, renameSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { defaultCacheDir } from "@pi-session/node-store/internal";
import type {
  CandidateRow,
  SearchFilters,
  SearchRequest,
  SecretMarks,
  SessionDatabase,
  SessionMeta,
  UsageSum,
} from "./database.js";
import {
  type StatsOptions,
  type Snippet,
  type StatsResult,
  type TextField,
  computeStats,
  documentMatches,
  lineageRoots,
  PERIODS,
  type SummedSession,
  entryDocument,
  parseQuery,
  snippetOf,
} from "./documents/index.js";
import {
  type FileActivityOptions,
  type SessionTouches,
  type TouchedFile,
  fileActivity,
  sessionFiles,
} from "./file-activity.js";
import { type SyncOptions, type SyncStats, readEntryLine, syncStore } from "./indexer.js";
import { type SecretScanOptions, type SecretScanStats, scanSecretMarks } from "./secrets/marks.js";
import { NewerSchemaError, isCorruptionError, openSqliteDatabase } from "./sqlite/open.js";

export interface OpenSearchOptions {
  /** The sessions root to mirror. */
  root: string;
  /** Where the database file lives (default: node-store's cache dir, `$XDG_CACHE_HOME/pi-session`). */
  cacheDir?: string;
  /** `false`: an in-memory database (nothing is written). */
  persistent?: boolean;
  env?: Record<string, string | undefined>;
  /** Told about what the caller should hear of (a database set aside, no persistence). */
  onWarning?: (message: string) => void;
  /**
   * `false`: a damaged or unwritable database is an error, not set aside, rebuilt or replaced
   * (default true). For a second connection beside the one that keeps the database (a server's
   * search thread).
   */
  recover?: boolean;
  /**
   * Told when the database was replaced while open (rebuilt, or moved to memory): whatever
   * holds answers or connections of the old one (a server's cache, its search threads) lets
   * them go.
   */
  onReplaced?: (location: string) => void;
}

export interface SearchOptions {
  filters?: SearchFilters;
  /** Also search assistant thinking. */
  thinking?: boolean;
  /** Search tool results and bash output (default true). */
  toolOutput?: boolean;
  /** Rank hits by relevance alone; by default current-branch hits come first. */
  allBranches?: boolean;
  /**
   * Unranked, newest first (sessions by last change, a session's entries last first), current
   * branch or not: for search as you type, whose cost then grows with the sessions shown rather
   * than with every match of a short prefix.
   */
  newest?: boolean;
  /** Sessions to return (default 20). */
  limit?: number;
  /** Hits per session (default 3). */
  hitsPerSession?: number;
  /** Width of snippets in characters (default 160). */
  snippetWidth?: number;
  /** Matches ranked at a time (default 10,000; see {@link SearchRequest.window}). */
  rankWindow?: number;
  /**
   * Milliseconds the search may take (default: no limit). Candidates are checked one entry at
   * a time (regexes and substrings read each one's line), so a query that reads most of a large
   * store stops here, with what it found so far and {@link SearchResult.cut} saying so.
   */
  budgetMs?: number;
  /** Told every 256 candidate entries checked (and at the end): for a progress line. */
  onProgress?: (progress: SearchProgress) => void;
}

/** How far a search is: candidate entries checked so far, and the time they took. */
export interface SearchProgress {
  checked: number;
  elapsedMs: number;
}

export interface EntryHit {
  entryId: string | null;
  /** Line of the entry in its file (1-based). */
  line: number;
  type: string;
  role: string | null;
  timeMs: number | null;
  /** On the session's current branch (false: an abandoned branch). */
  onBranch: boolean;
  /** BM25 score (lower is better; 0 when not ranked). */
  score: number;
  snippet: Snippet | undefined;
}

export interface SessionHit {
  path: string;
  meta: SessionMeta;
  hits: EntryHit[];
}

export interface SearchResult {
  sessions: SessionHit[];
  /** More sessions matched than `limit`. */
  more: boolean;
  /**
   * The search ran out of its time budget ({@link SearchOptions.budgetMs}) and stopped after
   * checking `checked` candidate entries: the hits are those found in them, others may exist.
   */
  cut?: { budgetMs: number; checked: number };
}

/** What `stats` adds up: `computeStats`'s options, and which sessions. */
export interface StatsQuery extends StatsOptions {
  /** Only sessions whose files are directly in these directories. */
  dirs?: string[];
}

/** The project label of a file without a header cwd: its directory's name ("" in the root). */
function projectDirOf(root: string, path: string): string {
  const dir = dirname(path);
  return dir === root ? "" : basename(dir);
}

/** The first 64 bits of the SHA-256 of a root's path, as 16 hex digits: names its database. */
function rootKey(root: string): string {
  return hash("sha256", root, "hex").slice(0, 16);
}

/** The database file of a sessions root. */
export function databasePath(cacheDir: string, root: string): string {
  return join(cacheDir, `search-${rootKey(resolve(root))}.sqlite`);
}

/** SQLite's primary result codes for a file it cannot write: READONLY, IOERR, FULL, CANTOPEN. */
const UNWRITABLE_ERRCODES = new Set([8, 10, 13, 14]);

/** Whether an error says the database file cannot be written (or opened) here: not a damaged file. */
function isUnwritable(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown; errcode?: unknown } | null;
  const code = typeof e?.code === "string" ? e.code : "";
  const message = typeof e?.message === "string" ? e.message : "";
  if (typeof e?.errcode === "number" && UNWRITABLE_ERRCODES.has(e.errcode & 0xff)) return true;
  return (
    [
      "EACCES",
      "EPERM",
      "EROFS",
      "ENOTDIR",
      "EEXIST",
      "SQLITE_CANTOPEN",
      "SQLITE_READONLY",
      "SQLITE_IOERR",
      "SQLITE_FULL",
      "ENOSPC",
      "EISDIR",
    ].some((c) => code.startsWith(c)) ||
    /unable to open database|readonly database|attempt to write a readonly|disk is full|disk I\/O error/i.test(
      message,
    )
  );
}

/** What is wrong with the database, when an error says something is: damaged, or not writable here. */
function faultOf(error: unknown): "damaged" | "unwritable" | undefined {
  if (isCorruptionError(error)) return "damaged";
  if (isUnwritable(error)) return "unwritable";
  return undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Moves a damaged database (and its WAL) aside; returns the new name. */
function setAside(path: string): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const aside = `${path}.corrupt-${stamp}`;
  renameSync(path, aside);
  for (const suffix of ["-wal", "-shm"]) {
    try {
      renameSync(path + suffix, aside + suffix);
    } catch {
      // None.
    }
  }
  return aside;
}

/** The session database of one sessions root. */
export class SearchDatabase {
  private constructor(
    private db: SessionDatabase,
    readonly root: string,
    private readonly options: OpenSearchOptions,
    private readonly warn: (message: string) => void,
  ) {}

  /** The backend answering (e.g. `sqlite (node:sqlite)`). */
  get backend(): string {
    return this.db.backend;
  }

  /** The database file, or `:memory:`. */
  get location(): string {
    return this.db.location;
  }

  /** The storage interface, for callers that need more than search and stats. */
  get database(): SessionDatabase {
    return this.db;
  }

  static async open(options: OpenSearchOptions): Promise<SearchDatabase> {
    const warn = options.onWarning ?? (() => {});
    const root = resolve(options.root);
    const db = await openDatabase(options, root, warn);
    return new SearchDatabase(db, root, options, warn);
  }

  /** The options of the last {@link sync}: a database rebuilt before an answer is synced with them. */
  private lastSync: SyncOptions = {};

  /**
   * Runs `fn`. If the database turns out damaged, it is set aside and a new one is built
   * from the files; if it cannot be written (or fails again), one in memory is; each with a
   * warning, and `fn` runs again on it (for a query: once it is built, `resync`). Errors that
   * say nothing about the database are thrown as they are.
   */
  private async recovering<T>(fn: () => Promise<T> | T, resync: boolean): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await fn();
      } catch (error) {
        const fault = this.options.recover === false ? undefined : faultOf(error);
        if (fault === undefined || this.db.location === ":memory:" || attempt >= 2) throw error;
        const path = this.db.location;
        try {
          this.db.close();
        } catch {
          // Closing a damaged database may fail too.
        }
        if (fault === "damaged" && attempt === 0) {
          let aside: string | undefined;
          try {
            aside = setAside(path);
          } catch {
            // Cannot be moved (its directory is read-only): the database in memory answers.
          }
          if (aside !== undefined) {
            this.warn(
              `the session database ${path} is damaged (${messageOf(error)}); moved to ${aside}; rebuilding it from the session files`,
            );
            this.db = await openDatabase(this.options, this.root, this.warn);
          } else {
            this.warn(
              `the session database ${path} is damaged (${messageOf(error)}) and cannot be moved aside; answering from the session files (the index is not saved)`,
            );
            this.db = await openDatabase({ ...this.options, persistent: false }, this.root, this.warn);
          }
        } else {
          this.warn(
            `cannot use the session database ${path} (${messageOf(error)}); answering from the session files (the index is not saved)`,
          );
          this.db = await openDatabase({ ...this.options, persistent: false }, this.root, this.warn);
        }
        this.options.onReplaced?.(this.db.location);
        if (resync) await this.recovering(() => syncStore(this.db, this.root, this.lastSync), false);
      }
    }
  }

  /** Brings the database up to date with the store (a stat per file when nothing changed). */
  sync(opts: SyncOptions = {}): Promise<SyncStats> {
    const { signal: _signal, ...kept } = opts;
    this.lastSync = kept;
    return this.recovering(() => syncStore(this.db, this.root, opts), false);
  }

  /** Searches (call {@link sync} first); throws `QuerySyntaxError` for an unusable query. */
  search(query: string, options: SearchOptions = {}): Promise<SearchResult> {
    return this.recovering(() => this.searchNow(query, options), true);
  }

  private searchNow(query: string, options: SearchOptions): SearchResult {
    const parsed = parseQuery(query);
    const fields: TextField[] = ["body", "tool"];
    if (options.toolOutput !== false) fields.push("output");
    if (options.thinking === true) fields.push("thinking");
    const limit = options.limit ?? 20;
    const perSession = options.hitsPerSession ?? 3;
    const width = options.snippetWidth ?? 160;
    const { rows, undecided } = this.db.search({
      terms: parsed.terms,
      fields,
      filters: options.filters ?? {},
      order: options.newest === true ? "newest" : options.allBranches === true ? "rank" : "branch",
      ...(options.rankWindow !== undefined ? { window: options.rankWindow } : {}),
      ...(options.newest === true ? { perFile: perSession } : {}),
    });
    const sessions = new Map<string, SessionHit>();
    let more = false;
    let cut: SearchResult["cut"];
    const started = performance.now();
    const budget = options.budgetMs;
    let checked = 0;
    const progress = () => options.onProgress?.({ checked, elapsedMs: performance.now() - started });
    for (const row of rows) {
      if (budget !== undefined && performance.now() - started >= budget) {
        cut = { budgetMs: budget, checked };
        break;
      }
      checked++;
      if ((checked & 255) === 0) progress();
      const existing = sessions.get(row.path);
      if (existing && existing.hits.length >= perSession) continue;
      if (!existing && sessions.size >= limit) {
        if (undecided.length === 0 || this.verify(row, undecided, fields) !== undefined) {
          more = true;
          break;
        }
        continue;
      }
      const doc = this.verify(row, undecided, fields);
      if (doc === undefined) continue;
      let session = existing;
      if (!session) {
        const meta = this.db.file(row.path)?.meta;
        if (!meta) continue;
        session = { path: row.path, meta, hits: [] };
        sessions.set(row.path, session);
      }
      session.hits.push({
        entryId: row.entryId,
        line: row.line,
        type: row.type,
        role: row.role,
        timeMs: row.timeMs,
        onBranch: row.onBranch,
        score: row.score,
        snippet: doc === null ? undefined : snippetOf(doc, parsed.terms, fields, width),
      });
    }
    progress();
    return { sessions: [...sessions.values()], more, ...(cut ? { cut } : {}) };
  }

  /**
   * The document of a candidate, read from its file, if it passes the undecided terms;
   * undefined if it does not (or its line moved); null when the line cannot be read but no
   * check was needed.
   */
  private verify(
    row: CandidateRow,
    undecided: readonly import("./documents/index.js").QueryTerm[],
    fields: readonly TextField[],
  ) {
    const value = readEntryLine(row.path, row.offset, row.length);
    if (!value) return undecided.length === 0 ? null : undefined;
    const doc = entryDocument(value);
    for (const term of undecided) {
      if (documentMatches(doc, term, fields) === term.negated) return undefined;
    }
    return doc;
  }

  /**
   * Token and cost totals from the stored usage rows (call {@link sync} first), and the files
   * that are not pi sessions (no header), which count nowhere.
   */
  stats(query: StatsQuery = {}): Promise<StatsResult & { skippedFiles: string[] }> {
    const { dirs: only, ...statsOptions } = query;
    return this.recovering(() => {
      const dirs = only ? { dirs: only } : {};
      const sessions = this.db.usage({ ...dirs, rows: false }).map((s) => ({
        path: s.path,
        id: s.meta.sessionId,
        project: s.meta.cwd !== "" ? s.meta.cwd : projectDirOf(this.root, s.path),
        parentPath: s.meta.parentPath ?? undefined,
        created: s.meta.created,
        name: s.meta.name,
        repeats: s.meta.usageRepeats,
      }));
      // Forks share a lineage (their copied entries are counted once) and a file may repeat a
      // key: those sessions are added up here; the others are summed in the database.
      const roots = lineageRoots(sessions);
      const perRoot = new Map<string, number>();
      for (const root of roots.values()) perRoot.set(root, (perRoot.get(root) ?? 0) + 1);
      const isExact = (s: (typeof sessions)[number]) =>
        s.repeats > 0 || (perRoot.get(roots.get(s) as string) ?? 0) > 1;
      const exact = sessions.filter(isExact);
      const rowsOf = new Map(
        (exact.length > 0 ? this.db.usage({ paths: exact.map((s) => s.path) }) : []).map((u) => [
          u.path,
          u.usage,
        ]),
      );
      const except = exact.map((s) => s.path);
      const ranged = statsOptions.sinceMs !== undefined || statsOptions.untilMs !== undefined;
      const by = statsOptions.by;
      const sums = this.db.usageSums({
        ...dirs,
        except,
        ...(statsOptions.sinceMs !== undefined ? { sinceMs: statsOptions.sinceMs } : {}),
        ...(statsOptions.untilMs !== undefined ? { untilMs: statsOptions.untilMs } : {}),
        // A report by period, or keyed by the caller (who may read the time), needs quarter hours.
        quarters: (by !== undefined && PERIODS.includes(by)) || statsOptions.groupOf !== undefined,
      });
      // With a range, what it left out: every record of a file less those in the range.
      const outside = new Map<string, number>();
      if (ranged)
        for (const u of this.db.usageSums({ ...dirs, except }))
          outside.set(u.path, (outside.get(u.path) ?? 0) + u.records);
      const partsOf = new Map<string, UsageSum[]>();
      for (const u of sums) {
        const parts = partsOf.get(u.path);
        if (parts) parts.push(u);
        else partsOf.set(u.path, [u]);
        if (ranged) outside.set(u.path, (outside.get(u.path) ?? 0) - u.records);
      }
      const summed: SummedSession[] = sessions
        .filter((s) => !isExact(s))
        .map((s) => ({
          session: s,
          parts: partsOf.get(s.path) ?? [],
          outsideRange: outside.get(s.path) ?? 0,
        }));
      const result = computeStats(
        exact.map((s) => ({ ...s, usage: rowsOf.get(s.path) ?? [] })),
        statsOptions,
        summed,
      );
      const within = only ? new Set(only) : undefined;
      const skipped: string[] = [];
      for (const f of this.db.files({ notSessions: true }).values()) {
        if (!within || within.has(dirname(f.path))) skipped.push(f.path);
      }
      return { ...result, skippedFiles: skipped.sort() };
    }, true);
  }

  /**
   * The shortest prefix length (at least `min`) at which each of `ids` differs from every
   * other session id in the database: the length to show them at.
   */
  uniqueIdLength(ids: readonly string[], min = 8): number {
    let length = min;
    for (const id of ids) {
      const { before, after } = this.db.idNeighbours(id);
      for (const other of [before, after]) {
        if (other === null) continue;
        let k = 0;
        while (k < id.length && k < other.length && id[k] === other[k]) k++;
        length = Math.max(length, k + 1);
      }
    }
    return length;
  }

  /** The sessions that touched `path` (absolute) or a path under it, newest first (call {@link sync} first). */
  fileActivity(path: string, options: FileActivityOptions = {}): Promise<SessionTouches[]> {
    return this.recovering(() => fileActivity(this.db, path, options), true);
  }

  /** The files one session file touched, changes first (call {@link sync} first). */
  sessionFiles(sessionPath: string, options: FileActivityOptions = {}): Promise<TouchedFile[]> {
    return this.recovering(() => sessionFiles(this.db, sessionPath, options), true);
  }

  /**
   * Scans the entries not scanned yet for secrets and stores their marks (call {@link sync}
   * first). Slow the first time over a large store; then only what was appended.
   */
  scanSecrets(options: SecretScanOptions): Promise<SecretScanStats> {
    return this.recovering(() => scanSecretMarks(this.db, options), true);
  }

  /** The session files with secrets found, or not wholly scanned (see {@link scanSecrets}). */
  secretMarks(): Promise<SecretMarks[]> {
    return this.recovering(() => this.db.secretMarks(), true);
  }

  /** Bytes the database takes on disk (0 in memory). */
  sizeOnDisk(): number {
    return this.db.sizeOnDisk();
  }

  close(): void {
    this.db.close();
  }
}

async function openDatabase(
  options: OpenSearchOptions,
  root: string,
  warn: (message: string) => void,
): Promise<SessionDatabase> {
  const memory = async () => (await openSqliteDatabase(":memory:")).database;
  if (options.persistent === false) return memory();
  const cacheDir = options.cacheDir ?? defaultCacheDir(options.env ?? process.env);
  const path = databasePath(cacheDir, root);
  try {
    mkdirSync(cacheDir, { recursive: true });
    try {
      const opened = await openSqliteDatabase(path);
      if (opened.outcome === "rebuilt-older")
        warn(`the session database ${path} was made by an older pi-session; rebuilding it`);
      return opened.database;
    } catch (error) {
      if (!isCorruptionError(error) || options.recover === false) throw error;
      const aside = setAside(path);
      warn(`the session database ${path} is damaged; moved to ${aside} and rebuilt`);
      return (await openSqliteDatabase(path)).database;
    }
  } catch (error) {
    if (error instanceof NewerSchemaError) {
      warn(`${error.message}; left alone (made by a newer pi-session): searching without saving the index`);
      return memory();
    }
    if (isUnwritable(error)) {
      warn(
        `cannot write the session database in ${cacheDir} (${(error as Error).message}); searching without saving the index`,
      );
      return memory();
    }
    throw error;
  }
}

/** Opens the session database of a sessions root (see {@link OpenSearchOptions}). */
export function openSearchDatabase(options: OpenSearchOptions): Promise<SearchDatabase> {
  return SearchDatabase.open(options);
}
