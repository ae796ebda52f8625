/**
 * One session for the app: read as pi reads the lines (lines pi skips left out, invalid UTF-8
 * decoded with U+FFFD), from its file with node-store's streaming reader (`loadSession`) or from
 * the lines a team database gave back (`sessionFromLines`), migrated to v3 in memory and
 * indexed by the render layer (`sessionFromRecords`, what `pi-session export` renders from),
 * and kept while it is unchanged. The page gets the header and the v3 entries as JSON
 * and builds its document with the same render code; a page that has the first N entries can
 * ask for the rest only.
 */
import { SessionLineDecoder, utf8 } from "@pi-session/format";
import { readLinesAsPi, readSessionFile, keepLinesPiReads } from "@pi-session/node-store";
import { type RenderSession, jsonText, sessionFromRecords } from "@pi-session/render";
import type { SessionRow } from "./rows.js";

/** Codec diagnostics kept per session (the rest are counted). */
const DIAGNOSTICS_KEPT = 100;
/** Sessions kept in memory, and the bytes of their files at most. */
const CACHE_SESSIONS = 8;
const CACHE_BYTES = 512 * 1024 * 1024;

export interface LoadedSession {
  /** The file's identity when read (`size:mtimeMs:ctimeMs:ino`). */
  version: string;
  size: number;
  session: RenderSession;
  omittedDiagnostics: number;
  /** The whole session's JSON for the page, made on first use. */
  json?: string;
}

export async function loadSession(path: string): Promise<Omit<LoadedSession, "version">> {
  const contents = await readSessionFile(path, {
    keepRecord: keepLinesPiReads(),
    maxDiagnostics: DIAGNOSTICS_KEPT,
  });
  const torn = contents.tornTail?.kind === "fragment" ? contents.tornTail.offset : undefined;
  const lines = readLinesAsPi(contents.records, torn);
  return {
    size: contents.size,
    session: sessionFromRecords(lines.records, contents.diagnostics),
    omittedDiagnostics: contents.omittedDiagnostics,
  };
}

/**
 * A session from its lines as a reader of its file takes them in (a team database's
 * `sessionLines`: the header, then each entry's line): the same decoding, pi's line rules and
 * indexing as {@link loadSession}, one line at a time (no whole-session string).
 */
export function sessionFromLines(lines: Iterable<string>, size: number): Omit<LoadedSession, "version"> {
  const decoder = new SessionLineDecoder({
    keepRecord: keepLinesPiReads(),
    maxDiagnostics: DIAGNOSTICS_KEPT,
  });
  const records = [];
  for (const line of lines) for (const r of decoder.push(utf8(`${line}\n`))) records.push(r);
  for (const r of decoder.end()) records.push(r);
  return {
    size,
    session: sessionFromRecords(readLinesAsPi(records).records, decoder.diagnostics),
    omittedDiagnostics: decoder.omittedDiagnostics,
  };
}

/**
 * The version a session is kept under: its file's identity as the list saw it. The ctime and
 * inode too: a rewrite in place of the same size that keeps its mtime changes the ctime.
 */
export const versionOf = (row: Pick<SessionRow, "size" | "mtimeMs" | "ctimeMs" | "ino">) =>
  `${row.size}:${row.mtimeMs}:${row.ctimeMs ?? ""}:${row.ino ?? ""}`;

/** Loaded sessions by the file they came from, least recently used first out. */
export class SessionCache {
  private readonly entries = new Map<string, LoadedSession>();
  private loading = new Map<string, Promise<LoadedSession>>();

  /**
   * The session of file `file` at `version` (read again, with `load`, when the version the
   * list has differs from the one kept).
   */
  async get(
    file: string,
    version: string,
    load: () => Promise<Omit<LoadedSession, "version">>,
  ): Promise<LoadedSession> {
    const cached = this.entries.get(file);
    if (cached && cached.version === version) {
      this.entries.delete(file);
      this.entries.set(file, cached);
      return cached;
    }
    const pendingKey = `${file}\u0000${version}`;
    let pending = this.loading.get(pendingKey);
    if (!pending) {
      pending = load().then((loaded) => ({ ...loaded, version }));
      this.loading.set(pendingKey, pending);
      pending.finally(() => this.loading.delete(pendingKey)).catch(() => undefined);
    }
    const loaded = await pending;
    this.entries.delete(file);
    this.entries.set(file, loaded);
    this.trim();
    return loaded;
  }

  private trim(): void {
    let bytes = 0;
    for (const e of this.entries.values()) bytes += e.size;
    for (const [path, e] of this.entries) {
      if (this.entries.size <= 1 || (this.entries.size <= CACHE_SESSIONS && bytes <= CACHE_BYTES)) break;
      this.entries.delete(path);
      bytes -= e.size;
    }
  }
}

/**
 * The JSON the page reads: the header, the v3 entries (all, or from `after` when the page's
 * entry `after - 1` is still `lastId`: the file only grew), the version read, and the problems.
 */
export function sessionJson(
  row: SessionRow,
  loaded: LoadedSession,
  from: { after?: number; lastId?: string } = {},
): string {
  const { session } = loaded;
  const entries = session.entries;
  const after = from.after;
  const grew =
    after !== undefined &&
    after > 0 &&
    after <= entries.length &&
    (entries[after - 1] as { id?: unknown }).id === from.lastId;
  if (!grew && loaded.json !== undefined) return loaded.json;
  const text = jsonText({
    key: row.key,
    path: row.path,
    ...(row.source !== undefined ? { source: row.source } : {}),
    version: loaded.version,
    formatVersion: session.formatVersion,
    header: session.header ?? null,
    from: grew ? after : 0,
    entryCount: entries.length,
    entries: grew ? entries.slice(after) : entries,
    diagnostics: session.diagnostics
      .slice(0, 20)
      .map((d) => ({ line: d.line, offset: d.offset, reason: d.reason })),
    diagnosticCount: session.diagnostics.length + loaded.omittedDiagnostics,
  });
  if (!grew) loaded.json = text;
  return text;
}
