/**
 * `SessionManager.list` and `listAll` on node-store's listing: pi 1.6.0's arguments (an
 * optional progress callback and abort signal, `listAll`'s optional leading `sessionDir`)
 * turned into listing options, and the cache opt-out read from the environment.
 */
import {
  getDefaultSessionsRoot,
  listAllSessions,
  listSessionDir,
  listSessions,
  resolvePiPath,
} from "@pi-session/node-store";
import type { SessionInfo, SessionListProgress } from "../types.js";

/** Set to `1` (or `true`) to list without the metadata cache (nothing read from or written to it). */
export const ENV_NO_CACHE = "PI_SESSION_NO_CACHE";

interface ListOpts {
  onProgress?: SessionListProgress;
  signal?: AbortSignal;
  cache?: false;
}

/** node-store listing options from pi's optional progress callback and signal (and the cache opt-out). */
function listOptions(onProgress: SessionListProgress | undefined, signal: AbortSignal | undefined): ListOpts {
  const options: ListOpts = {};
  if (onProgress) options.onProgress = onProgress;
  if (signal) options.signal = signal;
  const noCache = process.env[ENV_NO_CACHE];
  if (noCache === "1" || noCache === "true") options.cache = false;
  return options;
}

/** Sessions of `cwd` in `dir`, newest first (a flat custom directory is filtered by header cwd). */
export function listSessionsOf(
  cwd: string,
  dir: string,
  onProgress: SessionListProgress | undefined,
  signal: AbortSignal | undefined,
): Promise<SessionInfo[]> {
  return listSessions(resolvePiPath(cwd), { sessionDir: dir, ...listOptions(onProgress, signal) });
}

/**
 * `listAll`'s arguments as pi takes them: `(onProgress?, signal?)` or
 * `(sessionDir?, onProgress?, signal?)`.
 */
export async function listAllAsPi(
  sessionDirOrOnProgress: string | SessionListProgress | undefined,
  onProgressOrSignal: SessionListProgress | AbortSignal | undefined,
  signal: AbortSignal | undefined,
): Promise<SessionInfo[]> {
  const dir = typeof sessionDirOrOnProgress === "string" ? resolvePiPath(sessionDirOrOnProgress) : undefined;
  const progress =
    typeof sessionDirOrOnProgress === "function"
      ? sessionDirOrOnProgress
      : typeof onProgressOrSignal === "function"
        ? onProgressOrSignal
        : undefined;
  const abortSignal =
    typeof sessionDirOrOnProgress === "string" || typeof onProgressOrSignal === "function"
      ? signal
      : (onProgressOrSignal ?? signal);
  abortSignal?.throwIfAborted();
  const options = listOptions(progress, abortSignal);
  if (dir) return listSessionDir(dir, options);
  // pi lists the per-cwd directories of the default root only.
  return listAllSessions(getDefaultSessionsRoot(), { ...options, layout: "per-cwd" });
}
