/**
 * The options and counters of a listing (`listSessions`, `listSessionDir`, `listAllSessions`).
 */
import type { Env } from "../layout/sessions-root.js";
import type { SessionInfo } from "./info.js";

/** Counters for tests and benchmarks. */
export interface ListStats {
  /** Bytes read from session files (probes included). */
  bytesRead: number;
  /** Files parsed from the start. */
  filesParsed: number;
  /** Files parsed from a cached offset. */
  filesResumed: number;
  /** Files answered from the cache without reading their content. */
  filesCached: number;
}

export function newListStats(): ListStats {
  return { bytesRead: 0, filesParsed: 0, filesResumed: 0, filesCached: 0 };
}

/** `(loaded, total, partial?)`: `partial` is a sorted snapshot, published at pi's intervals. */
export type ListProgress = (loaded: number, total: number, partial?: SessionInfo[]) => void;

export interface ListOptions {
  onProgress?: ListProgress;
  signal?: AbortSignal;
  /** Files parsed at once (default 10, as pi). */
  concurrency?: number;
  /**
   * The metadata cache: `false` disables it; `{ dir }` puts it elsewhere. Default: on, in
   * `$XDG_CACHE_HOME/pi-session` (else `~/.cache/pi-session`).
   */
  cache?: false | { dir?: string };
  env?: Env;
  stats?: ListStats;
  /**
   * Called for each candidate file or directory the listing leaves out because it cannot read
   * it (no permission, a dangling link, gone while listed), with the error. pi leaves these
   * out silently, and so does the listing; this says which and why. Not called for what is not
   * a session: a FIFO, socket, device or directory named `.jsonl` (never opened), a file that
   * is read and has no header; nor for a missing listed directory.
   */
  onUnreadable?: (path: string, error: Error) => void;
}

export interface ListSessionsOptions extends ListOptions {
  /** A custom session dir (pi's `sessionDir` argument): flat, filtered by header cwd. */
  sessionDir?: string;
  /** Agent dir for the default per-cwd dir (default {@link getAgentDir}(env)). */
  agentDir?: string;
}

export interface ListAllOptions extends ListOptions {
  /**
   * Which files to list under the root: `per-cwd` = `.jsonl` files in its subdirectories (pi's
   * default root), `flat` = `.jsonl` files directly in it (pi's custom session dir), `auto`
   * (default) = both.
   */
  layout?: "auto" | "per-cwd" | "flat";
  agentDir?: string;
}

/** A listing's options with what it derived from them (internal). */
export interface ListRun extends ListOptions {
  /** The listed directory, resolved (it names the cache index). */
  listedDir: string;
  /** The cache directory, unless the cache is off. */
  cacheDir: string | undefined;
  publishEvery: number;
  /** listAll publishes only once the newest candidate is loaded (pi). */
  waitForFirst: boolean;
}
