/**
 * Bringing the session database up to date with a store: one stat per file (node-store's
 * `listStoreFiles`), then only what changed is read. A file that only grew is read from
 * where it was indexed last (its first bytes and the bytes before that point unchanged); a
 * rewritten, replaced or shrunk file is indexed again; a removed file leaves the index. Each
 * file's update is one transaction, so a process killed mid-way leaves a usable index.
 *
 * Use {@link syncStore} before every query: the warm check costs a stat per file.
 */
import { isObject } from "@pi-session/format";
import { type StoreFile, listStoreFiles } from "@pi-session/node-store";
import { readFileBytes } from "@pi-session/node-store/internal";
import type { FileIdentity, IndexedFile, SessionDatabase, StoredFile } from "./database.js";
import { availableParallelism } from "node:os";
import { ReadAhead, ReadAheadLostError } from "./read-ahead.js";
import { PROBE_BYTES, type ReadResult, headProbe, readAppended, readWhole, tailProbe } from "./read-file.js";

/**
 * Bytes read per write transaction (several files each): FTS5 writes one index segment per
 * transaction and merges them as they pile up, so a transaction per small file costs several
 * times the indexing itself. Each file stays all or nothing within it.
 */
const TRANSACTION_BYTES = 32 * 1024 * 1024;

/**
 * Longest run of indexing without a turn of the event loop (ms): reading files is synchronous,
 * and a server building its first index still answers its pages meanwhile.
 */
const YIELD_EVERY_MS = 50;

/** New bytes from which a build reads in a worker thread (see `read-ahead.ts`). */
const WORKER_BYTES = 8 * 1024 * 1024;

export interface SyncProgress {
  /** Files read so far, of `total` that changed. */
  done: number;
  total: number;
}

export interface SyncOptions {
  /** Called after each changed file is indexed. */
  onProgress?: (progress: SyncProgress) => void;
  /** Called before the first changed file is read, with how many there are. */
  onStart?: (changed: number, bytes: number) => void;
  signal?: AbortSignal;
  /** Bytes read per write transaction (default 32 MiB; each file stays all or nothing). */
  transactionBytes?: number;
  /**
   * Read new files in a worker thread while this one writes: `true`, `false`, or by default
   * when there are two cores or more and at least 8 MiB to read.
   */
  workers?: boolean;
}

export interface SyncStats {
  /** Files under the root. */
  files: number;
  unchanged: number;
  /** Files indexed from the start (new, rewritten, shrunk, replaced). */
  indexed: number;
  /** Files read from where they were indexed last. */
  resumed: number;
  /** Files that left the index. */
  removed: number;
  /** Files another process had indexed by the time this one got to them. */
  skipped: number;
  /** Files read ahead in a worker thread (see `SyncOptions.workers`). */
  readAhead: number;
  bytesRead: number;
  /**
   * Files and directories that could not be read (no permission, a dangling link, not a
   * regular file), with why: left out of the index (as pi's listing leaves them out), so the
   * caller can say so.
   */
  unreadable: { path: string; error: Error }[];
}

function sameIdentity(a: FileIdentity, b: FileIdentity): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino;
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Whether `current` can be extended by reading `st`'s file from `current.indexedOffset`. */
function canResume(current: IndexedFile, st: StoreFile, head: Uint8Array, tail: Uint8Array): boolean {
  return (
    current.version >= 3 &&
    current.meta !== null &&
    st.ino === current.ino &&
    st.size > current.size &&
    current.indexedOffset <= st.size &&
    equalBytes(head.subarray(0, current.head.length), current.head) &&
    current.head.length === Math.min(PROBE_BYTES, current.size) &&
    equalBytes(tail, current.tail)
  );
}

/** The file row of what was read. */
function fileRow(st: StoreFile, read: ReadResult): IndexedFile {
  return {
    path: st.path,
    size: st.size,
    mtimeMs: st.mtimeMs,
    ctimeMs: st.ctimeMs,
    ino: st.ino,
    indexedOffset: read.indexedOffset,
    nextLine: read.nextLine,
    version: read.version,
    head: read.head,
    tail: read.tail,
    meta: read.meta,
  };
}

/**
 * Indexes one file whose identity differs from its row (or that has none); counts it as
 * skipped when another process indexed this identity meanwhile.
 */
async function indexFile(
  db: SessionDatabase,
  st: StoreFile,
  known: StoredFile | undefined,
  stats: SyncStats,
  signal: AbortSignal | undefined,
  ahead: ReadAhead | undefined,
): Promise<void> {
  // A file the worker reads: new here, so read whole (unless indexed meanwhile by another process).
  if (ahead?.has(st)) {
    const writer = db.beginFile(st.path, (row) => (row && sameIdentity(row, st) ? undefined : "replace"));
    if (!writer) {
      stats.skipped++;
      await ahead.skip(st);
      return;
    }
    try {
      const read = await ahead.replay(st, writer);
      stats.bytesRead += read.bytesRead;
      stats.indexed++;
      stats.readAhead++;
      writer.commit(fileRow(st, read));
    } catch (error) {
      writer.rollback();
      throw error;
    }
    return;
  }
  const head = headProbe(st.path, st.size);
  const tail = known ? tailProbe(st.path, known.indexedOffset) : new Uint8Array(0);
  let current: IndexedFile | undefined;
  const writer = db.beginFile(st.path, (row) => {
    if (row && sameIdentity(row, st)) return undefined;
    // The probes were read for the row seen before the transaction; another one needs a fresh read.
    const sameRow = row && known && row.indexedOffset === known.indexedOffset && row.size === known.size;
    current = row && sameRow && canResume(row, st, head, tail) ? row : undefined;
    return current ? "append" : "replace";
  });
  if (!writer) {
    stats.skipped++;
    return;
  }
  try {
    const resumed = current?.meta
      ? (current as IndexedFile & { meta: NonNullable<IndexedFile["meta"]> })
      : undefined;
    const read = resumed
      ? readAppended(st.path, st.size, st.mtimeMs, resumed, writer, signal)
      : readWhole(st.path, st.size, st.mtimeMs, writer, signal, head);
    stats.bytesRead += read.bytesRead;
    if (resumed) stats.resumed++;
    else stats.indexed++;
    writer.commit(fileRow(st, read));
  } catch (error) {
    writer.rollback();
    throw error;
  }
}

/**
 * Brings `db` up to date with the sessions under `root` (a sessions root: `.jsonl` files in it
 * and in its per-project directories). Safe to run in several processes at once.
 */
export async function syncStore(
  db: SessionDatabase,
  root: string,
  opts: SyncOptions = {},
): Promise<SyncStats> {
  const unreadable: SyncStats["unreadable"] = [];
  const found = listStoreFiles(root, { onUnreadable: (path, error) => unreadable.push({ path, error }) });
  const known = db.files();
  const stats: SyncStats = {
    files: found.length,
    unchanged: 0,
    indexed: 0,
    resumed: 0,
    removed: 0,
    skipped: 0,
    readAhead: 0,
    bytesRead: 0,
    unreadable,
  };
  const todo: StoreFile[] = [];
  const seen = new Set<string>();
  let bytes = 0;
  for (const st of found) {
    seen.add(st.path);
    const k = known.get(st.path);
    if (k && sameIdentity(k, st)) stats.unchanged++;
    else {
      todo.push(st);
      bytes += k && st.size > k.indexedOffset ? st.size - k.indexedOffset : st.size;
    }
  }
  const gone = [...known.keys()].filter((path) => !seen.has(path));
  if (gone.length > 0)
    await db.batch(() => {
      for (const path of gone) {
        opts.signal?.throwIfAborted();
        db.deleteFile(path);
        stats.removed++;
      }
    });
  // Oldest change first: new files get their ids, and entries theirs, in that order, which the
  // ranking's windows follow (newest first).
  todo.sort((a, b) => a.mtimeMs - b.mtimeMs || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  if (todo.length > 0) opts.onStart?.(todo.length, bytes);
  // A large build reads the new files in a worker while this thread writes.
  const fresh = todo.filter((st) => !known.has(st.path));
  const wantWorker =
    opts.workers === true ||
    (opts.workers !== false &&
      availableParallelism() >= 2 &&
      fresh.reduce((n, st) => n + st.size, 0) >= WORKER_BYTES);
  let ahead = wantWorker ? ReadAhead.start(fresh) : undefined;
  try {
    let done = 0;
    let reported = 0;
    let ran = performance.now();
    while (done < todo.length) {
      const first = done;
      const before = { ...stats };
      try {
        let budget = opts.transactionBytes ?? TRANSACTION_BYTES;
        await db.batch(async () => {
          while (done < todo.length && budget > 0) {
            opts.signal?.throwIfAborted();
            const read = stats.bytesRead;
            const st = todo[done] as StoreFile;
            await indexFile(db, st, known.get(st.path), stats, opts.signal, ahead);
            budget -= Math.max(stats.bytesRead - read, 64 * 1024);
            done++;
            if (performance.now() - ran >= YIELD_EVERY_MS) {
              await new Promise((resolve) => setImmediate(resolve));
              ran = performance.now();
            }
            if (done > reported) {
              reported = done;
              opts.onProgress?.({ done, total: todo.length });
            }
          }
        });
      } catch (error) {
        if (error instanceof ReadAheadLostError) {
          // The worker stopped: the batch was undone; it is done again here, and the rest too.
          await ahead?.close();
          ahead = undefined;
          Object.assign(stats, before);
          done = first;
          continue;
        }
        const gone = (error as Error).name === "SessionFileNotRegularError" || isVanished(error);
        // Not the file system's (SQLite's errors have codes too): a real failure.
        if (!gone && !isFsError(error)) throw error;
        // The batch was undone. A file that vanished between its stat and its read, or was
        // replaced by a FIFO or a directory, leaves the index; one that cannot be read (EACCES,
        // EIO) leaves it too, and is reported. The batch is done again without it (the files
        // of it the worker had read are read here).
        const st = todo.splice(done, 1)[0] as StoreFile;
        if (ahead) for (let i = first; i < done; i++) ahead.forget(todo[i] as StoreFile);
        Object.assign(stats, before);
        db.deleteFile(st.path);
        if (gone) stats.removed++;
        else unreadable.push({ path: st.path, error: error as Error });
        done = first;
      }
    }
  } finally {
    await ahead?.close();
  }
  // A build (or most of the store read again) leaves its word index in many segments.
  const storeBytes = found.reduce((n, st) => n + st.size, 0);
  if (stats.indexed + stats.resumed > 0 && stats.bytesRead * 2 >= storeBytes) {
    opts.signal?.throwIfAborted();
    db.optimize();
  }
  return stats;
}

/** An error of a file system call (`EACCES`, `EIO`, ...): it has a code and names the call. */
function isFsError(error: unknown): boolean {
  const e = error as { code?: unknown; syscall?: unknown } | null;
  return typeof e?.code === "string" && typeof e.syscall === "string";
}

function isVanished(error: unknown): boolean {
  return (
    (error as { code?: unknown }).code === "ENOENT" || (error as Error).name === "SessionFileNotFoundError"
  );
}

/** Reads one entry's line again (for snippets and exact checks); undefined if it moved. */
export function readEntryLine(
  path: string,
  offset: number,
  length: number,
): Record<string, unknown> | undefined {
  const bytes = readFileBytes(path, offset, length);
  if (bytes.length !== length) return undefined;
  try {
    const value = JSON.parse(new TextDecoder().decode(bytes)) as unknown;
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
