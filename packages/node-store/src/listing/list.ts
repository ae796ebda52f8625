/**
 * Listing sessions with pi 1.6.0's results (`SessionManager.list` / `listAll`): the same
 * `SessionInfo` fields, the same cwd filtering and order, bounded concurrency, a progress
 * callback and an `AbortSignal` — plus a metadata cache so unchanged files are not re-read and
 * grown files are read only from where the cache left off.
 *
 * A warm listing (nothing changed) costs little more than one `stat` per file: the cache index
 * and the subdirectories are read on the thread pool while this thread stats the files of each
 * directory that has arrived, in batches; each file is checked against the index as it is
 * statted, or when the index arrives (its numbers kept in typed columns, no object per file),
 * and the files the index covers are answered from its columns in a second pass, one loop for
 * all; the results come out in the order the index remembers, which is checked, not sorted.
 */
import { type Dirent, readdirSync } from "node:fs";
import { stat } from "node:fs/promises";
import { basename, join, resolve, sep } from "node:path";
import { SessionFileNotRegularError } from "../errors.js";
import { nonRegularKind, unreadableError } from "../fs/regular-files.js";
import { getAgentDir, sessionDirForCwd } from "../layout/sessions-root.js";
import { headerCwdMatches, pathsEqual, resolvePiPath } from "../layout/pi-paths.js";
import { defaultCacheDir } from "./cache-dir.js";
import { readIndexFile } from "./cache.js";
import { CacheIndex } from "./cache-index.js";
import { finishListing } from "./finish-listing.js";
import type { SessionInfo } from "./info.js";
import { loadFile } from "./load-file.js";
import {
  type ListAllOptions,
  type ListOptions,
  type ListProgress,
  type ListSessionsOptions,
  type ListStats,
  type ListRun,
  newListStats,
} from "./options.js";
import { collator, sortInfos, sortListed } from "./sort.js";
import { StatPass, statAll } from "./stat-pass.js";

export type { SessionInfo } from "./info.js";

function runOptions(
  opts: ListOptions,
  listedDir: string,
  publishEvery: number,
  waitForFirst: boolean,
): ListRun {
  const cacheDir =
    opts.cache === false ? undefined : (opts.cache?.dir ?? defaultCacheDir(opts.env ?? process.env));
  return { ...opts, listedDir, cacheDir, publishEvery, waitForFirst };
}

/** The cache index being read (see `readIndexFile`), decoded; `undefined` when there is none. */
async function indexOf(
  run: ListRun,
  bytes: Promise<Buffer | undefined> | undefined,
): Promise<CacheIndex | undefined> {
  const b = await bytes;
  try {
    return b === undefined ? undefined : CacheIndex.decode(b, run.listedDir);
  } catch {
    // Damaged beyond what decoding checks: no cache.
    return undefined;
  }
}

/** `dir/name` for a normalized `dir` and a plain file name (what `join` gives, without its cost). */
function childPath(dir: string, name: string): string {
  return dir.endsWith(sep) ? `${dir}${name}` : `${dir}${sep}${name}`;
}

/**
 * Adds the `.jsonl` files `names` of `dir` (a normalized path) to a listing's first pass (see
 * {@link StatPass.addNames}). Paths that must be built are built as one string and split: no
 * concatenation per file, and flat strings (a `stat` call would flatten each concatenation).
 */
function addDirectory(pass: StatPass, dir: string, names: readonly string[]): Promise<void> {
  return pass.addNames(dir.endsWith(sep) ? dir : `${dir}${sep}`, names);
}

const isJsonl = (name: string): boolean => name.endsWith(".jsonl");

/** The names of the `.jsonl` files directly in `dir`; none if it cannot be read (reported). */
function jsonlNamesIn(dir: string, onUnreadable: ListOptions["onUnreadable"]): string[] {
  try {
    return readdirSync(dir).filter(isJsonl);
  } catch (err) {
    reportUnreadableDir(dir, err, onUnreadable);
    return [];
  }
}

/** Reports a directory that cannot be read, unless it is simply not there. */
function reportUnreadableDir(dir: string, err: unknown, onUnreadable: ListOptions["onUnreadable"]): void {
  if ((err as { code?: unknown }).code !== "ENOENT") onUnreadable?.(dir, err as Error);
}

/**
 * Reports the candidates left out at their stat because it failed (a dangling link, no
 * permission), with why; not those left out for not being regular files.
 */
function reportUnstatted(pass: StatPass, onUnreadable: ListOptions["onUnreadable"]): void {
  if (!onUnreadable) return;
  const { paths, mtimes } = pass;
  for (let i = 0; i < paths.length; i++) {
    if (mtimes[i] !== Number.NEGATIVE_INFINITY) continue;
    const path = paths[i] as string;
    const error = unreadableError(path);
    if (error) onUnreadable(path, error);
  }
}

/**
 * Lists the sessions directly in `dir` (no cwd filter): pi's `listSessionsFromDir`, with
 * files sorted by name descending before loading and results by `modified` descending.
 * A missing directory gives `[]`.
 */
export async function listSessionDir(dir: string, opts: ListOptions = {}): Promise<SessionInfo[]> {
  opts.signal?.throwIfAborted();
  const resolved = resolve(dir);
  const run = runOptions(opts, resolved, 10, false);
  // The cache index is read on the thread pool while this thread walks the directory.
  const indexBytes = run.cacheDir === undefined ? undefined : readIndexFile(run.cacheDir, resolved);
  const names: string[] = [];
  try {
    for (const n of readdirSync(dir)) if (n.endsWith(".jsonl")) names.push(n);
  } catch (err) {
    // A missing directory lists nothing; one that cannot be read is reported.
    reportUnreadableDir(dir, err, opts.onUnreadable);
  }
  // pi's candidate order is names descending by the collator. With progress the partial
  // results follow it from the start; without, it only breaks ties of `modified` (as in
  // `listAll`), so the names go in code-unit order (any fixed order keeps the cache aligned)
  // and the final sort asks the collator, costly to make (decision 031), for ties alone.
  const progressed = opts.onProgress !== undefined;
  if (progressed) names.sort((a, b) => collator().compare(b, a));
  else names.sort();
  const paths = names.map((n) => join(dir, n));
  const keys = names.map((n) => childPath(resolved, n));
  const preStats = opts.onProgress ? await statAll(paths, opts.signal) : undefined;
  const pass = new StatPass(opts.signal, false);
  const ready = indexOf(run, indexBytes).then((index) => pass.setIndex(index));
  // Awaited below; if the listing stops first (abort), its failure must not go unhandled.
  ready.catch(() => {});
  await pass.add(paths, keys, keys.join("\0"), preStats);
  await ready;
  reportUnstatted(pass, opts.onUnreadable);
  const listed = await finishListing(pass, run);
  if (progressed) return sortListed(listed);
  return sortListed(listed, (a, b) => collator().compare(names[b] as string, names[a] as string));
}

/**
 * pi's `SessionManager.list(cwd, sessionDir?)`: without `sessionDir`, the sessions of the
 * default per-cwd directory `<agentDir>/sessions/--<cwd>--`; with a custom `sessionDir` that
 * is not that directory, the sessions in it whose header cwd resolves to `cwd`.
 */
export async function listSessions(cwd: string, opts: ListSessionsOptions = {}): Promise<SessionInfo[]> {
  const agentDir = opts.agentDir ?? getAgentDir(opts.env ?? process.env);
  const defaultDir = sessionDirForCwd(cwd, join(resolvePiPath(agentDir), "sessions"));
  // As pi: an empty `sessionDir` means the default directory (unfiltered), `~` and `file://`
  // are understood, and any other directory is filtered unless it is the default one.
  const dir = opts.sessionDir ? resolvePiPath(opts.sessionDir) : defaultDir;
  const filterCwd = opts.sessionDir !== undefined && !pathsEqual(dir, defaultDir);
  // pi's header-cwd filter (`sessionCwdMatches`): both sides resolved by pi's `resolvePath`.
  const resolvedCwd = resolvePiPath(cwd);
  const include = (s: SessionInfo): boolean => !filterCwd || headerCwdMatches(s.cwd, resolvedCwd);
  const onProgress = opts.onProgress;
  const progress: ListProgress | undefined = onProgress
    ? (loaded, total, partial) => onProgress(loaded, total, partial?.filter(include))
    : undefined;
  const listOpts: ListOptions = { ...opts };
  if (progress) listOpts.onProgress = progress;
  const sessions = (await listSessionDir(dir, listOpts)).filter(include);
  return sortInfos(sessions);
}

/**
 * pi's `SessionManager.listAll`: every session under `root` (default `<agentDir>/sessions`),
 * candidates ordered by mtime descending then name, results by `modified` descending. See
 * {@link ListAllOptions.layout} for which files count.
 */
export async function listAllSessions(root?: string, opts: ListAllOptions = {}): Promise<SessionInfo[]> {
  opts.signal?.throwIfAborted();
  // As pi: an empty `root` means the default one; `~` and `file://` are understood.
  const dir = root
    ? resolvePiPath(root)
    : join(resolvePiPath(opts.agentDir ?? getAgentDir(opts.env ?? process.env)), "sessions");
  const layout = opts.layout ?? "auto";
  const run = runOptions(opts, dir, 100, true);
  // The cache index is read on the thread pool while this thread walks the directories.
  const indexBytes = run.cacheDir === undefined ? undefined : readIndexFile(run.cacheDir, dir);
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    reportUnreadableDir(dir, err, opts.onUnreadable);
    return [];
  }
  const flat: string[] = [];
  const subdirs: string[] = [];
  if (layout !== "per-cwd") {
    for (const e of entries) if ((e.isFile() || e.isSymbolicLink()) && isJsonl(e.name)) flat.push(e.name);
  }
  if (layout !== "flat") {
    for (const e of entries) {
      if (e.isDirectory() || (e.isSymbolicLink() && !isJsonl(e.name))) subdirs.push(childPath(dir, e.name));
    }
  }
  // `dir` is resolved, so every path here is its own cache key.
  const pass = new StatPass(opts.signal, true);
  if (opts.onProgress) {
    // Progress reports follow the candidate order: it must be pi's from the start.
    const files: string[] = [];
    for (const name of flat) files.push(childPath(dir, name));
    for (const sub of subdirs)
      for (const name of jsonlNamesIn(sub, opts.onUnreadable)) files.push(childPath(sub, name));
    const stats = await statAll(files, opts.signal);
    const order = files.map((_, i) => i);
    const mtime = (i: number) => stats[i]?.mtimeMs ?? Number.NEGATIVE_INFINITY;
    order.sort(
      (a, b) =>
        mtime(b) - mtime(a) || collator().compare(basename(files[b] as string), basename(files[a] as string)),
    );
    const paths = order.map((i) => files[i] as string);
    pass.setIndex(await indexOf(run, indexBytes));
    await pass.add(
      paths,
      undefined,
      paths.join("\0"),
      order.map((i) => stats[i]),
    );
    reportUnstatted(pass, opts.onUnreadable);
    return sortListed(await finishListing(pass, run));
  }
  // The cache index is read on the thread pool while this thread reads each directory and
  // stats its files. The files statted before the index arrives are checked against it when it
  // does; those after, as they are statted. The directories are read here, synchronously
  // (decision 009).
  const ready = indexOf(run, indexBytes).then((index) => pass.setIndex(index));
  // Awaited below; if the listing stops first (abort), its failure must not go unhandled.
  ready.catch(() => {});
  await addDirectory(pass, dir, flat);
  for (const sub of subdirs) await addDirectory(pass, sub, jsonlNamesIn(sub, opts.onUnreadable));
  await ready;
  reportUnstatted(pass, opts.onUnreadable);
  const files = pass.paths;
  // Without progress the candidate order (mtime descending, then name descending by the
  // collator) only breaks ties of `modified`, so it is applied in the final sort, and the
  // collator (costly to make, decision 031) only for infos whose `modified` and mtime both
  // tie. The result is the one of listing the files in candidate order.
  const listed = await finishListing(pass, run);
  const { mtimes } = listed;
  return sortListed(listed, (a, b) => {
    const byTime = (mtimes[b] as number) - (mtimes[a] as number);
    return byTime || collator().compare(basename(files[b] as string), basename(files[a] as string));
  });
}

/**
 * The `SessionInfo` of one file (no cache); null when it is not a valid session. A path that
 * is not a regular file throws {@link SessionFileNotRegularError} (a FIFO is never read).
 */
export async function readSessionInfo(
  path: string,
  opts: { signal?: AbortSignal; stats?: ListStats } = {},
): Promise<SessionInfo | null> {
  const st = await stat(path);
  if (!st.isFile()) throw new SessionFileNotRegularError(path, nonRegularKind(st));
  const loadOpts: Parameters<typeof loadFile>[4] = {};
  if (opts.signal) loadOpts.signal = opts.signal;
  const result = await loadFile(path, st, undefined, opts.stats ?? newListStats(), loadOpts);
  return result.info;
}
