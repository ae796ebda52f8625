/**
 * The list row and change record the server keeps and sends as JSON: no Node import, so the
 * browser client (client/api.ts) takes its types from here instead of restating them.
 */

/** One session as the list shows it. */
export interface SessionRow {
  /** The key the app names it by: its session id (with `~2`, `~3` after it for files sharing an id). */
  key: string;
  id: string;
  /** The file's path (served from a team database: its path on the machine it came from). */
  path: string;
  /** Served from a team database: the source (person or machine) it came from; absent for the local store. */
  source?: string;
  /** The header's cwd, else the project directory's name (as `stats --by project`). */
  project: string;
  name: string | null;
  firstMessage: string;
  /** Header timestamp (ISO). */
  created: string;
  /** pi's `modified` (ms): the latest user or assistant message, else the header time. */
  modifiedMs: number;
  messageCount: number;
  entryCount: number;
  errored: boolean;
  /** The header's `parentSession` (a path). */
  parentPath: string | null;
  /** The key of the session this one was forked from, when it is in the store. */
  parentKey: string | null;
  tokens: number;
  cost: number;
  /**
   * Secrets the session database's scan found, by kind (`{}`: none); null until the scan has
   * reached the session, and always from a team database (which keeps no secret marks).
   */
  secrets: Record<string, number> | null;
  size: number;
  mtimeMs: number;
  /** With size and mtime, what tells a rewrite in place (same size, mtime kept) from no change. */
  ctimeMs?: number;
  ino?: number;
}

/** What changed in one refresh. */
export interface StoreChange {
  generation: number;
  changed: string[];
  removed: string[];
}

/** What a server serves: a sessions root on this machine, or a team's database (some sources, or all). */
export type Served =
  | { kind: "store"; root: string }
  | {
      kind: "database";
      /** The database's URL without its password. */
      location: string;
      /** The sources shown (absent: every source). */
      sources?: string[];
    };
