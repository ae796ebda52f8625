/**
 * The one `stat` per file a listing makes (the size, mtime, ctime and inode its cache is checked
 * against, with no object per file on the warm path), and the `fstat` an appender makes
 * before each write (size, inode, link count).
 *
 * On Node 20, and only there, the numbers are read through the internal fs binding `statSync`
 * itself calls, after checking that it gives exactly what `statSync` gives: every `fs.Stats`
 * there builds four `Date`s eagerly (decision 010). Everything else uses `statSync`.
 *
 * The binding is never touched where using it would warn (`--pending-deprecation`), on
 * Windows (`statSync` rewrites paths there), for a path with a NUL byte (`statSync` rejects
 * it), or when `PI_SESSION_NO_FAST_STAT=1`. Both ways give the same numbers: a test holds
 * them to `statSync`, and the listing results are the same with either.
 */
import { closeSync, fstatSync, openSync, statSync } from "node:fs";

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

/** Node 20's fs binding: its sync `stat` gives a shared array of numbers, or `undefined` (ENOENT). */
interface FsBinding {
  stat(path: string, bigint: false, req: undefined, throwIfNoEntry: false): Float64Array | undefined;
  /** `fstatSync`'s call: throws as it does. */
  fstat?(fd: number, bigint: false, req: undefined, shouldNotThrow: false): Float64Array;
}

// Positions in the binding's stat array (Node 20's `getStatsFromBinding`).
const MODE = 1;
const NLINK = 2;
const INO = 7;
const SIZE = 8;
const MTIME_SEC = 12;
const MTIME_NSEC = 13;
const CTIME_SEC = 14;
const CTIME_NSEC = 15;

const NO_THROW = { throwIfNoEntry: false } as const;

/** Whether this process may use the binding at all (see the module comment). */
function bindingAllowed(): boolean {
  if (process.env.PI_SESSION_NO_FAST_STAT === "1") return false;
  if (process.platform === "win32") return false;
  if (Number(process.versions.node.split(".")[0]) !== 20) return false;
  // `process.binding` warns (DEP0111) only with pending deprecations on.
  if (process.env.NODE_PENDING_DEPRECATION === "1") return false;
  if (process.execArgv.includes("--pending-deprecation")) return false;
  if ((process.env.NODE_OPTIONS ?? "").includes("--pending-deprecation")) return false;
  return typeof (process as { binding?: unknown }).binding === "function";
}

let binding: FsBinding | null | undefined;

/**
 * The binding, once its `stat` has given what `statSync` gives for a real file; `null` when
 * it is not to be used.
 */
function fsBinding(): FsBinding | null {
  if (binding !== undefined) return binding;
  binding = null;
  if (!bindingAllowed()) return null;
  try {
    const fs = (process as unknown as { binding(name: string): { stat?: unknown } }).binding("fs");
    if (typeof fs.stat !== "function") return null;
    const probe = process.execPath;
    const want = statSync(probe);
    if (agrees((fs as FsBinding).stat(probe, false, undefined, false), want)) binding = fs as FsBinding;
  } catch {
    // No binding, or not the one expected: statSync it is.
  }
  return binding;
}

/** Whether the binding's array gives the numbers of `want` (the same file's `fs.Stats`). */
function agrees(
  got: Float64Array | undefined,
  want: { mode: number; size: number; ino: number; nlink: number; mtimeMs: number; ctimeMs: number },
): boolean {
  return (
    got instanceof Float64Array &&
    got.length >= 14 &&
    got[MODE] === want.mode &&
    got[SIZE] === want.size &&
    got[INO] === want.ino &&
    got[NLINK] === want.nlink &&
    msOf(got) === want.mtimeMs &&
    ctimeMsOf(got) === want.ctimeMs
  );
}

/** `mtimeMs` from the binding's array, computed as Node computes it. */
function msOf(a: Float64Array): number {
  return (a[MTIME_SEC] as number) * 1e3 + (a[MTIME_NSEC] as number) / 1e6;
}

/** `ctimeMs` from the binding's array, computed as Node computes it. */
function ctimeMsOf(a: Float64Array): number {
  return (a[CTIME_SEC] as number) * 1e3 + (a[CTIME_NSEC] as number) / 1e6;
}

let fstatChecked: FsBinding | null | undefined;

/**
 * The binding, once its `fstat` has given what `fstatSync` gives for a file that does not
 * change (the node executable; a session file may be appended to between the two calls).
 */
function fstatBinding(): FsBinding | null {
  if (fstatChecked !== undefined) return fstatChecked;
  fstatChecked = null;
  const fs = fsBinding();
  if (fs === null || typeof fs.fstat !== "function") return null;
  let fd: number | undefined;
  try {
    fd = openSync(process.execPath, "r");
    const want = fstatSync(fd);
    if (agrees(fs.fstat(fd, false, undefined, false), want)) fstatChecked = fs;
  } catch {
    // Not the binding expected (or no executable to check it on): fstatSync it is.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  return fstatChecked;
}

/** The file type bits of a mode, and the type of a regular file (POSIX values, as Node's). */
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;

/** Whether a mode is a regular file's (only those are sessions: see `openRegularFileSync`). */
export function isRegularMode(mode: number): boolean {
  return (mode & S_IFMT) === S_IFREG;
}

/**
 * Whether the open `fd` is a regular file (an `fstat`; on Node 20 without an `fs.Stats`).
 * Throws as `fstatSync` throws.
 */
export function fdIsRegular(fd: number): boolean {
  const fs = fstatBinding();
  if (fs !== null) {
    const a = (fs.fstat as NonNullable<FsBinding["fstat"]>)(fd, false, undefined, false);
    return isRegularMode(a[MODE] as number);
  }
  return fstatSync(fd).isFile();
}

/** What an appender checks of its open file before each write. */
export interface FdCounts {
  size: number;
  ino: number;
  nlink: number;
}

/**
 * `fstatSync(fd)`'s size, inode and link count, throwing as it throws; on Node 20 without
 * building an `fs.Stats` (about half of the call's cost; see the module comment).
 */
export function fstatCounts(fd: number): FdCounts {
  const fs = fstatBinding();
  if (fs !== null) {
    const a = (fs.fstat as NonNullable<FsBinding["fstat"]>)(fd, false, undefined, false);
    return { size: a[SIZE] as number, ino: a[INO] as number, nlink: a[NLINK] as number };
  }
  const st = fstatSync(fd);
  return { size: st.size, ino: st.ino, nlink: st.nlink };
}

/** Whether stats are read through the binding in this process (for tests and notes). */
export function fastStatActive(): boolean {
  return fsBinding() !== null;
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
  private readonly fs = fsBinding();

  /**
   * Stats `path` (following links, as `statSync`); `false` when it cannot be statted
   * (missing, no permission, a loop of links) or is not a regular file (a directory, FIFO,
   * socket or device): such a file is skipped by listings.
   */
  stat(path: string): boolean {
    const fs = this.fs;
    if (fs !== null && !path.includes("\0")) {
      let a: Float64Array | undefined;
      try {
        a = fs.stat(path, false, undefined, false);
      } catch {
        return false;
      }
      // Only regular files are sessions: a FIFO, socket, device or directory is skipped.
      if (a === undefined || !isRegularMode(a[MODE] as number)) return false;
      this.size = a[SIZE] as number;
      this.ino = a[INO] as number;
      this.mtimeMs = msOf(a);
      this.ctimeMs = ctimeMsOf(a);
      return true;
    }
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
 * ctime and inode are left as they were). A listing's first pass: one call for a batch of files, with the
 * binding called inline, so the engine can optimize the loop while it runs (in a fresh
 * process, a call per file is a measurable part of a warm listing).
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
  const fs = fsBinding();
  let probe: StatProbe | undefined;
  for (let j = from; j < to; j++) {
    const path = paths[j] as string;
    const i = base + j;
    if (fs !== null && !path.includes("\0")) {
      let a: Float64Array | undefined;
      try {
        a = fs.stat(path, false, undefined, false);
      } catch {
        a = undefined;
      }
      if (a === undefined || !isRegularMode(a[MODE] as number)) {
        mtimes[i] = Number.NEGATIVE_INFINITY;
      } else {
        sizes[i] = a[SIZE] as number;
        inos[i] = a[INO] as number;
        mtimes[i] = msOf(a);
        ctimes[i] = ctimeMsOf(a);
      }
      continue;
    }
    probe ??= new StatProbe();
    if (probe.stat(path)) {
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
