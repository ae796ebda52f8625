/**
 * The one `stat` per file a listing makes (the size, mtime, ctime and inode its cache is checked
 * against, with no object kept per file on the warm path), and the `fstat` an appender makes
 * before each write (size, inode, link count).
 */
import { fstatSync, statSync } from "node:fs";

/** The parts of `fs.Stats` listing uses (plain data, so it can cross to a worker). */
export interface FileStat {
  size: number;
  mtimeMs: number;
  /**
   * Part of the cache key with size, mtime and inode: a change of the file's metadata alone
   * (permissions, owner, times set back with `utimes`) changes it, and may change what a
   * listing can read.
   */
  ctimeMs: number;
  ino: number;
  /** As `fs.Stats#mtime`: `mtimeMs` rounded to the millisecond. */
  mtime: Date;
}

/** `fs.Stats#mtime` for an `mtimeMs` (Node rounds, where `new Date(ms)` would truncate). */
export function mtimeDate(mtimeMs: number): Date {
  return new Date(Math.round(mtimeMs));
}

const NO_THROW = { throwIfNoEntry: false } as const;

/** Whether the open `fd` is a regular file. Throws as `fstatSync` throws. */
export function fdIsRegular(fd: number): boolean {
  return fstatSync(fd).isFile();
}

/** What an appender checks of its open file before each write. */
export interface FdCounts {
  size: number;
  ino: number;
  nlink: number;
}

/** `fstatSync(fd)`'s size, inode and link count, throwing as it throws. */
export function fstatCounts(fd: number): FdCounts {
  const st = fstatSync(fd);
  return { size: st.size, ino: st.ino, nlink: st.nlink };
}

/**
 * A reusable stat result: {@link StatProbe.stat} fills `size`, `mtimeMs`, `ctimeMs` and `ino` in place,
 * so statting thousands of files allocates nothing that outlives the call.
 */
export class StatProbe {
  size = 0;
  mtimeMs = 0;
  ctimeMs = 0;
  ino = 0;

  /**
   * Stats `path` (following links, as `statSync`); `false` when it cannot be statted
   * (missing, no permission, a loop of links) or is not a regular file (a directory, FIFO,
   * socket or device): such a file is skipped by listings.
   */
  stat(path: string): boolean {
    let st: { size: number; mtimeMs: number; ctimeMs: number; ino: number; isFile(): boolean } | undefined;
    try {
      st = statSync(path, NO_THROW);
    } catch {
      return false;
    }
    if (st === undefined || !st.isFile()) return false;
    this.size = st.size;
    this.ino = st.ino;
    this.mtimeMs = st.mtimeMs;
    this.ctimeMs = st.ctimeMs;
    return true;
  }

  /** The last stat as a {@link FileStat} of its own. */
  toFileStat(): FileStat {
    return {
      size: this.size,
      mtimeMs: this.mtimeMs,
      ctimeMs: this.ctimeMs,
      ino: this.ino,
      mtime: mtimeDate(this.mtimeMs),
    };
  }
}

/**
 * Stats `paths[j]` for each j in [from, to) into the columns at `base + j`, as
 * {@link StatProbe.stat} does; a file that cannot be statted (or is not a regular file) gets mtime -Infinity (its size,
 * ctime and inode are left as they were). A listing's first pass: one call for a batch of files.
 */
export function statColumns(
  paths: readonly string[],
  from: number,
  to: number,
  base: number,
  mtimes: Float64Array,
  ctimes: Float64Array,
  sizes: Float64Array,
  inos: Float64Array,
): void {
  const probe = new StatProbe();
  for (let j = from; j < to; j++) {
    const i = base + j;
    if (probe.stat(paths[j] as string)) {
      sizes[i] = probe.size;
      inos[i] = probe.ino;
      mtimes[i] = probe.mtimeMs;
      ctimes[i] = probe.ctimeMs;
    } else {
      mtimes[i] = Number.NEGATIVE_INFINITY;
    }
  }
}

/** Stats one file; `undefined` when it cannot be statted. */
export function statFile(path: string, probe = new StatProbe()): FileStat | undefined {
  return probe.stat(path) ? probe.toFileStat() : undefined;
}
