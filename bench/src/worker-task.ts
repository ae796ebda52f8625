/**
 * What every task of the benchmark's worker shares: the task it is given ({@link Task}) and
 * `need`, which turns a missing layer, function or option into an "n/a" result. Use it in
 * each `worker-*.ts` module.
 */
import type { PeerKey } from "./layers.js";
import type { SdkOp } from "./worker-sdk.js";
import type { SearchOp } from "./worker-search.js";

export interface Task {
  kind: "parse" | "context" | "open" | "append" | "list" | "stats" | "malformed" | "sdk" | "search";
  mode: string;
  /** Which pi a `peer` task loads (default pi 1.6.0). */
  peer?: PeerKey;
  /** What an `sdk` or `search` task does (see {@link sdkTask}, {@link searchTask}). */
  op?: SdkOp | SearchOp;
  /** A `search` task's query. */
  query?: string;
  /** `list-cwd`: the cwd whose sessions are listed, and (for its ceiling) their directory. */
  cwd?: string;
  dir?: string;
  file?: string;
  root?: string;
  count?: number;
  iterations?: number;
  warmup?: number;
  cacheDir?: string;
  /** The open floor (`mode: "floor"`): threads, and whether lines are scanned or only found. */
  threads?: number;
  what?: string;
}

/** A layer, function or option a task needs is missing: the row says "n/a". */
export class NotAvailable extends Error {}

export function need<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new NotAvailable(what);
  return value;
}
