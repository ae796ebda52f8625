/**
 * The local store as a {@link SessionSource}: the sessions root's session database kept up to
 * date from the files (`StoreView`), searches and usage charts in search threads
 * (`SearchPool`), and sessions read from their files (`loadSession`) and kept while unchanged.
 * What `pi-session serve` serves without `--db`. Use {@link LocalSource.open}: it returns at
 * once; the list fills in while the first build runs, and searches and the usage charts wait
 * for it (a half-built database never answers them).
 */
import { loadSession, SessionCache, versionOf } from "./session-data.js";
import { type SearchJob, SearchPool } from "./search-pool.js";
import type { FileHistory, SessionSource, SessionSourceInfo, SourceSearchResult } from "./source.js";
import {
  type BuildProgress,
  type SessionRow,
  type StoreChange,
  StoreView,
  type StoreViewOptions,
} from "./store-view.js";
import type { UsageCells } from "./usage.js";

export interface LocalSourceOptions extends StoreViewOptions {
  /** Search threads (default: a core less than the machine has, 1 to 4; 0: search on the server's thread). */
  searchThreads?: number;
}

export class LocalSource implements SessionSource {
  readonly served: { kind: "store"; root: string };
  private readonly cache = new SessionCache();

  private constructor(
    readonly store: StoreView,
    private readonly pool: SearchPool,
  ) {
    this.served = { kind: "store", root: store.root };
  }

  static async open(options: LocalSourceOptions): Promise<LocalSource> {
    const { searchThreads, ...viewOptions } = options;
    let pool: SearchPool | undefined;
    // A database rebuilt or moved to memory: the threads' connections are to the old file.
    const store = await StoreView.open({ ...viewOptions, onReplaced: () => pool?.restart() });
    pool = SearchPool.start(store, searchThreads);
    return new LocalSource(store, pool);
  }

  /** Settles when the first build has ended. */
  get ready(): Promise<void> {
    return this.store.ready;
  }

  /** The build under way, if any. */
  get building(): BuildProgress | undefined {
    return this.store.building;
  }

  onProgress(listener: (progress: BuildProgress | undefined) => void): () => void {
    return this.store.onProgress(listener);
  }

  get generation(): number {
    return this.store.generation;
  }

  sessions(): SessionRow[] {
    return this.store.sessions();
  }

  session(key: string): SessionRow | undefined {
    return this.store.session(key);
  }

  load(row: SessionRow) {
    return this.cache.get(row.path, versionOf(row), () => loadSession(row.path));
  }

  async search(job: SearchJob, signal: AbortSignal): Promise<SourceSearchResult> {
    await this.store.ready;
    const result = await this.pool.search(job, signal);
    // The hits of sessions still in the store.
    return {
      more: result.more,
      ...(result.cut ? { cut: result.cut } : {}),
      sessions: result.sessions.flatMap((s) => {
        const row = this.store.sessionAt(s.path);
        return row ? [{ row, hits: s.hits }] : [];
      }),
    };
  }

  readonly files = {
    ofSession: async (row: SessionRow) => {
      await this.store.ready;
      return this.store.exclusive(() => this.store.db.sessionFiles(row.path));
    },
    history: async (path: string): Promise<FileHistory> => {
      await this.store.ready;
      const found = await this.store.exclusive(() => this.store.db.fileActivity(path));
      // The sessions still in the list (the database answers between two refreshes too).
      return {
        sessions: found.flatMap((s) => {
          const row = this.store.sessionAt(s.path);
          return row ? [{ row, touches: s.touches }] : [];
        }),
      };
    },
  };

  async usage(): Promise<UsageCells> {
    await this.store.ready;
    return this.pool.usage();
  }

  onChange(listener: (change: StoreChange) => void): () => void {
    return this.store.onChange(listener);
  }

  start(): void {
    this.store.startWatching();
  }

  info(): SessionSourceInfo {
    return {
      backend: this.store.db.backend,
      watch: this.store.watchMode,
      search: {
        threads: this.pool.size,
        waiting: this.pool.waiting,
        ...Object.fromEntries(Object.entries(this.pool.times).map(([k, v]) => [k, Math.round(v)])),
      },
    };
  }

  async close(): Promise<void> {
    this.pool.close();
    this.store.close();
  }
}
