/**
 * The session directories as pi 1.6.0's `SessionManager` finds files in them: the per-cwd
 * default directory (created on use, as pi), a custom directory given instead, the newest
 * session (`continueRecent`, `findMostRecentSession`) and a session by id (`findById`). A
 * custom flat directory may hold sessions of many projects: then a header's cwd decides.
 */
import {
  ensureSessionDir,
  getAgentDir,
  getDefaultSessionsRoot,
  headerCwdMatches,
  listStoreFiles,
  pathsEqual,
  resolvePiPath,
  scanHeaderSync,
  sessionDirForCwd,
} from "@pi-session/node-store";

/** The per-cwd directory `<agentDir>/sessions/--<cwd>--`, without creating it. */
export function defaultSessionDirPath(cwd: string, agentDir: string = getAgentDir()): string {
  return sessionDirForCwd(resolvePiPath(cwd), getDefaultSessionsRoot(resolvePiPath(agentDir)));
}

/** The per-cwd session directory, created if missing (as pi does). */
export function getDefaultSessionDir(cwd: string, agentDir: string = getAgentDir()): string {
  const dir = defaultSessionDirPath(cwd, agentDir);
  ensureSessionDir(dir);
  return dir;
}

/** The directory a static method works in: `sessionDir` resolved, else cwd's default (created). */
export function sessionDirOf(cwd: string, sessionDir: string | undefined): string {
  return sessionDir ? resolvePiPath(sessionDir) : getDefaultSessionDir(cwd);
}

/**
 * The cwd whose sessions a lookup keeps, or undefined for all: a custom directory that is not
 * cwd's default one may hold other projects' sessions, so their headers' cwd is checked.
 */
export function cwdFilterOf(cwd: string, sessionDir: string | undefined, dir: string): string | undefined {
  return sessionDir !== undefined && !pathsEqual(dir, defaultSessionDirPath(cwd)) ? cwd : undefined;
}

/** Does a header's `cwd` name the (resolved) directory `resolvedCwd`? pi's rule, node-store's `headerCwdMatches`. */
function cwdMatches(cwd: unknown, resolvedCwd: string): boolean {
  return typeof cwd === "string" && headerCwdMatches(cwd, resolvedCwd);
}

/** The header of a file, or null when it has none, cannot be read, or is over the scan limit. */
export function headerOrNull(path: string): ReturnType<typeof scanHeaderSync> {
  try {
    return scanHeaderSync(path);
  } catch {
    return null;
  }
}

/** The `.jsonl` regular files directly in `dir` (none when it cannot be read). */
function sessionFilesIn(dir: string): { path: string; mtimeMs: number }[] {
  return listStoreFiles(dir, { layout: "flat" });
}

/** Newest `.jsonl` regular file (by mtime) with a valid header, optionally of one cwd; `null` if none. */
export function findMostRecentSession(sessionDir: string, cwd?: string): string | null {
  const resolvedCwd = cwd ? resolvePiPath(cwd) : undefined;
  // Only regular files are sessions (a FIFO named `*.jsonl` is never opened).
  const files = sessionFilesIn(resolvePiPath(sessionDir)).sort((a, b) => b.mtimeMs - a.mtimeMs);
  for (const { path } of files) {
    const header = headerOrNull(path);
    if (header && (!resolvedCwd || cwdMatches(header.cwd, resolvedCwd))) return path;
  }
  return null;
}

/** The first file (by name) in `dir` whose header has session id `id` (and, if given, cwd). */
export function findSessionById(dir: string, id: string, cwd: string | undefined): string | undefined {
  const resolvedCwd = cwd === undefined ? undefined : resolvePiPath(cwd);
  const paths = sessionFilesIn(dir)
    .map((file) => file.path)
    .sort();
  for (const path of paths) {
    const header = headerOrNull(path);
    if (header?.id !== id) continue;
    if (resolvedCwd !== undefined && !cwdMatches(header.cwd, resolvedCwd)) continue;
    return path;
  }
  return undefined;
}
