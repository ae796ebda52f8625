/**
 * Listing sessions with pi 1.6.0's results (`SessionManager.list` / `listAll`): the same
 * `SessionInfo` fields, the same cwd filtering and order, bounded concurrency, a progress
 * callback and an `AbortSignal` — plus a metadata cache so unchanged files are not re-read and
 * grown files are read only from where the cache left off.
 */
import type { Stats } from "node:fs";
import { type FileHandle, open, readdir, stat } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import type { SessionRecord } from "@pi-session/format";
import {
  CACHE_PROBE_BYTES,
  type CacheFile,
  type CachedFile,
  defaultCacheDir,
  loadCache,
  saveCache,
  sha1,
} from "./cache.js";
import { RecordDecoder } from "./codec.js";
import {
  type InfoState,
  type SessionInfo,
  applyRecord,
  cloneInfoState,
  emptyInfoState,
  finishInfo,
} from "./info.js";
import { type Env, getAgentDir, sessionDirForCwd } from "./layout.js";
import { READ_CHUNK_SIZE } from "./read.js";

export type { SessionInfo } from "./info.js";

/** Counters for tests and benchmarks. */
export interface ListStats {
  /** Bytes read from session files (probes included). */
  bytesRead: number;
  /** Files parsed from the start. */
  filesParsed: number;
  /** Files parsed from a cached offset. */
  filesResumed: number;
  /** Files answered from the cache without reading their content. */
  filesCached: number;
}

export function newListStats(): ListStats {
  return { bytesRead: 0, filesParsed: 0, filesResumed: 0, filesCached: 0 };
}

/** `(loaded, total, partial?)`: `partial` is a sorted snapshot, published at pi's intervals. */
export type ListProgress = (loaded: number, total: number, partial?: SessionInfo[]) => void;

export interface ListOptions {
  onProgress?: ListProgress;
  signal?: AbortSignal;
  /** Files parsed at once (default 10, as pi). */
  concurrency?: number;
  /**
   * The metadata cache: `false` disables it; `{ dir }` puts it elsewhere. Default: on, in
   * `$XDG_CACHE_HOME/pi-session` (else `~/.cache/pi-session`).
   */
  cache?: false | { dir?: string };
  env?: Env;
  stats?: ListStats;
}

export interface ListSessionsOptions extends ListOptions {
  /** A custom session dir (pi's `sessionDir` argument): flat, filtered by header cwd. */
  sessionDir?: string;
  /** Agent dir for the default per-cwd dir (default {@link getAgentDir}(env)). */
  agentDir?: string;
}

export interface ListAllOptions extends ListOptions {
  /**
   * Which files to list under the root: `per-cwd` = `.jsonl` files in its subdirectories (pi's
   * default root), `flat` = `.jsonl` files directly in it (pi's custom session dir), `auto`
   * (default) = both.
   */
  layout?: "auto" | "per-cwd" | "flat";
  agentDir?: string;
}

interface Candidate {
  path: string;
  stats?: Stats;
}

function sortInfos(infos: SessionInfo[]): SessionInfo[] {
  return infos.sort((a, b) => b.modified.getTime() - a.modified.getTime());
}

async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
  signal?: AbortSignal,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      signal?.throwIfAborted();
      const index = next++;
      results[index] = await fn(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}

// ---------------------------------------------------------------------------------------
// One file

async function readAt(handle: FileHandle, pos: number, length: number, stats: ListStats): Promise<Buffer> {
  const buf = Buffer.allocUnsafe(length);
  let got = 0;
  while (got < length) {
    const { bytesRead } = await handle.read(buf, got, length - got, pos + got);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  stats.bytesRead += got;
  return buf.subarray(0, got);
}

async function probes(
  handle: FileHandle,
  offset: number,
  stats: ListStats,
): Promise<{ head: string; edge: string }> {
  const headLen = Math.min(offset, CACHE_PROBE_BYTES);
  const edgeStart = Math.max(0, offset - CACHE_PROBE_BYTES);
  const head = await readAt(handle, 0, headLen, stats);
  const edge =
    edgeStart === 0 && headLen === offset ? head : await readAt(handle, edgeStart, offset - edgeStart, stats);
  return { head: sha1(head), edge: sha1(edge) };
}

interface FileResult {
  info: SessionInfo | null;
  cache?: CachedFile;
}

/** Builds the info of one file, resuming from the cache where possible. */
async function loadFile(
  path: string,
  st: Stats,
  cached: CachedFile | undefined,
  stats: ListStats,
  signal: AbortSignal | undefined,
): Promise<FileResult> {
  const handle = await open(path, "r");
  try {
    let state: InfoState = emptyInfoState();
    let start = 0;
    let startLine = 1;
    if (cached && cached.ino === st.ino && st.size >= cached.size) {
      const unchanged = cached.size === st.size && cached.mtimeMs === st.mtimeMs;
      if (unchanged && cached.offset === st.size) {
        stats.filesCached++;
        return { info: finishInfo(path, cloneInfoState(cached.state), st.mtime), cache: cached };
      }
      const p = unchanged ? undefined : await probes(handle, cached.offset, stats);
      if (unchanged || (p && p.head === cached.headHash && p.edge === cached.edgeHash)) {
        state = cloneInfoState(cached.state);
        start = cached.offset;
        startLine = cached.nextLine;
        stats.filesResumed++;
      } else {
        stats.filesParsed++;
      }
    } else {
      stats.filesParsed++;
    }
    const decoder = new RecordDecoder({ startOffset: start, startLine });
    let pos = start;
    const feed = (records: SessionRecord[]): void => {
      for (const r of records) applyRecord(state, r);
    };
    while (state.header !== false) {
      signal?.throwIfAborted();
      const buf = Buffer.allocUnsafe(READ_CHUNK_SIZE);
      const { bytesRead } = await handle.read(buf, 0, READ_CHUNK_SIZE, pos);
      if (bytesRead === 0) break;
      pos += bytesRead;
      stats.bytesRead += bytesRead;
      feed(decoder.push(buf.subarray(0, bytesRead)));
    }
    if (state.header === false) {
      // Not a session, and growing cannot change that: cache the verdict for the whole file.
      const p = await probes(handle, st.size, stats);
      const verdict: CachedFile = {
        size: st.size,
        mtimeMs: st.mtimeMs,
        ino: st.ino,
        offset: st.size,
        nextLine: 0,
        headHash: p.head,
        edgeHash: p.edge,
        state,
      };
      return { info: null, cache: verdict };
    }
    // The cacheable state stops at the last full line; a torn tail only affects this answer.
    const committed = decoder.committedOffset;
    const nextLine = decoder.nextLine;
    const snapshot = cloneInfoState(state);
    feed(decoder.end());
    const info = finishInfo(path, state, st.mtime);
    // The head probe is the same bytes as the verified one when both offsets cover it.
    const p =
      cached && start > 0 && start >= CACHE_PROBE_BYTES
        ? {
            head: cached.headHash,
            edge: sha1(
              await readAt(
                handle,
                Math.max(0, committed - CACHE_PROBE_BYTES),
                Math.min(committed, CACHE_PROBE_BYTES),
                stats,
              ),
            ),
          }
        : await probes(handle, committed, stats);
    const entry: CachedFile = {
      size: st.size,
      mtimeMs: st.mtimeMs,
      ino: st.ino,
      offset: committed,
      nextLine,
      headHash: p.head,
      edgeHash: p.edge,
      state: snapshot,
    };
    return { info, cache: entry };
  } finally {
    await handle.close();
  }
}

// ---------------------------------------------------------------------------------------
// Many files

interface RunOptions extends ListOptions {
  /** Key of the cache file (the listed root). */
  cacheKey: string;
  publishEvery: number;
  /** listAll publishes only once the newest candidate is loaded (pi). */
  waitForFirst: boolean;
}

async function buildInfos(candidates: Candidate[], opts: RunOptions): Promise<SessionInfo[]> {
  const stats = opts.stats ?? newListStats();
  const cacheDir =
    opts.cache === false ? undefined : (opts.cache?.dir ?? defaultCacheDir(opts.env ?? process.env));
  const cache: CacheFile | undefined =
    cacheDir !== undefined ? loadCache(cacheDir, opts.cacheKey) : undefined;
  const nextFiles: Record<string, CachedFile> = {};
  let dirty = false;
  const total = candidates.length;
  let loaded = 0;
  let firstLoaded = false;
  const partial: SessionInfo[] = [];
  const results = await mapLimit(
    candidates,
    opts.concurrency ?? 10,
    async (candidate, index) => {
      let info: SessionInfo | null = null;
      try {
        const st = candidate.stats ?? (await stat(candidate.path));
        const key = resolve(candidate.path);
        const cached = cache?.files[key];
        const result = await loadFile(candidate.path, st, cached, stats, opts.signal);
        info = result.info;
        if (result.cache) {
          nextFiles[key] = result.cache;
          if (result.cache !== cached) dirty = true;
        }
      } catch {
        opts.signal?.throwIfAborted();
        info = null;
      }
      loaded++;
      if (index === 0) firstLoaded = true;
      if (info) partial.push(info);
      if (opts.onProgress) {
        const publish = opts.waitForFirst
          ? firstLoaded && (index === 0 || loaded % opts.publishEvery === 0 || loaded === total)
          : loaded === 1 || loaded % opts.publishEvery === 0 || loaded === total;
        opts.onProgress(loaded, total, publish ? sortInfos([...partial]) : undefined);
      }
      return info;
    },
    opts.signal,
  );
  opts.signal?.throwIfAborted();
  if (cache && cacheDir !== undefined) {
    if (!dirty && Object.keys(cache.files).length !== Object.keys(nextFiles).length) dirty = true;
    if (dirty) saveCache(cacheDir, { ...cache, files: nextFiles });
  }
  return results.filter((x): x is SessionInfo => x !== null);
}

async function jsonlFilesIn(dir: string): Promise<string[]> {
  try {
    const names = await readdir(dir);
    return names.filter((n) => n.endsWith(".jsonl")).map((n) => join(dir, n));
  } catch {
    return [];
  }
}

/**
 * Lists the sessions directly in `dir` (no cwd filter): pi's `listSessionsFromDir`, with
 * files sorted by name descending before loading and results by `modified` descending.
 * A missing directory gives `[]`.
 */
export async function listSessionDir(dir: string, opts: ListOptions = {}): Promise<SessionInfo[]> {
  opts.signal?.throwIfAborted();
  const files = (await jsonlFilesIn(dir)).sort((a, b) => basename(b).localeCompare(basename(a)));
  const infos = await buildInfos(
    files.map((path) => ({ path })),
    { ...opts, cacheKey: dir, publishEvery: 10, waitForFirst: false },
  );
  return sortInfos(infos);
}

/**
 * pi's `SessionManager.list(cwd, sessionDir?)`: without `sessionDir`, the sessions of the
 * default per-cwd directory `<agentDir>/sessions/--<cwd>--`; with a custom `sessionDir` that
 * is not that directory, the sessions in it whose header cwd resolves to `cwd`.
 */
export async function listSessions(cwd: string, opts: ListSessionsOptions = {}): Promise<SessionInfo[]> {
  const agentDir = opts.agentDir ?? getAgentDir(opts.env ?? process.env);
  const defaultDir = sessionDirForCwd(cwd, join(resolve(agentDir), "sessions"));
  const dir = opts.sessionDir !== undefined ? resolve(opts.sessionDir) : defaultDir;
  const filterCwd = opts.sessionDir !== undefined && dir !== defaultDir;
  const resolvedCwd = resolve(cwd);
  const include = (s: SessionInfo): boolean => !filterCwd || (s.cwd !== "" && resolve(s.cwd) === resolvedCwd);
  const onProgress = opts.onProgress;
  const progress: ListProgress | undefined = onProgress
    ? (loaded, total, partial) => onProgress(loaded, total, partial?.filter(include))
    : undefined;
  const listOpts: ListOptions = { ...opts };
  if (progress) listOpts.onProgress = progress;
  const sessions = (await listSessionDir(dir, listOpts)).filter(include);
  return sortInfos(sessions);
}

/**
 * pi's `SessionManager.listAll`: every session under `root` (default `<agentDir>/sessions`),
 * candidates ordered by mtime descending then name, results by `modified` descending. See
 * {@link ListAllOptions.layout} for which files count.
 */
export async function listAllSessions(root?: string, opts: ListAllOptions = {}): Promise<SessionInfo[]> {
  opts.signal?.throwIfAborted();
  const dir = resolve(root ?? join(opts.agentDir ?? getAgentDir(opts.env ?? process.env), "sessions"));
  const layout = opts.layout ?? "auto";
  let entries: import("node:fs").Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const files: string[] = [];
  if (layout !== "per-cwd") {
    for (const e of entries) {
      if ((e.isFile() || e.isSymbolicLink()) && e.name.endsWith(".jsonl")) files.push(join(dir, e.name));
    }
  }
  if (layout !== "flat") {
    const dirs = entries.filter((e) => e.isDirectory() || (e.isSymbolicLink() && !e.name.endsWith(".jsonl")));
    const nested = await mapLimit(dirs, 64, (e) => jsonlFilesIn(join(dir, e.name)), opts.signal);
    for (const list of nested) files.push(...list);
  }
  const candidates = await mapLimit(
    files,
    64,
    async (path): Promise<Candidate> => {
      try {
        return { path, stats: await stat(path) };
      } catch {
        return { path };
      }
    },
    opts.signal,
  );
  candidates.sort(
    (a, b) =>
      (b.stats?.mtimeMs ?? Number.NEGATIVE_INFINITY) - (a.stats?.mtimeMs ?? Number.NEGATIVE_INFINITY) ||
      basename(b.path).localeCompare(basename(a.path)),
  );
  const infos = await buildInfos(candidates, {
    ...opts,
    cacheKey: dir,
    publishEvery: 100,
    waitForFirst: true,
  });
  return sortInfos(infos);
}

/** The `SessionInfo` of one file (no cache); null when it is not a valid session. */
export async function readSessionInfo(
  path: string,
  opts: { signal?: AbortSignal; stats?: ListStats } = {},
): Promise<SessionInfo | null> {
  const st = await stat(path);
  const result = await loadFile(path, st, undefined, opts.stats ?? newListStats(), opts.signal);
  return result.info;
}
