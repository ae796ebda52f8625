/**
 * Appending to a session file without losing or interleaving a line: one `write` per entry
 * under the session's lock, entries other processes appended first read and handed to the
 * caller, a failed write cut back, a deleted, replaced or truncated file refused. Use
 * `SessionWriter.open` for every append to an existing session.
 */
import type * as nodeFs from "node:fs";
import { dirname } from "node:path";
import { type SessionRecord, serializeLine } from "@pi-session/format";
import {
  SessionFileChangedError,
  SessionFileNotFoundError,
  SessionFileNotRegularError,
  errorCode,
} from "../errors.js";
import { type FdCounts, fstatCounts } from "../fs/file-stat.js";
import { nonRegularKind } from "../fs/regular-files.js";
import { resolveSessionPath } from "../fs/session-path.js";
import {
  APPEND_NO_CREATE,
  type Durability,
  type FsOption,
  type WriterFs,
  fsWith,
  openSessionForWriting,
  realFs,
} from "../fs/writer-fs.js";
import {
  type HeldLock,
  type LockOptions,
  acquireLockFile,
  lockPathOfResolved,
  registerLease,
  sleepSync,
  unregisterLease,
} from "../lock/lock.js";
import { readRecordsFromFd } from "../read/stream.js";
import { findOurLines } from "./last-append.js";
import { encodeLineShared } from "./line-bytes.js";
import { type RewriteOptions, type RewriteResult, rewriteUnlocked } from "./rewrite.js";
import { removeDeadTemps } from "./temp-files.js";
import { type TornTailRepair, repairOpenFile } from "./torn-tail.js";

/** Records another process appended, as the appender found them. */
export interface ForeignEntries {
  /** Every record in the new bytes (JSON and raw), in file order. */
  records: SessionRecord[];
  /**
   * Byte range they came from. It starts at this writer's last append instead of after it
   * when another writer's lines landed before or among that append's (its own lines are left
   * out of `records`).
   */
  fromOffset: number;
  toOffset: number;
  /** A torn tail found (and repaired) while reading them. */
  repair?: TornTailRepair;
}

export interface SessionWriterOptions extends FsOption {
  /** Default `none` (like pi); `fsync` syncs the file after every append. */
  durability?: Durability;
  /** Serialize appends across processes with `<file>.lock` (default true; see `lockPathFor`). */
  lock?: boolean;
  lockOptions?: LockOptions;
  /**
   * Called, under the lock and before anything is written, with the records other processes
   * appended since this writer last looked. The caller can absorb them (index them, keep ids
   * unique); to also change what is written (re-parent), pass a function to {@link SessionWriter.append}.
   */
  onForeignEntries?: (records: SessionRecord[], info: ForeignEntries) => void;
  /**
   * The file size the caller last read (a line boundary). Bytes beyond it at the first append
   * are reported as foreign. Default: the size found when the writer opens. After a read that
   * ended in a torn tail, pass the tail's offset: a read is not atomic with another process's
   * write, so the tail may be an append still being written.
   */
  expectedSize?: number;
  /** Line count matching `expectedSize` (for line numbers of foreign records). Default: counted. */
  expectedLines?: number;
  /** Clock for sidecar names. */
  now?: () => Date;
  /**
   * Keep the lock this long (ms) after an append, so a burst of appends pays for the lock file
   * once (default 100; 0 releases after every append). The lease is given up by a timer, by
   * {@link SessionWriter.close}, when another lock user of this process asks for it, and after
   * `maxHoldMs` of continuous use (then the writer pauses briefly so waiting processes get a turn).
   */
  leaseMs?: number;
  /** Longest continuous hold of a lease (default 1000 ms). */
  maxHoldMs?: number;
}

/** Pause after giving up a long-held lease, longer than a waiter's longest backoff sleep. */
const LEASE_YIELD_MS = 25;

/**
 * Within a lease, appends are checked by a probe of the file's end; every this many the open
 * file is `fstat`ed instead, so a deletion or replacement is seen within a bounded number of
 * appends even in a lease that never ends (decision 132).
 */
const PROBES_PER_STAT = 100;

export interface AppendResult {
  /** Foreign records found before writing (already passed to `onForeignEntries`). */
  foreign: SessionRecord[];
  /**
   * Byte offset of the first entry written, as far as this writer can tell: a writer that takes
   * no lock may append between the check and the write (the next append sorts that out).
   */
  offset: number;
  /** File size after the append. */
  size: number;
  /** Entries written. */
  written: number;
  /** A torn tail repaired before writing. */
  repair?: TornTailRepair;
}

/** What to append: one entry, several, or a function of the foreign records returning them. */
export type AppendInput =
  | object
  | readonly object[]
  | ((foreign: SessionRecord[]) => object | readonly object[]);

function countLines(fs: WriterFs, fd: number, size: number): number {
  const block = 1024 * 1024;
  const buf = Buffer.allocUnsafe(block);
  let lines = 0;
  let pos = 0;
  while (pos < size) {
    const n = fs.readSync(fd, buf, 0, Math.min(block, size - pos), pos);
    if (n === 0) break;
    let i = buf.indexOf(10, 0);
    while (i >= 0 && i < n) {
      lines++;
      i = buf.indexOf(10, i + 1);
    }
    pos += n;
  }
  return lines;
}

/**
 * An appender for one existing session file: {@link SessionWriter.open}, {@link append} per
 * entry (or batch), {@link close}. Each append, under the lock, checks the file is still the
 * one it opened ({@link SessionFileChangedError} if not), takes in what others appended (a torn
 * tail repaired, the foreign records handed to the caller), then writes each entry with one
 * `write` (O_APPEND); a failed append is undone where that cannot cut another writer's line.
 */
export class SessionWriter {
  /** The path the writer was opened with (reported in errors). */
  readonly path: string;
  /** The file it names, resolved once (see `resolveSessionPath`): what is opened, locked, rewritten. */
  private readonly file: string;
  private readonly fs: WriterFs;
  private readonly opts: SessionWriterOptions;
  private fd: number | undefined;
  private ino: number;
  private known: number;
  private lines: number;
  /**
   * The last append, until a check of the file has placed it: its JSON texts (the first
   * `count` of `texts`, an array reused from append to append), where it started and the
   * line count there. Its writes went to the end of the file
   * (O_APPEND); a writer that takes no lock (pi) may have appended between our check and our
   * writes, and then our lines are not at `from`..`known` (see {@link placeLastAppend}).
   */
  private readonly last = { texts: [] as string[], count: 0, from: 0, lines: 0 };
  /** The repair done when the writer opened, if any. */
  readonly openRepair: TornTailRepair | undefined;
  /** The probe's 2 bytes (see {@link unchangedByProbe}). */
  private readonly probe = Buffer.alloc(2);
  /**
   * Probes since the last stat of the file (see {@link PROBES_PER_STAT}). It starts full: the
   * first append after the open stats the file, so a file deleted since is never written to.
   */
  private probes = PROBES_PER_STAT;

  private constructor(path: string, opts: SessionWriterOptions, fs: WriterFs) {
    this.path = path;
    const file = resolveSessionPath(path);
    this.file = file;
    this.opts = opts;
    this.fs = fs;
    const openIt = (): TornTailRepair | undefined => {
      let fd: number;
      try {
        fd = openSessionForWriting(fs, path, file);
      } catch (error) {
        if (errorCode(error) === "ENOENT") throw new SessionFileNotFoundError(path);
        throw error;
      }
      this.fd = fd;
      // The next writer of a session cleans up after the dead ones (killed mid-rewrite).
      removeDeadTemps(dirname(file), fs);
      const st = fs.fstatSync(fd);
      this.ino = st.ino;
      const expected = opts.expectedSize;
      if (expected !== undefined && expected < st.size) {
        // Foreign bytes already there; the first append reads them. Known state = caller's.
        this.known = expected;
        this.lines = opts.expectedLines ?? countLines(fs, fd, expected);
        return undefined;
      }
      if (expected !== undefined && expected > st.size) {
        fs.closeSync(fd);
        this.fd = undefined;
        throw new SessionFileChangedError(path, "truncated");
      }
      const repair = repairOpenFile(
        fs,
        path,
        file,
        fd,
        opts.now ?? (() => new Date()),
        opts.durability === "fsync",
      );
      this.known = repair.size;
      this.lines =
        opts.expectedLines !== undefined && repair.action === "none"
          ? opts.expectedLines
          : countLines(fs, fd, repair.size);
      return repair.action === "none" ? undefined : repair;
    };
    this.ino = 0;
    this.known = 0;
    this.lines = 0;
    // Checked before locking, so a missing file is reported as such (and no lock is left),
    // and a FIFO or device is never opened (only regular files are sessions).
    let st: nodeFs.Stats;
    try {
      st = fs.statSync(file);
    } catch (error) {
      if (errorCode(error) === "ENOENT") throw new SessionFileNotFoundError(path);
      throw error;
    }
    if (!st.isFile()) throw new SessionFileNotRegularError(path, nonRegularKind(st));
    this.openRepair = opts.lock === false ? openIt() : this.locked(openIt);
  }

  /** Opens an appender on an existing file (see {@link SessionWriterOptions}). */
  static open(path: string, opts: SessionWriterOptions = {}): SessionWriter {
    return new SessionWriter(path, opts, fsWith(opts.fs));
  }

  /** Bytes of the file this writer knows about (its own appends and absorbed foreign ones). */
  get size(): number {
    return this.known;
  }

  /** Lines of the file this writer knows about. */
  get lineCount(): number {
    return this.lines;
  }

  private lease: { lock: HeldLock; timer?: ReturnType<typeof setTimeout> } | undefined;
  private readonly dropLease = (): void => {
    const lease = this.lease;
    if (!lease) return;
    this.lease = undefined;
    if (lease.timer) clearTimeout(lease.timer);
    unregisterLease(lease.lock.path, this.dropLease);
    lease.lock.release();
  };

  /**
   * Runs `fn` under the lock. `fresh` tells whether the lock was just taken (then the file is
   * checked by path; under a continued lease checking the open fd is enough).
   */
  private locked<T>(fn: (fresh: boolean) => T): T {
    if (this.opts.lock === false) return fn(true);
    const leaseMs = this.opts.leaseMs ?? 100;
    const maxHold = this.opts.maxHoldMs ?? 1000;
    const now = this.opts.lockOptions?.now ?? Date.now;
    if (this.lease && now() - this.lease.lock.since > maxHold) {
      this.dropLease();
      sleepSync(LEASE_YIELD_MS);
    }
    let fresh = false;
    if (!this.lease) {
      const lock = acquireLockFile(lockPathOfResolved(this.file), this.opts.lockOptions);
      this.lease = { lock };
      registerLease(lock.path, this.dropLease);
      fresh = true;
    }
    let ok = false;
    try {
      const result = fn(fresh);
      ok = true;
      return result;
    } finally {
      const lease = this.lease;
      if (!ok || leaseMs <= 0 || !lease) {
        this.dropLease();
      } else if (lease.timer) {
        lease.timer.refresh();
      } else {
        lease.timer = setTimeout(this.dropLease, leaseMs);
        // A lease must never keep the process alive.
        lease.timer.unref?.();
      }
    }
  }

  private requireFd(): number {
    if (this.fd === undefined) throw new Error(`SessionWriter is closed: ${this.path}`);
    return this.fd;
  }

  /**
   * Whether the file still ends where this writer's last look left it, by a 2-byte `pread`
   * at that end: the `\n` ending our last line and nothing after it. More bytes are a foreign
   * append, fewer or another byte a truncation or rewrite in place; either way the caller
   * then stats the file. It cannot see a deletion or replacement (the descriptor still reads
   * the old inode): under a held lease only a writer that takes no lock could do that, and
   * the stat every {@link PROBES_PER_STAT} appends and the one by path when the next lease is
   * taken find it; the SDK then writes the session back whole (decision 132).
   */
  private unchangedByProbe(fd: number): boolean {
    const known = this.known;
    const probe = this.probe;
    if (known === 0) return this.fs.readSync(fd, probe, 0, 1, 0) === 0;
    return this.fs.readSync(fd, probe, 0, 2, known - 1) === 1 && probe[0] === 10;
  }

  /**
   * Checks the file and reads foreign records; the caller holds the lock. By path when
   * `byPath` (the lock was just taken); otherwise, within the lease, a probe of the end
   * ({@link unchangedByProbe}), and every {@link PROBES_PER_STAT} appends or when the probe
   * sees a change an `fstat` of the open file: a link count of 0 means it was deleted or
   * replaced, which is then told apart by path.
   */
  private absorb(byPath = true): { foreign: SessionRecord[]; repair?: TornTailRepair } {
    const fd = this.requireFd();
    if (!byPath && this.probes < PROBES_PER_STAT) {
      this.probes++;
      if (this.unchangedByProbe(fd)) return { foreign: [] };
    }
    this.probes = 0;
    // The real fs: fstatCounts; an injected one: its fstatSync.
    let st: FdCounts | undefined = byPath
      ? undefined
      : this.fs.fstatSync === realFs.fstatSync
        ? fstatCounts(fd)
        : this.fs.fstatSync(fd);
    if (st === undefined || st.nlink === 0) {
      try {
        st = this.fs.statSync(this.file);
      } catch (error) {
        if (errorCode(error) === "ENOENT") throw new SessionFileChangedError(this.path, "deleted");
        throw error;
      }
    }
    if (st.ino !== this.ino) throw new SessionFileChangedError(this.path, "replaced");
    if (st.size < this.known) throw new SessionFileChangedError(this.path, "truncated");
    if (st.size === this.known) return { foreign: [] };
    let repair: TornTailRepair | undefined = repairOpenFile(
      this.fs,
      this.path,
      this.file,
      fd,
      this.opts.now ?? (() => new Date()),
      this.opts.durability === "fsync",
    );
    // The repair's size, also when it did nothing: the file may have grown again since `st`.
    const end = repair.size;
    if (repair.action === "none") repair = undefined;
    if (end < this.known) throw new SessionFileChangedError(this.path, "truncated");
    let from = this.known;
    let lines = this.lines;
    const ours = this.placeLastAppend(fd, end);
    if (ours) {
      from = this.last.from;
      lines = this.last.lines;
    }
    const read = readRecordsFromFd(fd, from, end, lines + 1);
    const records = ours ? read.records.filter((r) => !ours.has(r.offset)) : read.records;
    this.known = end;
    this.lines = lines + read.lines;
    const info: ForeignEntries = { records, fromOffset: from, toOffset: end };
    if (repair) info.repair = repair;
    if (records.length > 0 || repair) this.opts.onForeignEntries?.(records, info);
    return repair ? { foreign: records, repair } : { foreign: records };
  }

  private forgetLastAppend(): void {
    this.last.texts.length = 0;
    this.last.count = 0;
  }

  /** Where the last append's lines are, once the file has grown (see {@link findOurLines}). */
  private placeLastAppend(fd: number, end: number): Set<number> | undefined {
    const { texts, count, from } = this.last;
    if (count === 0) return undefined;
    const lines = texts.slice(0, count).map((t) => Buffer.from(`${t}\n`, "utf8"));
    this.forgetLastAppend();
    return findOurLines(this.fs, fd, lines, from, end);
  }

  /**
   * Reads (under the lock) what other processes appended since this writer last looked,
   * hands it to `onForeignEntries` and returns it, without writing anything.
   */
  syncForeign(): SessionRecord[] {
    return this.locked((fresh) => this.absorb(fresh).foreign);
  }

  /**
   * Appends one entry or several (one `write` each). When `input` is a function it is called
   * under the lock with the foreign records (possibly none) and returns the entries to write,
   * so the caller can re-parent them onto entries it has just learned about.
   */
  append(input: AppendInput): AppendResult {
    return this.locked((fresh) => {
      const { foreign, repair } = this.absorb(fresh);
      const produced = typeof input === "function" ? input(foreign) : input;
      const entries: readonly object[] = Array.isArray(produced) ? produced : [produced as object];
      const fd = this.requireFd();
      const before = this.known;
      // What the file would be after the bytes written so far (counted per write, so a failure
      // knows how many of ours reached the file): `writeAll` inlined.
      let size = before;
      const last = this.last;
      // A batch's texts are let go (a single entry's slot is simply overwritten).
      if (last.count > 1) last.texts.length = 0;
      last.count = 0;
      try {
        for (const entry of entries) {
          const json = serializeLine(entry);
          last.texts[last.count++] = json;
          const bytes = encodeLineShared(json);
          let done = 0;
          while (done < bytes.length) {
            const n = this.fs.writeSync(fd, bytes, done, bytes.length - done, null);
            if (n <= 0) throw Object.assign(new Error("write returned 0 bytes"), { code: "EIO" });
            done += n;
            size += n;
          }
        }
        if (this.opts.durability === "fsync" && entries.length > 0) this.fs.fsyncSync(fd);
      } catch (error) {
        // What the file holds after `before` is read as foreign next time (if not cut back).
        this.forgetLastAppend();
        this.cutBack(fd, before, size);
        throw error;
      }
      last.from = before;
      last.lines = this.lines;
      this.known = size;
      this.lines += entries.length;
      const result: AppendResult = { foreign, offset: before, size, written: entries.length };
      if (repair) result.repair = repair;
      return result;
    });
  }

  /**
   * After a failed append: cuts the file back to `before` only when it is exactly `before`
   * plus the bytes this append wrote (`expected`); any other size means another writer's line
   * may be in there, and nothing is cut. The next append then reads everything after `before`
   * as foreign (a torn piece of ours goes to a sidecar, {@link repairTornTail}). Decision 007.
   */
  private cutBack(fd: number, before: number, expected: number): void {
    try {
      const size = this.fs.fstatSync(fd).size;
      if (size === expected && size > before) this.fs.ftruncateSync(fd, before);
    } catch {
      // The original error is the one to report; the next append looks at the file again.
    }
  }

  /**
   * Atomically replaces the file's content (see {@link rewriteSessionFile}) under this
   * writer's lock, after absorbing foreign entries (passed to `onForeignEntries`; when there
   * were some, the rewrite is refused with {@link SessionFileChangedError}, reason `appended`,
   * so the caller can merge them first; likewise when a writer that takes no lock appends
   * while the new file is written), then continues appending to the new file.
   */
  rewrite(
    records: readonly (SessionRecord | object)[],
    opts: Omit<RewriteOptions, "lock" | "fs" | "expectedSize"> = {},
  ): RewriteResult {
    return this.locked(() => {
      const { foreign } = this.absorb();
      if (foreign.length > 0) throw new SessionFileChangedError(this.path, "appended");
      const result = rewriteUnlocked(
        this.path,
        this.file,
        records,
        { ...opts, expectedSize: this.known },
        this.fs,
      );
      const fd = this.requireFd();
      this.fs.closeSync(fd);
      this.fd = this.fs.openSync(this.file, APPEND_NO_CREATE);
      const st = this.fs.fstatSync(this.fd);
      this.ino = st.ino;
      this.known = st.size;
      this.lines = countLines(this.fs, this.fd, st.size);
      this.forgetLastAppend();
      return result;
    });
  }

  /** Gives up a held lock lease now (appends take the lock again when needed). */
  releaseLock(): void {
    this.dropLease();
  }

  /** Releases the lock and closes the file; further appends throw. */
  close(): void {
    this.dropLease();
    if (this.fd !== undefined) {
      this.fs.closeSync(this.fd);
      this.fd = undefined;
    }
  }
}
