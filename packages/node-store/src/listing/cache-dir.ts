/**
 * Where the listing cache lives (`$XDG_CACHE_HOME/pi-session`, else `~/.cache/pi-session`)
 * and what its files are named: per listed directory an index `list-<key>.idx` and text
 * segments `list-<key>-<id>.text`.
 */
import { hash } from "node:crypto";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import type { Env } from "../layout/sessions-root.js";

/** `$XDG_CACHE_HOME/pi-session`, else `~/.cache/pi-session`. */
export function defaultCacheDir(env: Env = process.env, home: string = homedir()): string {
  const base = env.XDG_CACHE_HOME && env.XDG_CACHE_HOME !== "" ? env.XDG_CACHE_HOME : join(home, ".cache");
  return join(base, "pi-session");
}

/**
 * The name of a listed directory's cache files: the first 64 bits of the SHA-256 of its
 * resolved path. A collision cannot mix two directories up: the index names its directory and
 * segments name themselves.
 */
export function cacheKey(listedDir: string): string {
  return hash("sha256", resolve(listedDir), "hex").slice(0, 16);
}

/** The index file for one listed directory. */
export function cacheFileFor(cacheDir: string, listedDir: string): string {
  return join(cacheDir, `list-${cacheKey(listedDir)}.idx`);
}

/** The text segment with id `id` for one listed directory. */
export function segmentFileFor(cacheDir: string, listedDir: string, id: string): string {
  return join(cacheDir, `list-${cacheKey(listedDir)}-${id}.text`);
}
