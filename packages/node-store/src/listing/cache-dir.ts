/**
 * Where the listing cache lives (`$XDG_CACHE_HOME/pi-session`, else `~/.cache/pi-session`)
 * and what its files are named: per listed directory an index `list-<key>.idx` and text
 * segments `list-<key>-<id>.text`.
 */
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import type { Env } from "../layout/sessions-root.js";

/** `$XDG_CACHE_HOME/pi-session`, else `~/.cache/pi-session`. */
export function defaultCacheDir(env: Env = process.env, home: string = homedir()): string {
  const base = env.XDG_CACHE_HOME && env.XDG_CACHE_HOME !== "" ? env.XDG_CACHE_HOME : join(home, ".cache");
  return join(base, "pi-session");
}

/**
 * The name of a listed directory's cache files: two 32-bit FNV-style hashes of its resolved
 * path (not `crypto`, whose first use a warm listing avoids: decision 031). A collision
 * cannot mix two directories up: the index names its directory and segments name themselves.
 */
export function cacheKey(listedDir: string): string {
  const s = resolve(listedDir);
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 13;
  }
  return (a >>> 0).toString(16).padStart(8, "0") + (b >>> 0).toString(16).padStart(8, "0");
}

/** The index file for one listed directory. */
export function cacheFileFor(cacheDir: string, listedDir: string): string {
  return join(cacheDir, `list-${cacheKey(listedDir)}.idx`);
}

/** The text segment with id `id` for one listed directory. */
export function segmentFileFor(cacheDir: string, listedDir: string, id: string): string {
  return join(cacheDir, `list-${cacheKey(listedDir)}-${id}.text`);
}
