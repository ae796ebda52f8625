/**
 * What the server serves from: the one seam between the HTTP server and where the sessions
 * live. `LocalSource` (`local-source.ts`) is a sessions root on this machine, through the
 * session database kept up to date from the files; `DatabaseSource` (`database-source.ts`) is a
 * team's PostgreSQL database, read only. The server asks for nothing else: the list rows, a
 * row's session, a search, the usage charts and a change signal. A session key names a row of
 * the source's list, never a path a client chose.
 */
import type { EntryHit, FileTouchHit, TouchedFile } from "@pi-session/search";
import type { Served, SessionRow, StoreChange } from "./rows.js";
import type { SearchJob } from "./search-pool.js";
import type { LoadedSession } from "./session-data.js";
import type { UsageCells } from "./usage.js";

/** A search's answer as rows of the list, each with its hits. */
export interface SourceSearchResult {
  sessions: { row: SessionRow; hits: EntryHit[] }[];
  more: boolean;
  /** The search stopped at its time limit after checking this many candidate entries. */
  cut?: { budgetMs: number; checked: number };
}

/** A file's history: the sessions (as list rows) that touched it, newest first, with their touches. */
export interface FileHistory {
  sessions: { row: SessionRow; touches: FileTouchHit[] }[];
}

/** What `/api/info` tells of a source. */
export interface SessionSourceInfo {
  /** `sqlite ...` or `postgresql 15.8`. */
  backend: string;
  /** How changes are seen. */
  watch: "watch" | "poll" | "off";
  /** The search threads' counters and times (none for a database). */
  search: Record<string, number>;
}

export interface SessionSource {
  readonly served: Served;
  /** Bumped by every refresh that found a change. */
  readonly generation: number;
  /** Every session, newest first. */
  sessions(): SessionRow[];
  /** The session a key names (keys come from {@link sessions}; nothing else names a file). */
  session(key: string): SessionRow | undefined;
  /** A row's session, read and indexed for the page, kept while unchanged. */
  load(row: SessionRow): Promise<LoadedSession>;
  /** Rejects with an `AbortError` when `signal` aborted before it ran, a `QuerySyntaxError` for an unusable query. */
  search(job: SearchJob, signal: AbortSignal): Promise<SourceSearchResult>;
  /**
   * File activity (`pi-session files`), where the source keeps it (the local store; a team
   * database does not): a session's files, changes first, and a file's (or a directory's) history.
   */
  files?: {
    ofSession(row: SessionRow): Promise<TouchedFile[]>;
    history(path: string): Promise<FileHistory>;
  };
  /** The usage charts' cells (by day, model, project and file), counted once per fork lineage. */
  usage(): Promise<UsageCells>;
  /** Calls `listener` with what each refresh that found a change changed. */
  onChange(listener: (change: StoreChange) => void): () => void;
  /** Settles when the source can answer searches and charts (a local store: its first build). */
  readonly ready?: Promise<void>;
  /** The build under way (a local store), if any. */
  readonly building?: { done: number; total: number } | undefined;
  /** Calls `listener` with the progress of each build (undefined: it ended). */
  onProgress?(listener: (progress: { done: number; total: number } | undefined) => void): () => void;
  /** Starts looking for changes (once the server listens). */
  start(): void;
  info(): SessionSourceInfo;
  close(): Promise<void>;
}
