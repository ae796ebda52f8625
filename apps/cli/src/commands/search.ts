/**
 * `search <query>`: full-text search over every session, through the session database
 * (`@pi-session/search`), which is brought up to date first (a stat per file when nothing
 * changed; a progress line on a terminal while a cold index is built). Output like `rg`'s:
 * a line per session (time, project, name or first message, the shortest unique id), then its
 * best hits with the match highlighted on a terminal, cut to the terminal's width.
 */
import { resolve } from "node:path";
import {
  QuerySyntaxError,
  type SearchFilters,
  type SessionHit,
  type Snippet,
  openSearchDatabase,
} from "@pi-session/search";
import { UsageError } from "../errors.js";
import { sessionsRoot } from "../locate.js";
import type { Action, Context } from "../program.js";
import { oneLineField } from "../terminal-safe.js";
import { parseSince, shortDate } from "../text.js";
import { intOption, sinceOption, stringOption } from "./common.js";

const ROLES = ["user", "assistant", "tool"] as const;
type Role = (typeof ROLES)[number];

/** Cuts a line to `width` visible characters (no ANSI codes inside `plain`). */
function cut(plain: string, width: number | undefined): string {
  if (width === undefined || plain.length <= width) return plain;
  return `${plain.slice(0, Math.max(0, width - 1))}…`;
}

function untilOption(options: Record<string, unknown>): number | undefined {
  const raw = stringOption(options, "until", "--until");
  if (raw === undefined) return undefined;
  const ms = parseSince(raw, Date.now());
  if (ms === undefined)
    throw new UsageError(
      `--until: cannot read \`${raw}\` as a date`,
      "Use YYYY-MM-DD, an ISO time, or 7d / 12h.",
    );
  return ms;
}

function filtersOf(ctx: Context, options: Record<string, unknown>): SearchFilters {
  const filters: SearchFilters = {};
  const project = stringOption(options, "project", "--project");
  if (options.here === true && project !== undefined)
    throw new UsageError("give either --here or --project, not both");
  if (options.here === true) filters.projects = [resolve(ctx.cwd)];
  if (project !== undefined) filters.projects = [resolve(ctx.cwd, project)];
  const since = sinceOption(options);
  if (since !== undefined) filters.sinceMs = since;
  const until = untilOption(options);
  if (until !== undefined) filters.untilMs = until;
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

function sessionJson(s: SessionHit) {
  const m = s.meta;
  return {
    path: s.path,
    id: m.sessionId,
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
 * A snippet with its matches highlighted (colours only on a terminal), cut to `width`; each
 * piece made terminal-safe on its own, so the match ranges stay where they were.
 */
function highlighted(ctx: Context, snippet: Snippet, width: number | undefined): string {
  const text = cut(snippet.text, width);
  const c = ctx.io.out;
  let out = "";
  let at = 0;
  for (const [start, end] of snippet.ranges) {
    if (start >= text.length || start < at) break;
    const stop = Math.min(end, text.length);
    out += oneLineField(text.slice(at, start)) + c.bold(c.red(oneLineField(text.slice(start, stop))));
    at = stop;
  }
  return out + oneLineField(text.slice(at));
}

export const action: Action = async (ctx, [query], options) => {
  if (typeof query !== "string" || query.trim() === "") throw new UsageError("missing <query>");
  const limit = intOption(options, "limit", "--limit") ?? 20;
  const filters = filtersOf(ctx, options);
  const { root } = sessionsRoot({ env: ctx.env, cwd: ctx.cwd, sessionDir: ctx.sessionDir });
  const db = await openSearchDatabase({
    root,
    env: ctx.env,
    persistent: options.index !== false,
    onWarning: (m) => ctx.io.warn(m),
  });
  try {
    const progress = ctx.io.progress("indexing");
    try {
      await db.sync({ onProgress: (p) => progress.update(p.done, p.total) });
    } finally {
      progress.end();
    }
    const width = ctx.io.columns;
    let result: Awaited<ReturnType<typeof db.search>>;
    try {
      result = await db.search(query, {
        filters,
        thinking: options.thinking === true,
        toolOutput: options.toolOutput !== false,
        allBranches: options.allBranches === true,
        limit: options.files === true ? Number.POSITIVE_INFINITY : limit,
        hitsPerSession: options.files === true ? 1 : 3,
        snippetWidth: Math.max(40, (width ?? 160) - 12),
      });
    } catch (error) {
      if (error instanceof QuerySyntaxError)
        throw new UsageError(
          `bad query: ${error.message}`,
          "See `pi-session search --help` for the query syntax.",
        );
      throw error;
    }
    const sessions =
      options.files === true
        ? result.sessions.slice(0, options.limit === undefined ? undefined : limit)
        : result.sessions;
    if (ctx.json) {
      ctx.io.printJson({ query, sessions: sessions.map(sessionJson), more: result.more });
      return sessions.length > 0 ? 0 : 1;
    }
    if (options.files === true) {
      for (const s of sessions) ctx.io.line(s.path);
      return sessions.length > 0 ? 0 : 1;
    }
    if (sessions.length === 0) {
      ctx.io.info(`no match for ${JSON.stringify(query)} in ${root}`);
      return 1;
    }
    const idLength = db.uniqueIdLength(sessions.map((s) => s.meta.sessionId));
    const c = ctx.io.out;
    sessions.forEach((s, i) => {
      if (i > 0) ctx.io.line();
      const m = s.meta;
      const title = m.name ?? (m.firstMessage || "(no messages)");
      const head = `${shortDate(m.modifiedMs)}  ${m.cwd || "-"}  `;
      const id = m.sessionId.slice(0, idLength);
      const room = width === undefined ? undefined : Math.max(10, width - head.length - id.length - 2);
      const label = cut(oneLineField(title.replace(/\s+/g, " ").trim()), room);
      ctx.io.line(
        `${c.dim(shortDate(m.modifiedMs))}  ${c.cyan(oneLineField(m.cwd || "-"))}  ${m.name ? c.bold(label) : label}  ${c.magenta(id)}`,
      );
      for (const h of s.hits) {
        const tag = `${h.role ?? h.type}${h.onBranch ? "" : ", abandoned branch"}`;
        const prefix = `  ${h.entryId ?? `line ${h.line}`} ${tag}: `;
        const body = h.snippet
          ? highlighted(ctx, h.snippet, width === undefined ? undefined : Math.max(10, width - prefix.length))
          : "";
        ctx.io.line(
          `  ${c.dim(h.entryId ?? `line ${h.line}`)} ${h.onBranch ? c.green(tag) : c.yellow(tag)}: ${body}`,
        );
      }
    });
    if (result.more) ctx.io.info(c.dim(`more sessions match; --limit N shows more`));
    return 0;
  } finally {
    db.close();
  }
};
