/**
 * A team's PostgreSQL database (`@pi-session/postgres`) as a {@link SessionSource}: the
 * sessions of every source or of some, keyed as the local store keys its files (the session id,
 * `~2`, `~3` for files sharing one, in source and path order), each row saying which source it
 * came from; a session rebuilt from the lines the database holds (`sessionLines`), searches
 * and stats answered by the database with the same semantics as the local one, the usage
 * charts from its `stats` by the same code as the local app's. Changes: the database's
 * fingerprint polled every few seconds (one aggregate query); when it moved, the list is read
 * again and compared file by file, so a page open during a `pi-session sync` updates live.
 *
 * Read only: it never writes, and a role that may only SELECT serves. The database is opened
 * by the caller (the CLI, with its password handling) and closed by {@link DatabaseSource.close}.
 * Use {@link DatabaseSource.open}.
 */
import type { PostgresDatabase, PostgresSession } from "@pi-session/postgres";
import type { Served, SessionRow, StoreChange } from "./rows.js";
import { type SearchJob, abortError } from "./search-pool.js";
import { SessionCache, sessionFromLines, versionOf } from "./session-data.js";
import { assignSessionKeys } from "./session-keys.js";
import type { SessionSource, SessionSourceInfo, SourceSearchResult } from "./source.js";
import { type UsageCells, usageCells } from "./usage.js";

export interface DatabaseSourceOptions {
  database: PostgresDatabase;
  /** Only these sources (default: every source). */
  sources?: string[];
  /** Look for changes this often (ms; default 2000). */
  pollMs?: number;
  onWarning?: (message: string) => void;
}

/** A session the list named is no longer in the database (removed by a sync since). */
export class SessionGoneError extends Error {
  override readonly name = "SessionGoneError";
}

/** Searches at a time: the rest of the pool's connections stay free for the list and sessions. */
const SEARCHES_AT_ONCE = 2;

const fileOf = (row: { source?: string; path: string }) => `${row.source ?? ""}\n${row.path}`;

export class DatabaseSource implements SessionSource {
  readonly served: Served;
  generation = 0;
  private rows = new Map<string, SessionRow>();
  private byKey = new Map<string, SessionRow>();
  private identities = new Map<string, string>();
  private fingerprint: string | undefined;
  private readonly cache = new SessionCache();
  private readonly listeners = new Set<(change: StoreChange) => void>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private refreshing: Promise<void> | undefined;
  private failing = false;
  private closed = false;
  private searching = 0;
  private readonly queued: { run: () => void; signal: AbortSignal; reject: (error: unknown) => void }[] = [];

  private constructor(
    private readonly db: PostgresDatabase,
    private readonly options: DatabaseSourceOptions,
  ) {
    this.served = {
      kind: "database",
      location: db.location,
      ...(options.sources ? { sources: [...options.sources] } : {}),
    };
  }

  /** Reads the sessions once; {@link start} then looks for changes. */
  static async open(options: DatabaseSourceOptions): Promise<DatabaseSource> {
    const source = new DatabaseSource(options.database, options);
    await source.refresh();
    return source;
  }

  private get sourceFilter(): { sources?: string[] } {
    return this.options.sources ? { sources: this.options.sources } : {};
  }

  sessions(): SessionRow[] {
    return [...this.rows.values()].sort((a, b) => b.modifiedMs - a.modifiedMs || (a.key < b.key ? -1 : 1));
  }

  session(key: string): SessionRow | undefined {
    return this.byKey.get(key);
  }

  load(row: SessionRow) {
    return this.cache.get(fileOf(row), versionOf(row), async () => {
      const read = await this.db.sessionLines({ source: row.source ?? "", path: row.path });
      if (!read) throw new SessionGoneError("this session is no longer in the database");
      return sessionFromLines(read.lines, read.size);
    });
  }

  /**
   * Searches the database, {@link SEARCHES_AT_ONCE} at a time; one whose asker gave up before
   * its turn is dropped unrun (a superseded keystroke), as the local search threads do.
   */
  search(job: SearchJob, signal: AbortSignal): Promise<SourceSearchResult> {
    return new Promise<SourceSearchResult>((resolve, reject) => {
      const run = () => {
        this.searching++;
        this.db
          .search(job.query, { ...job.options, ...this.sourceFilter })
          .then(
            (result) =>
              resolve({
                more: result.more,
                ...(result.cut ? { cut: result.cut } : {}),
                sessions: result.sessions.flatMap((s) => {
                  const row = this.rows.get(fileOf(s));
                  return row ? [{ row, hits: s.hits }] : [];
                }),
              }),
            reject,
          )
          .finally(() => {
            this.searching--;
            this.next();
          });
      };
      this.queued.push({ run, signal, reject });
      this.next();
    });
  }

  private next(): void {
    while (this.searching < SEARCHES_AT_ONCE) {
      const turn = this.queued.shift();
      if (!turn) return;
      if (turn.signal.aborted || this.closed) turn.reject(abortError());
      else turn.run();
    }
  }

  usage(): Promise<UsageCells> {
    return usageCells({ stats: (query) => this.db.stats({ ...query, ...this.sourceFilter }) });
  }

  onChange(listener: (change: StoreChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  start(): void {
    if (this.timer || this.closed) return;
    this.timer = setInterval(() => void this.refresh(), this.options.pollMs ?? 2000);
    this.timer.unref?.();
  }

  info(): SessionSourceInfo {
    return {
      backend: this.db.backend,
      watch: this.timer ? "poll" : "off",
      search: { threads: 0, waiting: this.queued.length, running: this.searching },
    };
  }

  /** Reads the list again when the database's fingerprint moved; one refresh at a time. */
  refresh(): Promise<void> {
    this.refreshing ??= this.refreshNow()
      .then(
        () => {
          if (this.failing) this.options.onWarning?.("the session database answers again");
          this.failing = false;
        },
        (error) => {
          // Said once per outage, not at every poll; the first read's failure is the caller's.
          if (this.generation === 0) throw error;
          if (!this.failing)
            this.options.onWarning?.(`cannot read the session database: ${(error as Error).message}`);
          this.failing = true;
        },
      )
      .finally(() => {
        this.refreshing = undefined;
      });
    return this.refreshing;
  }

  private async refreshNow(): Promise<void> {
    if (this.closed) return;
    const mark = await this.db.fingerprint(this.sourceFilter);
    if (mark === this.fingerprint) return;
    const listed = await this.db.sessions(this.sourceFilter);
    if (this.closed) return;
    // The list read after the mark: a sync between them is seen again at the next poll.
    this.fingerprint = mark;
    const identities = new Map(listed.map((s) => [fileOf(s), s.identity]));
    const changedFiles = listed.filter((s) => this.identities.get(fileOf(s)) !== s.identity).map(fileOf);
    const removedFiles = [...this.identities.keys()].filter((file) => !identities.has(file));
    const first = this.generation === 0;
    if (!first && changedFiles.length === 0 && removedFiles.length === 0) return;
    const oldKeys = new Map([...this.rows].map(([file, row]) => [file, row.key]));
    this.rows = new Map(listed.map((s) => [fileOf(s), rowOf(s)]));
    this.identities = identities;
    this.assignKeys();
    this.generation++;
    const change: StoreChange = {
      generation: this.generation,
      changed: changedFiles.flatMap((file) => this.rows.get(file)?.key ?? []),
      removed: removedFiles.flatMap((file) => oldKeys.get(file) ?? []),
    };
    if (first) return;
    for (const listener of this.listeners) listener(change);
  }

  /** Keys by session id (`~n` in source and path order); a fork's parent is a file of its source. */
  private assignKeys(): void {
    this.byKey = assignSessionKeys(this.rows, (row) =>
      row.parentPath === null ? null : fileOf({ source: row.source ?? "", path: row.parentPath }),
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.listeners.clear();
    for (const turn of this.queued.splice(0)) turn.reject(abortError());
    await this.refreshing?.catch(() => undefined);
    await this.db.close();
  }
}

function rowOf(s: PostgresSession): SessionRow {
  const m = s.meta;
  return {
    key: m.sessionId,
    id: m.sessionId,
    path: s.path,
    source: s.source,
    project: s.project,
    name: m.name,
    firstMessage: m.firstMessage,
    created: m.created,
    modifiedMs: m.modifiedMs,
    messageCount: m.messageCount,
    entryCount: m.entryCount,
    errored: m.errored,
    parentPath: m.parentPath,
    parentKey: null,
    // Other machines' paths: the header's parent alone (subfolder layouts are not read here).
    parentKind: m.parentPath === null ? null : "fork",
    tokens: s.tokens,
    cost: s.cost,
    secrets: null,
    size: s.size,
    mtimeMs: s.mtimeMs,
  };
}
