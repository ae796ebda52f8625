/**
 * The local store: a sessions root mirrored by the session database (`@pi-session/search`),
 * brought up to date before every answer (a stat per file when nothing changed), and its files
 * read with node-store's streaming reader as pi reads them. Use {@link openLocalStore} for the
 * store of `pi-session`'s own root or of the one pi itself uses.
 */
import {
  type SessionParent,
  keepLinesPiReads,
  readLinesAsPi,
  readSessionFile,
  sessionParentOf,
} from "@pi-session/node-store";
import { type RenderSession, sessionFromRecords } from "@pi-session/render";
import { type SearchDatabase, openSearchDatabase } from "@pi-session/search";
import type { AgentStore, StoreSession } from "./store.js";

export interface LocalStoreOptions {
  /** The sessions root to answer from. */
  root: string;
  env?: Record<string, string | undefined>;
  /** Where the session database lives (default: node-store's cache dir). */
  cacheDir?: string;
  /** `false`: keep the database in memory (nothing written). */
  persistent?: boolean;
  /** Told about what the person running the server should hear (a database rebuilt, no persistence). */
  onWarning?: (message: string) => void;
}

/** Codec diagnostics kept per session read (the tools show none). */
const DIAGNOSTICS_KEPT = 20;

class LocalStore implements AgentStore {
  constructor(
    private readonly db: SearchDatabase,
    readonly where: string,
  ) {}

  /**
   * Brings the database up to date. A server answers one call at a time, so the build reads
   * in this thread (no read-ahead worker: a bundled front-end ships no worker script).
   */
  private async sync(): Promise<void> {
    await this.db.sync({ workers: false });
  }

  async sessions(): Promise<StoreSession[]> {
    await this.sync();
    const sessions = this.db.database.usage({ rows: false });
    const parents = this.parents(sessions);
    return sessions.map((s) => {
      const parent = parents.get(s.path);
      return { path: s.path, meta: s.meta, ...(parent ? { parent } : {}) };
    });
  }

  /** Each session's parent (a fork's, a subagent's), by the store's paths. */
  private parents(sessions: readonly { path: string; meta: { parentPath: string | null } }[]) {
    const paths = new Set(sessions.map((s) => s.path));
    const out = new Map<string, SessionParent>();
    for (const s of sessions) {
      const parent = sessionParentOf(this.where, { path: s.path, headerParent: s.meta.parentPath }, (p) =>
        paths.has(p),
      );
      if (parent) out.set(s.path, parent);
    }
    return out;
  }

  async details(session: StoreSession) {
    return this.db.database.file(session.path)?.meta ?? session.meta;
  }

  async search(query: string, options: Parameters<SearchDatabase["search"]>[1]) {
    await this.sync();
    const result = await this.db.search(query, options);
    const parents = this.parents(this.db.database.usage({ rows: false }));
    return {
      ...result,
      sessions: result.sessions.map((s) => {
        const parent = parents.get(s.path);
        return parent ? { ...s, parent } : s;
      }),
    };
  }

  async stats(query: Parameters<SearchDatabase["stats"]>[0]) {
    await this.sync();
    return this.db.stats(query);
  }

  async load(session: StoreSession): Promise<RenderSession> {
    const contents = await readSessionFile(session.path, {
      keepRecord: keepLinesPiReads(),
      maxDiagnostics: DIAGNOSTICS_KEPT,
    });
    const torn = contents.tornTail?.kind === "fragment" ? contents.tornTail.offset : undefined;
    return sessionFromRecords(readLinesAsPi(contents.records, torn).records, contents.diagnostics);
  }

  close(): void {
    this.db.close();
  }
}

/** The store of a sessions root, through its session database (opened or built as needed). */
export async function openLocalStore(options: LocalStoreOptions): Promise<AgentStore> {
  const db = await openSearchDatabase({
    root: options.root,
    ...(options.env ? { env: options.env } : {}),
    ...(options.cacheDir !== undefined ? { cacheDir: options.cacheDir } : {}),
    ...(options.persistent !== undefined ? { persistent: options.persistent } : {}),
    ...(options.onWarning ? { onWarning: options.onWarning } : {}),
  });
  return new LocalStore(db, db.root);
}
