/**
 * The first pass of a listing: every candidate file statted, in batches between turns of the
 * event loop, and checked against the cache index as it is statted (or when the index
 * arrives). What the cache covers leaves only numbers in typed columns; the rest is to read.
 *
 * Reads of typed arrays and arrays are at indexes in range by construction and written
 * `a[i] as number` (or `as string`): `noUncheckedIndexedAccess` types every read `| undefined`,
 * and a check per read in these loops would cost more than it proves.
 */
import { type FileStat, StatProbe, mtimeDate, statColumns, statFile } from "../fs/file-stat.js";
import type { CachedFile } from "./cache.js";
import type { CacheIndex } from "./cache-index.js";
import { covers, needsMtime } from "./cached-infos.js";

/** Files statted synchronously between two turns of the event loop. */
const STAT_BATCH = 256;

/**
 * Stats many files (`undefined`: cannot be statted, skipped): synchronous `stat` in batches,
 * yielding to the event loop between batches (a promise per file costs several times the
 * syscall itself).
 */
export async function statAll(
  paths: readonly string[],
  signal?: AbortSignal,
): Promise<(FileStat | undefined)[]> {
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

/** A file that must be read (not answered by the cache). */
export interface Todo {
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
export class StatPass {
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

  constructor(
    private readonly signal: AbortSignal | undefined,
    resolvedPaths: boolean,
  ) {
    this.keys = resolvedPaths ? this.paths : [];
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
    const keys = index.joinedKeys();
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
    await this.stat(paths, start, stats);
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
    const keys = index.joinedKeys();
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

  /**
   * Stats `paths`, candidates from `start` on (or takes their `stats`), checking each against
   * the index.
   */
  private async stat(
    paths: readonly string[],
    start: number,
    stats: readonly (FileStat | undefined)[] | undefined,
  ): Promise<void> {
    const count = paths.length;
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
      this.todo.push({ i, st: this.fileStat(i), cached: undefined });
      return;
    }
    const e = i < this.aligned ? i : index.find(this.keys[i] as string);
    const mtimeMs = this.mtimes[i] as number;
    if (e < 0) this.todo.push({ i, st: this.fileStat(i), cached: undefined });
    else if (
      !covers(index, e, this.sizes[i] as number, mtimeMs, this.ctimes[i] as number, this.inos[i] as number)
    )
      this.todo.push({ i, st: this.fileStat(i), cached: index.entry(e) });
    else {
      this.covering[i] = e;
      if (needsMtime(index.flags[e] as number)) this.mtimeOf.set(i, mtimeDate(mtimeMs));
    }
  }
}
