/**
 * The listing metadata cache, under `$XDG_CACHE_HOME/pi-session` (else `~/.cache/pi-session`).
 *
 * Per listed directory:
 * - an index `list-<key>.idx` (binary, see `cache-index.ts`; written atomically: temp +
 *   rename) with, per session file, the stat key (size, mtimeMs, ctimeMs, ino), hashes of the first
 *   bytes and of the bytes just before the resume point, and the resumable listing state at
 *   the last full line, without its `allMessagesText`;
 * - text segments `list-<key>-<id>.text`, each written once (exclusive create, never
 *   modified), holding `allMessagesText` values (UTF-8, or UTF-16LE for a text UTF-8 cannot
 *   hold exactly) at the `[id, offset, length]` the index gives. A segment starts with a line
 *   naming its id, checked on every read, so a replaced or corrupt segment is noticed. Each
 *   save writes the new texts to a new segment; when there are many, the small ones are
 *   merged; unreferenced segments are removed. Immutable segments keep two listers running at
 *   once from overwriting each other's texts.
 *
 * A warm listing therefore reads the index only; `allMessagesText` is read from its segment
 * when a caller first touches it. Same key → the cached info is used as is; same inode, larger
 * size and both hashes still matching → only the new bytes are parsed; anything else → full
 * re-read. The cache is only an optimisation: a missing, old or corrupt index or segment is
 * ignored (a text that cannot be read back is recomputed from the session file), so deleting
 * it changes no result.
 */
import { hash, randomBytes } from "node:crypto";
import {
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  read,
  readSync,
  readdirSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { join, resolve } from "node:path";
import { cacheFileFor, cacheKey } from "./cache-dir.js";
import { INDEX_VERSION } from "./cache-index-layout.js";
import { SegmentWriter, type TextRef, readCachedText } from "./cache-segments.js";
import { type IndexEntry, encodeIndex, setTextRef, textRefOf } from "./cache-index-encode.js";
import type { InfoState } from "./info.js";
import { READ_FLAGS } from "../fs/regular-files.js";

// 3: headers without a string id are sessions now (version 2 cached them as "not a session").
// 4: the binary index (`cache-index.ts`) replaces the JSON one.
// 5: the key holds the file's ctime too (a change of permissions must be seen), and infos
//    follow more of pi's rules (see info.ts), so entries of version 4 may be wrong.
export const CACHE_VERSION = INDEX_VERSION;
/** The largest index file read (far above what a million sessions need). */
const MAX_INDEX_BYTES = 1 << 30;
/** Bytes hashed at the start of the file and just before the resume offset. */
export const CACHE_PROBE_BYTES = 4096;

/** One file's cached listing state. */
export interface CachedFile {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
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
  /** Where `allMessagesText` is in a text segment. */
  text?: TextRef;
}

export function sha1(bytes: Uint8Array): string {
  // One-shot, no Hash object per call (decision 031).
  return hash("sha1", bytes, "hex");
}

/**
 * Starts reading the index of one directory (resolved) in the background: one read on the
 * thread pool, so it overlaps the directory walk on this thread. Resolves to the file's bytes
 * (decode them with `CacheIndex.decode`), or `undefined` when there is none.
 */
export function readIndexFile(cacheDir: string, listedDir: string): Promise<Buffer | undefined> {
  let fd: number;
  try {
    // Non-blocking: a FIFO in the cache directory must not block a listing (it is refused below).
    fd = openSync(cacheFileFor(cacheDir, listedDir), READ_FLAGS);
  } catch {
    return Promise.resolve(undefined);
  }
  const close = (): void => {
    try {
      closeSync(fd);
    } catch {
      // Nothing to do about it: the cache is an optimisation.
    }
  };
  return new Promise((done) => {
    try {
      const st = fstatSync(fd);
      if (!st.isFile()) throw new TypeError("not a regular file");
      const size = st.size;
      // Not an index of ours (they are a few hundred bytes per session).
      if (size > MAX_INDEX_BYTES) throw new RangeError("index too large");
      const buf = Buffer.allocUnsafeSlow(size);
      read(fd, buf, 0, size, 0, (err, n) => {
        try {
          let got = err ? -1 : n;
          // A short read (the file changed, or a huge one): finish here.
          while (got >= 0 && got < size) {
            const more = readSync(fd, buf, got, size - got, got);
            got = more <= 0 ? -1 : got + more;
          }
          done(got === size ? buf : undefined);
        } catch {
          done(undefined);
        } finally {
          close();
        }
      });
    } catch {
      close();
      done(undefined);
    }
  });
}

/** One file of the index a save writes. */
export interface SaveEntry extends IndexEntry {
  /** A new `allMessagesText` to store for it (its `file.text` is then set by the save). */
  text?: string;
}

/** Referenced segments beyond which the small ones are merged. */
const MAX_SEGMENTS = 8;

/**
 * Writes the cache of one directory (resolved): first the new texts (a new segment), then the
 * index atomically (temp + rename), then removes segments the index no longer references.
 * Failures are ignored (the cache is an optimisation). `entries` are in the listing's order.
 */
export function saveCache(cacheDir: string, listedDir: string, entries: readonly SaveEntry[]): void {
  const target = cacheFileFor(cacheDir, listedDir);
  const tmp = `${target}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`;
  try {
    mkdirSync(cacheDir, { recursive: true });
    const kept = writeTexts(cacheDir, listedDir, entries);
    writeFileSync(tmp, encodeIndex(listedDir, kept), { flag: "wx" });
    renameSync(tmp, target);
    removeStaleFiles(cacheDir, listedDir, kept);
  } catch {
    try {
      unlinkSync(tmp);
    } catch {
      // The temp file was never created.
    }
  }
}

/** Writes the new texts to a new segment; returns the entries to index (lost ones dropped). */
function writeTexts(cacheDir: string, listedDir: string, entries: readonly SaveEntry[]): SaveEntry[] {
  const texts = new Map<SaveEntry, string>();
  for (const e of entries) {
    if (e.text === undefined) continue;
    setTextRef(e, undefined);
    if (e.text !== "") texts.set(e, e.text);
  }
  // Live bytes per referenced segment; merge the small ones when there are too many.
  const live = new Map<string, number>();
  for (const e of entries) {
    const ref = textRefOf(e);
    if (ref) live.set(ref.segment, (live.get(ref.segment) ?? 0) + ref.length);
  }
  let kept: SaveEntry[] = [...entries];
  if (live.size >= MAX_SEGMENTS) {
    let largest = "";
    for (const [id, bytes] of live) if (largest === "" || bytes > (live.get(largest) ?? 0)) largest = id;
    const lost = new Set<SaveEntry>();
    for (const e of entries) {
      const ref = textRefOf(e);
      if (!ref || ref.segment === largest) continue;
      const text = readCachedText(cacheDir, listedDir, ref);
      setTextRef(e, undefined);
      // Lost: forget the entry so the next listing recomputes it.
      if (text === undefined) lost.add(e);
      else texts.set(e, text);
    }
    if (lost.size > 0) kept = kept.filter((e) => !lost.has(e));
  }
  if (texts.size === 0) return kept;
  const segment = new SegmentWriter(cacheDir, listedDir);
  for (const [e, text] of texts) {
    const ref = segment.add(text);
    if (ref === undefined) {
      segment.discard();
      throw new Error("cannot write a cache text segment");
    }
    setTextRef(e, ref);
  }
  segment.close();
  return kept;
}

/**
 * Removes this directory's segments the index does not reference, and its files of cache
 * versions before 4 (a JSON index and segments named by a sha1 of the directory), best effort.
 */
function removeStaleFiles(cacheDir: string, listedDir: string, entries: readonly SaveEntry[]): void {
  const prefix = `list-${cacheKey(listedDir)}`;
  const legacy = `list-${hash("sha1", resolve(listedDir), "hex").slice(0, 24)}`;
  const keep = new Set<string>();
  for (const e of entries) {
    const ref = textRefOf(e);
    if (ref) keep.add(`${prefix}-${ref.segment}.text`);
  }
  let names: string[];
  try {
    names = readdirSync(cacheDir);
  } catch {
    return;
  }
  for (const name of names) {
    const stale =
      name === `${legacy}.json` ||
      (name.startsWith(`${legacy}-`) && name.endsWith(".text")) ||
      (name.startsWith(`${prefix}-`) && name.endsWith(".text") && !keep.has(name));
    if (stale) {
      try {
        unlinkSync(join(cacheDir, name));
      } catch {
        // Another lister may have removed it.
      }
    }
  }
}
