/**
 * Reading a listing index: {@link CacheIndex} decodes one in place (typed-array columns over
 * the file's bytes, strings sliced from one blob on demand) and rebuilds a {@link CachedFile}
 * only for a file that must be read again. Anything unreadable gives no index, so the listing
 * reads the files instead.
 *
 * Reads of typed arrays and arrays are at indexes in range by construction and written
 * `a[i] as number` (or `as string`): `noUncheckedIndexedAccess` types every read `| undefined`,
 * and a check per read in these loops would cost more than it proves.
 */
import type { CachedFile } from "./cache.js";
import type { TextRef } from "./cache-segments.js";
import {
  BYTE_ORDER,
  DIR_STRING,
  ENCODINGS,
  FLOAT_COLUMN,
  ENTRY_FLAG,
  FLOAT_COLUMN_COUNT,
  HEADER_STATE,
  HEADER_BYTES,
  INDEX_VERSION,
  KEYS_STRING,
  KNOWN_FLAGS,
  LITTLE_ENDIAN,
  type Layout,
  MAGIC,
  UINT_COLUMN,
  UINT_COLUMN_COUNT,
  VALUE_KIND,
  indexLayout,
} from "./cache-index-layout.js";
import type { InfoState } from "./info.js";
import { isoOfTime } from "./iso-time.js";

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
  /** The columns by number ({@link FLOAT_COLUMN}, {@link UINT_COLUMN}). */
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
    this.f64 = Array.from({ length: FLOAT_COLUMN_COUNT }, (_, c) => f(c));
    this.u32 = Array.from({ length: UINT_COLUMN_COUNT }, (_, c) => u(c));
    const fc = (c: number) => this.f64[c] as Float64Array;
    const uc = (c: number) => this.u32[c] as Uint32Array;
    this.size = fc(FLOAT_COLUMN.size);
    this.mtimeMs = fc(FLOAT_COLUMN.mtimeMs);
    this.ctimeMs = fc(FLOAT_COLUMN.ctimeMs);
    this.ino = fc(FLOAT_COLUMN.ino);
    this.offset = fc(FLOAT_COLUMN.offset);
    this.nextLine = fc(FLOAT_COLUMN.nextLine);
    this.messageCount = fc(FLOAT_COLUMN.messageCount);
    this.textCount = fc(FLOAT_COLUMN.textCount);
    this.lastActivity = fc(FLOAT_COLUMN.lastActivity);
    this.created = fc(FLOAT_COLUMN.created);
    this.modified = fc(FLOAT_COLUMN.modified);
    this.textOffset = fc(FLOAT_COLUMN.textOffset);
    this.textLength = fc(FLOAT_COLUMN.textLength);
    this.flags = uc(UINT_COLUMN.flags);
    this.rank = uc(UINT_COLUMN.rank);
    this.idRef = uc(UINT_COLUMN.id);
    this.cwdRef = uc(UINT_COLUMN.cwd);
    this.parentRef = uc(UINT_COLUMN.parentSession);
    this.nameRef = uc(UINT_COLUMN.name);
    this.timestampRef = uc(UINT_COLUMN.timestamp);
    this.firstRef = uc(UINT_COLUMN.firstMessage);
    this.segmentRef = uc(UINT_COLUMN.textSegment);
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
    if (n * (FLOAT_COLUMN_COUNT * 8 + UINT_COLUMN_COUNT * 4 + 40) + strings * 4 + blobBytes > file.length)
      return undefined;
    const at = indexLayout(n, strings, blobBytes);
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
    if (index.starts[0] !== 0 || index.starts[strings] !== blobChars || index.str(DIR_STRING) !== dir)
      return undefined;
    const keys = index.shared(KEYS_STRING);
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

  /** The keys of every entry, in entry order, joined by NUL. */
  joinedKeys(): string {
    // Decoding checked that it is there.
    return this.shared(KEYS_STRING) as string;
  }

  /**
   * Whether `keys`, in this order, are exactly the keys of this index (entry i = keys[i]);
   * `same` compares the NUL-joined keys when the caller can do it without joining them.
   */
  sameKeys(keys: readonly string[], same?: (joined: string) => boolean): boolean {
    const joined = this.joinedKeys();
    return keys.length === this.count && (same ? same(joined) : keys.join("\0") === joined);
  }

  private keys(): string[] {
    this.keyList ??= this.count === 0 ? [] : this.joinedKeys().split("\0");
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
    if ((flags & ENTRY_FLAG.hasText) === 0) return undefined;
    const segment = this.shared(this.segmentRef[e] as number);
    if (segment === undefined) return undefined;
    return {
      segment,
      offset: this.textOffset[e] as number,
      length: this.textLength[e] as number,
      utf16: (flags & ENTRY_FLAG.textUtf16) !== 0,
    };
  }

  /** A header value kept as {@link VALUE_KIND}, or {@link DAMAGED}. */
  private value(kind: number, ref: number): unknown {
    if (kind === VALUE_KIND.absent) return undefined;
    const s = this.str(ref);
    if (s === undefined || kind > VALUE_KIND.json) return DAMAGED;
    if (kind === VALUE_KIND.string) return s;
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
    const kind = flags & ENTRY_FLAG.headerMask;
    if (kind === HEADER_STATE.notSession) state.header = false;
    else if (kind === HEADER_STATE.session) {
      const cwd = this.shared(this.cwdRef[e] as number);
      const id = this.value((flags >>> ENTRY_FLAG.idShift) & 3, this.idRef[e] as number);
      const tsKind = (flags >>> ENTRY_FLAG.timestampShift) & 3;
      const timestamp =
        tsKind !== VALUE_KIND.isoOfCreated
          ? this.value(tsKind, this.timestampRef[e] as number)
          : (flags & ENTRY_FLAG.stableTimes) !== 0
            ? (isoOfTime(this.created[e] as number) ?? DAMAGED)
            : DAMAGED;
      if (cwd === undefined || id === DAMAGED || timestamp === DAMAGED) return undefined;
      const header: NonNullable<InfoState["header"]> = { id, cwd, timestamp };
      if ((flags & ENTRY_FLAG.hasParentSession) !== 0) {
        const parent = this.shared(this.parentRef[e] as number);
        if (parent === undefined) return undefined;
        header.parentSession = parent;
      }
      state.header = header;
    } else if (kind !== HEADER_STATE.none) return undefined;
    if ((flags & ENTRY_FLAG.hasName) !== 0) {
      const name = this.shared(this.nameRef[e] as number);
      if (name === undefined) return undefined;
      state.name = name;
    }
    if ((flags & ENTRY_FLAG.hasLastActivity) !== 0) state.lastActivity = this.lastActivity[e] as number;
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
    if ((flags & ENTRY_FLAG.hasText) !== 0 && ref === undefined) return undefined;
    if (ref !== undefined) file.text = ref;
    else if (state.textCount !== 0) return undefined;
    return file;
  }
}
