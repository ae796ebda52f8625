/**
 * Listing sessions with pi 1.6.0's results (`SessionManager.list` / `listAll`): the same
 * `SessionInfo` fields, the same cwd filtering and order, bounded concurrency, a progress
 * callback and an `AbortSignal` — plus a metadata cache so unchanged files are not re-read and
 * grown files are read only from where the cache left off.
 *
 * A warm listing (nothing changed) costs little more than one `stat` per file: the cache index
 * and the subdirectories are read on the thread pool while this thread stats the files of each
 * directory that has arrived, in batches; each file is checked against the index as it is
 * statted, or when the index arrives (its numbers kept in typed columns, no object per file),
 * and the files the index covers are answered from its columns in a second pass, one loop for
 * all; the results come out in the order the index remembers, which is checked, not sorted.
 */
import { type Dirent, readdirSync } from "node:fs";
import { stat } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { basename, join, resolve, sep } from "node:path";
import {
  type CachedFile,
  type SaveEntry,
  type TextRef,
  SegmentWriter,
  defaultCacheDir,
  readIndexFile,
  saveCache,
} from "./cache.js";
import { CacheIndex } from "./cache-index.js";
import { type FileStat, StatProbe, mtimeDate, statColumns, statFile } from "../fs/file-stat.js";
import { SessionFileNotRegularError } from "../errors.js";
import type { SessionInfo } from "./info.js";
import {
  type Env,
  getAgentDir,
  headerCwdMatches,
  pathsEqual,
  resolvePiPath,
  sessionDirForCwd,
} from "../layout/layout.js";
import { CachedTexts, cachedInfos, covers, needsMtime } from "./cached-infos.js";
import { type FileCounters, type FileResult, type TextSource, loadFile } from "./load-file.js";
import { ListPool, WorkerLostError, defaultPoolSize } from "./pool.js";
import { nonRegularKind, unreadableError } from "../read/read.js";

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
   * least three cores; a number = a pool of that size whenever a file must be read; `0` =
   * never. Results are the same either way; the pool lives only during the listing (abort
   * terminates it). Without the built worker script (running from the TypeScript sources,
   * e.g. under a test runner) files are read in-process.
   */
  workers?: "auto" | number;
  /**
   * Called for each candidate file or directory the listing leaves out because it cannot read
   * it (no permission, a dangling link, gone while listed), with the error. pi leaves these
   * out silently, and so does the listing; this says which and why. Not called for what is not
   * a session: a FIFO, socket, device or directory named `.jsonl` (never opened), a file that
   * is read and has no header; nor for a missing listed directory.
   */
  onUnreadable?: (path: string, error: Error) => void;
}

/** "auto" workers: least number of files to read. */
export const WORKER_MIN_FILES = 8;
/** "auto" workers: least number of bytes to read. */
export const WORKER_MIN_BYTES = 16 * 1024 * 1024;
/**
 * "auto" workers: least number of cores. On two, this thread scanning while the thread pool
 * reads already keeps both busy: a pool listed 1 GB no faster and cost ~20% more CPU (worker
 * start-up, compiling the same code per thread, messages).
 */
export const WORKER_MIN_CORES = 3;
/** The core threshold in force (tests lower it to exercise "auto" on a small machine). */
export const autoPool = { minCores: WORKER_MIN_CORES };

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
 * Stats many files (`undefined`: cannot be statted, skipped): synchronous `stat` in batches,
 * yielding to the event loop between batches (a promise per file costs several times the
 * syscall itself).
 */
async function statAll(paths: readonly string[], signal?: AbortSignal): Promise<(FileStat | undefined)[]> {
  const out = new Array<FileStat | undefined>(paths.length);
  const probe = new StatProbe();
  for (let i = 0; i < paths.length; i += STAT_BATCH) {
    if (i > 0) await new Promise<void>((r) => setImmediate(r));
    signal?.throwIfAborted();
    const end = Math.min(paths.length, i + STAT_BATCH);
    for (let j = i; j < end; j++) out[j] = statFile(paths[j] as string, probe);
  }
  return out;
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

function addCounters(stats: ListStats, c: FileCounters): void {
  stats.bytesRead += c.bytesRead;
  stats.filesParsed += c.filesParsed;
  stats.filesResumed += c.filesResumed;
}

/** Bytes a file to read will cost: all of it, or what it grew by since its cache entry. */
function bytesToRead({ st, cached }: { st: FileStat; cached: CachedFile | undefined }): number {
  return Math.max(0, st.size - (cached && cached.size <= st.size ? cached.offset : 0));
}

/** The worker pool for this listing, if it should have one. */
function openPool(
  todo: readonly { st: FileStat; cached: CachedFile | undefined }[],
  workers: "auto" | number,
): ListPool | undefined {
  if (workers === 0 || todo.length === 0) return undefined;
  let bytes = 0;
  for (const t of todo) bytes += bytesToRead(t);
  if (workers === "auto") {
    if (
      todo.length < WORKER_MIN_FILES ||
      bytes < WORKER_MIN_BYTES ||
      availableParallelism() < autoPool.minCores
    )
      return undefined;
    return ListPool.open(Math.min(defaultPoolSize(), todo.length));
  }
  return ListPool.open(Math.min(Math.max(1, Math.floor(workers)), todo.length));
}

// ---------------------------------------------------------------------------------------
// Many files

interface RunOptions extends ListOptions {
  /** The listed directory, resolved (it names the cache index). */
  listedDir: string;
  /** The cache directory, unless the cache is off. */
  cacheDir: string | undefined;
  publishEvery: number;
  /** listAll publishes only once the newest candidate is loaded (pi). */
  waitForFirst: boolean;
}

function runOptions(
  opts: ListOptions,
  listedDir: string,
  publishEvery: number,
  waitForFirst: boolean,
): RunOptions {
  const cacheDir =
    opts.cache === false ? undefined : (opts.cache?.dir ?? defaultCacheDir(opts.env ?? process.env));
  return { ...opts, listedDir, cacheDir, publishEvery, waitForFirst };
}

/** The cache index being read (see `readIndexFile`), decoded; `undefined` when there is none. */
async function indexOf(
  run: RunOptions,
  bytes: Promise<Buffer | undefined> | undefined,
): Promise<CacheIndex | undefined> {
  const b = await bytes;
  try {
    return b === undefined ? undefined : CacheIndex.decode(b, run.listedDir);
  } catch {
    // Damaged beyond what decoding checks: no cache.
    return undefined;
  }
}

/** A listing's answers, by candidate index. */
interface Listed {
  results: (SessionInfo | null)[];
  /** Candidate mtimes (`-Infinity`: not statted). */
  mtimes: ArrayLike<number>;
  /**
   * Candidates with a result, in the order of the last listing's results as far as the cache
   * remembers it (sorting that is nearly free), else in candidate order.
   */
  order: number[];
  /** `order` is not candidate order. */
  hinted: boolean;
}

/** A file that must be read (not answered by the cache). */
interface Todo {
  i: number;
  st: FileStat;
  cached: CachedFile | undefined;
}

/**
 * The first pass of a listing: stats the candidates as they are found (directory by
 * directory) and checks each against the cache index, which may still be on its way: files
 * statted before it arrives are checked when it does. A file the cache covers leaves only
 * numbers behind (its info is built later, once the garbage of the stat calls is gone).
 */
class StatPass {
  readonly paths: string[] = [];
  /** Resolved paths (the cache keys); `paths` itself when the paths are resolved already. */
  readonly keys: string[];
  // Per candidate, typed columns (no object per file; they grow by doubling): its stat
  // (mtime -Infinity: not statted) and the cache entry covering it (-1: none).
  mtimes = new Float64Array(0);
  private ctimes = new Float64Array(0);
  private sizes = new Float64Array(0);
  private inos = new Float64Array(0);
  covering = new Int32Array(0);
  /** The mtime of covered files whose info needs it. */
  readonly mtimeOf = new Map<number, Date>();
  /** Files the cache does not cover: to read. */
  readonly todo: Todo[] = [];
  index: CacheIndex | undefined;
  private known = false;
  /** Candidates statted before the index was known. */
  private waiting: number[] = [];
  /** The candidates, one NUL-joined string of keys per directory, checked against the index. */
  private readonly parts: { part: string; count: number }[] = [];
  private checkedParts = 0;
  /** Candidates [0, aligned) have the keys of entries [0, aligned) (position = entry). */
  aligned = 0;
  private keysAt = 0;
  private broken = false;
  private sinceYield = 0;

  /**
   * The worker pool, opened as soon as the files to read pass the "auto" thresholds, so the
   * workers start while the remaining files are statted (a cold stat pass takes tens of ms).
   */
  pool: ListPool | undefined;
  private todoBytes = 0;

  constructor(
    private readonly signal: AbortSignal | undefined,
    resolvedPaths: boolean,
    private readonly workers: "auto" | number = "auto",
  ) {
    this.keys = resolvedPaths ? this.paths : [];
  }

  private pushTodo(t: Todo): void {
    this.todo.push(t);
    if (this.pool !== undefined || this.workers !== "auto") return;
    this.todoBytes += bytesToRead(t);
    if (
      this.todo.length >= WORKER_MIN_FILES &&
      this.todoBytes >= WORKER_MIN_BYTES &&
      availableParallelism() >= autoPool.minCores
    )
      this.pool = ListPool.open(defaultPoolSize());
  }

  /** Closes the early pool (a listing that stops before reading files). */
  closePool(): void {
    void this.pool?.close();
  }

  /** The index has arrived (or is known to be missing): check what was statted meanwhile. */
  setIndex(index: CacheIndex | undefined): void {
    this.index = index;
    this.known = true;
    this.align();
    const waiting = this.waiting;
    this.waiting = [];
    for (const i of waiting) this.check(i);
  }

  /** Matches the directories added so far with the index's keys, in order. */
  private align(): void {
    const index = this.index;
    if (index === undefined) return;
    const keys = index.shared(1) as string;
    while (!this.broken && this.checkedParts < this.parts.length) {
      const { part, count } = this.parts[this.checkedParts++] as { part: string; count: number };
      const at = this.keysAt;
      const end = at + part.length;
      if (
        this.aligned + count <= index.count &&
        keys.startsWith(part, at) &&
        (end === keys.length || keys.charCodeAt(end) === 0)
      ) {
        this.aligned += count;
        // The next directory's keys start after the separator.
        this.keysAt = end + 1;
      } else {
        this.broken = true;
      }
    }
  }

  /** Whether every candidate is entry for entry the index's (and nothing else is in it). */
  get fullyAligned(): boolean {
    return (
      this.index !== undefined && this.aligned === this.paths.length && this.aligned === this.index.count
    );
  }

  /**
   * Adds one directory's candidates: `part` is their keys joined by NUL; `stats`, when given,
   * are their stats already (else each is statted here).
   */
  async add(
    paths: readonly string[],
    keys: readonly string[] | undefined,
    part: string,
    stats?: readonly (FileStat | undefined)[],
  ): Promise<void> {
    if (paths.length === 0) return;
    try {
      await this.addAll(paths, keys, part, stats);
    } catch (err) {
      this.closePool();
      throw err;
    }
  }

  /**
   * Adds the files `names` of the directory whose paths start with `prefix` (it ends with the
   * separator; paths are their own keys). When the index is known and lists exactly these files
   * next (one comparison per directory tells), the paths are slices of its keys: no string is
   * built per file (a warm listing of thousands of files allocated a quarter of its memory
   * joining and splitting paths).
   */
  addNames(prefix: string, names: readonly string[]): Promise<void> {
    if (names.length === 0) return Promise.resolve();
    const joined = prefix + names.join(`\0${prefix}`);
    const sliced = this.slicedPaths(prefix, names, joined);
    if (sliced !== undefined) {
      this.alignedPart = true;
      return this.add(sliced, undefined, "");
    }
    return this.add(joined.split("\0"), undefined, joined);
  }

  /** The next part added is aligned already (see {@link addNames}). */
  private alignedPart = false;

  /**
   * The paths `prefix + name` as slices of the index's keys, if they are its next entries;
   * `joined` is those paths joined by NUL. One string comparison checks the whole directory.
   */
  private slicedPaths(prefix: string, names: readonly string[], joined: string): string[] | undefined {
    const index = this.index;
    if (
      index === undefined ||
      this.keys !== this.paths ||
      this.broken ||
      this.checkedParts !== this.parts.length ||
      this.aligned !== this.paths.length ||
      this.aligned + names.length > index.count
    ) {
      return undefined;
    }
    const keys = index.shared(1) as string;
    let at = this.keysAt;
    const end = at + joined.length;
    if ((end !== keys.length && keys.charCodeAt(end) !== 0) || keys.slice(at, end) !== joined)
      return undefined;
    const paths = new Array<string>(names.length);
    for (let j = 0; j < names.length; j++) {
      const stop = at + prefix.length + (names[j] as string).length;
      paths[j] = keys.slice(at, stop);
      at = stop + 1;
    }
    this.aligned += names.length;
    this.keysAt = end + 1;
    return paths;
  }

  /** Makes room in the columns for `n` candidates (new slots: not statted, not covered). */
  private reserve(n: number): void {
    const capacity = this.mtimes.length;
    if (n <= capacity) return;
    const size = Math.max(n, 2 * capacity, 64);
    const grow = <T extends Float64Array | Int32Array>(old: T, fill: number): T => {
      const next = (old instanceof Float64Array ? new Float64Array(size) : new Int32Array(size)) as T;
      next.set(old);
      next.fill(fill, capacity);
      return next;
    };
    this.mtimes = grow(this.mtimes, Number.NEGATIVE_INFINITY);
    this.ctimes = grow(this.ctimes, 0);
    this.sizes = grow(this.sizes, 0);
    this.inos = grow(this.inos, 0);
    this.covering = grow(this.covering, -1);
  }

  private async addAll(
    paths: readonly string[],
    keys: readonly string[] | undefined,
    part: string,
    stats?: readonly (FileStat | undefined)[],
  ): Promise<void> {
    const start = this.paths.length;
    const count = paths.length;
    for (let j = 0; j < count; j++) this.paths.push(paths[j] as string);
    if (keys !== undefined) for (let j = 0; j < count; j++) this.keys.push(keys[j] as string);
    this.parts.push({ part, count });
    if (this.alignedPart) {
      this.alignedPart = false;
      this.checkedParts++;
    } else if (this.known) this.align();
    this.reserve(start + count);
    let { mtimes, ctimes, sizes, inos } = this;
    if (stats !== undefined) {
      for (let j = 0; j < count; j++) {
        const st = stats[j];
        if (st === undefined) continue;
        const i = start + j;
        mtimes[i] = st.mtimeMs;
        ctimes[i] = st.ctimeMs;
        sizes[i] = st.size;
        inos[i] = st.ino;
        if (this.known) this.check(i);
        else this.waiting.push(i);
      }
      return;
    }
    // The loop of a warm listing: batches of stat calls, with the event loop let run between
    // them (the index read completes); each batch is then checked against the index.
    for (let j = 0; j < count; ) {
      if (this.sinceYield >= STAT_BATCH) {
        this.sinceYield = 0;
        await new Promise<void>((r) => setImmediate(r));
        this.signal?.throwIfAborted();
        // (The columns are replaced only when they grow, by an add, and adds do not overlap.)
        ({ mtimes, ctimes, sizes, inos } = this);
      }
      const end = Math.min(count, j + STAT_BATCH - this.sinceYield);
      statColumns(paths, j, end, start, mtimes, ctimes, sizes, inos);
      this.sinceYield += end - j;
      this.checkStatted(start + j, start + end);
      j = end;
    }
  }

  /**
   * Checks candidates [from, to), just statted, against the index (one loop: see
   * `statColumns`). A file that could not be statted (permissions, a loop of links) is skipped.
   */
  private checkStatted(from: number, to: number): void {
    const { mtimes, ctimes, sizes, inos, covering, index, aligned } = this;
    for (let i = from; i < to; i++) {
      const mtimeMs = mtimes[i] as number;
      if (mtimeMs === Number.NEGATIVE_INFINITY) continue;
      if (
        index !== undefined &&
        i < aligned &&
        index.size[i] === sizes[i] &&
        index.offset[i] === sizes[i] &&
        index.mtimeMs[i] === mtimeMs &&
        index.ctimeMs[i] === ctimes[i] &&
        index.ino[i] === inos[i]
      ) {
        // The usual case, inline: the entry at the same position covers the file.
        covering[i] = i;
        if (needsMtime(index.flags[i] as number)) this.mtimeOf.set(i, mtimeDate(mtimeMs));
      } else if (this.known) this.check(i);
      else this.waiting.push(i);
    }
  }

  /** Candidate i's stat as an object (for a file to read). */
  private fileStat(i: number): FileStat {
    const mtimeMs = this.mtimes[i] as number;
    return {
      size: this.sizes[i] as number,
      mtimeMs,
      ctimeMs: this.ctimes[i] as number,
      ino: this.inos[i] as number,
      mtime: mtimeDate(mtimeMs),
    };
  }

  /** Candidate i (statted) against the index: covered (answered later) or to read. */
  private check(i: number): void {
    const index = this.index;
    if (index === undefined) {
      this.pushTodo({ i, st: this.fileStat(i), cached: undefined });
      return;
    }
    const e = i < this.aligned ? i : index.find(this.keys[i] as string);
    const mtimeMs = this.mtimes[i] as number;
    if (e < 0) this.pushTodo({ i, st: this.fileStat(i), cached: undefined });
    else if (
      !covers(index, e, this.sizes[i] as number, mtimeMs, this.ctimes[i] as number, this.inos[i] as number)
    )
      this.pushTodo({ i, st: this.fileStat(i), cached: index.entry(e) });
    else {
      this.covering[i] = e;
      if (needsMtime(index.flags[e] as number)) this.mtimeOf.set(i, mtimeDate(mtimeMs));
    }
  }
}

/**
 * The infos of a listing's candidates after its first pass, index for index (null: not a
 * session, or unreadable): the files the cache covers answered from it, the others read; the
 * cache saved when something changed.
 */
async function finishListing(pass: StatPass, opts: RunOptions): Promise<Listed> {
  try {
    return await finishListingWith(pass, opts);
  } finally {
    // Closed by the file reads when they ran; here when they did not (or failed early).
    pass.closePool();
  }
}

async function finishListingWith(pass: StatPass, opts: RunOptions): Promise<Listed> {
  const { paths, keys, covering, mtimeOf, todo, index } = pass;
  const signal = opts.signal;
  const listedDir = opts.listedDir;
  const cacheDir = opts.cacheDir;
  signal?.throwIfAborted();
  const n = paths.length;
  const results = new Array<SessionInfo | null>(n).fill(null);
  /** The index entry answering candidate i as is (-1: none). */
  const kept = new Int32Array(n).fill(-1);
  let cachedCount = 0;
  if (cacheDir !== undefined && index !== undefined) {
    const texts = new CachedTexts(cacheDir, listedDir, index);
    const answers = cachedInfos(texts, covering.subarray(0, n), paths, mtimeOf, results, kept);
    cachedCount = answers.answered;
    for (const i of answers.damaged) {
      // A damaged entry: read the file instead.
      const st = statFile(paths[i] as string);
      if (st !== undefined) todo.push({ i, st, cached: undefined });
    }
  }
  const stats = opts.stats ?? newListStats();
  stats.filesCached += cachedCount;
  // New texts go to a segment as files are read, not all at once when the cache is saved.
  const segment =
    cacheDir !== undefined && todo.length > 0 ? new SegmentWriter(cacheDir, listedDir) : undefined;
  let fresh: Map<number, Fresh> | undefined;
  try {
    fresh =
      todo.length > 0 || opts.onProgress
        ? await readFiles(paths, results, todo, stats, opts, segment, pass.pool)
        : undefined;
  } catch (err) {
    segment?.discard();
    throw err;
  } finally {
    segment?.close();
  }

  const aligned = pass.fullyAligned;
  if (cacheDir !== undefined) {
    // Entries of files that are gone are dropped: that too is a change to save.
    let dirty = fresh !== undefined && fresh.size > 0;
    if (!dirty && index !== undefined && !(aligned && cachedCount === n)) {
      const used = new Uint8Array(index.count);
      let distinct = 0;
      for (let i = 0; i < n; i++) {
        const e = kept[i] as number;
        if (e >= 0 && used[e] === 0) {
          used[e] = 1;
          distinct++;
        }
      }
      dirty = distinct !== index.count;
    }
    if (dirty) save(cacheDir, listedDir, keys, results, kept, fresh, index);
  }
  const order: number[] = [];
  if (index !== undefined) {
    // The sessions the cache answered at their rank in the last result, then the others.
    const count = index.count;
    const byRank = new Int32Array(count).fill(-1);
    const rest: number[] = [];
    for (let i = 0; i < n; i++) {
      if (results[i] === null) continue;
      const e = kept[i] as number;
      const r = e >= 0 ? (index.rank[e] as number) : count;
      if (r < count && byRank[r] === -1) byRank[r] = i;
      else rest.push(i);
    }
    for (let r = 0; r < count; r++) {
      const i = byRank[r] as number;
      if (i >= 0) order.push(i);
    }
    for (const i of rest) order.push(i);
  } else {
    for (let i = 0; i < n; i++) if (results[i]) order.push(i);
  }
  return { results, mtimes: pass.mtimes, order, hinted: index !== undefined };
}

/** A new cache entry, with the `allMessagesText` it stands for (or where it was written). */
interface Fresh {
  file: CachedFile;
  text: string;
  /** Set when the text is already in this listing's segment (then `text` is not kept). */
  ref?: TextRef;
}

/**
 * Reads the files the cache could not answer (`todo`), in a worker pool when that pays, and
 * reports progress over every candidate when asked. Sets their `results`; returns the new
 * cache entries by candidate index.
 */
async function readFiles(
  paths: readonly string[],
  results: (SessionInfo | null)[],
  todo: readonly Todo[],
  stats: ListStats,
  opts: RunOptions,
  segment?: SegmentWriter,
  early?: ListPool,
): Promise<Map<number, Fresh>> {
  const { signal, onProgress } = opts;
  const source: TextSource | undefined =
    opts.cacheDir === undefined ? undefined : { cacheDir: opts.cacheDir, listedDir: opts.listedDir };
  const fresh = new Map<number, Fresh>();
  const n = paths.length;
  let firstLoaded = false;
  let loaded = 0;
  const partial: SessionInfo[] = [];
  const pool = early ?? openPool(todo, opts.workers ?? "auto");
  // Abort stops the workers at once; their tasks reject and the listing throws.
  const onAbort = (): void => void pool?.close();
  if (pool) signal?.addEventListener("abort", onAbort, { once: true });

  /** Reads one file in a worker when there is a pool, else (or if it died) here. */
  const readFile = async (
    path: string,
    st: FileStat,
    cached: CachedFile | undefined,
  ): Promise<FileResult> => {
    if (pool) {
      try {
        const task: Parameters<ListPool["run"]>[0] = {
          path,
          stat: st,
        };
        if (cached) task.cached = cached;
        if (source) task.texts = source;
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
    if (source) loadOpts.texts = source;
    return loadFile(path, st, cached, stats, loadOpts);
  };

  // With progress every candidate is reported, in candidate order; without, only the files
  // to read are visited.
  const toRead = new Map<number, Todo>();
  for (const t of todo) toRead.set(t.i, t);
  const visit = onProgress ? Array.from({ length: n }, (_, i) => i) : todo.map((t) => t.i);
  try {
    await mapLimit(
      visit,
      opts.concurrency ?? 10,
      async (i, index) => {
        let info: SessionInfo | null = results[i] ?? null;
        const t = toRead.get(i);
        if (t !== undefined) {
          try {
            const result = await readFile(paths[i] as string, t.st, t.cached);
            info = result.info;
            if (result.cache) {
              const text = result.text ?? "";
              const ref = text === "" ? undefined : segment?.add(text);
              fresh.set(i, ref ? { file: result.cache, text: "", ref } : { file: result.cache, text });
            }
          } catch (err) {
            signal?.throwIfAborted();
            // One replaced by a FIFO or directory since its stat is not a session: passed by.
            if (!(err instanceof SessionFileNotRegularError))
              opts.onUnreadable?.(paths[i] as string, err as Error);
            info = null;
          }
          results[i] = info;
        }
        if (onProgress) {
          loaded++;
          if (index === 0) firstLoaded = true;
          if (info) partial.push(info);
          const publish = opts.waitForFirst
            ? firstLoaded && (index === 0 || loaded % opts.publishEvery === 0 || loaded === n)
            : loaded === 1 || loaded % opts.publishEvery === 0 || loaded === n;
          onProgress(loaded, n, publish ? sortInfos([...partial]) : undefined);
        }
      },
      signal,
    );
    signal?.throwIfAborted();
  } finally {
    if (pool) {
      signal?.removeEventListener("abort", onAbort);
      await pool.close();
    }
  }
  return fresh;
}

/** Writes the cache after a listing that changed something, entries in candidate order. */
function save(
  cacheDir: string,
  listedDir: string,
  keys: readonly string[],
  results: readonly (SessionInfo | null)[],
  kept: Int32Array,
  fresh: ReadonlyMap<number, Fresh> | undefined,
  index: CacheIndex | undefined,
): void {
  // The rank hint: sessions by `modified` descending (ties and the rest in candidate order).
  const byTime: number[] = [];
  const time = new Float64Array(keys.length);
  for (let i = 0; i < keys.length; i++) {
    const info = results[i];
    if (!info) continue;
    byTime.push(i);
    time[i] = info.modified.getTime() || 0;
  }
  byTime.sort((a, b) => (time[b] as number) - (time[a] as number) || a - b);
  const rank = new Array<number>(keys.length).fill(keys.length);
  byTime.forEach((i, r) => {
    rank[i] = r;
  });
  const entries: SaveEntry[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    if (seen.has(key)) continue;
    const f = fresh?.get(i);
    if (f) {
      if (f.ref) {
        // Already written: the entry points at it and the save writes no text for it.
        f.file.text = f.ref;
        entries.push({ key, file: f.file, rank: rank[i] as number });
      } else entries.push({ key, file: f.file, text: f.text, rank: rank[i] as number });
      seen.add(key);
      continue;
    }
    const e = kept[i] as number;
    if (e >= 0 && index !== undefined) {
      // Copied from the old index as it is.
      entries.push({ key, from: index, entry: e, rank: rank[i] as number });
      seen.add(key);
    }
  }
  saveCache(cacheDir, listedDir, entries);
}

/**
 * Sorts the listed sessions: `modified` descending, then `tieBreak` (pi's candidate order),
 * then candidate order. A hinted order (close to the result, so sorting it is nearly free) is
 * used only when every time is a number: the comparison is then a total order, and the result
 * does not depend on the order it starts from.
 */
function sortListed(listed: Listed, tieBreak?: (a: number, b: number) => number): SessionInfo[] {
  const { results } = listed;
  let order = listed.order;
  const t = new Float64Array(results.length);
  let nan = false;
  for (const i of order) {
    const v = (results[i] as SessionInfo).modified.getTime();
    if (Number.isNaN(v)) nan = true;
    t[i] = v;
  }
  if (nan && listed.hinted) order = order.slice().sort((a, b) => a - b);
  // The hinted order is usually the result already: times strictly descending need no sort.
  let sorted = !nan;
  for (let k = 1; sorted && k < order.length; k++) {
    sorted = (t[order[k - 1] as number] as number) > (t[order[k] as number] as number);
  }
  if (!sorted) {
    order.sort(
      tieBreak
        ? (a, b) => (t[b] as number) - (t[a] as number) || tieBreak(a, b) || a - b
        : (a, b) => (t[b] as number) - (t[a] as number) || a - b,
    );
  }
  const out = new Array<SessionInfo>(order.length);
  for (let k = 0; k < order.length; k++) out[k] = results[order[k] as number] as SessionInfo;
  return out;
}

function sortInfos(infos: SessionInfo[]): SessionInfo[] {
  // Stable, like pi's sort; the times are read once per info, not once per comparison.
  const keyed = infos.map((info, i) => ({ info, t: info.modified.getTime(), i }));
  keyed.sort((a, b) => b.t - a.t || a.i - b.i);
  for (let i = 0; i < keyed.length; i++) infos[i] = (keyed[i] as { info: SessionInfo }).info;
  return infos;
}

/** `dir/name` for a normalized `dir` and a plain file name (what `join` gives, without its cost). */
function childPath(dir: string, name: string): string {
  return dir.endsWith(sep) ? `${dir}${name}` : `${dir}${sep}${name}`;
}

/**
 * Adds the `.jsonl` files `names` of `dir` (a normalized path) to a listing's first pass (see
 * {@link StatPass.addNames}). Paths that must be built are built as one string and split: no
 * concatenation per file, and flat strings (a `stat` call would flatten each concatenation).
 */
function addDirectory(pass: StatPass, dir: string, names: readonly string[]): Promise<void> {
  return pass.addNames(dir.endsWith(sep) ? dir : `${dir}${sep}`, names);
}

const isJsonl = (name: string): boolean => name.endsWith(".jsonl");

/** The names of the `.jsonl` files directly in `dir`; none if it cannot be read (reported). */
function jsonlNamesIn(dir: string, onUnreadable: ListOptions["onUnreadable"]): string[] {
  try {
    return readdirSync(dir).filter(isJsonl);
  } catch (err) {
    reportUnreadableDir(dir, err, onUnreadable);
    return [];
  }
}

/** Reports a directory that cannot be read, unless it is simply not there. */
function reportUnreadableDir(dir: string, err: unknown, onUnreadable: ListOptions["onUnreadable"]): void {
  if ((err as { code?: unknown }).code !== "ENOENT") onUnreadable?.(dir, err as Error);
}

/**
 * Reports the candidates left out at their stat because it failed (a dangling link, no
 * permission), with why; not those left out for not being regular files.
 */
function reportUnstatted(pass: StatPass, onUnreadable: ListOptions["onUnreadable"]): void {
  if (!onUnreadable) return;
  const { paths, mtimes } = pass;
  for (let i = 0; i < paths.length; i++) {
    if (mtimes[i] !== Number.NEGATIVE_INFINITY) continue;
    const path = paths[i] as string;
    const error = unreadableError(path);
    if (error) onUnreadable(path, error);
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
  const run = runOptions(opts, resolved, 10, false);
  // The cache index is read on the thread pool while this thread walks the directory.
  const indexBytes = run.cacheDir === undefined ? undefined : readIndexFile(run.cacheDir, resolved);
  const names: string[] = [];
  try {
    for (const n of readdirSync(dir)) if (n.endsWith(".jsonl")) names.push(n);
  } catch (err) {
    // A missing directory lists nothing; one that cannot be read is reported.
    reportUnreadableDir(dir, err, opts.onUnreadable);
  }
  names.sort((a, b) => collator().compare(b, a));
  const paths = names.map((n) => join(dir, n));
  const keys = names.map((n) => childPath(resolved, n));
  const preStats = opts.onProgress ? await statAll(paths, opts.signal) : undefined;
  const pass = new StatPass(opts.signal, false, opts.workers);
  const ready = indexOf(run, indexBytes).then((index) => pass.setIndex(index));
  // Awaited below; if the listing stops first (abort), its failure must not go unhandled.
  ready.catch(() => {});
  await pass.add(paths, keys, keys.join("\0"), preStats);
  await ready;
  reportUnstatted(pass, opts.onUnreadable);
  return sortListed(await finishListing(pass, run));
}

/**
 * pi's `SessionManager.list(cwd, sessionDir?)`: without `sessionDir`, the sessions of the
 * default per-cwd directory `<agentDir>/sessions/--<cwd>--`; with a custom `sessionDir` that
 * is not that directory, the sessions in it whose header cwd resolves to `cwd`.
 */
export async function listSessions(cwd: string, opts: ListSessionsOptions = {}): Promise<SessionInfo[]> {
  const agentDir = opts.agentDir ?? getAgentDir(opts.env ?? process.env);
  const defaultDir = sessionDirForCwd(cwd, join(resolvePiPath(agentDir), "sessions"));
  // As pi: an empty `sessionDir` means the default directory (unfiltered), `~` and `file://`
  // are understood, and any other directory is filtered unless it is the default one.
  const dir = opts.sessionDir ? resolvePiPath(opts.sessionDir) : defaultDir;
  const filterCwd = opts.sessionDir !== undefined && !pathsEqual(dir, defaultDir);
  // pi's header-cwd filter (`sessionCwdMatches`): both sides resolved by pi's `resolvePath`.
  const resolvedCwd = resolvePiPath(cwd);
  const include = (s: SessionInfo): boolean => !filterCwd || headerCwdMatches(s.cwd, resolvedCwd);
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
  // As pi: an empty `root` means the default one; `~` and `file://` are understood.
  const dir = root
    ? resolvePiPath(root)
    : join(resolvePiPath(opts.agentDir ?? getAgentDir(opts.env ?? process.env)), "sessions");
  const layout = opts.layout ?? "auto";
  const run = runOptions(opts, dir, 100, true);
  // The cache index is read on the thread pool while this thread walks the directories.
  const indexBytes = run.cacheDir === undefined ? undefined : readIndexFile(run.cacheDir, dir);
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    reportUnreadableDir(dir, err, opts.onUnreadable);
    return [];
  }
  const flat: string[] = [];
  const subdirs: string[] = [];
  if (layout !== "per-cwd") {
    for (const e of entries) if ((e.isFile() || e.isSymbolicLink()) && isJsonl(e.name)) flat.push(e.name);
  }
  if (layout !== "flat") {
    for (const e of entries) {
      if (e.isDirectory() || (e.isSymbolicLink() && !isJsonl(e.name))) subdirs.push(childPath(dir, e.name));
    }
  }
  // `dir` is resolved, so every path here is its own cache key.
  const pass = new StatPass(opts.signal, true, opts.workers);
  if (opts.onProgress) {
    // Progress reports follow the candidate order: it must be pi's from the start.
    const files: string[] = [];
    for (const name of flat) files.push(childPath(dir, name));
    for (const sub of subdirs)
      for (const name of jsonlNamesIn(sub, opts.onUnreadable)) files.push(childPath(sub, name));
    const stats = await statAll(files, opts.signal);
    const order = files.map((_, i) => i);
    const mtime = (i: number) => stats[i]?.mtimeMs ?? Number.NEGATIVE_INFINITY;
    order.sort(
      (a, b) =>
        mtime(b) - mtime(a) || collator().compare(basename(files[b] as string), basename(files[a] as string)),
    );
    const paths = order.map((i) => files[i] as string);
    pass.setIndex(await indexOf(run, indexBytes));
    await pass.add(
      paths,
      undefined,
      paths.join("\0"),
      order.map((i) => stats[i]),
    );
    reportUnstatted(pass, opts.onUnreadable);
    return sortListed(await finishListing(pass, run));
  }
  // The cache index is read on the thread pool while this thread reads each directory and
  // stats its files. The files statted before the index arrives are checked against it when it
  // does; those after, as they are statted. The directories are read here, synchronously:
  // read on the thread pool, the first names took 2-5 ms to come back to this thread, idle
  // meanwhile (on a 2-vCPU VM; a warm listing of 2,000 files in 40 directories was ~5% slower).
  const ready = indexOf(run, indexBytes).then((index) => pass.setIndex(index));
  // Awaited below; if the listing stops first (abort), its failure must not go unhandled.
  ready.catch(() => {});
  await addDirectory(pass, dir, flat);
  for (const sub of subdirs) await addDirectory(pass, sub, jsonlNamesIn(sub, opts.onUnreadable));
  await ready;
  reportUnstatted(pass, opts.onUnreadable);
  const files = pass.paths;
  // Without progress the candidate order (mtime descending, then name descending by the
  // collator) only breaks ties of `modified`, so it is applied in the final sort, and the
  // collator (whose construction alone costs ~10 ms) only for infos whose `modified` and
  // mtime both tie. The result is the one of listing the files in candidate order.
  const listed = await finishListing(pass, run);
  const { mtimes } = listed;
  return sortListed(listed, (a, b) => {
    const byTime = (mtimes[b] as number) - (mtimes[a] as number);
    return byTime || collator().compare(basename(files[b] as string), basename(files[a] as string));
  });
}

/**
 * The `SessionInfo` of one file (no cache); null when it is not a valid session. A path that
 * is not a regular file throws {@link SessionFileNotRegularError} (a FIFO is never read).
 */
export async function readSessionInfo(
  path: string,
  opts: { signal?: AbortSignal; stats?: ListStats } = {},
): Promise<SessionInfo | null> {
  const st = await stat(path);
  if (!st.isFile()) throw new SessionFileNotRegularError(path, nonRegularKind(st));
  const loadOpts: Parameters<typeof loadFile>[4] = {};
  if (opts.signal) loadOpts.signal = opts.signal;
  const result = await loadFile(path, st, undefined, opts.stats ?? newListStats(), loadOpts);
  return result.info;
}
