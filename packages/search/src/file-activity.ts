/**
 * File activity as callers use it: the sessions that read, edited or wrote a file (or anything
 * under a directory), newest first, and the files one session touched, changes first. Built
 * from the stored touches (`SessionDatabase.touches`); the session database is brought up to
 * date first by its caller (`sync`). Use through `SearchDatabase.fileActivity` and
 * `SearchDatabase.sessionFiles`.
 */
import type { SessionDatabase, SessionMeta, TouchRow } from "./database.js";
import { FILE_ACTIONS, type FileAction } from "./documents/index.js";

/** One touch of a file, as reported. */
export interface FileTouchHit {
  entryId: string | null;
  /** Line of the entry in its session file (1-based). */
  line: number;
  tool: string;
  action: FileAction;
  /** The file touched (resolved against the session's cwd). */
  path: string;
  timeMs: number | null;
  /** On the session's current branch (false: an abandoned one). */
  onBranch: boolean;
}

/** A session that touched the file (or the directory's files), with its touches in file order. */
export interface SessionTouches {
  /** The session file. */
  path: string;
  meta: SessionMeta;
  touches: FileTouchHit[];
  /** The time of its latest touch (ms), else its `modified`. */
  lastMs: number;
}

/** One file a session touched, with how. */
export interface TouchedFile {
  path: string;
  /** Touches by action. */
  counts: Record<FileAction, number>;
  touches: FileTouchHit[];
  lastMs: number;
}

export interface FileActivityOptions {
  /** Touches on abandoned branches too (default: each session's current branch only). */
  allBranches?: boolean;
}

function hitOf(r: TouchRow): FileTouchHit {
  return {
    entryId: r.entryId,
    line: r.line,
    tool: r.tool,
    action: r.action,
    path: r.path,
    timeMs: r.timeMs,
    onBranch: r.onBranch,
  };
}

function latest(touches: readonly FileTouchHit[], fallback: number): number {
  let last = Number.NEGATIVE_INFINITY;
  for (const t of touches) if (t.timeMs !== null && t.timeMs > last) last = t.timeMs;
  return Number.isFinite(last) ? last : fallback;
}

/** The sessions whose tool calls touched `path` (absolute) or a path under it, newest first. */
export function fileActivity(
  db: SessionDatabase,
  path: string,
  options: FileActivityOptions = {},
): SessionTouches[] {
  const bySession = new Map<string, FileTouchHit[]>();
  for (const r of db.touches({ path, allBranches: options.allBranches === true })) {
    const list = bySession.get(r.sessionPath);
    if (list) list.push(hitOf(r));
    else bySession.set(r.sessionPath, [hitOf(r)]);
  }
  const out: SessionTouches[] = [];
  for (const [sessionPath, touches] of bySession) {
    const meta = db.file(sessionPath)?.meta;
    if (!meta) continue;
    out.push({ path: sessionPath, meta, touches, lastMs: latest(touches, meta.modifiedMs) });
  }
  return out.sort((a, b) => b.lastMs - a.lastMs || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The rank of a file in a session's list: written, then edited, then only read. */
function changeRank(f: TouchedFile): number {
  const i = FILE_ACTIONS.findIndex((a) => f.counts[a] > 0);
  return i < 0 ? FILE_ACTIONS.length : i;
}

/**
 * The files one session (its file's path) touched: written first, then edited, then read,
 * each group by its latest touch, newest first.
 */
export function sessionFiles(
  db: SessionDatabase,
  sessionPath: string,
  options: FileActivityOptions = {},
): TouchedFile[] {
  const byPath = new Map<string, TouchedFile>();
  for (const r of db.touches({ sessionPath, allBranches: options.allBranches === true })) {
    let f = byPath.get(r.path);
    if (!f) {
      f = { path: r.path, counts: { read: 0, edit: 0, write: 0 }, touches: [], lastMs: 0 };
      byPath.set(r.path, f);
    }
    f.counts[r.action]++;
    f.touches.push(hitOf(r));
  }
  const files = [...byPath.values()];
  for (const f of files) f.lastMs = latest(f.touches, Number.NEGATIVE_INFINITY);
  return files.sort(
    (a, b) =>
      changeRank(a) - changeRank(b) ||
      b.lastMs - a.lastMs ||
      (a.path < b.path ? -1 : a.path > b.path ? 1 : 0),
  );
}
