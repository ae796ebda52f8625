/**
 * `pi-session serve`'s HTTP server (node:http, no framework): the app's page and assets, and
 * a read-only JSON API over one {@link SessionSource} (a sessions root on this machine, or a
 * team's PostgreSQL database), with live changes as server-sent events.
 *
 * Every request passes the guards of `security.ts` first: GET or HEAD only, a `Host` that
 * names this server, no cross-site `Origin`; every API request also the token (the page has it
 * from the fragment of the URL the server printed and sends it as `Authorization: Bearer`).
 * The page and its assets hold no session data and need no token. No endpoint writes
 * anything; sessions are found only through the source's own list (a session key names a row,
 * never a path).
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { homedir } from "node:os";
import { resumeCommand, statPath } from "@pi-session/node-store";
import { QuerySyntaxError, type SearchFilters } from "@pi-session/search";
import { compareBranches, defaultPair } from "@pi-session/search/documents";
import { jsonText } from "@pi-session/render";
import { CLIENT_SCRIPT, CLIENT_SCRIPT_HASH, CLIENT_STYLE, CLIENT_STYLE_HASH } from "./client-assets.js";
import { EXPORT_FORMATS, type ExportFormat, exportSession } from "./export.js";
import {
  COMMON_HEADERS,
  bearerToken,
  crossSite,
  hostAllowed,
  newToken,
  tokenMatches,
  tokenUrl,
} from "./security.js";
import { TOKEN_PARAM } from "./query-params.js";
import type { PostgresDatabase } from "@pi-session/postgres";
import { DatabaseSource } from "./database-source.js";
import { LocalSource } from "./local-source.js";
import type { SessionRow, StoreChange } from "./rows.js";
import { sessionJson } from "./session-data.js";
import { rowByKeyOrPrefix } from "./session-keys.js";
import type { SearchJob } from "./search-pool.js";
import { SearchAnswers } from "./searches.js";
import type { SessionSource, SourceSearchResult } from "./source.js";
import { BadRequest, DATE_MS_LIMIT, QueryParams, decodeSegment } from "./query-params.js";
import { PERIODS, SPLITS, type UsageCells, chartOf } from "./usage.js";

export interface ServeOptions {
  /** The sessions root to serve (the local store), */
  root?: string;
  /**
   * or a team's PostgreSQL database, opened by the caller (read-only is enough); the server
   * closes it when it closes.
   */
  database?: PostgresDatabase;
  /** With `database`: only these sources (default: every source). */
  sources?: string[];
  /** Port (default 0: a free one). */
  port?: number;
  /** Address to listen on (default 127.0.0.1). */
  host?: string;
  /** The token (default: a new random one). */
  token?: string;
  env?: Record<string, string | undefined>;
  /** Where the session database lives (default: node-store's cache dir). */
  cacheDir?: string;
  /** Keep the session database in memory. */
  persistent?: boolean;
  /** Look at the store (or the database) at least this often (ms; default 2000). */
  pollMs?: number;
  /** Only poll the store (no fs.watch). */
  pollOnly?: boolean;
  /** `pi-session <version>`, for exported pages. */
  generator?: string;
  onWarning?: (message: string) => void;
  /** Search threads (default: a core less than the machine has, 1 to 4; 0: search on the server's thread). */
  searchThreads?: number;
  /** The app's script and style, asked for on every request (the dev server's live build). */
  assets?: () => { script: string; style: string };
}

export interface RunningServer {
  /** The URL to open, the token in its fragment (`http://127.0.0.1:PORT/#token=...`). */
  url: string;
  /** The URL without the token. */
  origin: string;
  port: number;
  host: string;
  token: string;
  /** What it serves. */
  source: SessionSource;
  /** Tells every open page to reload (the dev server, after a rebuild). */
  reload(): void;
  close(): Promise<void>;
}

const SCRIPT_PATH = `/assets/app-${CLIENT_SCRIPT_HASH.slice(0, 12).replace(/[^A-Za-z0-9]/g, "_")}.js`;
const STYLE_PATH = `/assets/app-${CLIENT_STYLE_HASH.slice(0, 12).replace(/[^A-Za-z0-9]/g, "_")}.css`;

/** The app's one page: nothing in it but the links to its script and style. */
const SHELL = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>pi-session</title>
<link rel="stylesheet" href="${STYLE_PATH}">
<script type="module" src="${SCRIPT_PATH}"></script>
</head>
<body><div id="app"></div></body>
</html>
`;

/**
 * A search's time limit in the app: it stops there with what it found (the page says so), so
 * that one query never holds a search thread, or `serve --db`'s one thread, for long.
 */
export const SEARCH_TIME_LIMIT_MS = 5000;

const ROLES = ["user", "assistant", "tool"] as const;
const VIEWS = ["branch", "all-branches", "context"] as const;
/** The parameters of each API route (every route also takes the token: `query-params.ts`). */
const SEARCH_PARAMS = [
  "q",
  "project",
  "since",
  "until",
  "role",
  "tool",
  "model",
  "file",
  "named",
  "errored",
  "limit",
  "thinking",
  "toolOutput",
  "allBranches",
  "order",
];

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function send(
  res: ServerResponse,
  status: number,
  body: string | Buffer,
  type: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    ...COMMON_HEADERS,
    "Content-Type": type,
    "Content-Length": String(Buffer.byteLength(body)),
    "Cache-Control": "no-store",
    ...headers,
  });
  res.end(res.req.method === "HEAD" ? undefined : body);
}

function sendJson(res: ServerResponse, value: unknown): void {
  send(res, 200, typeof value === "string" ? value : jsonText(value), "application/json; charset=utf-8");
}

/** The search filters of `/api/search`'s parameters (a range that ends before it starts is refused). */
function searchFilters(query: QueryParams): SearchFilters {
  const filters: SearchFilters = {};
  const project = query.text("project");
  if (project !== undefined) filters.projects = [project];
  const dates = { min: -DATE_MS_LIMIT, max: DATE_MS_LIMIT };
  const since = query.integer("since", dates);
  if (since !== undefined) filters.sinceMs = since;
  const until = query.integer("until", dates);
  if (until !== undefined) filters.untilMs = until;
  if (since !== undefined && until !== undefined && since > until)
    throw new BadRequest("since must not be after until");
  const roles = query.listOf("role", ROLES);
  if (roles !== undefined) filters.roles = roles;
  for (const name of ["tool", "model", "file"] as const) {
    const value = query.text(name);
    if (value !== undefined) filters[name] = value;
  }
  if (query.flag("named") === true) filters.named = true;
  if (query.flag("errored") === true) filters.errored = true;
  return filters;
}

/** A search's answer for the page: the hits of sessions still listed, with their list fields. */
function searchJson(query: string, result: SourceSearchResult): string {
  return jsonText({
    query,
    more: result.more,
    ...(result.cut ? { cut: { timeLimitMs: result.cut.budgetMs, checked: result.cut.checked } } : {}),
    sessions: result.sessions.map(({ row, hits }) => ({
      key: row.key,
      name: row.name,
      firstMessage: row.firstMessage,
      project: row.project,
      ...(row.source !== undefined ? { source: row.source } : {}),
      modifiedMs: row.modifiedMs,
      hits: hits.map((h) => ({
        entryId: h.entryId,
        line: h.line,
        type: h.type,
        role: h.role,
        timeMs: h.timeMs,
        onBranch: h.onBranch,
        snippet: h.snippet ? { text: h.snippet.text, ranges: h.snippet.ranges } : null,
      })),
    })),
  });
}

/** The source `options` name: the database, else the sessions root. */
async function openSource(options: ServeOptions): Promise<SessionSource> {
  if (options.database !== undefined) {
    if (options.root !== undefined) throw new Error("serve either a sessions root or a database, not both");
    return DatabaseSource.open({
      database: options.database,
      ...(options.sources ? { sources: options.sources } : {}),
      ...(options.pollMs !== undefined ? { pollMs: options.pollMs } : {}),
      ...(options.onWarning ? { onWarning: options.onWarning } : {}),
    });
  }
  if (options.root === undefined) throw new Error("serve needs a sessions root or a database");
  return LocalSource.open({
    root: options.root,
    ...(options.env ? { env: options.env } : {}),
    ...(options.cacheDir ? { cacheDir: options.cacheDir } : {}),
    ...(options.persistent === false ? { persistent: false } : {}),
    ...(options.pollMs !== undefined ? { pollMs: options.pollMs } : {}),
    ...(options.pollOnly ? { pollOnly: true } : {}),
    ...(options.onWarning ? { onWarning: options.onWarning } : {}),
    ...(options.searchThreads !== undefined ? { searchThreads: options.searchThreads } : {}),
  });
}

/** What the list and `/api/info` say is served (a database: its URL without the password). */
function servedJson(source: SessionSource): Record<string, unknown> {
  const served = source.served;
  return served.kind === "store"
    ? { root: served.root, served }
    : { database: served.location, ...(served.sources ? { sources: served.sources } : {}), served };
}

/** Starts the server; resolves once it listens. */
export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const host = options.host ?? "127.0.0.1";
  const token = options.token ?? newToken();
  const generator = options.generator ?? "pi-session";
  const source = await openSource(options);
  const events = new Set<ServerResponse>();
  // The usage charts' cells, made once per change of the store; each chart is made from them.
  let usage: { generation: number; cells: Promise<UsageCells> } | undefined;
  const searches = new SearchAnswers<SourceSearchResult>({
    run: (job, signal) => source.search(job, signal),
    generation: () => source.generation,
    format: (job, result) => searchJson(job.query, result),
  });
  let listJson: { generation: number; text: string } | undefined;
  let port = 0;

  const broadcast = (change: StoreChange) => {
    const data = `event: change\ndata: ${JSON.stringify(change)}\n\n`;
    for (const res of events) res.write(data);
  };
  source.onChange(broadcast);

  function isDirectory(path: string): boolean {
    try {
      return statPath(path)?.kind === "a directory";
    } catch {
      return false;
    }
  }

  /** The row a key or an id prefix names (a short id as the list and the CLI print it). */
  function rowOf(key: string): SessionRow {
    const match = rowByKeyOrPrefix(
      key,
      (k) => source.session(k),
      () => source.sessions(),
    );
    if (match.kind === "ambiguous")
      throw new HttpError(404, `${match.count} sessions have ids that start with ${key}: type more of it`);
    if (match.kind === "none") throw new HttpError(404, "no such session");
    return match.row;
  }

  /** The source's file activity, or a 404 saying it keeps none (a team database). */
  function fileActivityOf(s: SessionSource): NonNullable<SessionSource["files"]> {
    if (!s.files) throw new HttpError(404, "file activity is kept in the local session database only");
    return s.files;
  }

  /** A row's session; one a sync removed since the list was read is not found. */
  async function loadOf(row: SessionRow) {
    try {
      return await source.load(row);
    } catch (error) {
      if ((error as Error).name === "SessionGoneError") throw new HttpError(404, (error as Error).message);
      throw error;
    }
  }

  async function handleApi(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const parts = url.pathname.split("/").filter((p) => p !== "");
    const route = parts.slice(1);
    const params = (allowed: readonly string[]) => QueryParams.of(url.searchParams, allowed);
    if (route[0] === "info" && route.length === 1) {
      params([]);
      const info = source.info();
      sendJson(res, {
        ...servedJson(source),
        sessions: source.sessions().length,
        generation: source.generation,
        ...(source.building ? { indexing: source.building } : {}),
        backend: info.backend,
        watch: info.watch,
        generator,
        search: { ...info.search, ...searches.counters },
      });
      return;
    }
    if (route[0] === "sessions" && route.length === 1) {
      params([]);
      const generation = source.generation;
      const building = source.building;
      if (listJson?.generation !== generation || building !== undefined) {
        const rows = source.sessions().map(({ parentPath: _parent, ...row }) => row);
        listJson = {
          generation,
          // While the first build runs, how far it is: the page says the list is filling in.
          text: jsonText({
            generation,
            ...servedJson(source),
            ...(building ? { indexing: building } : {}),
            sessions: rows,
          }),
        };
      }
      sendJson(res, listJson.text);
      return;
    }
    if (route[0] === "sessions" && route.length === 2) {
      const query = params(["after", "last"]);
      // `after` past the session's end is no error: the page's copy differs, it gets the whole.
      const after = query.integer("after", { min: 0, max: Number.MAX_SAFE_INTEGER });
      const lastId = query.text("last");
      const row = rowOf(decodeSegment(route[1] as string, "the session key"));
      const loaded = await loadOf(row);
      sendJson(
        res,
        sessionJson(row, loaded, {
          ...(after !== undefined ? { after } : {}),
          ...(lastId !== undefined ? { lastId } : {}),
        }),
      );
      return;
    }
    if (route[0] === "sessions" && route.length === 3 && route[2] === "resume") {
      params([]);
      const row = rowOf(decodeSegment(route[1] as string, "the session key"));
      // A team database's sessions are files on other machines: nothing to resume here.
      if (source.served.kind !== "store") {
        sendJson(res, { line: null, reason: "served from a team database" });
        return;
      }
      const cwd = (await loadOf(row)).session.header?.cwd;
      const present = typeof cwd === "string" && cwd !== "" && isDirectory(cwd);
      const command = resumeCommand(row.path, {
        cwd: typeof cwd === "string" ? cwd : undefined,
        fork: !present,
      });
      sendJson(res, { line: command.line, cwd: cwd ?? null, missingCwd: !present });
      return;
    }
    if (route[0] === "sessions" && route.length === 3 && route[2] === "files") {
      params([]);
      const row = rowOf(decodeSegment(route[1] as string, "the session key"));
      const files = await fileActivityOf(source).ofSession(row);
      sendJson(res, { key: row.key, files });
      return;
    }
    if (route[0] === "sessions" && route.length === 3 && route[2] === "compare") {
      const query = params(["left", "right"]);
      const row = rowOf(decodeSegment(route[1] as string, "the session key"));
      const { session } = await loadOf(row);
      const index = session.index;
      const asked = { left: query.text("left"), right: query.text("right") };
      const pair =
        asked.left !== undefined && asked.right !== undefined
          ? { left: asked.left, right: asked.right }
          : asked.left === undefined && asked.right === undefined
            ? defaultPair(index)
            : undefined;
      if (!pair)
        throw new HttpError(
          400,
          "name two entries (left and right), or none for the session's two latest branches",
        );
      if (!index.has(pair.left) || !index.has(pair.right)) throw new HttpError(404, "no such entry");
      const cwd = typeof session.header?.cwd === "string" ? session.header.cwd : "";
      // `~` is this machine's home for the local store; a team database's paths are another machine's.
      const home = source.served.kind === "store" ? homedir() : undefined;
      sendJson(res, { key: row.key, ...compareBranches(index, pair.left, pair.right, { cwd, home }) });
      return;
    }
    if (route[0] === "files" && route.length === 1) {
      const path = params(["path"]).text("path") ?? "";
      // A query of the database, never a read of the path: still, only an absolute path names one.
      if (!path.startsWith("/")) throw new HttpError(400, "path must be an absolute path");
      const history = await fileActivityOf(source).history(path);
      sendJson(res, {
        path,
        sessions: history.sessions.map(({ row: { parentPath: _parent, ...row }, touches }) => ({
          ...row,
          touches,
        })),
      });
      return;
    }
    if (route[0] === "sessions" && route.length === 3 && route[2] === "export") {
      const query = params(["format", "view", "leaf"]);
      const format = query.oneOf("format", EXPORT_FORMATS, "md");
      const view = query.oneOf("view", VIEWS, "branch");
      if (view === "context" && format === "jsonl")
        throw new BadRequest("the context has no JSONL form (it is messages, not entries)");
      const leaf = query.text("leaf");
      const row = rowOf(decodeSegment(route[1] as string, "the session key"));
      const loaded = await loadOf(row);
      if (leaf !== undefined && !loaded.session.index.has(leaf)) throw new HttpError(404, "no such entry");
      const out = exportSession(loaded.session, row.id, {
        format: format as ExportFormat,
        view,
        leafId: leaf,
        generator,
      });
      const body = Buffer.from([...out.chunks].join(""), "utf8");
      send(res, 200, body, out.contentType, {
        "Content-Disposition": `attachment; filename="${out.fileName}"`,
      });
      return;
    }
    if (route[0] === "search" && route.length === 1) {
      const query = params(SEARCH_PARAMS);
      const text = url.searchParams.get("q") ?? "";
      const job: SearchJob = {
        query: text,
        options: {
          filters: searchFilters(query),
          limit: query.integer("limit", { min: 1, max: 200 }) ?? 20,
          hitsPerSession: 3,
          snippetWidth: 200,
          thinking: query.flag("thinking") === true,
          toolOutput: query.flag("toolOutput") !== false,
          allBranches: query.flag("allBranches") === true,
          budgetMs: SEARCH_TIME_LIMIT_MS,
          // Search as you type: newest first, a cost bounded by the page rather than the matches.
          ...(query.oneOf("order", ["relevance", "newest"], "relevance") === "newest"
            ? { newest: true }
            : {}),
        },
      };
      if (text.trim() === "") {
        sendJson(res, { query: text, sessions: [], more: false });
        return;
      }
      // A request closed before its answer (the page typed on): the search need not run.
      const gaveUp = new AbortController();
      res.on("close", () => {
        if (!res.writableFinished) gaveUp.abort();
      });
      let answer: string;
      try {
        answer = await searches.answer(job, gaveUp.signal);
      } catch (error) {
        if (error instanceof QuerySyntaxError || (error as Error).name === "QuerySyntaxError")
          throw new BadRequest(`bad query: ${(error as Error).message}`);
        if ((error as Error).name === "AbortError" && gaveUp.signal.aborted) {
          res.destroy();
          return;
        }
        throw error;
      }
      sendJson(res, withIdMatches(text, answer));
      return;
    }
    if (route[0] === "usage" && route.length === 1) {
      const query = params(["period", "split", "project", "from", "to"]);
      const period = query.oneOf("period", PERIODS, "day");
      const split = query.oneOf("split", SPLITS, "model");
      const day = (name: "from" | "to") => {
        const value = query.text(name);
        if (value === undefined) return {};
        if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(Date.parse(value)))
          throw new BadRequest(`${name} must be a day (YYYY-MM-DD), got ${JSON.stringify(value)}`);
        return { [name === "from" ? "fromDay" : "toDay"]: value };
      };
      const project = query.text("project");
      const generation = source.generation;
      if (usage?.generation !== generation) {
        // One pass of stats (locally in a search thread) per change of the store, however many
        // pages ask; each chart is made from its cells.
        const made = { generation, cells: source.usage() };
        usage = made;
        made.cells.catch(() => {
          if (usage === made) usage = undefined;
        });
      }
      const chart = chartOf(await usage.cells, {
        period,
        split,
        ...(project !== undefined ? { project } : {}),
        ...day("from"),
        ...day("to"),
      });
      // A bar's sessions as the list's rows (a file no longer listed is left out).
      const byPath = new Map(source.sessions().map((row) => [row.path, row]));
      sendJson(res, {
        generation,
        ...chart,
        sessionsByPeriod: chart.sessionsByPeriod.map((sessions) =>
          sessions.flatMap(({ path, ...share }) => {
            const row = byPath.get(path);
            return row
              ? [{ key: row.key, title: row.name || row.firstMessage, project: row.project, ...share }]
              : [];
          }),
        ),
      });
      return;
    }
    if (route[0] === "events" && route.length === 1) {
      params([]);
      res.writeHead(200, {
        ...COMMON_HEADERS,
        "Content-Type": "text/event-stream; charset=utf-8",
        "Cache-Control": "no-store",
        Connection: "keep-alive",
      });
      res.write(`retry: 1000\nevent: hello\ndata: ${JSON.stringify({ generation: source.generation })}\n\n`);
      events.add(res);
      const heartbeat = setInterval(() => res.write(": keep-alive\n\n"), 15_000);
      req.on("close", () => {
        clearInterval(heartbeat);
        events.delete(res);
      });
      return;
    }
    throw new HttpError(404, "no such endpoint");
  }

  /**
   * A search's answer with the sessions whose id starts with the query first (a short id as
   * the list and the CLI print it, found whatever the full-text search says).
   */
  function withIdMatches(query: string, text: string): string {
    const prefix = query.trim().toLowerCase();
    if (!/^[0-9a-f][0-9a-f-]{3,}$/.test(prefix)) return text;
    const rows = source.sessions().filter((row) => row.id.toLowerCase().startsWith(prefix));
    if (rows.length === 0) return text;
    const answer = JSON.parse(text) as { sessions: { key: string }[] };
    const found = new Set(rows.map((row) => row.key));
    const byId = rows.map((row) => ({
      key: row.key,
      name: row.name,
      firstMessage: row.firstMessage,
      project: row.project,
      ...(row.source !== undefined ? { source: row.source } : {}),
      modifiedMs: row.modifiedMs,
      idMatch: true,
      hits: [],
    }));
    return jsonText({ ...answer, sessions: [...byId, ...answer.sessions.filter((s) => !found.has(s.key))] });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? "GET";
    if (method !== "GET" && method !== "HEAD") {
      send(res, 405, "read-only: GET and HEAD only\n", "text/plain; charset=utf-8", { Allow: "GET, HEAD" });
      return;
    }
    if (!hostAllowed(req.headers.host, port, host)) {
      send(res, 421, "wrong Host\n", "text/plain; charset=utf-8");
      return;
    }
    const origin = req.headers.origin;
    const fetchSite = req.headers["sec-fetch-site"];
    if (crossSite(origin, req.headers.host, typeof fetchSite === "string" ? fetchSite : undefined)) {
      send(res, 403, "cross-site request refused\n", "text/plain; charset=utf-8");
      return;
    }
    let url: URL;
    try {
      url = new URL(req.url ?? "/", "http://localhost");
    } catch {
      send(res, 400, "malformed request target\n", "text/plain; charset=utf-8");
      return;
    }
    const api = url.pathname.startsWith("/api/");
    const given = bearerToken(req.headers.authorization) ?? url.searchParams.get(TOKEN_PARAM) ?? undefined;
    if (api && !tokenMatches(given, token)) {
      send(
        res,
        401,
        jsonText({ error: "This pi-session server needs its token: open the URL it printed (…/#token=…)." }),
        "application/json; charset=utf-8",
      );
      return;
    }
    try {
      if (url.pathname === "/") {
        send(res, 200, SHELL, "text/html; charset=utf-8");
      } else if (url.pathname === SCRIPT_PATH || url.pathname === STYLE_PATH) {
        const live = options.assets?.();
        const script = url.pathname === SCRIPT_PATH;
        send(
          res,
          200,
          script ? (live?.script ?? CLIENT_SCRIPT) : (live?.style ?? CLIENT_STYLE),
          script ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8",
          // Named by their hash: a new build has new names.
          { "Cache-Control": live ? "no-store" : "private, max-age=31536000, immutable" },
        );
      } else if (url.pathname.startsWith("/api/")) {
        await handleApi(req, res, url);
      } else {
        send(res, 404, "not found\n", "text/plain; charset=utf-8");
      }
    } catch (error) {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (error instanceof HttpError || error instanceof BadRequest)
        send(
          res,
          error instanceof HttpError ? error.status : 400,
          jsonText({ error: error.message }),
          "application/json; charset=utf-8",
        );
      else {
        options.onWarning?.(`serve: ${(error as Error).message ?? String(error)}`);
        send(res, 500, jsonText({ error: "internal error" }), "application/json; charset=utf-8");
      }
    }
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  // Longer than a browser's (and undici's) idle keep-alive, so the client closes first: a
  // request sent just as the server closed an idle socket fails.
  server.keepAliveTimeout = 30_000;
  server.headersTimeout = 35_000;
  try {
    await new Promise<void>((resolveListen, reject) => {
      server.once("error", reject);
      server.listen(options.port ?? 0, host, () => {
        server.off("error", reject);
        resolveListen();
      });
    });
  } catch (error) {
    // A port in use: what was opened for it (the database, its threads) is closed again.
    await source.close();
    throw error;
  }
  port = (server.address() as AddressInfo).port;
  source.start();
  const shown = host.includes(":") ? `[${host}]` : host === "0.0.0.0" ? "127.0.0.1" : host;
  const origin = `http://${shown}:${port}`;
  return {
    url: tokenUrl(origin, token),
    origin,
    port,
    host,
    token,
    source,
    reload: () => {
      for (const res of events) res.write("event: reload\ndata: {}\n\n");
    },
    close: async () => {
      for (const res of events) res.end();
      events.clear();
      await source.close();
      const closed = new Promise<void>((r) => server.close(() => r()));
      server.closeAllConnections();
      await closed;
    },
  };
}
