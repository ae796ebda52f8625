/**
 * The sessions `ls` shows, in its order: node-store's `listAllSessions` (pi's `SessionInfo`
 * rules, the metadata cache) over the whole store, then those of one project, newest first by
 * pi's `modified` (the last user or assistant message). `latest` is the first of them, so
 * `show latest` opens the top row of `ls`. Use {@link listStoreSessions} for any command that lists
 * or picks sessions the way `ls` does. From a directory pi has no sessions for (a project's
 * subdirectory), `nearestProject` lists the nearest enclosing directory that has some.
 */
import { dirname, join, resolve } from "node:path";
import {
  type SessionInfo,
  type SessionParent,
  encodeCwd,
  headerCwdMatches,
  listAllSessions,
  listStoreFiles,
  isInSubfolder,
  sessionParentOf,
} from "@pi-session/node-store";
import type { Progress } from "./io.js";
import { type NotSession, type Unreadable, unreadable } from "./unreadable.js";

export interface ListRequest {
  root: string;
  env: Record<string, string | undefined>;
  /** Every project's sessions (no project filter). */
  all: boolean;
  /** The directory whose project is listed (resolved against nothing: pass it absolute). */
  cwd: string;
  /**
   * Instead of `cwd`'s project: the sessions whose files are in this project folder of the
   * store (`<root>/--home-u-proj--`), whatever their headers say.
   */
  folder?: string;
  /** Use the listing cache (default true). */
  cache?: boolean;
  /**
   * When `cwd` has no sessions, list those of its nearest enclosing directory that has any
   * (`Listing.project` says which).
   */
  nearestProject?: boolean;
  progress?: Progress;
  /** Also find the files of the listed part that are no sessions (a second pass over the names). */
  notSessions?: boolean;
}

export interface Listing {
  /** The sessions, newest first (ties by path). */
  sessions: SessionInfo[];
  /** Every session of the store (for ids unique across it). */
  store: SessionInfo[];
  /** Files and directories of the listed part that could not be read. */
  unreadable: Unreadable[];
  /**
   * With `notSessions`: the `.jsonl` entries of the listed part left out because they hold no
   * session (empty, no header, or no regular file); else empty.
   */
  notSessions: NotSession[];
  /**
   * The directory whose sessions are listed (without `all`): `cwd`, or an enclosing one; for a
   * `folder`, its newest session's cwd (the folder itself when it has none).
   */
  project: string;
  /** The session each session of the store belongs under (a fork's, a subagent's parent), by path. */
  parents: Map<string, SessionParent>;
}

/**
 * The sessions of `sessions` shown on their own (as pi's session list nests them): those whose
 * parent is not among `sessions`. The others belong under their parent.
 */
export function topLevel(
  sessions: readonly SessionInfo[],
  parents: ReadonlyMap<string, SessionParent>,
): SessionInfo[] {
  const listed = new Set(sessions.map((s) => s.path));
  return sessions.filter((s) => {
    const parent = parents.get(s.path);
    return parent === undefined || !listed.has(parent.path);
  });
}

/** `cwd`'s enclosing directories, nearest first (`/a/b/c` -> `/a/b`, `/a`, `/`). */
function enclosingDirs(cwd: string): string[] {
  const dirs: string[] = [];
  for (let dir = cwd, up = dirname(dir); up !== dir; dir = up, up = dirname(up)) dirs.push(up);
  return dirs;
}

/** `ls`'s order: `modified` descending, then the path. */
export function byNewest(a: SessionInfo, b: SessionInfo): number {
  return b.modified.getTime() - a.modified.getTime() || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
}

/**
 * The store's sessions and, unless `all`, those whose header cwd is `cwd`. Unreadable items are
 * those of the listed part: everywhere with `all`, else in the root (a flat session dir) and
 * the project's own directory.
 */
export async function listStoreSessions(request: ListRequest): Promise<Listing> {
  const { root, progress } = request;
  const want = resolve(request.cwd);
  const folder = request.folder;
  const projectDir = folder ?? join(root, encodeCwd(want));
  const mine = (path: string) =>
    request.all ||
    (folder === undefined ? [root, projectDir] : [folder]).some(
      (dir) => path === dir || dirname(path) === dir,
    );
  const skipped: Unreadable[] = [];
  let store: SessionInfo[];
  try {
    // Files directly in the root (a custom session dir) and in its per-project directories.
    store = await listAllSessions(root, {
      layout: "auto",
      // Subagent sessions too (subfolders of the project directories), shown under their parents.
      subfolders: true,
      env: request.env,
      cache: request.cache === false ? false : {},
      ...(progress ? { onProgress: (loaded: number, total: number) => progress.update(loaded, total) } : {}),
      onUnreadable: (path, error) => {
        const item = unreadable(path, error) ?? { path, code: null, reason: error.message };
        if (mine(path)) skipped.push(item);
      },
    });
  } finally {
    progress?.end();
  }
  // pi's rule for a header's cwd (as the SDK's list filters a flat directory).
  const of = (dir: string) => store.filter((s) => headerCwdMatches(s.cwd, dir));
  let project = want;
  let sessions = request.all
    ? [...store]
    : folder !== undefined
      ? store.filter((s) => mine(s.path))
      : of(want);
  if (folder !== undefined) project = sessions.toSorted(byNewest)[0]?.cwd || folder;
  else if (!request.all && sessions.length === 0 && request.nearestProject === true) {
    for (const dir of enclosingDirs(want)) {
      const found = of(dir);
      if (found.length === 0) continue;
      project = dir;
      sessions = found;
      break;
    }
  }
  sessions.sort(byNewest);
  const notSessions = request.notSessions ? leftOut(root, store, skipped, mine) : [];
  return { sessions, store, unreadable: skipped, notSessions, project, parents: parentsOf(root, store) };
}

/** The parent of each session of `store` that has one (node-store's `sessionParentOf`). */
function parentsOf(root: string, store: readonly SessionInfo[]): Map<string, SessionParent> {
  const paths = new Set(store.map((s) => s.path));
  const out = new Map<string, SessionParent>();
  for (const s of store) {
    const parent = sessionParentOf(root, { path: s.path, headerParent: s.parentSessionPath }, (p) =>
      paths.has(p),
    );
    if (parent) out.set(s.path, parent);
  }
  return out;
}

/**
 * The entries of the listed part the listing passed by without a word (node-store leaves out
 * what has no header, as pi does): the candidates that are neither a session nor unreadable.
 */
function leftOut(
  root: string,
  store: readonly SessionInfo[],
  skipped: readonly Unreadable[],
  mine: (path: string) => boolean,
): NotSession[] {
  const known = new Set([...store.map((s) => s.path), ...skipped.map((s) => s.path)]);
  const out: NotSession[] = [];
  const files = listStoreFiles(root, {
    onNotRegular: (path) => {
      if (mine(path)) out.push({ path, kind: "not a regular file" });
    },
  });
  for (const f of files)
    if (mine(f.path) && !known.has(f.path) && !isInSubfolder(root, f.path))
      out.push({ path: f.path, kind: f.size === 0 ? "empty" : "not a session" });
  return out;
}
