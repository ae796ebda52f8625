/**
 * The listing metadata cache, under `$XDG_CACHE_HOME/pi-session` (else `~/.cache/pi-session`).
 *
 * Per listed directory:
 * - a small index `list-<key>.json` (written atomically: temp + rename) with, per session
 *   file, the stat key (size, mtimeMs, ino), hashes of the first bytes and of the bytes just
 *   before the resume point, and the resumable listing state at the last full line, without
 *   its `allMessagesText`;
 * - text segments `list-<key>-<id>.text`, each written once (exclusive create, never
 *   modified), holding `allMessagesText` values (UTF-8) at the `[id, offset, length]` the
 *   index gives. A segment starts with a line naming its id, checked on every read, so a
 *   replaced or corrupt segment is noticed. Each save writes the new texts to a new segment;
 *   when there are many, the small ones are merged; unreferenced segments are removed.
 *   Immutable segments keep two listers running at once from overwriting each other's texts.
 *
 * A warm listing therefore reads the index only; `allMessagesText` is read from the blob when a
 * caller first touches it. Same key → the cached info is used as is; same inode, larger size and
 * both hashes still matching → only the new bytes are parsed; anything else → full re-read.
 * The cache is only an optimisation: a missing or corrupt index or blob is ignored (a text
 * that cannot be read back is recomputed from the session file), so deleting it changes no
 * result.
 */
import { createHash, randomBytes } from "node:crypto";
import {
  closeSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  readdirSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import type { InfoState } from "./info.js";
import type { Env } from "./layout.js";

// 3: headers without a string id are sessions now (version 2 cached them as "not a session").
export const CACHE_VERSION = 3;
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
  /**
   * State after the full lines (a torn tail is never part of it). In the index its
   * `allMessagesText` is always `""`: the text lives in a segment at {@link text}.
   */
  state: InfoState;
  /** `[segment id, byte offset, byte length]` of `allMessagesText`. */
  text?: TextRef;
}

/** Where a cached `allMessagesText` is: segment id, byte offset, byte length. */
export type TextRef = [string, number, number];

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

function cacheKey(listedDir: string): string {
  return createHash("sha1").update(resolve(listedDir)).digest("hex").slice(0, 24);
}

/** The index file for one listed directory. */
export function cacheFileFor(cacheDir: string, listedDir: string): string {
  return join(cacheDir, `list-${cacheKey(listedDir)}.json`);
}

/** The text segment with id `id` for one listed directory. */
export function segmentFileFor(cacheDir: string, listedDir: string, id: string): string {
  return join(cacheDir, `list-${cacheKey(listedDir)}-${id}.text`);
}

function segmentHeader(id: string): Buffer {
  return Buffer.from(`pi-session-text ${id}\n`, "latin1");
}

function isTextRef(x: unknown): x is TextRef {
  return (
    Array.isArray(x) &&
    x.length === 3 &&
    typeof x[0] === "string" &&
    /^[0-9a-f]{16}$/.test(x[0]) &&
    Number.isSafeInteger(x[1]) &&
    Number.isSafeInteger(x[2]) &&
    (x[1] as number) >= 0 &&
    (x[2] as number) >= 0
  );
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
    typeof (c.state as InfoState).textCount === "number" &&
    // A state with texts must say where they are.
    ((c.state as InfoState).textCount === 0 ? c.text === undefined || isTextRef(c.text) : isTextRef(c.text))
  );
}

/** Loads the index of one directory; anything unreadable yields an empty cache. */
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
  // Checked in place: copying 2,000 entries into a new object was a visible part of a warm listing.
  const files = p.files as Record<string, unknown>;
  for (const name in files) {
    if (!isCachedFile(files[name])) delete files[name];
  }
  empty.files = files as Record<string, CachedFile>;
  return empty;
}

/**
 * Reads one text back from its segment; `undefined` when the segment is missing, not the one
 * the index names, or too short (the caller then recomputes the text from the session file).
 */
export function readCachedText(cacheDir: string, listedDir: string, ref: TextRef): string | undefined {
  const [id, offset, length] = ref;
  const header = segmentHeader(id);
  if (offset < header.length) return undefined;
  let fd: number;
  try {
    fd = openSync(segmentFileFor(cacheDir, listedDir, id), "r");
  } catch {
    return undefined;
  }
  try {
    const head = Buffer.allocUnsafe(header.length);
    if (readSync(fd, head, 0, head.length, 0) !== head.length || !head.equals(header)) return undefined;
    const buf = Buffer.allocUnsafe(length);
    let got = 0;
    while (got < length) {
      const n = readSync(fd, buf, got, length - got, offset + got);
      if (n <= 0) return undefined;
      got += n;
    }
    return buf.toString("utf8");
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** A text a save must write: the file key and its text. */
export interface PendingText {
  key: string;
  text: string;
}

/** Referenced segments beyond which the small ones are merged. */
const MAX_SEGMENTS = 8;

/**
 * Writes the cache of one directory: first the new texts (a new segment), then the index
 * atomically (temp + rename), then removes segments the index no longer references. Failures
 * are ignored (the cache is an optimisation). Sets `cache.files[key].text` of every pending
 * text; other entries keep their references.
 */
export function saveCache(cacheDir: string, cache: CacheFile, pending: readonly PendingText[]): void {
  const target = cacheFileFor(cacheDir, cache.dir);
  const tmp = `${target}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`;
  try {
    mkdirSync(cacheDir, { recursive: true });
    writeTexts(cacheDir, cache, pending);
    writeFileSync(tmp, JSON.stringify(cache), { flag: "wx" });
    renameSync(tmp, target);
    removeUnreferencedSegments(cacheDir, cache);
  } catch {
    try {
      unlinkSync(tmp);
    } catch {
      // The temp file was never created.
    }
  }
}

function writeTexts(cacheDir: string, cache: CacheFile, pending: readonly PendingText[]): void {
  const texts = new Map<string, string>();
  for (const p of pending) {
    const entry = cache.files[p.key];
    if (!entry) continue;
    delete entry.text;
    if (p.text !== "") texts.set(p.key, p.text);
  }
  // Live bytes per referenced segment; merge the small ones when there are too many.
  const live = new Map<string, number>();
  for (const entry of Object.values(cache.files)) {
    if (entry.text) live.set(entry.text[0], (live.get(entry.text[0]) ?? 0) + entry.text[2]);
  }
  if (live.size >= MAX_SEGMENTS) {
    let largest = "";
    for (const [id, bytes] of live) if (largest === "" || bytes > (live.get(largest) ?? 0)) largest = id;
    for (const [key, entry] of Object.entries(cache.files)) {
      if (!entry.text || entry.text[0] === largest) continue;
      const text = readCachedText(cacheDir, cache.dir, entry.text);
      delete entry.text;
      // Lost: forget the entry so the next listing recomputes it.
      if (text === undefined) delete cache.files[key];
      else texts.set(key, text);
    }
  }
  if (texts.size === 0) return;
  const id = randomBytes(8).toString("hex");
  const header = segmentHeader(id);
  const parts: Buffer[] = [header];
  let at = header.length;
  for (const [key, text] of texts) {
    const bytes = Buffer.from(text, "utf8");
    parts.push(bytes);
    (cache.files[key] as CachedFile).text = [id, at, bytes.length];
    at += bytes.length;
  }
  // Exclusive create: a segment is written once and never modified.
  writeFileSync(segmentFileFor(cacheDir, cache.dir, id), Buffer.concat(parts, at), { flag: "wx" });
}

/** Removes this directory's segments the index does not reference (best effort). */
function removeUnreferencedSegments(cacheDir: string, cache: CacheFile): void {
  const prefix = `list-${cacheKey(cache.dir)}-`;
  const keep = new Set<string>();
  for (const entry of Object.values(cache.files)) if (entry.text) keep.add(`${prefix}${entry.text[0]}.text`);
  let names: string[];
  try {
    names = readdirSync(cacheDir);
  } catch {
    return;
  }
  for (const name of names) {
    if (name.startsWith(prefix) && name.endsWith(".text") && !keep.has(name)) {
      try {
        unlinkSync(join(cacheDir, name));
      } catch {
        // Another lister may have removed it.
      }
    }
  }
}
