/**
 * The five tools an agent uses to look at its past sessions: `search_sessions`,
 * `read_session`, `session_context`, `list_sessions` and `usage_stats`. Each has a JSON Schema
 * for its input (`schemas.ts`) and answers with readable text and the same facts as JSON
 * (`structured`), both within the caller's character budget (`maxChars`, at most the server's
 * ceiling), with what was cut said and how to get it. Secrets are redacted with the export's
 * detector (search's `secretDetector`: secretlint's recommended rules and render's context
 * rules) unless the front-end turns that off. A bad argument, an unknown session or a store
 * that cannot answer is a tool error (`isError`) with a clear message, never a throw.
 *
 * Use {@link createAgentTools} once per store; an MCP server lists `tools` and routes each call
 * to `call`, a pi extension registers the tools it wants with the same schemas and answers.
 */
import {
  type DocumentItem,
  Redactor,
  buildDocument,
  redactSession,
  renderTextItem,
  visibleControls,
} from "@pi-session/render";
import type { SessionParent } from "@pi-session/node-store";
import { type SearchFilters, type SessionMeta, secretDetector } from "@pi-session/search";
import {
  type GroupBy,
  type StatsRow,
  type TokenTotals,
  TimeArgError,
  TIME_ARG_FORMS,
  parseTimeArg,
} from "@pi-session/search/documents";
import { Budget, type Built, cutText, fitAnswer } from "./budget.js";
import {
  DEFAULT_MAX_CHARS,
  type InputSchema,
  MIN_MAX_CHARS,
  type ROLES,
  type ToolName,
  ToolInputError,
  checkArguments,
  inputSchemas,
} from "./schemas.js";
import type { AgentStore, StoreSession } from "./store.js";

/** What a tool call answers: text for the model, the same facts as JSON, and whether it failed. */
export interface ToolAnswer {
  text: string;
  structured: Record<string, unknown>;
  isError: boolean;
}

export interface AgentTool {
  name: ToolName;
  /** A short human title. */
  title: string;
  description: string;
  inputSchema: InputSchema;
}

export interface AgentToolsOptions {
  /** The most characters an answer may have (the default and ceiling of `maxChars`). */
  maxChars?: number;
  /** Redact secrets in what is shown (default true). */
  redact?: boolean;
  /** "Now" (ms), for `since` / `until` spans such as `7d` (default: the clock at each call). */
  now?: () => number;
  /** The time zone of days and periods (default: the runtime's). */
  timeZone?: string;
  /**
   * Milliseconds a search may take checking candidates (regexes, substrings) before it answers
   * with what it found and says so (default 10,000; 0: no limit).
   */
  searchTimeLimitMs?: number;
}

/** The time a search may take unless the front-end says otherwise. */
const DEFAULT_SEARCH_TIME_LIMIT_MS = 10_000;

export interface AgentTools {
  readonly tools: readonly AgentTool[];
  /** Answers one call; never throws. */
  call(name: string, args: unknown): Promise<ToolAnswer>;
}

const DESCRIPTIONS: Record<ToolName, { title: string; description: string }> = {
  search_sessions: {
    title: "Search past sessions",
    description:
      "Full-text search over the user's past pi coding-agent sessions (user and assistant messages, tool calls and tool output). Returns matching sessions with their best hits: session id, entry id, path, working directory, time and a snippet. Use it to find how something was done or decided before; then read_session with the session id and entry id shows the conversation around a hit.",
  },
  read_session: {
    title: "Read a past session",
    description:
      "The transcript of a past session's current branch as readable text (user, assistant, tool calls and results), from its start, or the entries around one entry (entryId with before/after). Long answers are cut; the answer says which entryId and after to ask for next.",
  },
  session_context: {
    title: "What the model saw",
    description:
      "The exact context a past session's model saw at its last entry (pi's context rebuild: compaction summaries, kept messages, branch summaries), as text. When it is longer than the budget, the latest messages are kept.",
  },
  list_sessions: {
    title: "List past sessions",
    description:
      "Past sessions, newest first: id, name or first message, working directory, last activity, message count, path, and the parent session of a fork or subagent. Filter by project directory and time.",
  },
  usage_stats: {
    title: "Token and cost usage",
    description:
      "Tokens and cost of past sessions, counted once per fork lineage, in total and in rows by day, week, month, session, project or model.",
  },
};

/** A tool's failure, answered as a tool error with this message. */
class ToolError extends Error {}

const iso = (ms: number | null | undefined): string | null =>
  ms === null || ms === undefined || !Number.isFinite(ms) ? null : new Date(ms).toISOString();

/** ` · subagent of <path>` / ` · fork of <path>`, or nothing. */
const parentNote = (parent: SessionParent | undefined) =>
  parent ? ` · ${parent.kind} of ${parent.path}` : "";

const plural = (n: number, word: string) =>
  `${n.toLocaleString("en-US")} ${n === 1 ? word : word.endsWith("y") ? `${word.slice(0, -1)}ies` : `${word}s`}`;

/** The most characters an answer may have, as a front-end asks for it (at least the minimum). */
const ceilingOf = (maxChars: number | undefined) =>
  Math.max(MIN_MAX_CHARS, Math.floor(maxChars ?? DEFAULT_MAX_CHARS));

/**
 * The tools' names, descriptions and input schemas, for a front-end that registers them before
 * it opens a store (pi registers an extension's tools as it loads).
 */
export function describeAgentTools(options: Pick<AgentToolsOptions, "maxChars"> = {}): AgentTool[] {
  const schemas = inputSchemas(ceilingOf(options.maxChars));
  return (Object.keys(schemas) as ToolName[]).map((name) => ({
    name,
    ...DESCRIPTIONS[name],
    inputSchema: schemas[name],
  }));
}

/** The tools over `store`. */
export function createAgentTools(store: AgentStore, options: AgentToolsOptions = {}): AgentTools {
  const ceiling = ceilingOf(options.maxChars);
  const schemas = inputSchemas(ceiling);
  const redact = options.redact !== false;
  const now = options.now ?? Date.now;
  const searchBudget = options.searchTimeLimitMs ?? DEFAULT_SEARCH_TIME_LIMIT_MS;
  const tools = describeAgentTools({ maxChars: ceiling });

  // The one secret detector pi-session shares (export --redact, secrets, sync --redact).
  const detector = redact ? secretDetector() : undefined;
  /** A fresh redactor per answer (its counts are the answer's), or one that changes nothing. */
  const redactor = () => (detector ? new Redactor({ detector }) : undefined);
  /** Session text as an answer shows it: redacted, control characters visible (never raw: a
   * client may print it to a terminal). */
  const clean = (r: Redactor | undefined, text: string) => visibleControls(r ? r.text(text) : text);
  /** What an answer's redaction removed, by kind, when it removed anything. */
  const redacted = (r: Redactor | undefined) =>
    r && r.report.total > 0 ? { redacted: r.report.counts } : {};

  function timeArg(value: unknown, name: string, end: "start" | "end"): number | undefined {
    if (typeof value !== "string") return undefined;
    try {
      const range = parseTimeArg(value, {
        nowMs: now(),
        ...(options.timeZone !== undefined ? { timeZone: options.timeZone } : {}),
      });
      return end === "start" ? range.startMs : range.endMs;
    } catch (error) {
      if (error instanceof TimeArgError)
        throw new ToolInputError(`${name} ${JSON.stringify(value)}: ${error.message}; use ${TIME_ARG_FORMS}`);
      throw error;
    }
  }

  function timeRange(args: Record<string, unknown>): { sinceMs?: number; untilMs?: number } {
    const sinceMs = timeArg(args.since, "since", "start");
    const untilMs = timeArg(args.until, "until", "end");
    if (sinceMs !== undefined && untilMs !== undefined && untilMs <= sinceMs)
      throw new ToolInputError(
        `until ${JSON.stringify(args.until)} is not after since ${JSON.stringify(args.since)}`,
      );
    return {
      ...(sinceMs !== undefined ? { sinceMs } : {}),
      ...(untilMs !== undefined ? { untilMs } : {}),
    };
  }

  /** The session `ref` names: a path of the store, an id, or a unique prefix of one (any case). */
  async function findSession(ref: string): Promise<StoreSession> {
    const sessions = await store.sessions();
    const byPath = sessions.filter((s) => s.path === ref);
    if (byPath.length === 1) return byPath[0] as StoreSession;
    const wanted = ref.trim().toLowerCase();
    const exact = sessions.filter((s) => s.meta.sessionId.toLowerCase() === wanted);
    const matches =
      exact.length > 0 ? exact : sessions.filter((s) => s.meta.sessionId.toLowerCase().startsWith(wanted));
    if (matches.length === 1) return matches[0] as StoreSession;
    if (matches.length === 0)
      throw new ToolError(
        `no session with id, id prefix or path ${JSON.stringify(ref)} in ${store.where}; search_sessions or list_sessions give the ids and paths there are`,
      );
    const shown = matches
      .slice(0, 10)
      .map((s) => `${s.meta.sessionId} (${s.path})`)
      .join(", ");
    throw new ToolError(
      `${matches.length} sessions match ${JSON.stringify(ref)}: ${shown}${matches.length > 10 ? ", ..." : ""}; give a longer id or the path`,
    );
  }

  function sessionFacts(s: StoreSession, meta: SessionMeta, r: Redactor | undefined) {
    return {
      sessionId: meta.sessionId,
      path: s.path,
      cwd: meta.cwd,
      ...(s.source !== undefined ? { source: s.source } : {}),
      name: meta.name === null ? null : clean(r, meta.name),
      created: meta.created,
      modified: iso(meta.modifiedMs),
      messageCount: meta.messageCount,
      parent: s.parent ?? null,
    };
  }

  async function searchSessions(args: Record<string, unknown>, maxChars: number): Promise<Built> {
    const query = args.query as string;
    const filters: SearchFilters = { ...timeRange(args) };
    if (typeof args.project === "string") filters.projects = [args.project];
    if (typeof args.role === "string") filters.roles = [args.role as (typeof ROLES)[number]];
    const limit = (args.limit as number | undefined) ?? 10;
    let result: Awaited<ReturnType<AgentStore["search"]>>;
    try {
      result = await store.search(query, {
        filters,
        limit,
        hitsPerSession: 3,
        snippetWidth: 240,
        ...(searchBudget > 0 ? { budgetMs: searchBudget } : {}),
      });
    } catch (error) {
      if (error instanceof Error && error.name === "QuerySyntaxError")
        throw new ToolInputError(`query ${JSON.stringify(query)}: ${error.message}`);
      throw error;
    }
    const r = redactor();
    const budget = new Budget(maxChars);
    const taken: { text: string; json: Record<string, unknown>; session: string }[] = [];
    for (const session of result.sessions) {
      const m = session.meta;
      const title = clean(r, (m.name ?? m.firstMessage).replace(/\s+/g, " ").trim()) || "(no messages)";
      const heading = `\n## ${cutText(title, 120)}\nsession ${m.sessionId} · ${m.cwd || "(no cwd)"} · last active ${iso(m.modifiedMs) ?? "?"}${parentNote(session.parent)}\npath ${session.path}${session.source !== undefined ? ` (source ${session.source})` : ""}`;
      for (const h of session.hits) {
        const snippet = clean(r, h.snippet?.text ?? "")
          .replace(/\s+/g, " ")
          .trim();
        const hit = {
          sessionId: m.sessionId,
          entryId: h.entryId,
          path: session.path,
          cwd: m.cwd,
          timestamp: iso(h.timeMs),
          snippet,
          role: h.role ?? h.type,
          onBranch: h.onBranch,
          sessionName: m.name === null ? null : clean(r, m.name),
          ...(session.source !== undefined ? { source: session.source } : {}),
          ...(session.parent ? { parent: session.parent } : {}),
        };
        const first = taken.at(-1)?.session !== session.path;
        const line = `${first ? `${heading}\n` : ""}- entry ${h.entryId ?? "(no id)"} (${hit.role}${h.onBranch ? "" : ", abandoned branch"}, ${hit.timestamp ?? "no time"}): ${snippet}`;
        const got = budget.take(line, hit, (cut) => ({ ...hit, snippet: cut }));
        if (got) taken.push({ ...got, session: session.path });
      }
    }
    return fitAnswer(maxChars, taken.length, (n) => {
      const cut = budget.left + taken.length - n;
      const head =
        result.sessions.length === 0
          ? `No match for ${JSON.stringify(query)} in ${store.where}.`
          : `${plural(result.sessions.length, "session")} match ${JSON.stringify(query)}${result.more ? " (more match: limit up to 50 shows more)" : ""}.`;
      const notes: string[] = [];
      if (result.cut)
        notes.push(
          `The search stopped at its time limit (${result.cut.budgetMs / 1000} s) after checking ${result.cut.checked.toLocaleString("en-US")} candidate entries: other sessions may match; narrow it with words, project, since/until or role.`,
        );
      if (cut > 0)
        notes.push(
          `${plural(cut, "more hit")} cut to stay within ${maxChars} characters: search with a narrower query, project, since/until or role, or a larger maxChars.`,
        );
      if (n > 0)
        notes.push(
          "read_session with a session id and an entry id (before/after) shows the conversation around a hit.",
        );
      return {
        text: [
          head,
          ...taken.slice(0, n).map((t) => t.text),
          ...(notes.length > 0 ? ["", ...notes] : []),
        ].join("\n"),
        structured: {
          query,
          hits: taken.slice(0, n).map((t) => t.json),
          sessions: result.sessions.length,
          more: result.more,
          hitsCut: cut,
          ...(result.cut ? { timeLimitCut: result.cut } : {}),
          ...redacted(r),
        },
      };
    });
  }

  /** One item of a document as text with its entry id (or undefined for items shown elsewhere). */
  function itemText(item: DocumentItem, full: boolean): string | undefined {
    return renderTextItem(item, {
      full,
      showIds: true,
      formatTime: (t) => t,
      foldHint: "; read_session with this entryId, before 0 and after 0, shows it whole",
    });
  }

  async function readSession(args: Record<string, unknown>, maxChars: number): Promise<Built> {
    const found = await findSession(args.session as string);
    const loaded = await store.load(found);
    const r = redactor();
    const session = r ? redactSession(loaded, { detector }).session : loaded;
    const typed = args.entryId as string | undefined;
    const limit = (args.limit as number | undefined) ?? 100;
    let target: string | undefined;
    if (typed !== undefined) {
      const ids = [...session.index.byId.keys()];
      const candidates = ids.includes(typed) ? [typed] : ids.filter((id) => id.startsWith(typed));
      if (candidates.length !== 1)
        throw new ToolError(
          candidates.length === 0
            ? `no entry ${JSON.stringify(typed)} in session ${found.meta.sessionId}; read_session without entryId shows the ids`
            : `${candidates.length} entries of session ${found.meta.sessionId} start with ${JSON.stringify(typed)}; give more of the id`,
        );
      target = candidates[0] as string;
    }
    const doc = buildDocument(session, {
      view: "branch",
      ...(target !== undefined ? { leafId: leafBelow(session.index, target) } : {}),
    });
    const items = doc.items;
    let start = 0;
    let end = items.length;
    let whole = false;
    if (target !== undefined) {
      const at = items.findIndex((item) => item.id === target);
      const before = (args.before as number | undefined) ?? 5;
      const after = (args.after as number | undefined) ?? 5;
      start = Math.max(0, at - before);
      end = Math.min(items.length, at + after + 1);
      whole = before === 0 && after === 0;
    }
    end = Math.min(end, start + limit);
    const facts = sessionFacts(found, found.meta, r);
    const title = clean(r, doc.session.title);
    const head = `Session ${found.meta.sessionId}: ${cutText(title, 160)}\ncwd ${found.meta.cwd || "(none)"} · path ${found.path}${parentNote(found.parent)}\n${target !== undefined ? `entries around ${target}` : "current branch"}: ${plural(items.length, "entry")}${start > 0 ? `, the ${plural(start, "entry")} before these not shown` : ""}`;
    const budget = new Budget(maxChars, head.length + JSON.stringify(facts).length);
    const taken: { text: string; json: Record<string, unknown>; id: string | undefined }[] = [];
    for (const item of items.slice(start, end)) {
      const text = itemText(item, whole);
      if (text === undefined) continue;
      const json = {
        entryId: item.id ?? null,
        type: item.entryType,
        role: item.role ?? null,
        timestamp: item.timestamp ?? null,
        text,
      };
      const got = budget.take(text, json, (cut) => ({ ...json, text: cut }));
      if (got) taken.push({ ...got, id: item.id });
    }
    return fitAnswer(maxChars, taken.length, (n) => {
      const shown = taken.slice(0, n);
      const cut = budget.left + taken.length - n;
      const after = items.length - end + cut;
      // Where to go on: after the last entry shown, or (nothing shown) from the first one left out.
      const lastShown = shown.findLast((t) => t.id !== undefined)?.id;
      const firstLeft = items.slice(start, end).find((item) => item.id !== undefined)?.id;
      const next =
        after === 0
          ? null
          : lastShown !== undefined
            ? { entryId: lastShown, before: 0, after: Math.min(after, 100) }
            : firstLeft !== undefined
              ? { entryId: firstLeft, before: 0, after: Math.min(after, 100) }
              : null;
      const why =
        cut > 0 ? ` (cut to stay within ${maxChars} characters${n === 0 ? ": raise maxChars" : ""})` : "";
      const note = next
        ? `\n\n${plural(after, "more entry")} after these${why}: read_session with entryId ${JSON.stringify(next.entryId)}, before 0 and after N shows them.`
        : "";
      return {
        text: `${head}\n\n${shown.map((t) => t.text).join("\n\n")}${note}`,
        structured: {
          ...facts,
          title,
          entries: shown.map((t) => t.json),
          entriesOnBranch: items.length,
          skippedBefore: start,
          entriesAfter: after,
          next,
          ...redacted(r),
        },
      };
    });
  }

  async function sessionContext(args: Record<string, unknown>, maxChars: number): Promise<Built> {
    const found = await findSession(args.session as string);
    const loaded = await store.load(found);
    const r = redactor();
    const session = r ? redactSession(loaded, { detector }).session : loaded;
    const doc = buildDocument(session, { view: "context" });
    const items = doc.items;
    const facts = sessionFacts(found, found.meta, r);
    // The latest messages are kept: taken from the end, shown in order.
    const budget = new Budget(maxChars, JSON.stringify(facts).length);
    const taken: { text: string; json: Record<string, unknown> }[] = [];
    for (let i = items.length - 1; i >= 0; i--) {
      const item = items[i] as DocumentItem;
      const text = itemText(item, false);
      if (text === undefined) continue;
      const json = { entryId: item.id ?? null, role: item.role ?? item.entryType, text };
      const got = budget.take(text, json, (cut) => ({ ...json, text: cut }));
      if (got) taken.push(got);
    }
    return fitAnswer(maxChars, taken.length, (n) => {
      const kept = taken.slice(0, n).reverse();
      const cut = budget.left + taken.length - n;
      const head = `Context of session ${found.meta.sessionId} at its leaf: ${plural(items.length, "item")}${cut > 0 ? `; the ${plural(cut, "earliest item")} cut to stay within ${maxChars} characters (read_session shows the transcript from its start)` : ""}.`;
      return {
        text: `${head}\n\n${kept.map((k) => k.text).join("\n\n")}`,
        structured: {
          ...facts,
          messages: kept.map((k) => k.json),
          itemCount: items.length,
          earliestCut: cut,
          ...redacted(r),
        },
      };
    });
  }

  async function listSessions(args: Record<string, unknown>, maxChars: number): Promise<Built> {
    const { sinceMs } = timeRange({ since: args.since });
    const project = args.project as string | undefined;
    const limit = (args.limit as number | undefined) ?? 20;
    const inside = (cwd: string) =>
      project === undefined ||
      cwd === project ||
      cwd.startsWith(project.endsWith("/") ? project : `${project}/`);
    const all = (await store.sessions())
      .filter((s) => inside(s.meta.cwd) && (sinceMs === undefined || s.meta.modifiedMs >= sinceMs))
      .sort((a, b) => b.meta.modifiedMs - a.meta.modifiedMs || (a.path < b.path ? -1 : 1));
    const r = redactor();
    const budget = new Budget(maxChars);
    const taken: { text: string; json: Record<string, unknown> }[] = [];
    for (const s of all.slice(0, limit)) {
      const meta = await store.details(s);
      const facts = {
        ...sessionFacts(s, meta, r),
        firstMessage: cutText(clean(r, meta.firstMessage.replace(/\s+/g, " ").trim()), 200),
      };
      const line = `- ${meta.sessionId} · ${facts.modified ?? "?"} · ${plural(meta.messageCount, "message")} · ${meta.cwd || "(no cwd)"}${parentNote(s.parent)}\n  ${facts.name ?? (facts.firstMessage || "(no messages)")}\n  ${s.path}`;
      const got = budget.take(line, facts, () => facts);
      if (got) taken.push(got);
      else break;
    }
    return fitAnswer(maxChars, taken.length, (n) => {
      const more = all.length - n;
      const head =
        all.length === 0
          ? `No sessions${project !== undefined ? ` of ${project}` : ""}${sinceMs !== undefined ? " in that time" : ""} in ${store.where}.`
          : `${plural(all.length, "session")}${project !== undefined ? ` of ${project}` : ""}, newest first:`;
      const note =
        more > 0 && all.length > 0
          ? `\n${plural(more, "more session")} not shown: raise limit (up to 200), narrow project or since, or raise maxChars.`
          : "";
      return {
        text: `${head}\n${taken
          .slice(0, n)
          .map((t) => t.text)
          .join("\n")}${note}`,
        structured: { sessions: taken.slice(0, n).map((t) => t.json), total: all.length, notShown: more },
      };
    });
  }

  async function usageStats(args: Record<string, unknown>, maxChars: number): Promise<Built> {
    const by = (args.by as GroupBy | undefined) ?? "model";
    const result = await store.stats({
      by,
      ...timeRange(args),
      ...(options.timeZone !== undefined ? { timeZone: options.timeZone } : {}),
    });
    const totals = (t: TokenTotals) => ({
      input: t.input,
      output: t.output,
      cacheRead: t.cacheRead,
      cacheWrite: t.cacheWrite,
      totalTokens: t.totalTokens,
      cost: t.cost,
    });
    const n = (x: number) => x.toLocaleString("en-US");
    const line = (key: string, t: TokenTotals) =>
      `- ${key}: ${n(t.totalTokens)} tokens (input ${n(t.input)}, output ${n(t.output)}, cache read ${n(t.cacheRead)}, cache write ${n(t.cacheWrite)}), $${t.cost.toFixed(2)}`;
    const r = redactor();
    const budget = new Budget(maxChars);
    const taken: { text: string; json: Record<string, unknown> }[] = [];
    for (const row of result.rows as StatsRow[]) {
      const label = row.session ? `${row.session.id} ${clean(r, row.session.name ?? "")}`.trim() : row.key;
      const json = {
        key: row.key,
        ...totals(row),
        ...(row.session
          ? { sessionId: row.session.id, path: row.session.path, project: row.session.project }
          : {}),
      };
      const got = budget.take(line(label, row), json, () => json);
      if (got) taken.push(got);
      else break;
    }
    return fitAnswer(maxChars, taken.length, (shown) => {
      const cut = result.rows.length - shown;
      const head = `Usage of ${plural(result.sessions, "session")}${result.duplicatesSkipped > 0 ? ` (${plural(result.duplicatesSkipped, "record")} copied by forks counted once)` : ""}, by ${by}:\n${line("total", result.totals)}`;
      const note = cut > 0 ? `\n${plural(cut, "more row")} cut: narrow since/until, or raise maxChars.` : "";
      return {
        text: `${head}\n${taken
          .slice(0, shown)
          .map((t) => t.text)
          .join("\n")}${note}`,
        structured: {
          by,
          sessions: result.sessions,
          totals: totals(result.totals),
          rows: taken.slice(0, shown).map((t) => t.json),
          rowsCut: cut,
          firstUsage: iso(result.firstUsageMs),
          lastUsage: iso(result.lastUsageMs),
        },
      };
    });
  }

  const RUN: Record<ToolName, (args: Record<string, unknown>, maxChars: number) => Promise<Built>> = {
    search_sessions: searchSessions,
    read_session: readSession,
    session_context: sessionContext,
    list_sessions: listSessions,
    usage_stats: usageStats,
  };

  return {
    tools,
    async call(name, rawArgs) {
      const failed = (message: string): ToolAnswer => ({
        text: message,
        structured: { error: message },
        isError: true,
      });
      if (!(name in RUN))
        return failed(
          `unknown tool ${JSON.stringify(name)}; the tools are ${tools.map((t) => t.name).join(", ")}`,
        );
      const tool = name as ToolName;
      try {
        const args = checkArguments(schemas[tool], rawArgs);
        return {
          ...(await RUN[tool](args, (args.maxChars as number | undefined) ?? ceiling)),
          isError: false,
        };
      } catch (error) {
        if (error instanceof ToolInputError) return failed(`${tool}: ${error.message}`);
        if (error instanceof ToolError) return failed(error.message);
        return failed(`${tool} could not answer: ${error instanceof Error ? error.message : String(error)}`);
      }
    },
  };
}

/**
 * The leaf of the branch to show an entry on: the session's leaf when the entry is on its
 * current branch, else the newest entry in file order below it.
 */
function leafBelow(
  index: {
    leafId: string | null;
    activePath(leafId: string | null): readonly { id?: unknown }[];
    children(id: string): readonly { id?: unknown }[];
  },
  target: string,
): string {
  if (index.activePath(index.leafId).some((e) => e.id === target)) return index.leafId ?? target;
  let at = target;
  for (;;) {
    const kids = index.children(at);
    const last = kids[kids.length - 1];
    if (!last || typeof last.id !== "string") return at;
    at = last.id;
  }
}
