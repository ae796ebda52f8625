/**
 * A small pool of listing workers (`list-worker.js`), created for one listing and closed at
 * its end. Files are dealt to the least busy worker; each worker reads and parses whole
 * files. A worker that dies rejects its tasks with {@link WorkerLostError} (the caller then
 * lists those files itself); {@link ListPool.close} terminates every worker.
 */
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import type { Worker } from "node:worker_threads";
import type { CachedFile } from "./cache.js";
import type { FileStat } from "../fs/file-stat.js";
import type { FileCounters, FileResult, TextSource } from "./load-file.js";

/** A task sent to a worker. */
export interface PoolRequest {
  id: number;
  path: string;
  stat: FileStat;
  cached?: CachedFile;
  texts?: TextSource;
}

/** A worker's answer. */
export interface PoolReply {
  id: number;
  ok: boolean;
  info?: FileResult["info"];
  cache?: CachedFile;
  /** The cache text when it differs from `info.allMessagesText`. */
  text?: string;
  /** The cache text is `info.allMessagesText`. */
  sameText?: boolean;
  error?: string;
  counters: FileCounters;
}

/** A pool task failed because its worker stopped (not because of the file). */
export class WorkerLostError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WorkerLostError";
  }
}

/** A file task failed inside the worker (the file is skipped, as in-process). */
export class WorkerTaskError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WorkerTaskError";
  }
}

interface Pending {
  resolve: (r: FileResult & { counters: FileCounters }) => void;
  reject: (e: Error) => void;
}

interface Slot {
  worker: Worker;
  pending: Map<number, Pending>;
  alive: boolean;
  /** Counted out of {@link liveListWorkers} already. */
  gone: boolean;
}

let live = 0;

/** Listing workers of this process that have not exited yet (tests check it drops to 0). */
export function liveListWorkers(): number {
  return live;
}

function gone(slot: Slot): void {
  if (slot.gone) return;
  slot.gone = true;
  live--;
}

const WORKER_URL = new URL("./list-worker.js", import.meta.url);

/** Default pool size: the cores available, at most 4. */
export function defaultPoolSize(): number {
  return Math.min(availableParallelism(), 4);
}

export class ListPool {
  private readonly slots: Slot[] = [];
  private nextId = 1;
  private closed = false;
  private closing: Promise<void> | undefined;

  private constructor(size: number) {
    for (let k = 0; k < size; k++) this.spawn();
  }

  /**
   * A pool of `size` workers, or undefined when the worker script is not there (running from
   * the TypeScript sources, e.g. under a test runner) or workers cannot start.
   */
  static open(size: number): ListPool | undefined {
    if (size < 1) return undefined;
    try {
      if (!existsSync(fileURLToPath(WORKER_URL))) return undefined;
      return new ListPool(size);
    } catch {
      return undefined;
    }
  }

  private spawn(): void {
    // Taken when a worker starts: listings too small for threads never load them.
    const { Worker } = process.getBuiltinModule("node:worker_threads");
    const worker: Worker = new Worker(WORKER_URL);
    live++;
    const slot: Slot = { worker, pending: new Map(), alive: true, gone: false };
    worker.on("message", (reply: PoolReply) => {
      const p = slot.pending.get(reply.id);
      if (!p) return;
      slot.pending.delete(reply.id);
      if (!reply.ok) {
        const err = new WorkerTaskError(reply.error ?? "listing failed");
        (err as { counters?: FileCounters }).counters = reply.counters;
        p.reject(err);
        return;
      }
      const result: FileResult & { counters: FileCounters } = {
        info: reply.info ?? null,
        counters: reply.counters,
      };
      if (reply.cache) result.cache = reply.cache;
      if (reply.text !== undefined) result.text = reply.text;
      else if (reply.sameText) result.text = reply.info?.allMessagesText ?? "";
      p.resolve(result);
    });
    const lost = (why: string): void => {
      slot.alive = false;
      for (const p of slot.pending.values()) p.reject(new WorkerLostError(why));
      slot.pending.clear();
    };
    worker.on("error", (err) => lost(`listing worker failed: ${String(err)}`));
    worker.on("exit", (code) => {
      gone(slot);
      lost(`listing worker exited (${code})`);
    });
    this.slots.push(slot);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Lists one file in the least busy worker. */
  run(task: Omit<PoolRequest, "id">): Promise<FileResult & { counters: FileCounters }> {
    let best: Slot | undefined;
    for (const s of this.slots) {
      if (s.alive && (best === undefined || s.pending.size < best.pending.size)) best = s;
    }
    if (this.closed || !best) return Promise.reject(new WorkerLostError("no listing worker"));
    const slot = best;
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      slot.pending.set(id, { resolve, reject });
      slot.worker.postMessage({ ...task, id } satisfies PoolRequest);
    });
  }

  /** Terminates every worker; tasks still running are rejected with {@link WorkerLostError}. */
  close(): Promise<void> {
    if (!this.closing) {
      this.closed = true;
      this.closing = Promise.all(
        this.slots.map(async (s) => {
          s.worker.unref();
          await s.worker.terminate();
          gone(s);
        }),
      ).then(() => undefined);
    }
    return this.closing;
  }
}

/** "auto" workers: least number of files to read. */
export const WORKER_MIN_FILES = 8;
/** "auto" workers: least number of bytes to read. */
export const WORKER_MIN_BYTES = 16 * 1024 * 1024;
/**
 * "auto" workers: least number of cores. On two, this thread scanning while the thread pool
 * reads already keeps both busy (decision 011).
 */
export const WORKER_MIN_CORES = 3;
/** The core threshold in force (tests lower it to exercise "auto" on a small machine). */
export const autoPool = { minCores: WORKER_MIN_CORES };

/** Whether "auto" workers pay for `files` files to read, `bytes` in all, on this machine. */
export function autoPoolPays(files: number, bytes: number): boolean {
  return (
    files >= WORKER_MIN_FILES && bytes >= WORKER_MIN_BYTES && availableParallelism() >= autoPool.minCores
  );
}

/** Bytes a file to read will cost: all of it, or what it grew by since its cache entry. */
export function bytesToRead({ st, cached }: { st: FileStat; cached: CachedFile | undefined }): number {
  return Math.max(0, st.size - (cached && cached.size <= st.size ? cached.offset : 0));
}

/** The worker pool for this listing, if it should have one. */
export function openPool(
  todo: readonly { st: FileStat; cached: CachedFile | undefined }[],
  workers: "auto" | number,
): ListPool | undefined {
  if (workers === 0 || todo.length === 0) return undefined;
  let bytes = 0;
  for (const t of todo) bytes += bytesToRead(t);
  if (workers === "auto") {
    if (!autoPoolPays(todo.length, bytes)) return undefined;
    return ListPool.open(Math.min(defaultPoolSize(), todo.length));
  }
  return ListPool.open(Math.min(Math.max(1, Math.floor(workers)), todo.length));
}
