/**
 * Reads of the shared database besides search: each session file's facts and usage rows as
 * `stats` sums them, the sessions as a list shows them (with their tokens and cost, counted once
 * per lineage within a source), one session's lines (its header line, then every entry's
 * line as sent, in file order), and a fingerprint of the files to poll for changes. Each takes a
 * client inside a read-only transaction, so what it reads is one snapshot.
 *
 * Use through `PostgresDatabase`'s `stats`, `sessions`, `sessionLines` and `fingerprint`.
 */
import { dirname } from "node:path";
import type { SessionMeta } from "@pi-session/search";
import { type StatsSession, type UsageRow, computeStats } from "@pi-session/search/documents";
import type { Queryable } from "./connection.js";
import { META_COLUMNS, type MetaColumns, sessionMetaOfFile } from "./meta-row.js";
import { decodeUsage } from "./usage-json.js";

/** A session file as the database holds it: where it came from, its identity and facts. */
export interface FileFacts {
  source: string;
  /** Its path on the machine it came from. */
  path: string;
  /** Session format version (0: the file is no pi session). */
  version: number;
  /** Its directory's name ("" in the root), the project label when the header has no cwd. */
  projectDir: string;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  /** Null for a file that is no pi session. */
  meta: SessionMeta | null;
}

const FILE_COLUMNS = `source, path, version, project_dir, size, mtime_ms, ctime_ms, ino, ${META_COLUMNS}`;

interface FileRow extends MetaColumns {
  source: string;
  path: string;
  version: number;
  project_dir: string;
  size: string;
  mtime_ms: number;
  ctime_ms: number;
  ino: string;
}

function factsOf(r: FileRow): FileFacts {
  return {
    source: r.source,
    path: r.path,
    version: r.version,
    projectDir: r.project_dir,
    size: Number(r.size),
    mtimeMs: r.mtime_ms,
    ctimeMs: r.ctime_ms,
    ino: Number(r.ino),
    meta: sessionMetaOfFile(r),
  };
}

/** `WHERE`/`AND` text and arguments for an optional list of sources. */
function sourceFilter(sources: readonly string[] | undefined, joiner: "WHERE" | "AND") {
  return sources
    ? { sql: `${joiner} source = ANY($1::text[])`, args: [[...sources]] as unknown[] }
    : { sql: "", args: [] as unknown[] };
}

/** Every file of these sources (default all), in (source, path) order. */
export async function readFiles(client: Queryable, sources?: readonly string[]): Promise<FileFacts[]> {
  const filter = sourceFilter(sources, "WHERE");
  const r = await client.query<FileRow>(
    `SELECT ${FILE_COLUMNS} FROM pi_files ${filter.sql} ORDER BY source, path`,
    filter.args,
  );
  return r.rows.map(factsOf);
}

/** The key of a file across sources: paths are one machine's. */
export const fileKey = (source: string, path: string) => `${source}\n${path}`;

/** Every usage row of these sources' files, by {@link fileKey}, in file order. */
export async function readUsage(
  client: Queryable,
  sources?: readonly string[],
): Promise<Map<string, UsageRow[]>> {
  const filter = sourceFilter(sources, "AND");
  const usage = await client.query<{ source: string; path: string; usage: string }>(
    `SELECT source, path, usage FROM pi_entries WHERE usage IS NOT NULL ${filter.sql}
     ORDER BY source, path, ordinal`,
    filter.args,
  );
  const rowsOf = new Map<string, UsageRow[]>();
  for (const u of usage.rows) {
    const key = fileKey(u.source, u.path);
    const list = rowsOf.get(key);
    const row = decodeUsage(u.usage);
    if (list) list.push(row);
    else rowsOf.set(key, [row]);
  }
  return rowsOf;
}

/**
 * What `computeStats` takes, from the files and their usage: each session keyed by
 * {@link fileKey} (its parent too: forks are of one machine's files), the project its cwd,
 * else its directory's name; `dirs`: only files in these directories. Files that are no
 * session are `skipped` (their paths, sorted).
 */
export function statsSessionsOf(
  files: readonly FileFacts[],
  usage: ReadonlyMap<string, UsageRow[]>,
  dirs?: readonly string[],
): { sessions: StatsSession[]; skipped: string[] } {
  const within = dirs ? new Set(dirs) : undefined;
  const sessions: StatsSession[] = [];
  const skipped: string[] = [];
  for (const f of files) {
    if (within && !within.has(dirname(f.path))) continue;
    const m = f.meta;
    if (!m) {
      skipped.push(f.path);
      continue;
    }
    const key = fileKey(f.source, f.path);
    sessions.push({
      path: key,
      id: m.sessionId,
      project: m.cwd !== "" ? m.cwd : f.projectDir,
      parentPath: m.parentPath === null ? undefined : fileKey(f.source, m.parentPath),
      created: m.created,
      name: m.name,
      usage: usage.get(key) ?? [],
    });
  }
  return { sessions, skipped: skipped.sort() };
}

/** One session of the shared database as a list shows it. */
export interface PostgresSession {
  /** The source (person or machine) it came from. */
  source: string;
  /** Its path on that machine. */
  path: string;
  meta: SessionMeta;
  /** The project label: the header's cwd, else the file's directory name ("" in the root). */
  project: string;
  /** The file's size and mtime when it was synced. */
  size: number;
  mtimeMs: number;
  /** Changes whenever a sync changed the session (`size:mtimeMs:ctimeMs:ino`). */
  identity: string;
  /** Tokens and cost of the session's id within its source, counted once per lineage (`stats --by session`). */
  tokens: number;
  cost: number;
}

/** The sessions of these sources (default all), in (source, path) order; files that are no session left out. */
export async function readSessions(
  client: Queryable,
  sources?: readonly string[],
): Promise<PostgresSession[]> {
  const files = await readFiles(client, sources);
  const usage = await readUsage(client, sources);
  const { sessions } = statsSessionsOf(files, usage);
  // By source and session id, as the local store's rows are by session id (`stats --by session`).
  const totals = computeStats(sessions, {
    groupOf: (_usage, session) => `${session.path.slice(0, session.path.indexOf("\n"))}\n${session.id}`,
  });
  const byId = new Map(totals.rows.map((row) => [row.key, row]));
  return files.flatMap((f) => {
    if (!f.meta) return [];
    const total = byId.get(`${f.source}\n${f.meta.sessionId}`);
    return [
      {
        source: f.source,
        path: f.path,
        meta: f.meta,
        project: f.meta.cwd !== "" ? f.meta.cwd : f.projectDir,
        size: f.size,
        mtimeMs: f.mtimeMs,
        identity: `${f.size}:${f.mtimeMs}:${f.ctimeMs}:${f.ino}`,
        tokens: total?.totalTokens ?? 0,
        cost: total?.cost ?? 0,
      },
    ];
  });
}

/**
 * A short text that changes whenever a sync adds, changes or removes a file of these sources
 * (default all): their count, the newest `seq`, and sums of their identities (size, times,
 * inode), one aggregate over the file rows. Poll it; read the sessions again when it changed.
 */
export async function readFingerprint(client: Queryable, sources?: readonly string[]): Promise<string> {
  const filter = sourceFilter(sources, "WHERE");
  const r = await client.query<Record<string, string | null>>(
    `SELECT count(*)::text AS n, max(seq)::text AS seq, sum(size)::text AS size, sum(mtime_ms)::text AS mtime,
       sum(ctime_ms)::text AS ctime, sum(ino)::text AS ino, sum(version)::text AS version FROM pi_files ${filter.sql}`,
    filter.args,
  );
  const row = r.rows[0] ?? {};
  return [row.n, row.seq, row.size, row.mtime, row.ctime, row.ino, row.version]
    .map((v) => v ?? "-")
    .join(":");
}

/** One session's lines, as a reader of the file would rebuild it. */
export interface PostgresSessionLines {
  source: string;
  path: string;
  /** As {@link PostgresSession.identity}. */
  identity: string;
  size: number;
  mtimeMs: number;
  /**
   * The header line, then each entry's line in file order, as sent (redacted if the sync was).
   * Lines pi skips (malformed, blank, not an object) were never sent and are not here.
   */
  lines: string[];
  /**
   * Whether the header line was rebuilt from the session's facts ({@link headerLine}): a file
   * sent before the database kept header lines (schema 3) and not synced since.
   */
  headerRebuilt: boolean;
}

/**
 * The header line of a file synced before the database kept header lines (schema 3) and not
 * synced since: made from the session's facts, in the order pi writes them (type, version, id,
 * timestamp, cwd, parentSession; `branchedFrom` for a v1 file). What it lacks: fields beyond
 * those, and which of the two parent keys a v2 or v3 file used.
 */
export function headerLine(version: number, meta: SessionMeta): string {
  const made: Record<string, unknown> = { type: "session" };
  if (version >= 2) made.version = version;
  made.id = meta.sessionId;
  if (meta.created !== "") made.timestamp = meta.created;
  if (meta.cwd !== "") made.cwd = meta.cwd;
  if (meta.parentPath !== null) made[version === 1 ? "branchedFrom" : "parentSession"] = meta.parentPath;
  return JSON.stringify(made);
}

/** The lines of one session (see {@link PostgresSessionLines}); undefined when it is not in the database. */
export async function readSessionLines(
  client: Queryable,
  file: { source: string; path: string },
): Promise<PostgresSessionLines | undefined> {
  const found = await client.query<FileRow & { header: string | null }>(
    `SELECT ${FILE_COLUMNS}, header FROM pi_files WHERE source = $1 AND path = $2`,
    [file.source, file.path],
  );
  const row = found.rows[0];
  if (!row) return undefined;
  const facts = factsOf(row);
  if (!facts.meta) return undefined;
  const entries = await client.query<{ raw: string }>(
    `SELECT raw FROM pi_entries WHERE source = $1 AND path = $2 ORDER BY ordinal`,
    [file.source, file.path],
  );
  return {
    source: facts.source,
    path: facts.path,
    identity: `${facts.size}:${facts.mtimeMs}:${facts.ctimeMs}:${facts.ino}`,
    size: facts.size,
    mtimeMs: facts.mtimeMs,
    lines: [row.header ?? headerLine(facts.version, facts.meta), ...entries.rows.map((e) => e.raw)],
    headerRebuilt: row.header === null,
  };
}
