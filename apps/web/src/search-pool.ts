/**
 * Where the server's searches run: a small pool of search threads (`search-worker.ts`, one
 * per core but one, at most 4), each with its own connection to the session database, so that
 * the list, sessions and static files never wait behind a search. Searches wait in one queue;
 * one whose caller gave up (its signal aborted) before a thread was free is dropped unrun. One
 * running is not stopped by its caller; it stops itself at its time limit (`budgetMs`, regexes
 * run in linear time), and a thread still busy well past that is ended and replaced, its search
 * failed, so no query holds a thread. When the database is replaced (rebuilt, or moved to
 * memory), the threads are too ({@link SearchPool.restart}).
 *
 * Without threads (the database is in memory, the worker script is not built next to this
 * module, as when tests run the sources, or a thread failed) a search runs on the server's
 * thread through the store's queue, with the same dropping. Use {@link SearchPool.start}.
 */
import { availableParallelism } from "node:os";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { statPath } from "@pi-session/node-store";
import { QuerySyntaxError, type SearchOptions, type SearchResult } from "@pi-session/search";
import type { SearchReplyMessage, SearchRequestMessage, SearchWorkerData } from "./search-worker.js";
import type { StoreView } from "./store-view.js";
import { type UsageCells, usageCells } from "./usage.js";

export interface SearchJob {
  query: string;
  options: SearchOptions;
}

/** What a thread is asked: a search, or the usage charts. */
type PoolJob = { kind: "search"; job: SearchJob } | { kind: "usage" };

interface Queued {
  job: PoolJob;
  /** When it was queued (performance.now()). */
  queuedAt: number;
  signal: AbortSignal | undefined;
  // biome-ignore lint/suspicious/noExplicitAny: a search's result or the charts, by the job's kind
  resolve: (result: any) => void;
  reject: (error: unknown) => void;
}

interface Thread {
  worker: Worker;
  busy: Queued | undefined;
  ready: boolean;
  /** Ends the thread when its search runs well past its time limit. */
  watchdog?: NodeJS.Timeout;
}

/** How long past its time limit a search may keep its thread before the thread is ended (ms). */
const OVERRUN_GRACE_MS = 5000;

/** The error of a search dropped because its caller gave up first. */
export function abortError(): Error {
  const error = new Error("the search was given up before it ran");
  error.name = "AbortError";
  return error;
}

function workerScript(): string | undefined {
  const url = new URL("./search-worker.js", import.meta.url);
  if (url.protocol !== "file:") return undefined;
  const path = fileURLToPath(url);
  try {
    return statPath(path)?.kind === "file" ? path : undefined;
  } catch {
    return undefined;
  }
}

/** Search threads for this machine: a core is left to the server's own thread. */
export function defaultThreads(): number {
  return Math.max(1, Math.min(4, availableParallelism() - 1));
}

/** Where the threads' time went (shown by `/api/info`, read by the load test). */
export interface PoolTimes {
  /** Searches answered by a thread. */
  answered: number;
  /** Their time in the threads (ms, wall clock, summed). */
  runMs: number;
  /** Their time waiting in the queue for a thread (ms, summed). */
  waitMs: number;
  /** The longest wait (ms). */
  maxWaitMs: number;
  /** The usage charts' time in the threads (ms). */
  usageMs: number;
}

export class SearchPool {
  readonly times: PoolTimes = { answered: 0, runMs: 0, waitMs: 0, maxWaitMs: 0, usageMs: 0 };
  private readonly queue: Queued[] = [];
  private readonly threads: Thread[] = [];
  private closed = false;

  private constructor(
    private readonly store: StoreView,
    private readonly wanted: number,
  ) {}

  /** A pool of `threads` search threads over `store`'s database (0: none, search in-thread). */
  static start(store: StoreView, threads = defaultThreads()): SearchPool {
    const pool = new SearchPool(store, threads);
    pool.spawn(threads);
    return pool;
  }

  /** Starts up to `count` threads over the store's database file (none for one in memory). */
  private spawn(count: number): void {
    const script = workerScript();
    const location = this.store.db.location;
    if (!script || location === ":memory:" || this.closed) return;
    for (let i = 0; i < count; i++) {
      const data: SearchWorkerData = { root: this.store.root, cacheDir: dirname(location) };
      let worker: Worker;
      try {
        worker = new Worker(script, { workerData: data });
      } catch {
        break;
      }
      worker.unref();
      const thread: Thread = { worker, busy: undefined, ready: false };
      worker.on("message", (message: SearchReplyMessage) => this.reply(thread, message));
      worker.on("error", () => this.lose(thread));
      worker.on("exit", () => this.lose(thread));
      this.threads.push(thread);
    }
  }

  /**
   * New threads for a database that was replaced: the old ones read the file set aside. What
   * they were running runs again (on the new threads, or here).
   */
  restart(): void {
    const running = this.threads.splice(0);
    for (const thread of running) {
      clearTimeout(thread.watchdog);
      thread.worker.removeAllListeners();
      void thread.worker.terminate();
      if (thread.busy) this.queue.unshift(thread.busy);
    }
    this.spawn(this.wanted);
    if (this.threads.length === 0) {
      for (const q of this.queue.splice(0)) this.inThread(q.job, q.signal).then(q.resolve, q.reject);
      return;
    }
    this.pump();
  }

  /** A thread still busy well past its search's time limit: ended, its search failed, a new one started. */
  private overrun(thread: Thread): void {
    const at = this.threads.indexOf(thread);
    if (at < 0) return;
    this.threads.splice(at, 1);
    thread.worker.removeAllListeners();
    void thread.worker.terminate();
    const job = thread.busy;
    thread.busy = undefined;
    const limit = job?.job.kind === "search" ? job.job.job.options.budgetMs : undefined;
    job?.reject(
      new Error(
        `the search ran past its time limit${limit !== undefined ? ` (${limit / 1000} s)` : ""} and was stopped`,
      ),
    );
    this.spawn(1);
    this.pump();
  }

  /** Search threads alive (0: searches run on the server's thread). */
  get size(): number {
    return this.threads.length;
  }

  /** Searches waiting for a thread. */
  get waiting(): number {
    return this.queue.length;
  }

  /** Runs a search; rejects with an `AbortError` if `signal` aborts before it starts. */
  search(job: SearchJob, signal?: AbortSignal): Promise<SearchResult> {
    return this.run({ kind: "search", job }, signal);
  }

  /**
   * The usage charts' cells (`usageCells`: one pass of `stats`), in a thread like a search: a
   * pass takes tenths of a second the server's thread need not wait.
   */
  usage(): Promise<UsageCells> {
    return this.run({ kind: "usage" }, undefined);
  }

  private run<T>(job: PoolJob, signal: AbortSignal | undefined): Promise<T> {
    if (signal?.aborted) return Promise.reject(abortError());
    if (this.threads.length === 0 || this.closed) return this.inThread(job, signal);
    return new Promise((resolve, reject) => {
      const queued: Queued = { job, signal, resolve, reject, queuedAt: performance.now() };
      // The charts (one job per change of the store, every usage page waiting on it) go first:
      // behind a queue of keystrokes' searches they would wait seconds.
      if (job.kind === "usage") this.queue.unshift(queued);
      else this.queue.push(queued);
      this.pump();
    });
  }

  /** On the server's thread, after the database calls queued before it. */
  // biome-ignore lint/suspicious/noExplicitAny: a search's result or the charts, by the job's kind
  private inThread(job: PoolJob, signal: AbortSignal | undefined): Promise<any> {
    return this.store.exclusive((): Promise<unknown> => {
      if (signal?.aborted) throw abortError();
      return job.kind === "usage"
        ? usageCells(this.store.db)
        : this.store.db.search(job.job.query, job.job.options);
    });
  }

  private nextJob(): Queued | undefined {
    for (;;) {
      const next = this.queue.shift();
      if (!next) return undefined;
      if (!next.signal?.aborted) return next;
      next.reject(abortError());
    }
  }

  private pump(): void {
    for (const thread of this.threads) {
      if (!thread.ready || thread.busy) continue;
      const next = this.nextJob();
      if (!next) return;
      thread.busy = next;
      const limit = next.job.kind === "search" ? next.job.job.options.budgetMs : undefined;
      if (limit !== undefined) {
        thread.watchdog = setTimeout(() => this.overrun(thread), limit + OVERRUN_GRACE_MS);
        thread.watchdog.unref();
      }
      const waited = performance.now() - next.queuedAt;
      this.times.waitMs += waited;
      this.times.maxWaitMs = Math.max(this.times.maxWaitMs, waited);
      const message: SearchRequestMessage =
        next.job.kind === "usage"
          ? { kind: "usage" }
          : { kind: "search", query: next.job.job.query, options: next.job.job.options };
      thread.worker.postMessage(message);
    }
  }

  private reply(thread: Thread, message: SearchReplyMessage): void {
    if (message.kind === "ready") {
      thread.ready = true;
      this.pump();
      return;
    }
    if (message.kind === "failed") {
      void thread.worker.terminate();
      return;
    }
    const done = thread.busy;
    thread.busy = undefined;
    clearTimeout(thread.watchdog);
    if (done) {
      if (message.kind === "result") {
        this.times.answered++;
        this.times.runMs += message.ms;
        done.resolve(message.result);
      } else if (message.kind === "usage") {
        this.times.usageMs += message.ms;
        done.resolve(message.cells);
      } else if (message.error.name === "QuerySyntaxError")
        done.reject(new QuerySyntaxError(message.error.message));
      // Anything else (a damaged database, say): once more here, where it can be recovered from.
      else this.inThread(done.job, undefined).then(done.resolve, done.reject);
    }
    this.pump();
  }

  /** A thread that failed or exited: its search and, with no thread left, the queue run here. */
  private lose(thread: Thread): void {
    const at = this.threads.indexOf(thread);
    if (at < 0) return;
    this.threads.splice(at, 1);
    clearTimeout(thread.watchdog);
    const orphans = thread.busy ? [thread.busy] : [];
    thread.busy = undefined;
    if (this.threads.length === 0) orphans.push(...this.queue.splice(0));
    for (const q of orphans) this.inThread(q.job, q.signal).then(q.resolve, q.reject);
    this.pump();
  }

  close(): void {
    this.closed = true;
    for (const q of this.queue.splice(0)) q.reject(abortError());
    for (const thread of this.threads.splice(0)) {
      clearTimeout(thread.watchdog);
      thread.busy?.reject(abortError());
      thread.worker.postMessage("close");
      void thread.worker.terminate();
    }
  }
}
