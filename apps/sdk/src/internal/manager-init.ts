/**
 * How a `SessionManager` starts: the one options object its private constructor takes, and
 * what each of pi's factories (`create`, `open`, `openReadonly`, `continueRecent`, `inMemory`,
 * `forkFrom`) puts in it: which directory, whether it persists, which file, read ahead or not.
 */
import { dirname } from "node:path";
import { resolvePiPath, type SessionFileContents } from "@pi-session/node-store";
import type { SessionPlace } from "../session-view.js";
import type { FileEntry, NewSessionOptions } from "../types.js";
import { writeFork } from "./fork.js";
import { type LazySession, openLazy } from "./lazy-session.js";
import { headerCwd, readForOpen } from "./open-file.js";
import { cwdFilterOf, findMostRecentSession, sessionDirOf } from "./session-dirs.js";

export interface ManagerInit extends SessionPlace {
  /** The file to open, with its contents when they were read already. */
  file?: { path: string; contents?: SessionFileContents | undefined; lazy?: LazySession | undefined };
  /** The options of a new session (id, parentSession). */
  newSession?: NewSessionOptions | undefined;
  /** `inMemory`'s entries, with or without a header. */
  entries?: FileEntry[] | undefined;
}

export function createInit(
  cwd: string,
  sessionDir: string | undefined,
  options: NewSessionOptions | undefined,
): ManagerInit {
  return { cwd, sessionDir: sessionDirOf(cwd, sessionDir), persist: true, newSession: options };
}

/** A lazily opened file's header cwd (its header is a valid one). */
function lazyHeaderCwd(lazy: LazySession): string | undefined {
  const cwd = lazy.header.cwd as unknown;
  return typeof cwd === "string" ? cwd : undefined;
}

/** The cwd is `cwdOverride`, else the header's, else the process's. */
export function openInit(
  path: string,
  sessionDir: string | undefined,
  cwdOverride: string | undefined,
): ManagerInit {
  const resolved = resolvePiPath(path);
  const lazy = openLazy(resolved);
  const contents = lazy ? undefined : readForOpen(resolved);
  const cwd = cwdOverride ?? (lazy ? lazyHeaderCwd(lazy) : headerCwd(contents)) ?? process.cwd();
  const dir = sessionDir ? resolvePiPath(sessionDir) : dirname(resolved);
  return { cwd, sessionDir: dir, persist: true, file: { path: resolved, contents, lazy } };
}

/** As {@link openInit} in the file's directory, read-only; a missing file throws. */
export function openReadonlyInit(path: string, cwdOverride: string | undefined): ManagerInit {
  const resolved = resolvePiPath(path);
  const lazy = openLazy(resolved);
  const contents = lazy ? undefined : readForOpen(resolved);
  if (!lazy && !contents) throw new Error(`Session file not found: ${resolved}`);
  const cwd = cwdOverride ?? (lazy ? lazyHeaderCwd(lazy) : headerCwd(contents)) ?? process.cwd();
  const file = { path: resolved, contents, lazy };
  return { cwd, sessionDir: dirname(resolved), persist: true, readOnly: true, file };
}

/** The newest session of `cwd` in the directory, opened; else a new one there. */
export function continueRecentInit(cwd: string, sessionDir: string | undefined): ManagerInit {
  const dir = sessionDirOf(cwd, sessionDir);
  const mostRecent = findMostRecentSession(dir, cwdFilterOf(cwd, sessionDir, dir));
  return mostRecent ? openInit(mostRecent, dir, cwd) : { cwd, sessionDir: dir, persist: true };
}

export function inMemoryInit(
  cwd: string,
  options: NewSessionOptions | undefined,
  entries: FileEntry[] | undefined,
): ManagerInit {
  return { cwd, sessionDir: "", persist: false, newSession: options, entries };
}

/** Writes the fork (see `fork.ts`), then opens it. */
export function forkInit(
  sourcePath: string,
  targetCwd: string,
  sessionDir: string | undefined,
  options: NewSessionOptions | undefined,
): ManagerInit {
  const cwd = resolvePiPath(targetCwd);
  const fork = writeFork({ source: resolvePiPath(sourcePath), cwd, sessionDir, options });
  return { cwd, sessionDir: fork.dir, persist: true, file: { path: fork.file } };
}
