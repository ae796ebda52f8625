/**
 * The server's search answers: one execution for identical searches asked at the same time,
 * recent answers kept while the store is unchanged (its generation), and a search nobody waits
 * for any more (every asker's request closed: a superseded keystroke) dropped before it runs.
 * One already running finishes and its answer is kept: typing back asks for it again, and the
 * short prefixes typed first (the dearest searches) come back for every word that starts so.
 * Use one per server, over its source's search.
 */
import type { SearchResult } from "@pi-session/search";
import { type SearchJob, abortError } from "./search-pool.js";

/** What happened to the searches asked (shown by `/api/info`). */
export interface SearchCounters {
  asked: number;
  /** Answered from the answers kept. */
  kept: number;
  /** Joined an identical search already under way. */
  shared: number;
  /** Executions that ran to an answer (or an error). */
  ran: number;
  /** Executions dropped unrun: everyone asking had given up. */
  dropped: number;
}

interface Execution {
  runKey: string;
  controller: AbortController;
  waiters: number;
  text: Promise<string>;
}

export interface SearchAnswersOptions<R = SearchResult> {
  /** Runs a search; rejects with an `AbortError` when `signal` aborted before it started. */
  run: (job: SearchJob, signal: AbortSignal) => Promise<R>;
  /** The store's generation now (answers are kept per generation). */
  generation: () => number;
  /** The answer's JSON text. */
  format: (job: SearchJob, result: R) => string;
  /** Answers kept (default 500). */
  keep?: number;
}

export class SearchAnswers<R = SearchResult> {
  readonly counters: SearchCounters = { asked: 0, kept: 0, shared: 0, ran: 0, dropped: 0 };
  private readonly answers = new Map<string, { generation: number; text: string }>();
  private readonly running = new Map<string, Execution>();

  constructor(private readonly options: SearchAnswersOptions<R>) {}

  /**
   * The answer to `job` as JSON text. `signal`: the asker gave up (rejects with an
   * `AbortError`; the execution goes on while someone else waits for it).
   */
  answer(job: SearchJob, signal?: AbortSignal): Promise<string> {
    if (signal?.aborted) return Promise.reject(abortError());
    this.counters.asked++;
    const key = JSON.stringify([job.query, job.options]);
    const generation = this.options.generation();
    const known = this.answers.get(key);
    if (known?.generation === generation) {
      this.counters.kept++;
      // Most recently used last: the first is the one to forget.
      this.answers.delete(key);
      this.answers.set(key, known);
      return Promise.resolve(known.text);
    }
    const runKey = `${generation}\u0000${key}`;
    let execution = this.running.get(runKey);
    if (execution) this.counters.shared++;
    else execution = this.start(runKey, key, generation, job);
    return this.wait(execution, signal);
  }

  private start(runKey: string, key: string, generation: number, job: SearchJob): Execution {
    const controller = new AbortController();
    const text = this.options.run(job, controller.signal).then(
      (result) => {
        this.counters.ran++;
        const text = this.options.format(job, result);
        const keep = this.options.keep ?? 500;
        if (this.answers.size >= keep) this.answers.delete(this.answers.keys().next().value as string);
        this.answers.set(key, { generation, text });
        return text;
      },
      (error) => {
        if ((error as Error)?.name === "AbortError") this.counters.dropped++;
        else this.counters.ran++;
        throw error;
      },
    );
    const execution: Execution = { runKey, controller, waiters: 0, text };
    this.running.set(runKey, execution);
    text
      .finally(() => {
        if (this.running.get(runKey) === execution) this.running.delete(runKey);
      })
      .catch(() => undefined);
    return execution;
  }

  private wait(execution: Execution, signal: AbortSignal | undefined): Promise<string> {
    execution.waiters++;
    return new Promise<string>((resolve, reject) => {
      let settled = false;
      const leave = () => {
        if (settled) return;
        settled = true;
        execution.waiters--;
        if (execution.waiters === 0) {
          // Dropped if unrun; someone asking the same again starts anew rather than join it.
          execution.controller.abort();
          if (this.running.get(execution.runKey) === execution) this.running.delete(execution.runKey);
        }
        reject(abortError());
      };
      signal?.addEventListener("abort", leave, { once: true });
      execution.text.then(
        (text) => {
          signal?.removeEventListener("abort", leave);
          if (settled) return;
          settled = true;
          resolve(text);
        },
        (error) => {
          signal?.removeEventListener("abort", leave);
          if (settled) return;
          settled = true;
          reject(error);
        },
      );
    });
  }
}
