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
  writeSync,
} from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import {
  INDEX_VERSION,
  type IndexEntry,
  encodeIndex,
  isWellFormed,
  setTextRef,
  textRefOf,
} from "./cache-index.js";
import type { InfoState } from "./info.js";
import type { Env } from "../layout/layout.js";
import { READ_FLAGS } from "../read/read.js";

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
  /** `[segment id, byte offset, byte length]` of `allMessagesText`. */
  text?: TextRef;
}

/**
 * Where a cached `allMessagesText` is: segment id, byte offset, byte length, and `1` when the
 * bytes are UTF-16LE (a text with a lone surrogate, which UTF-8 cannot hold).
 */
export type TextRef = [segment: string, offset: number, length: number, utf16?: 1];

/** `$XDG_CACHE_HOME/pi-session`, else `~/.cache/pi-session`. */
export function defaultCacheDir(env: Env = process.env, home: string = homedir()): string {
  const base = env.XDG_CACHE_HOME && env.XDG_CACHE_HOME !== "" ? env.XDG_CACHE_HOME : join(home, ".cache");
  return join(base, "pi-session");
}

export function sha1(bytes: Uint8Array): string {
  // One-shot: a Hash object per call cost a cold listing ~10 µs per probe.
  return hash("sha1", bytes, "hex");
}

/**
 * The name of a listed directory's cache files: two 32-bit FNV-style hashes of its resolved
 * path (not `crypto`: its first use costs a warm listing ~1 ms). A collision cannot mix two
 * directories up: the index names its directory and segments name themselves.
 */
function cacheKey(listedDir: string): string {
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

function segmentHeader(id: string): Buffer {
  return Buffer.from(`pi-session-text ${id}\n`, "latin1");
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
    // Non-blocking: a read of a FIFO put here then fails or ends at once (the header check fails).
    fd = openSync(segmentFileFor(cacheDir, listedDir, id), READ_FLAGS);
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
    return buf.toString(ref[3] === 1 ? "utf16le" : "utf8");
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * A text segment written while a listing reads files: each new `allMessagesText` is appended
 * as its file's result arrives (the main thread is mostly idle then), so a cold listing's save
 * writes only the index. Any failure turns the writer off; the save then writes the remaining
 * texts itself. A segment no index references is removed by the next save.
 */
export class SegmentWriter {
  private fd: number | undefined;
  /** Off: a write failed, or the segment was closed or discarded (no later text reopens it). */
  private failed = false;
  /** Segment offset of the next text (buffered bytes included). */
  private at = 0;
  private path = "";
  private id = "";
  /** Texts not yet written (one write per ~1 MiB instead of one per text). */
  private pending: Buffer | undefined;
  private pendingLength = 0;

  constructor(
    private readonly cacheDir: string,
    private readonly listedDir: string,
  ) {}

  /**
   * Appends `text` (not empty); returns where it is, or undefined when the writer is off. The
   * bytes are in the file once {@link close} has returned. After close or discard it is off:
   * files still being read when an aborted listing gave up must not open a segment that
   * nothing would close or delete.
   */
  add(text: string): TextRef | undefined {
    if (this.failed) return undefined;
    try {
      if (this.fd === undefined) {
        mkdirSync(this.cacheDir, { recursive: true });
        this.id = randomBytes(8).toString("hex");
        this.path = segmentFileFor(this.cacheDir, this.listedDir, this.id);
        // Exclusive create: a segment is written once and never modified after its listing.
        this.fd = openSync(this.path, "wx");
        const header = segmentHeader(this.id);
        writeAll(this.fd, header);
        this.at = header.length;
      }
      const encoding = isWellFormed(text) ? "utf8" : "utf16le";
      const length = Buffer.byteLength(text, encoding);
      this.pending ??= Buffer.allocUnsafe(SEGMENT_BUFFER_BYTES);
      if (this.pendingLength + length > this.pending.length) this.flush();
      if (length > this.pending.length) writeAll(this.fd, Buffer.from(text, encoding));
      else this.pendingLength += this.pending.write(text, this.pendingLength, encoding);
      const ref: TextRef =
        encoding === "utf16le" ? [this.id, this.at, length, 1] : [this.id, this.at, length];
      this.at += length;
      return ref;
    } catch {
      this.failed = true;
      this.close();
      return undefined;
    }
  }

  /** Writes the buffered texts. */
  private flush(): void {
    if (this.fd === undefined || this.pendingLength === 0 || this.pending === undefined) return;
    writeAll(this.fd, this.pending.subarray(0, this.pendingLength));
    this.pendingLength = 0;
  }

  /**
   * Writes what is buffered and closes the segment (idempotent). A text that did not make it
   * to the file (a failed write) reads back as missing and is recomputed from its session.
   */
  close(): void {
    this.failed = true;
    if (this.fd === undefined) return;
    try {
      this.flush();
    } catch {
      // The texts of the failed write read back as missing (see above).
    }
    this.pendingLength = 0;
    try {
      closeSync(this.fd);
    } catch {
      // Nothing to keep: its texts are re-read from the sessions if the segment is bad.
    }
    this.fd = undefined;
  }

  /** Closes and deletes the segment (a listing that failed or was aborted). */
  discard(): void {
    this.failed = true;
    this.pendingLength = 0;
    if (this.fd !== undefined) {
      try {
        closeSync(this.fd);
      } catch {
        // Deleted below anyway.
      }
      this.fd = undefined;
    }
    if (this.path === "") return;
    try {
      unlinkSync(this.path);
    } catch {
      // Already gone.
    }
  }
}

/** Bytes of texts a segment writer buffers before writing them. */
const SEGMENT_BUFFER_BYTES = 1 << 20;

function writeAll(fd: number, bytes: Uint8Array): void {
  let done = 0;
  while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
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
    if (ref) live.set(ref[0], (live.get(ref[0]) ?? 0) + ref[2]);
  }
  let kept: SaveEntry[] = [...entries];
  if (live.size >= MAX_SEGMENTS) {
    let largest = "";
    for (const [id, bytes] of live) if (largest === "" || bytes > (live.get(largest) ?? 0)) largest = id;
    const lost = new Set<SaveEntry>();
    for (const e of entries) {
      const ref = textRefOf(e);
      if (!ref || ref[0] === largest) continue;
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
    if (ref) keep.add(`${prefix}-${ref[0]}.text`);
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
