/**
 * The seam between the tools and where sessions are kept: the local session database (see
 * `local-store.ts`) or a team's database (the CLI's `mcp --db` builds one over
 * `@pi-session/postgres`). The tools ask only this, so every front-end answers alike.
 */
import type { SessionParent } from "@pi-session/node-store";
import type { RenderSession } from "@pi-session/render";
import type { SearchOptions, SessionHit, SessionMeta, StatsQuery } from "@pi-session/search";
import type { StatsResult } from "@pi-session/search/documents";

/** A session as the store lists it. */
export interface StoreSession {
  path: string;
  meta: SessionMeta;
  /** A team database's source (the person or machine the session came from). */
  source?: string;
  /** The session this one belongs under: a fork's or a subagent's parent. */
  parent?: SessionParent;
}

/** Search results: sessions with their best hits, best first. */
export interface StoreSearchResult {
  sessions: (SessionHit & { source?: string; parent?: SessionParent })[];
  /** More sessions matched than asked for. */
  more: boolean;
  /** The search stopped at its time budget after checking `checked` candidate entries. */
  cut?: { budgetMs: number; checked: number };
}

export interface AgentStore {
  /** Where the sessions come from (a directory, a database), for messages. */
  readonly where: string;
  /** Every session, brought up to date first (their `firstMessage` may be left empty: see {@link details}). */
  sessions(): Promise<StoreSession[]>;
  /** A session's facts with its first message (for the few a tool shows). */
  details(session: StoreSession): Promise<SessionMeta>;
  /** Full-text search (up to date); throws the search package's `QuerySyntaxError` for a bad query. */
  search(query: string, options: SearchOptions): Promise<StoreSearchResult>;
  /** Tokens and cost, counted once per fork lineage (up to date). */
  stats(query: StatsQuery): Promise<StatsResult>;
  /** One session read, migrated and indexed for rendering. */
  load(session: StoreSession): Promise<RenderSession>;
  close(): Promise<void> | void;
}
