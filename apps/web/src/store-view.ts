/**
 * The server's view of one session store: the session database (`@pi-session/search`) kept up
 * to date, the sessions it holds as list rows (with tokens and cost counted once per fork
 * lineage, as `pi-session stats --by session` counts them), and who to tell when something
 * changed. node-store's `watchStore` says when to look again; looking is the database's
 * `sync` (a stat per file when nothing changed). Every use of the database goes through one
 * queue: it answers one call at a time. It opens at once: the first build runs behind
 * {@link StoreView.ready}, its progress told to `onProgress` listeners and the rows it has
 * indexed so far published as changes every half second, so a page fills in as it goes.
 */
import { basename, dirname, resolve } from "node:path";
import { watchStore, type StoreWatch } from "@pi-session/node-store";
import {
  type SearchDatabase,
  type SecretMarks,
  type SessionMeta,
  type StoredFile,
  openSearchDatabase,
  secretDetector,
} from "@pi-session/search";
import type { SessionRow, StoreChange } from "./rows.js";
import { assignSessionKeys } from "./session-keys.js";

export type { SessionRow, StoreChange } from "./rows.js";

export interface StoreViewOptions {
  root: string;
  env?: Record<string, string | undefined>;
  /** Where the session database lives (default: node-store's cache dir). */
  cacheDir?: string;
  /** Keep the database in memory only. */
  persistent?: boolean;
  /** How often to look whatever the watchers say (ms; default 2000). */
  pollMs?: number;
  /** Only poll (no fs.watch). */
  pollOnly?: boolean;
  onWarning?: (message: string) => void;
  /** Told when the database was replaced (rebuilt, or moved to memory): see `openSearchDatabase`. */
  onReplaced?: () => void;
}

/** How far a sync that reads files is: files read of those that changed. */
export interface BuildProgress {
  done: number;
  total: number;
}

/** How often the rows of a sync under way are published (ms). */
const PUBLISH_EVERY_MS = 500;

const sameFile = (a: StoredFile, b: StoredFile) =>
  a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino;

/** The project label of a session (header cwd, else its directory's name, "" in the root). */
export function projectOf(root: string, path: string, cwd: string): string {
  if (cwd !== "") return cwd;
  const dir = dirname(path);
  return dir === root ? "" : basename(dir);
}

/** Entries the secret scan reads per turn before other calls get the database. */
const SCAN_SLICE = 2000;

/** A row's secrets: its marks' kinds once wholly scanned (`{}`: none), else null. */
function secretsOf(marks: SecretMarks | undefined): Record<string, number> | null {
  if (marks === undefined) return {};
  return marks.complete ? marks.kinds : null;
}

export class StoreView {
  readonly root: string;
  /** Bumped by every refresh that found a change. */
  generation = 0;
  private readonly rows = new Map<string, SessionRow>();
  private byKey = new Map<string, SessionRow>();
  private identities = new Map<string, StoredFile>();
  private queue: Promise<unknown> = Promise.resolve();
  private watch: StoreWatch | undefined;
  private readonly listeners = new Set<(change: StoreChange) => void>();
  private refreshing: Promise<StoreChange | undefined> | undefined;
  private again = false;
  private closed = false;
  /** The secret marks of the sessions scanned (see {@link scanSecrets}). */
  private marks: Map<string, SecretMarks> | undefined;
  private scanning: ReturnType<typeof setTimeout> | undefined;
  private readonly detector = secretDetector();
  private readonly stop = new AbortController();
  private readonly progressListeners = new Set<(progress: BuildProgress | undefined) => void>();
  /** The sync under way that reads files, while it runs. */
  building: BuildProgress | undefined;
  /** Settles when the first sync has ended: until then the database is half-built. */
  ready: Promise<void> = Promise.resolve();

  private constructor(
    readonly db: SearchDatabase,
    private readonly options: StoreViewOptions,
  ) {
    this.root = resolve(options.root);
  }

  /** Opens the database; the first sync starts and is {@link ready} later. */
  static async open(options: StoreViewOptions): Promise<StoreView> {
    let view: StoreView | undefined;
    const db = await openSearchDatabase({
      root: options.root,
      ...(options.env ? { env: options.env } : {}),
      ...(options.cacheDir ? { cacheDir: options.cacheDir } : {}),
      ...(options.persistent === false ? { persistent: false } : {}),
      ...(options.onWarning ? { onWarning: options.onWarning } : {}),
      onReplaced: () => view?.replaced(),
    });
    view = new StoreView(db, options);
    const first = view.refresh();
    view.ready = first.then(
      () => undefined,
      (error) => {
        if (!view?.closed) options.onWarning?.(`cannot index ${view?.root}: ${(error as Error).message}`);
      },
    );
    return view;
  }

  /** Calls `listener` with the progress of each sync that reads files (undefined: it ended). */
  onProgress(listener: (progress: BuildProgress | undefined) => void): () => void {
    this.progressListeners.add(listener);
    return () => this.progressListeners.delete(listener);
  }

  /** The database was replaced: every answer kept of the old one is let go (a new generation). */
  private replaced(): void {
    this.generation++;
    this.options.onReplaced?.();
    const change = { generation: this.generation, changed: [...this.byKey.keys()], removed: [] };
    for (const listener of this.listeners) listener(change);
  }

  /** Runs `fn` when every earlier database call has settled. */
  exclusive<T>(fn: () => Promise<T> | T): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Starts watching the store: changes are refreshed and told to the listeners. */
  startWatching(): void {
    if (this.watch || this.closed) return;
    this.watch = watchStore(this.root, {
      onChange: () => void this.refresh().catch((error) => this.options.onWarning?.(String(error))),
      pollMs: this.options.pollMs ?? 2000,
      ...(this.options.pollOnly ? { pollOnly: true } : {}),
    });
  }

  get watchMode(): "watch" | "poll" | "off" {
    return this.watch?.mode ?? "off";
  }

  onChange(listener: (change: StoreChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Every session, newest first. */
  sessions(): SessionRow[] {
    return [...this.rows.values()].sort((a, b) => b.modifiedMs - a.modifiedMs || (a.key < b.key ? -1 : 1));
  }

  /** The session of a file of the store (search hits name their file). */
  sessionAt(path: string): SessionRow | undefined {
    return this.rows.get(path);
  }

  /** The session a key names (keys come from {@link sessions}; nothing else names a file). */
  session(key: string): SessionRow | undefined {
    return this.byKey.get(key);
  }

  /**
   * Brings the database and the rows up to date; resolves to what changed (undefined: nothing).
   * Calls made while one runs are folded into one more run after it.
   */
  refresh(): Promise<StoreChange | undefined> {
    if (this.refreshing) {
      this.again = true;
      return this.refreshing;
    }
    const run = async (): Promise<StoreChange | undefined> => {
      let change: StoreChange | undefined;
      do {
        this.again = false;
        const found = await this.exclusive(() => this.refreshNow());
        if (found) change = found;
      } while (this.again && !this.closed);
      return change;
    };
    this.refreshing = run().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private async refreshNow(): Promise<StoreChange | undefined> {
    if (this.closed) return undefined;
    let published = performance.now();
    const tell = (progress: BuildProgress | undefined) => {
      this.building = progress;
      for (const listener of this.progressListeners) listener(progress);
    };
    try {
      await this.db.sync({
        signal: this.stop.signal,
        onStart: (changed) => tell({ done: 0, total: changed }),
        onProgress: (p) => {
          tell(p);
          // The rows indexed so far (committed or in this connection's transaction), as they come.
          if (performance.now() - published >= PUBLISH_EVERY_MS) {
            published = performance.now();
            this.takeRows(false);
          }
        },
      });
    } finally {
      if (this.building) tell(undefined);
    }
    return this.takeRows(true);
  }

  /**
   * Brings the rows to the database's files and tells the listeners what changed; `usage`: the
   * tokens and cost of every row too (a stats pass: once a sync has ended).
   */
  private takeRows(usage: true): Promise<StoreChange | undefined>;
  private takeRows(usage: false): void;
  private takeRows(usage: boolean): Promise<StoreChange | undefined> | undefined {
    const files = this.db.database.files();
    const changedPaths: string[] = [];
    const removedPaths: string[] = [];
    for (const [path, file] of files) {
      const known = this.identities.get(path);
      if (!known || !sameFile(known, file)) changedPaths.push(path);
    }
    for (const path of this.identities.keys()) if (!files.has(path)) removedPaths.push(path);
    if (changedPaths.length === 0 && removedPaths.length === 0)
      return usage ? Promise.resolve(undefined) : undefined;
    this.identities = files;
    const oldKeys = new Map([...this.rows].map(([path, row]) => [path, row.key]));
    for (const path of removedPaths) this.rows.delete(path);
    for (const path of changedPaths) {
      const file = files.get(path) as StoredFile;
      const meta = file.version > 0 ? this.db.database.file(path)?.meta : undefined;
      if (meta) this.rows.set(path, this.rowOf(path, meta, file));
      else this.rows.delete(path);
    }
    this.assignKeys();
    const publish = (): StoreChange => {
      this.generation++;
      const changed = changedPaths
        .map((p) => this.rows.get(p)?.key)
        .filter((k): k is string => k !== undefined);
      const removed = [...removedPaths, ...changedPaths]
        .filter((p) => !this.rows.has(p))
        .map((p) => oldKeys.get(p))
        .filter((k): k is string => k !== undefined);
      const change = { generation: this.generation, changed, removed };
      for (const listener of this.listeners) listener(change);
      this.scanSecrets();
      return change;
    };
    if (!usage) {
      publish();
      return undefined;
    }
    return this.addUsage().then(publish);
  }

  /**
   * Goes on with the session database's secret scan, a slice of entries at a time between the
   * other calls (the scan reads about a megabyte a second: a large store takes a while the
   * first time, an append a moment); rows whose marks changed are told as a change.
   */
  private scanSecrets(): void {
    if (this.scanning !== undefined || this.closed) return;
    this.scanning = setTimeout(() => {
      void this.exclusive(async () => {
        if (this.closed) return undefined;
        const stats = await this.db.scanSecrets({ detector: this.detector, maxEntries: SCAN_SLICE });
        const marks = new Map((await this.db.secretMarks()).map((m) => [m.path, m]));
        const changed: string[] = [];
        for (const [path, row] of this.rows) {
          const secrets = secretsOf(marks.get(path));
          if (JSON.stringify(secrets) !== JSON.stringify(row.secrets)) {
            row.secrets = secrets;
            changed.push(row.key);
          }
        }
        this.marks = marks;
        if (changed.length > 0) {
          this.generation++;
          const change = { generation: this.generation, changed, removed: [] };
          for (const listener of this.listeners) listener(change);
        }
        return stats.left;
      })
        .then((left) => {
          this.scanning = undefined;
          if (left !== undefined && left > 0) this.scanSecrets();
        })
        .catch((error) => {
          this.scanning = undefined;
          this.options.onWarning?.(`secret scan: ${String(error)}`);
        });
    }, 0);
  }

  private rowOf(path: string, meta: SessionMeta, file: StoredFile): SessionRow {
    return {
      key: meta.sessionId,
      id: meta.sessionId,
      path,
      project: projectOf(this.root, path, meta.cwd),
      name: meta.name,
      firstMessage: meta.firstMessage,
      created: meta.created,
      modifiedMs: meta.modifiedMs,
      messageCount: meta.messageCount,
      entryCount: meta.entryCount,
      errored: meta.errored,
      parentPath: meta.parentPath,
      parentKey: null,
      tokens: 0,
      cost: 0,
      secrets: this.marks ? secretsOf(this.marks.get(path)) : null,
      size: file.size,
      mtimeMs: file.mtimeMs,
      ctimeMs: file.ctimeMs,
      ino: file.ino,
    };
  }

  /** Keys by session id (`~n` in path order). */
  private assignKeys(): void {
    this.byKey = assignSessionKeys(this.rows, (row) => row.parentPath);
  }

  /** Tokens and cost of each session, counted once per lineage (`stats --by session`). */
  private async addUsage(): Promise<void> {
    const stats = await this.db.stats({ by: "session" });
    const byId = new Map(stats.rows.map((r) => [r.key, r]));
    for (const row of this.rows.values()) {
      const found = byId.get(row.id);
      row.tokens = found?.totalTokens ?? 0;
      row.cost = found?.cost ?? 0;
    }
  }

  close(): void {
    this.closed = true;
    if (this.scanning !== undefined) clearTimeout(this.scanning);
    this.stop.abort();
    this.watch?.close();
    this.listeners.clear();
    void this.queue.then(() => this.db.close());
  }
}
