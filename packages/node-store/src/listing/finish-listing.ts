/**
 * The second pass of a listing: the files the cache covers answered from its columns, the
 * others read, progress reported, and the cache saved when something changed. Gives each
 * candidate's info, in an order close to the result's.
 *
 * Reads of typed arrays and arrays are at indexes in range by construction and written
 * `a[i] as number` (or `as string`): `noUncheckedIndexedAccess` types every read `| undefined`,
 * and a check per read in these loops would cost more than it proves.
 */
import { SessionFileNotRegularError } from "../errors.js";
import { statFile } from "../fs/file-stat.js";
import { type CachedFile, type SaveEntry, saveCache } from "./cache.js";
import { SegmentWriter, type TextRef } from "./cache-segments.js";
import type { CacheIndex } from "./cache-index.js";
import { CachedTexts, cachedInfos } from "./cached-infos.js";
import type { SessionInfo } from "./info.js";
import { type TextSource, loadFile } from "./load-file.js";
import { type ListStats, type ListRun, newListStats } from "./options.js";
import { sortInfos } from "./sort.js";
import type { StatPass, Todo } from "./stat-pass.js";

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

/** A listing's answers, by candidate index. */
export interface Listed {
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

/**
 * The infos of a listing's candidates after its first pass, index for index (null: not a
 * session, or unreadable): the files the cache covers answered from it, the others read; the
 * cache saved when something changed.
 */
export async function finishListing(pass: StatPass, opts: ListRun): Promise<Listed> {
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
        ? await readFiles(paths, results, todo, stats, opts, segment)
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
 * Reads the files the cache could not answer (`todo`), and reports progress over every
 * candidate when asked. Sets their `results`; returns the new cache entries by candidate index.
 */
async function readFiles(
  paths: readonly string[],
  results: (SessionInfo | null)[],
  todo: readonly Todo[],
  stats: ListStats,
  opts: ListRun,
  segment?: SegmentWriter,
): Promise<Map<number, Fresh>> {
  const { signal, onProgress } = opts;
  const source: TextSource | undefined =
    opts.cacheDir === undefined ? undefined : { cacheDir: opts.cacheDir, listedDir: opts.listedDir };
  const fresh = new Map<number, Fresh>();
  const n = paths.length;
  let firstLoaded = false;
  let loaded = 0;
  const partial: SessionInfo[] = [];
  const loadOpts: Parameters<typeof loadFile>[4] = {};
  if (signal) loadOpts.signal = signal;
  if (source) loadOpts.texts = source;

  // With progress every candidate is reported, in candidate order; without, only the files
  // to read are visited.
  const toRead = new Map<number, Todo>();
  for (const t of todo) toRead.set(t.i, t);
  const visit = onProgress ? Array.from({ length: n }, (_, i) => i) : todo.map((t) => t.i);
  await mapLimit(
    visit,
    opts.concurrency ?? 10,
    async (i, index) => {
      let info: SessionInfo | null = results[i] ?? null;
      const t = toRead.get(i);
      if (t !== undefined) {
        try {
          const result = await loadFile(paths[i] as string, t.st, t.cached, stats, loadOpts);
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
