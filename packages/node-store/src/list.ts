/**
 * Listing sessions with pi 1.6.0's results (`SessionManager.list` / `listAll`): the same
 * `SessionInfo` fields, the same cwd filtering and order, bounded concurrency, a progress
 * callback and an `AbortSignal` — plus a metadata cache so unchanged files are not re-read and
 * grown files are read only from where the cache left off.
 */
import { type Stats, readdirSync, statSync } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { basename, join, resolve, sep } from "node:path";
import {
  type CacheFile,
  type CachedFile,
  type PendingText,
  type TextRef,
  defaultCacheDir,
  loadCache,
  readCachedText,
  saveCache,
} from "./cache.js";
import { type SessionInfo, finishInfoHead, sessionInfoFromRecords } from "./info.js";
import { type Env, getAgentDir, sessionDirForCwd } from "./layout.js";
import { type FileCounters, type FileResult, type TextSource, loadFile } from "./list-file.js";
import { ListPool, WorkerLostError, defaultPoolSize } from "./list-pool.js";
import { readSessionFileSync } from "./read.js";

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
  /** Files read by listing workers (set only when workers were used). */
  filesInWorkers?: number;
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
  /**
   * Worker threads that read and parse files: `"auto"` (default) = a pool of
   * min(available cores, 4) when at least 8 files and 16 MiB must be read and there are at
   * least two cores; a number = a pool of that size whenever a file must be read; `0` =
   * never. Results are the same either way; the pool lives only during the listing (abort
   * terminates it). Without the built worker script (running from the TypeScript sources,
   * e.g. under a test runner) files are read in-process.
   */
  workers?: "auto" | number;
}

/** "auto" workers: least number of files to read. */
export const WORKER_MIN_FILES = 8;
/** "auto" workers: least number of bytes to read. */
export const WORKER_MIN_BYTES = 16 * 1024 * 1024;

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
  /** The resolved path (the cache key), when the caller already knows it. */
  key?: string;
  stats?: Stats;
}

let defaultCollator: Intl.Collator | undefined;

/**
 * `localeCompare`'s order (the spec defines both by the same default collator), without
 * building a collator per comparison, which made sorting thousands of names cost ~100 ms.
 */
function collator(): Intl.Collator {
  defaultCollator ??= new Intl.Collator();
  return defaultCollator;
}

/** Files statted synchronously between two turns of the event loop. */
const STAT_BATCH = 256;

/**
 * Stats many files. Synchronous `stat` in batches, yielding to the event loop between
 * batches: a promise per file costs several times the syscall itself, which dominated a
 * warm listing. A file that cannot be statted gets no `stats` (it is skipped later).
 */
async function statAll(
  files: readonly { path: string; key?: string }[],
  signal?: AbortSignal,
): Promise<Candidate[]> {
  const out: Candidate[] = [];
  for (let i = 0; i < files.length; i += STAT_BATCH) {
    if (i > 0) await new Promise<void>((r) => setImmediate(r));
    signal?.throwIfAborted();
    const end = Math.min(files.length, i + STAT_BATCH);
    for (let j = i; j < end; j++) {
      const f = files[j] as { path: string; key?: string };
      const stats = statSync(f.path, { throwIfNoEntry: false });
      const c: Candidate = { path: f.path };
      if (f.key !== undefined) c.key = f.key;
      if (stats) c.stats = stats;
      out.push(c);
    }
  }
  return out;
}

function sortInfos(infos: SessionInfo[]): SessionInfo[] {
  // Stable, like pi's sort; the times are read once per info, not once per comparison.
  const keyed = infos.map((info, i) => ({ info, t: info.modified.getTime(), i }));
  keyed.sort((a, b) => b.t - a.t || a.i - b.i);
  for (let i = 0; i < keyed.length; i++) infos[i] = (keyed[i] as { info: SessionInfo }).info;
  return infos;
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

/**
 * `allMessagesText` of an unchanged file, recomputed from the file itself (when its cached
 * copy cannot be read back). Synchronous: it backs a property getter.
 */
function recomputeText(path: string): string {
  try {
    const contents = readSessionFileSync(path);
    return sessionInfoFromRecords(path, contents.records, new Date(0))?.allMessagesText ?? "";
  } catch {
    return "";
  }
}

/** Where the lazy `allMessagesText` of an info comes from. */
interface LazyText {
  path: string;
  ref: TextRef;
  texts: TextSource;
}

/** Pending lazy texts, by info (a side table, so the info itself has only pi's keys). */
const lazyTexts = new WeakMap<object, LazyText>();

function settleText(info: object, value: string): void {
  lazyTexts.delete(info);
  Object.defineProperty(info, "allMessagesText", {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

/**
 * The accessor of a lazy `allMessagesText`: the text is read from the cache on first access
 * (then kept as a plain value), so a warm listing reads no texts at all. One shared
 * descriptor, so every lazy info keeps the same fast shape (a getter per info cost ~5 µs each).
 */
const lazyTextDescriptor: PropertyDescriptor = {
  enumerable: true,
  configurable: true,
  get(this: object): string {
    // `this` may inherit from the info (`Object.create(info)`): the text belongs to the owner.
    let owner: object | null = this;
    while (owner !== null && !lazyTexts.has(owner)) owner = Object.getPrototypeOf(owner) as object | null;
    const lazy = owner === null ? undefined : lazyTexts.get(owner);
    if (owner === null || lazy === undefined) return "";
    const text =
      readCachedText(lazy.texts.cacheDir, lazy.texts.listedDir, lazy.ref) ?? recomputeText(lazy.path);
    settleText(owner, text);
    return text;
  },
  set(this: object, value: string) {
    settleText(this, value);
  },
};

/** The info of a file whose cache entry covers it exactly; reads nothing now. */
function infoFromCache(path: string, cached: CachedFile, mtime: Date, texts: TextSource): SessionInfo | null {
  // `finishInfoHead` only reads the state, so the cached state needs no copy.
  const info = finishInfoHead(path, cached.state, mtime) as SessionInfo | null;
  if (!info) return null;
  const ref = cached.text;
  if (ref === undefined) {
    info.allMessagesText = cached.state.allMessagesText;
  } else {
    lazyTexts.set(info, { path, ref, texts });
    Object.defineProperty(info, "allMessagesText", lazyTextDescriptor);
  }
  return info;
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

function addCounters(stats: ListStats, c: FileCounters): void {
  stats.bytesRead += c.bytesRead;
  stats.filesParsed += c.filesParsed;
  stats.filesResumed += c.filesResumed;
}

/** Whether the cache entry covers the file exactly (no need to open it). */
function coversFile(cached: CachedFile | undefined, st: Stats): cached is CachedFile {
  return (
    cached !== undefined &&
    cached.ino === st.ino &&
    cached.size === st.size &&
    cached.mtimeMs === st.mtimeMs &&
    cached.offset === st.size
  );
}

/** The worker pool for this listing, if it should have one. */
function openPool(
  candidates: readonly Candidate[],
  cache: CacheFile | undefined,
  texts: TextSource | undefined,
  workers: "auto" | number,
): ListPool | undefined {
  if (workers === 0) return undefined;
  let files = 0;
  let bytes = 0;
  for (const c of candidates) {
    if (!c.stats) continue;
    const cached = cache?.files[c.key ?? resolve(c.path)];
    if (texts && coversFile(cached, c.stats)) continue;
    files++;
    bytes += Math.max(0, c.stats.size - (cached && cached.size <= c.stats.size ? cached.offset : 0));
  }
  if (files === 0) return undefined;
  if (workers === "auto") {
    if (files < WORKER_MIN_FILES || bytes < WORKER_MIN_BYTES || availableParallelism() < 2) return undefined;
    return ListPool.open(Math.min(defaultPoolSize(), files));
  }
  return ListPool.open(Math.min(Math.max(1, Math.floor(workers)), files));
}

/** The infos of `candidates`, index for index (null: not a session, or unreadable). */
async function buildInfos(candidates: Candidate[], opts: RunOptions): Promise<(SessionInfo | null)[]> {
  const stats = opts.stats ?? newListStats();
  const cacheDir =
    opts.cache === false ? undefined : (opts.cache?.dir ?? defaultCacheDir(opts.env ?? process.env));
  const cache: CacheFile | undefined =
    cacheDir !== undefined ? loadCache(cacheDir, opts.cacheKey) : undefined;
  const texts: TextSource | undefined =
    cacheDir !== undefined && cache ? { cacheDir, listedDir: cache.dir } : undefined;
  const nextFiles: Record<string, CachedFile> = {};
  const pending: PendingText[] = [];
  let dirty = false;
  const total = candidates.length;
  let loaded = 0;
  let firstLoaded = false;
  const partial: SessionInfo[] = [];
  const signal = opts.signal;
  const onProgress = opts.onProgress;
  const results = new Array<SessionInfo | null>(total).fill(null);
  let kept = 0;
  /** Indices of the candidates still to list after the synchronous pass. */
  let rest: number[] | undefined;
  if (!onProgress && texts && cache) {
    // Without progress callbacks the order files are handled in is unobservable: answer every
    // file the cache covers right here, with no promise or closure per file, and list only
    // the others below.
    rest = [];
    signal?.throwIfAborted();
    for (let i = 0; i < total; i++) {
      const candidate = candidates[i] as Candidate;
      const st = candidate.stats;
      const key = st ? (candidate.key ?? resolve(candidate.path)) : "";
      const cached = st ? cache.files[key] : undefined;
      if (st && coversFile(cached, st)) {
        stats.filesCached++;
        results[i] = infoFromCache(candidate.path, cached, st.mtime, texts);
        if (nextFiles[key] === undefined) kept++;
        nextFiles[key] = cached;
      } else {
        rest.push(i);
      }
    }
  }
  const todo = rest ? rest.map((i) => candidates[i] as Candidate) : candidates;
  const pool = openPool(todo, cache, texts, opts.workers ?? "auto");
  // Abort stops the workers at once; their tasks reject and the listing throws.
  const onAbort = (): void => void pool?.close();
  if (pool) signal?.addEventListener("abort", onAbort, { once: true });

  /** Reads one file in a worker when there is a pool, else (or if it died) here. */
  const readFile = async (path: string, st: Stats, cached: CachedFile | undefined): Promise<FileResult> => {
    if (pool) {
      try {
        const task: Parameters<ListPool["run"]>[0] = {
          path,
          stat: { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, mtime: st.mtime },
        };
        if (cached) task.cached = cached;
        if (texts) task.texts = texts;
        const result = await pool.run(task);
        addCounters(stats, result.counters);
        stats.filesInWorkers = (stats.filesInWorkers ?? 0) + 1;
        return result;
      } catch (err) {
        signal?.throwIfAborted();
        if (!(err instanceof WorkerLostError) || pool.isClosed) {
          const counters = (err as { counters?: FileCounters }).counters;
          if (counters) addCounters(stats, counters);
          throw err;
        }
        // The worker died: list this file here.
      }
    }
    const loadOpts: Parameters<typeof loadFile>[4] = {};
    if (signal) loadOpts.signal = signal;
    if (texts) loadOpts.texts = texts;
    return loadFile(path, st, cached, stats, loadOpts);
  };

  try {
    const listed = await mapLimit(
      todo,
      opts.concurrency ?? 10,
      async (candidate, index) => {
        let info: SessionInfo | null = null;
        try {
          const st = candidate.stats ?? (await stat(candidate.path));
          const key = candidate.key ?? resolve(candidate.path);
          const cached = cache?.files[key];
          const had = nextFiles[key] !== undefined;
          if (texts && coversFile(cached, st)) {
            // Unchanged and fully covered: no need to open the file.
            stats.filesCached++;
            info = infoFromCache(candidate.path, cached, st.mtime, texts);
            nextFiles[key] = cached;
            if (!had) kept++;
          } else {
            const result = await readFile(candidate.path, st, cached);
            info = result.info;
            if (result.cache) {
              nextFiles[key] = result.cache;
              if (!had) kept++;
              pending.push({ key, text: result.text ?? "" });
              dirty = true;
            }
          }
        } catch {
          signal?.throwIfAborted();
          info = null;
        }
        if (onProgress) {
          loaded++;
          if (index === 0) firstLoaded = true;
          if (info) partial.push(info);
          const publish = opts.waitForFirst
            ? firstLoaded && (index === 0 || loaded % opts.publishEvery === 0 || loaded === total)
            : loaded === 1 || loaded % opts.publishEvery === 0 || loaded === total;
          onProgress(loaded, total, publish ? sortInfos([...partial]) : undefined);
        }
        return info;
      },
      signal,
    );
    signal?.throwIfAborted();
    if (rest) for (let j = 0; j < rest.length; j++) results[rest[j] as number] = listed[j] ?? null;
    else for (let j = 0; j < listed.length; j++) results[j] = listed[j] ?? null;
    if (cache && cacheDir !== undefined) {
      // Entries of files that are gone are dropped: that too is a change to save.
      if (!dirty && cacheSize(cache.files) !== kept) dirty = true;
      if (dirty) saveCache(cacheDir, { ...cache, files: nextFiles }, pending);
    }
    return results;
  } finally {
    if (pool) {
      signal?.removeEventListener("abort", onAbort);
      await pool.close();
    }
  }
}

function cacheSize(files: Record<string, CachedFile>): number {
  let n = 0;
  for (const _ in files) n++;
  return n;
}

/** `dir/name` for a normalized `dir` and a plain file name (what `join` gives, without its cost). */
function childPath(dir: string, name: string): string {
  return dir.endsWith(sep) ? `${dir}${name}` : `${dir}${sep}${name}`;
}

/** The `.jsonl` files directly in `dir` (a normalized path); none if it cannot be read. */
function jsonlFilesIn(dir: string): string[] {
  try {
    const names = readdirSync(dir);
    return names.filter((n) => n.endsWith(".jsonl")).map((n) => childPath(dir, n));
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
  const resolved = resolve(dir);
  const names: string[] = [];
  try {
    for (const n of readdirSync(dir)) if (n.endsWith(".jsonl")) names.push(n);
  } catch {
    // A missing directory lists nothing.
  }
  names.sort((a, b) => collator().compare(b, a));
  const candidates = await statAll(
    names.map((n) => ({ path: join(dir, n), key: childPath(resolved, n) })),
    opts.signal,
  );
  const infos = await buildInfos(candidates, {
    ...opts,
    cacheKey: dir,
    publishEvery: 10,
    waitForFirst: false,
  });
  return sortInfos(infos.filter((x): x is SessionInfo => x !== null));
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
      if ((e.isFile() || e.isSymbolicLink()) && e.name.endsWith(".jsonl")) files.push(childPath(dir, e.name));
    }
  }
  if (layout !== "flat") {
    for (const e of entries) {
      if (e.isDirectory() || (e.isSymbolicLink() && !e.name.endsWith(".jsonl"))) {
        for (const f of jsonlFilesIn(childPath(dir, e.name))) files.push(f);
      }
    }
  }
  // `dir` is resolved, so every path here is its own cache key.
  const candidates = await statAll(
    files.map((path) => ({ path, key: path })),
    opts.signal,
  );
  // Sort keys computed once per file; names (the rare tie-break) only when needed.
  const keyed = candidates.map((c, i) => ({
    c,
    mtime: c.stats?.mtimeMs ?? Number.NEGATIVE_INFINITY,
    name: "",
    i,
  }));
  const nameOf = (k: { c: Candidate; name: string }): string => {
    if (k.name === "") k.name = basename(k.c.path);
    return k.name;
  };
  /** pi's candidate order: mtime descending, then name descending by the default collator. */
  const byCandidateOrder = (a: (typeof keyed)[number], b: (typeof keyed)[number]): number =>
    b.mtime - a.mtime || collator().compare(nameOf(b), nameOf(a));
  if (opts.onProgress) {
    // Progress reports follow the candidate order: it must be pi's from the start.
    keyed.sort(byCandidateOrder);
    for (let i = 0; i < keyed.length; i++) candidates[i] = (keyed[i] as { c: Candidate }).c;
    const infos = await buildInfos(candidates, {
      ...opts,
      cacheKey: dir,
      publishEvery: 100,
      waitForFirst: true,
    });
    return sortInfos(infos.filter((x): x is SessionInfo => x !== null));
  }
  // Without progress the candidate order only breaks ties of `modified`, so the collator
  // (whose construction alone costs ~10 ms) is needed only for infos whose `modified` and
  // mtime both tie. Stable sorts throughout, so the result is the one of the order above.
  const infos = await buildInfos(candidates, {
    ...opts,
    cacheKey: dir,
    publishEvery: 100,
    waitForFirst: true,
  });
  const found: { info: SessionInfo; t: number; k: (typeof keyed)[number] }[] = [];
  for (let i = 0; i < infos.length; i++) {
    const info = infos[i];
    if (info) found.push({ info, t: info.modified.getTime(), k: keyed[i] as (typeof keyed)[number] });
  }
  found.sort((a, b) => b.t - a.t || byCandidateOrder(a.k, b.k) || a.k.i - b.k.i);
  return found.map((f) => f.info);
}

/** The `SessionInfo` of one file (no cache); null when it is not a valid session. */
export async function readSessionInfo(
  path: string,
  opts: { signal?: AbortSignal; stats?: ListStats } = {},
): Promise<SessionInfo | null> {
  const st = await stat(path);
  const loadOpts: Parameters<typeof loadFile>[4] = {};
  if (opts.signal) loadOpts.signal = opts.signal;
  const result = await loadFile(path, st, undefined, opts.stats ?? newListStats(), loadOpts);
  return result.info;
}
