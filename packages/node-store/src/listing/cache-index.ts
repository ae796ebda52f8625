/**
 * The binary listing index (cache format 5): everything the listing cache knows about the
 * files of one listed directory, in one file read in one go and used in place.
 *
 * A warm listing must cost little more than its `stat` calls, in a process whose code is not
 * optimized yet; parsing a JSON index built ~10 objects and several strings per file, and the
 * garbage collector then copied them around. Here the numbers are typed-array columns over the
 * file's bytes, the strings are slices of one decoded blob, hashes stay raw bytes, and the
 * keys of all files are one string, compared in one go with the keys of a new listing (same
 * order: entry `i` is candidate `i`, no lookups). {@link CacheIndex.entry} rebuilds a
 * {@link CachedFile} only for a file that must be read again.
 *
 * Layout (little-endian, each section 8-byte aligned):
 * - header (64 bytes): magic, byte-order mark, version, file count `n`, string count, blob
 *   encoding, blob bytes, blob chars;
 * - `n` float64 per numeric column ({@link F}), then `n` uint32 per string/flag column ({@link U});
 * - `n` × 40 bytes: sha1 of the head and of the edge probe;
 * - `strings + 1` uint32: char offsets of the strings in the blob;
 * - the blob: every string, concatenated, as latin1, UTF-8 or UTF-16LE (whichever is exact).
 * String 0 is the listed directory, string 1 the keys joined by NUL (a path cannot hold one).
 *
 * Decoding checks the structure (sizes, counts, the directory, the blob's length); an entry
 * whose flags or string ids are out of range is treated as absent. Anything unreadable gives
 * no index, so the listing reads the files instead.
 */
import type { CachedFile, TextRef } from "./cache.js";
import type { InfoState } from "./info.js";
import { isExactIso, isoOfTime, stableInfoTimes } from "./info.js";

export const INDEX_VERSION = 5;
const MAGIC = "PISLIDX\n";
const BYTE_ORDER = 0x01020304;
const HEADER_BYTES = 64;

/** Float64 columns. */
export const F = {
  size: 0,
  mtimeMs: 1,
  ino: 2,
  offset: 3,
  nextLine: 4,
  messageCount: 5,
  textCount: 6,
  lastActivity: 7,
  /** `created` time, with {@link FLAG.stableTimes}. */
  created: 8,
  /** `modified` time, with {@link FLAG.stableTimes} and without {@link FLAG.modifiedIsMtime}. */
  modified: 9,
  textOffset: 10,
  textLength: 11,
  ctimeMs: 12,
} as const;
const F_COUNT = 13;

/** Uint32 columns: flags, rank, and string ids ({@link NO_STRING}: absent). */
export const U = {
  flags: 0,
  /** Position in the last listing's result order (a hint for sorting). */
  rank: 1,
  id: 2,
  cwd: 3,
  parentSession: 4,
  name: 5,
  timestamp: 6,
  firstMessage: 7,
  textSegment: 8,
} as const;
const U_COUNT = 9;

export const NO_STRING = 0xffffffff;

/** Bits of the flags column. */
export const FLAG = {
  /** Bits 0-1: the header, see {@link HEADER}. */
  headerMask: 3,
  /** Bits 2-3: how `header.id` is kept, see {@link VALUE}. */
  idShift: 2,
  /** Bits 4-5: how `header.timestamp` is kept, see {@link VALUE}. */
  timestampShift: 4,
  hasParentSession: 1 << 6,
  hasName: 1 << 7,
  hasLastActivity: 1 << 8,
  hasText: 1 << 9,
  /** `created`/`modified` columns hold the info's times (see `stableInfoTimes`). */
  stableTimes: 1 << 10,
  /** `modified` is the file's mtime. */
  modifiedIsMtime: 1 << 11,
  /** The text segment holds this text as UTF-16LE. */
  textUtf16: 1 << 12,
} as const;
/** Every bit {@link FLAG} defines. */
export const KNOWN_FLAGS = (1 << 13) - 1;

/** `state.header`: not seen yet, not a session, a header. */
export const HEADER = { none: 0, notSession: 1, session: 2 } as const;
/**
 * A header value: absent (`undefined`), a string, any other JSON value (kept as JSON), or (for
 * the time only) the ISO form of the `created` column, which is then not stored twice.
 */
export const VALUE = { absent: 0, string: 1, json: 2, isoOfCreated: 3 } as const;

const ENCODINGS = ["latin1", "utf8", "utf16le"] as const;
/** The columns are read in place as typed arrays, so only in the file's byte order. */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** `n` rounded up to a multiple of 8 (plain arithmetic: sizes may exceed 32 bits). */
function align8(n: number): number {
  return Math.ceil(n / 8) * 8;
}

interface Layout {
  f64: number;
  u32: number;
  hashes: number;
  offsets: number;
  blob: number;
  end: number;
}

function layout(n: number, strings: number, blobBytes: number): Layout {
  const f64 = HEADER_BYTES;
  const u32 = f64 + F_COUNT * n * 8;
  const hashes = align8(u32 + U_COUNT * n * 4);
  const offsets = align8(hashes + n * 40);
  const blob = align8(offsets + (strings + 1) * 4);
  return { f64, u32, hashes, offsets, blob, end: blob + blobBytes };
}

const HEX40 = /^[0-9a-f]{40}$/;
const SEGMENT_ID = /^[0-9a-f]{16}$/;

/** Whether `s` has no lone surrogate (so UTF-8 holds it exactly). */
export function isWellFormed(s: string): boolean {
  const native = (s as unknown as { isWellFormed?: () => boolean }).isWellFormed;
  if (typeof native === "function") return native.call(s);
  return !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);
}

/** The cheapest of latin1, UTF-8 and UTF-16LE that gives `s` back exactly. */
export function exactEncoding(s: string): BufferEncoding {
  if (!/[^\u0000-\u00ff]/.test(s)) return "latin1";
  return isWellFormed(s) ? "utf8" : "utf16le";
}

/**
 * One file of a new index: a new cache entry (`file`), or entry `entry` of an existing index
 * (`from`) copied as it is, without rebuilding it (a save after a listing where one file of
 * thousands changed copies all the others); `ref`, when set, replaces its text reference
 * (`null`: none).
 */
export interface IndexEntry {
  key: string;
  /** Position in the result order (a sorting hint only). */
  rank: number;
  file?: CachedFile;
  from?: CacheIndex;
  entry?: number;
  ref?: TextRef | null;
}

/** Where the `allMessagesText` of an index entry is. */
export function textRefOf(e: IndexEntry): TextRef | undefined {
  if (e.file) return e.file.text;
  if (e.ref !== undefined) return e.ref ?? undefined;
  return e.from?.textRef(e.entry ?? -1);
}

/** Sets (or, with `undefined`, removes) the text reference of an index entry. */
export function setTextRef(e: IndexEntry, ref: TextRef | undefined): void {
  if (e.file) {
    if (ref === undefined) delete e.file.text;
    else e.file.text = ref;
  } else {
    e.ref = ref ?? null;
  }
}

/** The string columns, copied by value from one index to another. */
const STRING_COLUMNS = [U.id, U.cwd, U.parentSession, U.name, U.timestamp, U.firstMessage, U.textSegment];

/** Whether an entry of an existing index can be copied: known flags, strings that exist. */
function copyable(from: CacheIndex, e: number, ref: TextRef | null | undefined): boolean {
  if (!(e >= 0 && e < from.count)) return false;
  const flags = from.flags[e] as number;
  if ((flags & ~KNOWN_FLAGS) !== 0) return false;
  for (const c of STRING_COLUMNS) {
    const s = (from.u32[c] as Uint32Array)[e] as number;
    if (s !== NO_STRING && s >= from.stringCount) return false;
  }
  const hasText = ref === undefined ? (flags & FLAG.hasText) !== 0 : ref !== null;
  return hasText || from.textCount[e] === 0;
}

/**
 * Whether a cache entry can be stored in the index: the state's shape is the one `info.ts`
 * builds and the hashes are sha1 hex. Anything else is left out (its file is read next time).
 */
function storable(key: string, f: CachedFile): boolean {
  if (key.includes("\0") || !HEX40.test(f.headHash) || !HEX40.test(f.edgeHash)) return false;
  const s = f.state;
  if (typeof s.firstMessage !== "string" || typeof s.name === "object") return false;
  if (s.header && typeof s.header.cwd !== "string") return false;
  if (f.text !== undefined && !SEGMENT_ID.test(f.text[0])) return false;
  return s.textCount === 0 || f.text !== undefined;
}

/** Encodes a new index of `dir` holding `entries` (in the order of the listing's candidates). */
export function encodeIndex(dir: string, entries: readonly IndexEntry[]): Buffer {
  const kept = entries.filter((e) =>
    e.file ? storable(e.key, e.file) : e.from !== undefined && copyable(e.from, e.entry ?? -1, e.ref),
  );
  const n = kept.length;
  const parts: string[] = [];
  const ids = new Map<string, number>();
  let chars = 0;
  const starts: number[] = [];
  const add = (s: string): number => {
    starts.push(chars);
    parts.push(s);
    chars += s.length;
    return starts.length - 1;
  };
  const intern = (s: string): number => {
    let id = ids.get(s);
    if (id === undefined) {
      id = add(s);
      ids.set(s, id);
    }
    return id;
  };
  add(dir);
  add(kept.map((e) => e.key).join("\0"));

  const f64 = new Float64Array(F_COUNT * n);
  const u32 = new Uint32Array(U_COUNT * n).fill(NO_STRING);
  const hashes = Buffer.alloc(n * 40);
  const setF = (col: number, i: number, v: number) => {
    f64[col * n + i] = v;
  };
  const setU = (col: number, i: number, v: number) => {
    u32[col * n + i] = v;
  };
  const value = (v: unknown, col: number, i: number): number => {
    if (v === undefined) return VALUE.absent;
    if (typeof v === "string") {
      setU(col, i, intern(v));
      return VALUE.string;
    }
    setU(col, i, intern(JSON.stringify(v)));
    return VALUE.json;
  };
  // Strings of copied entries, by their id in the index they come from: each is added once,
  // without looking it up by value.
  const remapped = new Map<CacheIndex, Int32Array>();
  /** Runs of copied entries (`from` entries [e, e + length) to new entries [i, i + length)). */
  const runs: { from: CacheIndex; e: number; i: number; length: number }[] = [];
  const copy = (i: number, from: CacheIndex, e: number, ref: TextRef | null | undefined): void => {
    const last = runs[runs.length - 1];
    if (
      last !== undefined &&
      last.from === from &&
      last.e + last.length === e &&
      last.i + last.length === i
    ) {
      last.length++;
    } else {
      runs.push({ from, e, i, length: 1 });
    }
    let ids = remapped.get(from);
    if (ids === undefined) {
      ids = new Int32Array(from.stringCount).fill(-1);
      remapped.set(from, ids);
    }
    for (const c of STRING_COLUMNS) {
      const old = (from.u32[c] as Uint32Array)[e] as number;
      if (old === NO_STRING) continue;
      let id = ids[old] as number;
      if (id < 0) {
        id = add(from.str(old) as string);
        ids[old] = id;
      }
      u32[c * n + i] = id;
    }
    u32[U.flags * n + i] = from.flags[e] as number;
    if (ref !== undefined) {
      let flags = (from.flags[e] as number) & ~(FLAG.hasText | FLAG.textUtf16);
      u32[U.textSegment * n + i] = NO_STRING;
      if (ref !== null) {
        flags |= FLAG.hasText | (ref[3] === 1 ? FLAG.textUtf16 : 0);
        setU(U.textSegment, i, intern(ref[0]));
      }
      u32[U.flags * n + i] = flags;
    }
  };
  for (let i = 0; i < n; i++) {
    const { file, rank, from, entry, ref } = kept[i] as IndexEntry;
    setU(U.rank, i, rank >>> 0);
    if (!file) {
      copy(i, from as CacheIndex, entry as number, ref);
      continue;
    }
    const s = file.state;
    setF(F.size, i, file.size);
    setF(F.mtimeMs, i, file.mtimeMs);
    setF(F.ctimeMs, i, file.ctimeMs);
    setF(F.ino, i, file.ino);
    setF(F.offset, i, file.offset);
    setF(F.nextLine, i, file.nextLine);
    setF(F.messageCount, i, s.messageCount);
    setF(F.textCount, i, s.textCount);
    let flags = 0;
    if (s.lastActivity !== undefined) {
      flags |= FLAG.hasLastActivity;
      setF(F.lastActivity, i, s.lastActivity);
    }
    if (s.name !== undefined) {
      flags |= FLAG.hasName;
      setU(U.name, i, intern(s.name));
    }
    setU(U.firstMessage, i, intern(s.firstMessage));
    const h = s.header;
    if (h === false) flags |= HEADER.notSession;
    else if (h !== undefined) {
      flags |= HEADER.session;
      setU(U.cwd, i, intern(h.cwd));
      if (h.parentSession !== undefined) {
        flags |= FLAG.hasParentSession;
        setU(U.parentSession, i, intern(h.parentSession));
      }
      flags |= value(h.id, U.id, i) << FLAG.idShift;
      const times = stableInfoTimes(s);
      if (times) {
        flags |= FLAG.stableTimes;
        setF(F.created, i, times.created);
        if (times.modified === undefined) flags |= FLAG.modifiedIsMtime;
        else setF(F.modified, i, times.modified);
      }
      // (times.created is the time of h.timestamp then.)
      if (times && typeof h.timestamp === "string" && isExactIso(h.timestamp)) {
        flags |= VALUE.isoOfCreated << FLAG.timestampShift;
      } else {
        flags |= value(h.timestamp, U.timestamp, i) << FLAG.timestampShift;
      }
    }
    if (file.text !== undefined) {
      flags |= FLAG.hasText;
      if (file.text[3] === 1) flags |= FLAG.textUtf16;
      setU(U.textSegment, i, intern(file.text[0]));
      setF(F.textOffset, i, file.text[1]);
      setF(F.textLength, i, file.text[2]);
    }
    setU(U.flags, i, flags);
    hashes.write(file.headHash, i * 40, 20, "hex");
    hashes.write(file.edgeHash, i * 40 + 20, 20, "hex");
  }
  // The numbers and hashes of copied entries, one run at a time.
  for (const { from, e, i, length } of runs) {
    for (let c = 0; c < F_COUNT; c++)
      f64.set((from.f64[c] as Float64Array).subarray(e, e + length), c * n + i);
    from.copyHashes(e, length, hashes, i * 40);
  }
  for (let i = 0; i < n; i++) {
    const { file, ref } = kept[i] as IndexEntry;
    if (file || !ref) continue;
    setF(F.textOffset, i, ref[1]);
    setF(F.textLength, i, ref[2]);
  }
  starts.push(chars);

  const blob = parts.join("");
  const encoding = exactEncoding(blob);
  const blobBytes = Buffer.byteLength(blob, encoding);
  // Offsets and sizes are uint32 (the caller gives up saving, and files are read next time).
  if (blobBytes > 0xffffffff || starts.length > 0xffffffff) throw new RangeError("listing index too large");
  const at = layout(n, starts.length - 1, blobBytes);
  const out = Buffer.alloc(at.end);
  out.write(MAGIC, 0, "latin1");
  out.writeUInt32LE(BYTE_ORDER, 8);
  out.writeUInt32LE(INDEX_VERSION, 12);
  out.writeUInt32LE(n, 16);
  out.writeUInt32LE(starts.length - 1, 20);
  out.writeUInt32LE(ENCODINGS.indexOf(encoding as (typeof ENCODINGS)[number]), 24);
  out.writeUInt32LE(blobBytes, 28);
  out.writeUInt32LE(chars, 32);
  // Typed arrays use the machine's byte order: little-endian (a big-endian machine never reads it).
  const little = (arr: Float64Array | Uint32Array, pos: number) => {
    Buffer.from(arr.buffer, arr.byteOffset, arr.byteLength).copy(out, pos);
  };
  little(f64, at.f64);
  little(u32, at.u32);
  hashes.copy(out, at.hashes);
  little(Uint32Array.from(starts), at.offsets);
  out.write(blob, at.blob, blobBytes, encoding);
  return out;
}

/** What {@link CacheIndex} returns for a value it cannot read back. */
const DAMAGED = Symbol("damaged");

/** A decoded index: typed-array columns over the file, strings sliced from one blob on demand. */
export class CacheIndex {
  readonly count: number;
  readonly size: Float64Array;
  readonly mtimeMs: Float64Array;
  readonly ctimeMs: Float64Array;
  readonly ino: Float64Array;
  readonly offset: Float64Array;
  readonly nextLine: Float64Array;
  readonly messageCount: Float64Array;
  readonly textCount: Float64Array;
  readonly lastActivity: Float64Array;
  readonly created: Float64Array;
  readonly modified: Float64Array;
  readonly textOffset: Float64Array;
  readonly textLength: Float64Array;
  readonly flags: Uint32Array;
  readonly rank: Uint32Array;
  readonly idRef: Uint32Array;
  readonly cwdRef: Uint32Array;
  readonly parentRef: Uint32Array;
  readonly nameRef: Uint32Array;
  readonly timestampRef: Uint32Array;
  readonly firstRef: Uint32Array;
  readonly segmentRef: Uint32Array;
  /** The columns by number ({@link F}, {@link U}). */
  readonly f64: Float64Array[];
  readonly u32: Uint32Array[];
  /** Number of strings; string `i` is `blob.slice(starts[i], starts[i + 1])`. */
  readonly stringCount: number;
  readonly starts: Uint32Array;
  readonly blob: string;
  private readonly bytes: Buffer;
  private readonly hashesAt: number;
  /** Shared strings sliced so far, by id (a string shared by many files is sliced once). */
  readonly strings: (string | undefined)[];
  private keyList: string[] | undefined;
  private byKey: Map<string, number> | undefined;

  private constructor(bytes: Buffer, n: number, strings: number, at: Layout, blob: string) {
    this.count = n;
    this.bytes = bytes;
    const buf = bytes.buffer;
    const base = bytes.byteOffset;
    const f = (col: number) => new Float64Array(buf, base + at.f64 + col * n * 8, n);
    const u = (col: number) => new Uint32Array(buf, base + at.u32 + col * n * 4, n);
    this.f64 = Array.from({ length: F_COUNT }, (_, c) => f(c));
    this.u32 = Array.from({ length: U_COUNT }, (_, c) => u(c));
    const fc = (c: number) => this.f64[c] as Float64Array;
    const uc = (c: number) => this.u32[c] as Uint32Array;
    this.size = fc(F.size);
    this.mtimeMs = fc(F.mtimeMs);
    this.ctimeMs = fc(F.ctimeMs);
    this.ino = fc(F.ino);
    this.offset = fc(F.offset);
    this.nextLine = fc(F.nextLine);
    this.messageCount = fc(F.messageCount);
    this.textCount = fc(F.textCount);
    this.lastActivity = fc(F.lastActivity);
    this.created = fc(F.created);
    this.modified = fc(F.modified);
    this.textOffset = fc(F.textOffset);
    this.textLength = fc(F.textLength);
    this.flags = uc(U.flags);
    this.rank = uc(U.rank);
    this.idRef = uc(U.id);
    this.cwdRef = uc(U.cwd);
    this.parentRef = uc(U.parentSession);
    this.nameRef = uc(U.name);
    this.timestampRef = uc(U.timestamp);
    this.firstRef = uc(U.firstMessage);
    this.segmentRef = uc(U.textSegment);
    this.hashesAt = at.hashes;
    this.stringCount = strings;
    this.starts = new Uint32Array(buf, base + at.offsets, strings + 1);
    this.blob = blob;
    this.strings = new Array(strings);
  }

  /** Decodes an index file of `dir`; `undefined` when it is not a valid index of that directory. */
  static decode(file: Buffer, dir: string): CacheIndex | undefined {
    if (!LITTLE_ENDIAN || file.length < HEADER_BYTES || file.toString("latin1", 0, 8) !== MAGIC)
      return undefined;
    if (file.readUInt32LE(8) !== BYTE_ORDER || file.readUInt32LE(12) !== INDEX_VERSION) return undefined;
    const n = file.readUInt32LE(16);
    const strings = file.readUInt32LE(20);
    const encoding = ENCODINGS[file.readUInt32LE(24)];
    const blobBytes = file.readUInt32LE(28);
    const blobChars = file.readUInt32LE(32);
    if (encoding === undefined || strings < 2) return undefined;
    // Counts that could not fit are damage (and must not reach the typed-array views).
    if (n * (F_COUNT * 8 + U_COUNT * 4 + 40) + strings * 4 + blobBytes > file.length) return undefined;
    const at = layout(n, strings, blobBytes);
    if (at.end !== file.length) return undefined;
    // Typed-array views need aligned memory (a fresh read is; a pooled slice may not be).
    let bytes = file;
    if (bytes.byteOffset % 8 !== 0) {
      bytes = Buffer.from(new ArrayBuffer(file.length));
      file.copy(bytes);
    }
    const blob = bytes.toString(encoding, at.blob, at.end);
    if (blob.length !== blobChars) return undefined;
    const index = new CacheIndex(bytes, n, strings, at, blob);
    if (index.starts[0] !== 0 || index.starts[strings] !== blobChars || index.str(0) !== dir)
      return undefined;
    const keys = index.shared(1);
    if (keys === undefined || (n === 0 ? keys !== "" : keys.length < 2 * n - 1)) return undefined;
    return index;
  }

  /** String `id`, or `undefined` when there is no such string. */
  str(id: number): string | undefined {
    return id < this.stringCount
      ? this.blob.slice(this.starts[id] as number, this.starts[id + 1] as number)
      : undefined;
  }

  /** {@link str}, sliced once for all the files that share it (a cwd, a name). */
  shared(id: number): string | undefined {
    let s = this.strings[id];
    if (s === undefined) {
      s = this.str(id);
      this.strings[id] = s;
    }
    return s;
  }

  /**
   * Whether `keys`, in this order, are exactly the keys of this index (entry i = keys[i]);
   * `same` compares the NUL-joined keys when the caller can do it without joining them.
   */
  sameKeys(keys: readonly string[], same?: (joined: string) => boolean): boolean {
    const joined = this.shared(1) as string;
    return keys.length === this.count && (same ? same(joined) : keys.join("\0") === joined);
  }

  private keys(): string[] {
    this.keyList ??= this.count === 0 ? [] : (this.shared(1) as string).split("\0");
    return this.keyList;
  }

  /** The entry of `key`, or -1. */
  find(key: string): number {
    if (this.byKey === undefined) {
      const keys = this.keys();
      this.byKey = new Map();
      // A corrupt key list (a NUL inside a key) would shift every entry: use none of them.
      if (keys.length === this.count)
        for (let i = 0; i < keys.length; i++) this.byKey.set(keys[i] as string, i);
    }
    return this.byKey.get(key) ?? -1;
  }

  /** The key (resolved path) of entry `e`. */
  key(e: number): string | undefined {
    const keys = this.keys();
    return keys.length === this.count ? keys[e] : undefined;
  }

  /** Copies the hashes (40 bytes each) of entries [e, e + count) into `target` at `at`. */
  copyHashes(e: number, count: number, target: Buffer, at: number): void {
    this.bytes.copy(target, at, this.hashesAt + e * 40, this.hashesAt + (e + count) * 40);
  }

  /** Where entry `e`'s `allMessagesText` is, if it has one. */
  textRef(e: number): TextRef | undefined {
    const flags = this.flags[e] as number;
    if ((flags & FLAG.hasText) === 0) return undefined;
    const segment = this.shared(this.segmentRef[e] as number);
    if (segment === undefined) return undefined;
    const ref: TextRef = [segment, this.textOffset[e] as number, this.textLength[e] as number];
    if ((flags & FLAG.textUtf16) !== 0) ref.push(1);
    return ref;
  }

  /** A header value kept as {@link VALUE}, or {@link DAMAGED}. */
  private value(kind: number, ref: number): unknown {
    if (kind === VALUE.absent) return undefined;
    const s = this.str(ref);
    if (s === undefined || kind > VALUE.json) return DAMAGED;
    if (kind === VALUE.string) return s;
    try {
      return JSON.parse(s) as unknown;
    } catch {
      return DAMAGED;
    }
  }

  /**
   * Entry `e` as a {@link CachedFile} (fresh objects: the caller may change them), or
   * `undefined` when the entry is damaged.
   */
  entry(e: number): CachedFile | undefined {
    if (!(e >= 0 && e < this.count)) return undefined;
    const flags = this.flags[e] as number;
    if ((flags & ~KNOWN_FLAGS) !== 0) return undefined;
    const firstMessage = this.str(this.firstRef[e] as number);
    if (firstMessage === undefined) return undefined;
    const state: InfoState = {
      messageCount: this.messageCount[e] as number,
      firstMessage,
      allMessagesText: "",
      textCount: this.textCount[e] as number,
    };
    const kind = flags & FLAG.headerMask;
    if (kind === HEADER.notSession) state.header = false;
    else if (kind === HEADER.session) {
      const cwd = this.shared(this.cwdRef[e] as number);
      const id = this.value((flags >>> FLAG.idShift) & 3, this.idRef[e] as number);
      const tsKind = (flags >>> FLAG.timestampShift) & 3;
      const timestamp =
        tsKind !== VALUE.isoOfCreated
          ? this.value(tsKind, this.timestampRef[e] as number)
          : (flags & FLAG.stableTimes) !== 0
            ? (isoOfTime(this.created[e] as number) ?? DAMAGED)
            : DAMAGED;
      if (cwd === undefined || id === DAMAGED || timestamp === DAMAGED) return undefined;
      const header: NonNullable<InfoState["header"]> = { id, cwd, timestamp };
      if ((flags & FLAG.hasParentSession) !== 0) {
        const parent = this.shared(this.parentRef[e] as number);
        if (parent === undefined) return undefined;
        header.parentSession = parent;
      }
      state.header = header;
    } else if (kind !== HEADER.none) return undefined;
    if ((flags & FLAG.hasName) !== 0) {
      const name = this.shared(this.nameRef[e] as number);
      if (name === undefined) return undefined;
      state.name = name;
    }
    if ((flags & FLAG.hasLastActivity) !== 0) state.lastActivity = this.lastActivity[e] as number;
    const at = this.hashesAt + e * 40;
    const file: CachedFile = {
      size: this.size[e] as number,
      mtimeMs: this.mtimeMs[e] as number,
      ctimeMs: this.ctimeMs[e] as number,
      ino: this.ino[e] as number,
      offset: this.offset[e] as number,
      nextLine: this.nextLine[e] as number,
      headHash: this.bytes.toString("hex", at, at + 20),
      edgeHash: this.bytes.toString("hex", at + 20, at + 40),
      state,
    };
    const ref = this.textRef(e);
    if ((flags & FLAG.hasText) !== 0 && ref === undefined) return undefined;
    if (ref !== undefined) file.text = ref;
    else if (state.textCount !== 0) return undefined;
    return file;
  }
}
