/**
 * Listing one file: reads it (or only its new bytes, resuming from a cache entry) and builds
 * its `SessionInfo` plus the cache entry to store.
 */
import { closeSync, openSync, read } from "node:fs";
import { CACHE_PROBE_BYTES, type CachedFile, sha1 } from "./cache.js";
import { readCachedText } from "./cache-segments.js";
import { type FileStat, fdIsRegular } from "../fs/file-stat.js";
import { type InfoState, type SessionInfo, cloneInfoState, emptyInfoState, finishInfo } from "./info.js";
import { READ_CHUNK_SIZE } from "../read/read-options.js";
import { readFully, runReader } from "../fs/positional-reads.js";
import { READ_FLAGS } from "../fs/regular-files.js";
import { infoReader } from "./scan.js";

export type { FileStat } from "../fs/file-stat.js";

/** Counters one file adds to `ListStats`. */
export interface FileCounters {
  bytesRead: number;
  filesParsed: number;
  filesResumed: number;
}

/** Where cached texts are read from. */
export interface TextSource {
  cacheDir: string;
  listedDir: string;
}

export interface FileResult {
  info: SessionInfo | null;
  cache?: CachedFile;
  /** The full `allMessagesText` of `cache.state` (the cache entry itself holds `""`). */
  text?: string;
}

export interface LoadFileOptions {
  signal?: AbortSignal;
  texts?: TextSource;
}

/** An open file for listing: positional reads, and a synchronous close. */
interface ReadHandle {
  read(buf: Uint8Array, offset: number, length: number, position: number): Promise<number>;
  close(): void;
}

/**
 * Opens a file for listing: `open`/`close` synchronous, reads through the callback API,
 * asynchronous so that several files' reads are in flight at once (decision 032).
 */
function openForRead(path: string): ReadHandle {
  // The stat pass saw a regular file; if something else took its place since (a FIFO, say),
  // the non-blocking open cannot block, and the fstat refuses it before a byte is read.
  const fd = openSync(path, READ_FLAGS);
  let regular = false;
  try {
    regular = fdIsRegular(fd);
  } finally {
    if (!regular) closeSync(fd);
  }
  if (!regular) throw Object.assign(new Error(`not a regular file: ${path}`), { code: "ENOTREG" });
  return {
    read: (buf, offset, length, position) =>
      new Promise((resolve, reject) => {
        read(fd, buf, offset, length, position, (err, n) => (err ? reject(err) : resolve(n)));
      }),
    close: () => closeSync(fd),
  };
}

async function readAt(
  handle: ReadHandle,
  pos: number,
  length: number,
  counters: FileCounters,
): Promise<Buffer> {
  const buf = Buffer.allocUnsafe(length);
  const got = await runReader(readFully(buf, length, pos), handle.read);
  counters.bytesRead += got;
  return buf.subarray(0, got);
}

async function probes(
  handle: ReadHandle,
  offset: number,
  counters: FileCounters,
): Promise<{ head: string; edge: string }> {
  const headLen = Math.min(offset, CACHE_PROBE_BYTES);
  const edgeStart = Math.max(0, offset - CACHE_PROBE_BYTES);
  const head = await readAt(handle, 0, headLen, counters);
  const edge =
    edgeStart === 0 && headLen === offset
      ? head
      : await readAt(handle, edgeStart, offset - edgeStart, counters);
  return { head: sha1(head), edge: sha1(edge) };
}

/** Bytes kept from the end of the read, for the edge probe (a torn tail may follow it). */
const TAIL_BYTES = 64 * 1024;

/**
 * The bytes the cache probes hash, from the chunks of a read as they pass by: the first
 * {@link CACHE_PROBE_BYTES} of the file (when the read starts at 0) and the last
 * {@link TAIL_BYTES} read. Saves two reads per file. The last chunk is only referenced (it is
 * the caller's read buffer); {@link preserve} copies what is needed of it before the buffer is
 * read into again, so a file read in one chunk (most) copies nothing.
 */
class ProbeBytes {
  /** A copy of the file's first bytes (preserved chunks only). */
  private readonly first: Uint8Array | undefined;
  private firstLength = 0;
  /** A copy of the end of the preserved chunks, up to {@link TAIL_BYTES}. */
  private tail = new Uint8Array(0);
  /** The last chunk, not preserved: a view of the caller's buffer. */
  private last: Uint8Array | undefined;
  /** File offset of the start of {@link last}, and just past it. */
  private lastStart: number;
  private end: number;

  constructor(start: number) {
    this.lastStart = start;
    this.end = start;
    if (start === 0) this.first = new Uint8Array(CACHE_PROBE_BYTES);
  }

  /**
   * Records the next chunk, a view of the read buffer that stays valid until the caller's
   * next {@link preserve} (which it calls before reading into the buffer again).
   */
  add(chunk: Uint8Array): void {
    this.last = chunk;
    this.lastStart = this.end;
    this.end += chunk.length;
  }

  /** Copies what the probes may need of the last chunk (its buffer is about to be reused). */
  preserve(): void {
    const chunk = this.last;
    if (chunk === undefined) return;
    this.last = undefined;
    const first = this.first;
    if (first && this.firstLength < first.length && this.lastStart === this.firstLength) {
      const n = Math.min(first.length - this.firstLength, chunk.length);
      first.set(chunk.subarray(0, n), this.firstLength);
      this.firstLength += n;
    }
    if (chunk.length >= TAIL_BYTES) this.tail = new Uint8Array(chunk.subarray(chunk.length - TAIL_BYTES));
    else {
      const keep = Math.min(this.tail.length, TAIL_BYTES - chunk.length);
      const next = new Uint8Array(keep + chunk.length);
      next.set(this.tail.subarray(this.tail.length - keep));
      next.set(chunk, keep);
      this.tail = next;
    }
  }

  /** The bytes of file range `[from, to)` if kept (a view of the read buffer, or a copy). */
  private range(from: number, to: number): Uint8Array | undefined {
    const last = this.last;
    if (last !== undefined && from >= this.lastStart && to <= this.end)
      return last.subarray(from - this.lastStart, to - this.lastStart);
    const tailStart = (last === undefined ? this.end : this.lastStart) - this.tail.length;
    if (from < tailStart || to > this.end) return undefined;
    if (last === undefined || to <= this.lastStart)
      return this.tail.subarray(from - tailStart, to - tailStart);
    // Across the preserved tail and the last chunk.
    const out = new Uint8Array(to - from);
    const inTail = this.tail.subarray(from - tailStart);
    out.set(inTail);
    out.set(last.subarray(0, to - this.lastStart), inTail.length);
    return out;
  }

  /** The head probe's bytes for a cache entry ending at `offset`, if kept. */
  head(offset: number): Uint8Array | undefined {
    const n = Math.min(offset, CACHE_PROBE_BYTES);
    if (this.first === undefined) return undefined;
    if (this.firstLength >= n) return this.first.subarray(0, n);
    // The first chunk is still the last one (not preserved).
    return this.lastStart === 0 ? this.range(0, n) : undefined;
  }

  /** The edge probe's bytes for a cache entry ending at `offset`, if kept. */
  edge(offset: number): Uint8Array | undefined {
    return this.range(Math.max(0, offset - CACHE_PROBE_BYTES), offset);
  }
}

/**
 * Read buffers kept for the next file: a fresh 1 MiB buffer per file costs page faults on
 * every first touch, which showed as a large share of a cold listing's system time.
 */
const spareBuffers: Buffer[] = [];
const MAX_SPARE_BUFFERS = 16;

function takeBuffer(): Buffer {
  return spareBuffers.pop() ?? Buffer.allocUnsafeSlow(READ_CHUNK_SIZE);
}

function giveBuffer(buf: Buffer): void {
  if (spareBuffers.length < MAX_SPARE_BUFFERS) spareBuffers.push(buf);
}

/** Builds the info of one file, resuming from the cache entry `cached` where it still holds. */
export async function loadFile(
  path: string,
  st: FileStat,
  cached: CachedFile | undefined,
  counters: FileCounters,
  opts: LoadFileOptions = {},
): Promise<FileResult> {
  const { signal, texts } = opts;
  const handle = openForRead(path);
  try {
    let state: InfoState = emptyInfoState();
    let start = 0;
    let startLine = 1;
    let resumed = false;
    // Resumed: a file unchanged since its entry, or one that grew (checked by the probes). One
    // of the same size with other times was changed in place (pi rewrites files in place):
    // read whole.
    const unchanged =
      cached !== undefined &&
      cached.size === st.size &&
      cached.mtimeMs === st.mtimeMs &&
      cached.ctimeMs === st.ctimeMs;
    if (cached && cached.ino === st.ino && (unchanged || st.size > cached.size)) {
      const p = unchanged ? undefined : await probes(handle, cached.offset, counters);
      if (unchanged || (p && p.head === cached.headHash && p.edge === cached.edgeHash)) {
        const text =
          cached.text === undefined
            ? ""
            : texts
              ? readCachedText(texts.cacheDir, texts.listedDir, cached.text)
              : undefined;
        if (text !== undefined) {
          state = cloneInfoState(cached.state);
          state.allMessagesText = text;
          start = cached.offset;
          startLine = cached.nextLine;
          resumed = true;
        }
      }
    }
    if (resumed) counters.filesResumed++;
    else counters.filesParsed++;
    const decoder = infoReader(state, { startOffset: start, startLine });
    let pos = start;
    // A pooled buffer, reused chunk after chunk: the readers copy the bytes they keep. The
    // file is read up to the size it had when it was statted (what the cache entry records);
    // bytes appended since belong to the next listing.
    const buf = takeBuffer();
    const kept = new ProbeBytes(start);
    // The probes of the new cache entry, hashed from the bytes just read while the read buffer
    // is still this file's (a probe whose bytes were not kept is read again below).
    let headHash: string | undefined;
    let edgeHash: string | undefined;
    try {
      while (state.header !== false && pos < st.size) {
        signal?.throwIfAborted();
        kept.preserve();
        const bytesRead = await handle.read(buf, 0, Math.min(buf.length, st.size - pos), pos);
        if (bytesRead === 0) break;
        const chunk = buf.subarray(0, bytesRead);
        pos += bytesRead;
        counters.bytesRead += bytesRead;
        kept.add(chunk);
        decoder.push(chunk);
      }
      if (state.header !== false) {
        const headBytes = kept.head(decoder.committedOffset);
        const edgeBytes = kept.edge(decoder.committedOffset);
        if (headBytes !== undefined) headHash = sha1(headBytes);
        if (edgeBytes !== undefined) edgeHash = sha1(edgeBytes);
      }
    } finally {
      giveBuffer(buf);
    }
    if (state.header === false) {
      // Not a session, and growing cannot change that: cache the verdict for the whole file.
      const p = await probes(handle, st.size, counters);
      const verdict: CachedFile = {
        size: st.size,
        mtimeMs: st.mtimeMs,
        ctimeMs: st.ctimeMs,
        ino: st.ino,
        offset: st.size,
        nextLine: 0,
        headHash: p.head,
        edgeHash: p.edge,
        state: { ...state, allMessagesText: "" },
      };
      return { info: null, cache: verdict, text: "" };
    }
    // The cacheable state stops at the last full line; a torn tail only affects this answer.
    const committed = decoder.committedOffset;
    const nextLine = decoder.nextLine;
    const snapshot = cloneInfoState(state);
    decoder.end();
    const info = finishInfo(path, state, st.mtime);
    // The head probe is the same bytes as the verified one when both offsets cover it.
    const p = {
      head:
        headHash ??
        (cached && start >= CACHE_PROBE_BYTES
          ? cached.headHash
          : sha1(await readAt(handle, 0, Math.min(committed, CACHE_PROBE_BYTES), counters))),
      edge:
        edgeHash ??
        sha1(
          await readAt(
            handle,
            Math.max(0, committed - CACHE_PROBE_BYTES),
            Math.min(committed, CACHE_PROBE_BYTES),
            counters,
          ),
        ),
    };
    // A time read in the local zone is not cached: the file is read again by every listing.
    if (snapshot.zoneDependent) return { info, text: "" };
    const text = snapshot.allMessagesText;
    snapshot.allMessagesText = "";
    const entry: CachedFile = {
      size: st.size,
      mtimeMs: st.mtimeMs,
      ctimeMs: st.ctimeMs,
      ino: st.ino,
      offset: committed,
      nextLine,
      headHash: p.head,
      edgeHash: p.edge,
      state: snapshot,
    };
    return { info, cache: entry, text };
  } finally {
    handle.close();
  }
}
