/**
 * The listing metadata cache: one JSON file per listed directory under
 * `$XDG_CACHE_HOME/pi-session` (else `~/.cache/pi-session`), written atomically.
 *
 * Per session file it keeps the stat key (size, mtimeMs, ino), hashes of the first bytes and of
 * the bytes just before the resume point, and the resumable listing state at the last full
 * line. Same key → the cached info is used as is; same inode, larger size and both hashes
 * still matching → only the new bytes are parsed; anything else → full re-read. The cache is
 * only an optimisation: a missing or corrupt cache file is ignored and deleting it changes no
 * result.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import type { InfoState } from "./info.js";
import type { Env } from "./layout.js";

export const CACHE_VERSION = 1;
/** Bytes hashed at the start of the file and just before the resume offset. */
export const CACHE_PROBE_BYTES = 4096;

/** One file's cached listing state. */
export interface CachedFile {
  size: number;
  mtimeMs: number;
  ino: number;
  /** Byte offset of the end of the last full line parsed (the resume point). */
  offset: number;
  /** Line number of the line starting at `offset`. */
  nextLine: number;
  /** sha1 of bytes `[0, min(offset, 4096))`. */
  headHash: string;
  /** sha1 of bytes `[max(0, offset - 4096), offset)`. */
  edgeHash: string;
  /** State after the full lines (a torn tail is never part of it). */
  state: InfoState;
}

export interface CacheFile {
  version: number;
  dir: string;
  files: Record<string, CachedFile>;
}

/** `$XDG_CACHE_HOME/pi-session`, else `~/.cache/pi-session`. */
export function defaultCacheDir(env: Env = process.env, home: string = homedir()): string {
  const base = env.XDG_CACHE_HOME && env.XDG_CACHE_HOME !== "" ? env.XDG_CACHE_HOME : join(home, ".cache");
  return join(base, "pi-session");
}

export function sha1(bytes: Uint8Array): string {
  return createHash("sha1").update(bytes).digest("hex");
}

/** The cache file for one listed directory. */
export function cacheFileFor(cacheDir: string, listedDir: string): string {
  const key = createHash("sha1").update(resolve(listedDir)).digest("hex").slice(0, 24);
  return join(cacheDir, `list-${key}.json`);
}

function isCachedFile(x: unknown): x is CachedFile {
  if (typeof x !== "object" || x === null) return false;
  const c = x as Record<string, unknown>;
  return (
    typeof c.size === "number" &&
    typeof c.mtimeMs === "number" &&
    typeof c.ino === "number" &&
    typeof c.offset === "number" &&
    typeof c.nextLine === "number" &&
    typeof c.headHash === "string" &&
    typeof c.edgeHash === "string" &&
    typeof c.state === "object" &&
    c.state !== null &&
    typeof (c.state as InfoState).messageCount === "number" &&
    typeof (c.state as InfoState).firstMessage === "string" &&
    typeof (c.state as InfoState).allMessagesText === "string" &&
    typeof (c.state as InfoState).textCount === "number"
  );
}

/** Loads the cache of one directory; anything unreadable yields an empty cache. */
export function loadCache(cacheDir: string, listedDir: string): CacheFile {
  const empty: CacheFile = { version: CACHE_VERSION, dir: resolve(listedDir), files: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(cacheFileFor(cacheDir, listedDir), "utf8"));
  } catch {
    return empty;
  }
  if (typeof parsed !== "object" || parsed === null) return empty;
  const p = parsed as Partial<CacheFile>;
  if (p.version !== CACHE_VERSION || p.dir !== empty.dir || typeof p.files !== "object" || p.files === null) {
    return empty;
  }
  const files: Record<string, CachedFile> = {};
  for (const [name, entry] of Object.entries(p.files)) {
    if (isCachedFile(entry)) files[name] = entry;
  }
  return { ...empty, files };
}

/** Writes the cache of one directory atomically (temp + rename); failures are ignored. */
export function saveCache(cacheDir: string, cache: CacheFile): void {
  const target = cacheFileFor(cacheDir, cache.dir);
  const tmp = `${target}.tmp-${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
  try {
    mkdirSync(cacheDir, { recursive: true });
    writeFileSync(tmp, JSON.stringify(cache), { flag: "wx" });
    renameSync(tmp, target);
  } catch {
    try {
      unlinkSync(tmp);
    } catch {
      // The temp file was never created.
    }
  }
}
