/**
 * `search <query>`: full-text search over every session, through the session database
 * (`@pi-session/search`), which is brought up to date first (a stat per file when nothing
 * changed; a progress line on a terminal while a cold index is built, and while candidates
 * are checked). Output like `rg`'s: a line per session (time, project, name or first message,
 * the shortest unique id), then its best hits with the match highlighted on a terminal, cut to
 * the terminal's width. What the index could not read is reported and the exit code is 3, as
 * for every batch; a search stopped by its time limit says so and how far it got.
 */
import { resolve } from "node:path";
import {
  QuerySyntaxError,
  type SearchFilters,
  type SearchOptions,
  type SessionHit,
  type Snippet,
  openSearchDatabase,
} from "@pi-session/search";
import { type SessionParent, sessionIdOfFileName, sessionParentOf } from "@pi-session/node-store";
import { type Piece, cutEnd, cutStart, fitPieces, textWidth } from "@pi-session/render";
import { UsageError } from "../errors.js";
import { sessionsRoot } from "../roots.js";
import type { Action, Context } from "../program.js";
import { databaseUrl, guarded, listOption, openTeamDatabase, wantsDatabase } from "../team-db.js";
import { type Unreadable, exitCode, unreadable, warnSkipped } from "../unreadable.js";
import { oneLineField } from "../terminal-safe.js";
import { formatInt, homeOf, shortDate, tildePath } from "../text.js";
import { intOption, stringOption, timeBoundsOptions } from "./options.js";

const ROLES = ["user", "assistant", "tool"] as const;
type Role = (typeof ROLES)[number];

function filtersOf(ctx: Context, options: Record<string, unknown>): SearchFilters {
  const filters: SearchFilters = {};
  const project = stringOption(options, "project", "--project");
  if (options.here === true && project !== undefined)
    throw new UsageError("give either --here or --project, not both");
  if (options.here === true) filters.projects = [resolve(ctx.cwd)];
  if (project !== undefined) filters.projects = [resolve(ctx.cwd, project)];
  const { sinceMs, untilMs } = timeBoundsOptions(options);
  if (sinceMs !== undefined) filters.sinceMs = sinceMs;
  if (untilMs !== undefined) filters.untilMs = untilMs;
  const role = stringOption(options, "role", "--role");
  if (role !== undefined) {
    const roles = role.split(",").map((r) => r.trim());
    const bad = roles.find((r) => !ROLES.includes(r as Role));
    if (bad !== undefined)
      throw new UsageError(`--role must be user, assistant or tool (or a comma list); got \`${bad}\``);
    filters.roles = roles as Role[];
  }
  const tool = stringOption(options, "tool", "--tool");
  if (tool !== undefined) filters.tool = tool;
  const model = stringOption(options, "model", "--model");
  if (model !== undefined) filters.model = model;
  const file = stringOption(options, "file", "--file");
  if (file !== undefined) filters.file = file;
  if (options.errored === true) filters.errored = true;
  if (options.named === true) filters.named = true;
  return filters;
}

function snippetJson(s: Snippet | undefined) {
  return s ? { field: s.field, text: s.text, ranges: s.ranges } : null;
}

function sessionJson(s: SessionHit & { source?: string }, parent: SessionParent | undefined) {
  const m = s.meta;
  return {
    ...(s.source !== undefined ? { source: s.source } : {}),
    path: s.path,
    id: m.sessionId,
    parent: parent ? { path: parent.path, kind: parent.kind } : null,
    cwd: m.cwd,
    name: m.name,
    firstMessage: m.firstMessage,
    created: m.created,
    modified: Number.isFinite(m.modifiedMs) ? new Date(m.modifiedMs).toISOString() : null,
    hits: s.hits.map((h) => ({
      entryId: h.entryId,
      line: h.line,
      type: h.type,
      role: h.role,
      timestamp: h.timeMs === null ? null : new Date(h.timeMs).toISOString(),
      onBranch: h.onBranch,
      score: h.score,
      snippet: snippetJson(h.snippet),
    })),
  };
}

/**
 * The session line: time, project, name or first message, id. Cut to `width`, the title gives
 * way first, then the project (keeping its end, the directory's name); time and id stay.
 */
function sessionPieces(
  ctx: Context,
  s: SessionHit,
  id: string,
  width: number | undefined,
  parent: SessionParent | undefined,
): Piece[] {
  const c = ctx.io.out;
  const m = s.meta;
  const date = shortDate(m.modifiedMs);
  // A hit in a subagent (or a fork) says whose: the parent's id, as its file names it.
  const mark = parent ? `${parent.kind} of ${sessionIdOfFileName(parent.path).slice(0, 8)}` : "";
  let cwd = oneLineField(m.cwd ? tildePath(m.cwd, homeOf(ctx.env)) : "-");
  let title = oneLineField((m.name ?? (m.firstMessage || "(no messages)")).replace(/\s+/g, " ").trim());
  if (width !== undefined) {
    const room = Math.max(0, width - textWidth(date) - textWidth(id) - 6 - (mark ? textWidth(mark) + 2 : 0));
    if (textWidth(cwd) + textWidth(title) > room) {
      cwd = cutStart(cwd, Math.min(textWidth(cwd), Math.max(Math.min(12, room), Math.floor(room / 2))));
      title = cutEnd(title, room - textWidth(cwd));
    }
  }
  return [
    { text: date, style: c.dim },
    { text: "  " },
    { text: cwd, style: c.cyan },
    { text: "  " },
    { text: title, ...(m.name ? { style: c.bold } : {}) },
    ...(mark ? [{ text: "  " }, { text: oneLineField(mark), style: c.yellow }] : []),
    { text: "  " },
    { text: id, style: c.magenta },
  ];
}

/** A hit line: entry id, role and branch, the snippet with its matches highlighted. */
function hitPieces(ctx: Context, h: SessionHit["hits"][number]): Piece[] {
  const c = ctx.io.out;
  const tag = `${h.role ?? h.type}${h.onBranch ? "" : ", abandoned branch"}`;
  const pieces: Piece[] = [
    { text: "  " },
    { text: oneLineField(h.entryId ?? `line ${h.line}`), style: c.dim },
    { text: " " },
    { text: oneLineField(tag), style: h.onBranch ? c.green : c.yellow },
    { text: ": " },
  ];
  const snippet = h.snippet;
  if (!snippet) return pieces;
  // Each piece made terminal-safe on its own, so the match ranges stay where they were.
  const text = snippet.text;
  const mark = (t: string) => c.bold(c.red(t));
  let at = 0;
  for (const [start, end] of snippet.ranges) {
    if (start >= text.length || start < at) break;
    const stop = Math.min(end, text.length);
    if (start > at) pieces.push({ text: oneLineField(text.slice(at, start)) });
    pieces.push({ text: oneLineField(text.slice(start, stop)), style: mark });
    at = stop;
  }
  if (at < text.length) pieces.push({ text: oneLineField(text.slice(at)) });
  return pieces;
}

/** What a search needs of a database: the local one's or the team's, answering alike. */
interface Searcher {
  search(
    query: string,
    options: SearchOptions,
  ): Promise<{
    sessions: (SessionHit & { source?: string })[];
    more: boolean;
    cut?: { budgetMs: number; checked: number };
  }>;
  /** Files of the store the index could not read (reported already). */
  unreadable: Unreadable[];
  /** Where the sessions come from, for "no match ... in WHERE". */
  where: string;
  /** The length to show these session ids at. */
  uniqueIdLength(ids: string[]): number;
  /** The session a hit's session belongs under (a subagent's, a fork's parent), if any. */
  parentOf(session: SessionHit): SessionParent | undefined;
  close(): Promise<void> | void;
}

/** The local session database, brought up to date first (what cannot be read is said). */
async function localSearcher(ctx: Context, options: Record<string, unknown>): Promise<Searcher> {
  const { root } = sessionsRoot({ env: ctx.env, cwd: ctx.cwd, sessionDir: ctx.sessionDir });
  const db = await openSearchDatabase({
    root,
    env: ctx.env,
    persistent: options.index !== false,
    onWarning: (m) => ctx.io.warn(m),
  });
  let skipped: Unreadable[];
  // Also drawn by a rebuild a damaged database needs before it answers (the last sync's callbacks).
  const progress = ctx.io.progress("indexing");
  try {
    let synced: Awaited<ReturnType<typeof db.sync>>;
    try {
      synced = await db.sync({ onProgress: (p) => progress.update(p.done, p.total) });
    } finally {
      progress.end();
    }
    // What the index could not read is not searched: said, with a count, and exit 3.
    skipped = synced.unreadable.map(
      ({ path, error }) => unreadable(path, error) ?? { path, code: null, reason: error.message },
    );
    warnSkipped(ctx.io, skipped);
  } catch (error) {
    db.close();
    throw error;
  }
  let files: Map<string, unknown> | undefined;
  return {
    search: async (q, o) => {
      try {
        return await db.search(q, o);
      } finally {
        progress.end();
      }
    },
    unreadable: skipped,
    where: root,
    uniqueIdLength: (ids) => db.uniqueIdLength(ids),
    parentOf: (s) => {
      files ??= db.database.files();
      const known = files;
      return sessionParentOf(root, { path: s.path, headerParent: s.meta.parentPath }, (p) => known.has(p));
    },
    close: () => db.close(),
  };
}

/** The team's database (`--db`), read-only: it is not synced from here (`pi-session sync` does that). */
async function teamSearcher(ctx: Context, options: Record<string, unknown>): Promise<Searcher> {
  if (options.index === false)
    throw new UsageError("--no-index is about the local database; --db reads the team's");
  const url = databaseUrl(options.db, "--db");
  const sources = listOption(options, "source", "--source");
  const db = await openTeamDatabase(ctx, url, { readOnly: true });
  return {
    search: (q, o) => guarded(() => db.search(q, { ...o, ...(sources.length > 0 ? { sources } : {}) })),
    unreadable: [],
    where: sources.length > 0 ? `${db.location} (${sources.join(", ")})` : db.location,
    // Unique among the sessions shown (the team database has no id neighbours to ask).
    uniqueIdLength,
    // Other machines' paths: the header's parent alone.
    parentOf: (s) => (s.meta.parentPath ? { path: s.meta.parentPath, kind: "fork" } : undefined),
    close: () => db.close(),
  };
}

/** How many leading characters tell these ids apart from each other (at least 8). */
function uniqueIdLength(ids: string[]): number {
  const sorted = [...new Set(ids)].sort();
  let n = 8;
  for (let i = 1; i < sorted.length; i++) {
    const a = sorted[i - 1] as string;
    const b = sorted[i] as string;
    let k = 0;
    while (k < a.length && k < b.length && a[k] === b[k]) k++;
    n = Math.max(n, k + 1);
  }
  return n;
}

/** The time limit a search gets unless `--time-limit` says otherwise. */
const DEFAULT_TIME_LIMIT_S = 30;

/** `--time-limit SECONDS` in milliseconds; undefined for 0 (no limit). */
function timeLimitOption(options: Record<string, unknown>): number | undefined {
  const raw = options.timeLimit;
  if (raw === undefined) return DEFAULT_TIME_LIMIT_S * 1000;
  const seconds = Number(raw);
  if (typeof raw === "boolean" || String(raw).trim() === "" || !Number.isFinite(seconds) || seconds < 0)
    throw new UsageError(`--time-limit needs a number of seconds (0: no limit), got \`${String(raw)}\``);
  return seconds === 0 ? undefined : seconds * 1000;
}

/** A query as the user typed it, on one line and in quotes (no JSON escapes: `re:\w` stays so). */
function quoted(query: string): string {
  return `\`${oneLineField(query)}\``;
}

export const action: Action = async (ctx, [query], options) => {
  if (typeof query !== "string" || query.trim() === "") throw new UsageError("missing <query>");
  const limit = intOption(options, "limit", "--limit") ?? 20;
  const budgetMs = timeLimitOption(options);
  const filters = filtersOf(ctx, options);
  if (!wantsDatabase(options) && options.source !== undefined)
    throw new UsageError("--source filters a team database: give --db too");
  const db = wantsDatabase(options) ? await teamSearcher(ctx, options) : await localSearcher(ctx, options);
  try {
    const width = ctx.io.columns;
    let result: Awaited<ReturnType<typeof db.search>>;
    const checking = ctx.io.progress("searching");
    try {
      result = await db.search(query, {
        ...(budgetMs !== undefined ? { budgetMs } : {}),
        onProgress: (p) =>
          checking.text(
            `searching: ${formatInt(p.checked)} candidate entries checked (${Math.floor(p.elapsedMs / 1000)} s${budgetMs !== undefined ? ` of ${budgetMs / 1000} s` : ""})`,
          ),
        filters,
        thinking: options.thinking === true,
        toolOutput: options.toolOutput !== false,
        allBranches: options.allBranches === true,
        limit: options.files === true ? Number.POSITIVE_INFINITY : limit,
        hitsPerSession: options.files === true ? 1 : 3,
        snippetWidth: Math.max(40, (width ?? 160) - 12),
      });
    } catch (error) {
      if (error instanceof QuerySyntaxError || (error instanceof Error && error.name === "QuerySyntaxError"))
        throw new UsageError(
          `bad query: ${error.message}`,
          "See `pi-session search --help` for the query syntax.",
        );
      throw error;
    } finally {
      checking.end();
    }
    const cut = result.cut;
    if (cut)
      ctx.io.warn(
        `the search stopped at its time limit (${cut.budgetMs / 1000} s) after checking ${formatInt(cut.checked)} candidate entries: other sessions may match (--time-limit SECONDS gives it longer; 0: no limit)`,
      );
    const found = (n: number) => exitCode(db.unreadable, n > 0 ? 0 : 1);
    const sessions =
      options.files === true
        ? result.sessions.slice(0, options.limit === undefined ? undefined : limit)
        : result.sessions;
    if (ctx.json) {
      ctx.io.printJson({
        query,
        sessions: sessions.map((s) => sessionJson(s, db.parentOf(s))),
        more: result.more,
        ...(cut ? { cut: { timeLimitMs: cut.budgetMs, checked: cut.checked } } : {}),
        unreadable: db.unreadable,
      });
      return found(sessions.length);
    }
    if (options.files === true) {
      // A team database's paths are other machines' (untrusted): made one line.
      for (const s of sessions) ctx.io.line(s.source !== undefined ? oneLineField(s.path) : s.path);
      return found(sessions.length);
    }
    if (sessions.length === 0) {
      // Never "no match" for what was not looked at: a cut search or files left out say so.
      const where = oneLineField(db.where);
      if (cut)
        ctx.io.info(`no match for ${quoted(query)} in the part of ${where} searched before the time limit`);
      else if (db.unreadable.length > 0)
        ctx.io.info(`no match for ${quoted(query)} in ${where} but for the files that could not be read`);
      else ctx.io.info(`no match for ${quoted(query)} in ${where}`);
      return found(0);
    }
    const idLength = db.uniqueIdLength(sessions.map((s) => s.meta.sessionId));
    const c = ctx.io.out;
    sessions.forEach((s, i) => {
      if (i > 0) ctx.io.line();
      const pieces = sessionPieces(ctx, s, s.meta.sessionId.slice(0, idLength), width, db.parentOf(s));
      ctx.io.line(fitPieces(pieces, width));
      for (const h of s.hits) ctx.io.line(fitPieces(hitPieces(ctx, h), width));
    });
    if (result.more) ctx.io.info(c.dim(`more sessions match; --limit N shows more`));
    return found(sessions.length);
  } finally {
    await db.close();
  }
};
