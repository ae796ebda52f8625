/**
 * The layout of the binary listing index (cache format 5): its header, its columns and flag
 * bits, and where each section starts. `cache-index-encode.ts` writes it, {@link CacheIndex}
 * (`cache-index.ts`) reads it in place.
 *
 * The numbers are typed-array columns over the file's bytes, the strings slices of one decoded
 * blob, hashes raw bytes, and the keys of all files one string, compared in one go with the
 * keys of a new listing (entry `i` is candidate `i`); decision 009 says why.
 * {@link CacheIndex.entry} rebuilds a {@link CachedFile} only for a file that must be read again.
 *
 * Layout (little-endian, each section 8-byte aligned):
 * - header (64 bytes): magic, byte-order mark, version, file count `n`, string count, blob
 *   encoding, blob bytes, blob chars;
 * - `n` float64 per numeric column ({@link FLOAT_COLUMN}), then `n` uint32 per string or flag
 *   column ({@link UINT_COLUMN});
 * - `n` × 40 bytes: sha1 of the head and of the edge probe;
 * - `strings + 1` uint32: char offsets of the strings in the blob;
 * - the blob: every string, concatenated, as latin1, UTF-8 or UTF-16LE (whichever is exact).
 * String 0 is the listed directory, string 1 the keys joined by NUL (a path cannot hold one).
 *
 * Decoding checks the structure (sizes, counts, the directory, the blob's length); an entry
 * whose flags or string ids are out of range is treated as absent. Anything unreadable gives
 * no index, so the listing reads the files instead.
 */

export const INDEX_VERSION = 5;
export const MAGIC = "PISLIDX\n";
export const BYTE_ORDER = 0x01020304;
export const HEADER_BYTES = 64;

/** Float64 columns. */
export const FLOAT_COLUMN = {
  size: 0,
  mtimeMs: 1,
  ino: 2,
  offset: 3,
  nextLine: 4,
  messageCount: 5,
  textCount: 6,
  lastActivity: 7,
  /** `created` time, with {@link ENTRY_FLAG.stableTimes}. */
  created: 8,
  /** `modified` time, with {@link ENTRY_FLAG.stableTimes}, without {@link ENTRY_FLAG.modifiedIsMtime}. */
  modified: 9,
  textOffset: 10,
  textLength: 11,
  ctimeMs: 12,
} as const;
export const FLOAT_COLUMN_COUNT = 13;

/** Uint32 columns: flags, rank, and string ids ({@link NO_STRING}: absent). */
export const UINT_COLUMN = {
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
export const UINT_COLUMN_COUNT = 9;

export const NO_STRING = 0xffffffff;
/** The strings every index starts with: the listed directory, then the keys joined by NUL. */
export const DIR_STRING = 0;
export const KEYS_STRING = 1;

/** Bits of the flags column. */
export const ENTRY_FLAG = {
  /** Bits 0-1: the header, see {@link HEADER_STATE}. */
  headerMask: 3,
  /** Bits 2-3: how `header.id` is kept, see {@link VALUE_KIND}. */
  idShift: 2,
  /** Bits 4-5: how `header.timestamp` is kept, see {@link VALUE_KIND}. */
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
/** Every bit {@link ENTRY_FLAG} defines. */
export const KNOWN_FLAGS = (1 << 13) - 1;

/** `state.header`: not seen yet, not a session, a header. */
export const HEADER_STATE = { none: 0, notSession: 1, session: 2 } as const;
/**
 * A header value: absent (`undefined`), a string, any other JSON value (kept as JSON), or (for
 * the time only) the ISO form of the `created` column, which is then not stored twice.
 */
export const VALUE_KIND = { absent: 0, string: 1, json: 2, isoOfCreated: 3 } as const;

export const ENCODINGS = ["latin1", "utf8", "utf16le"] as const;
/** The columns are read in place as typed arrays, so only in the file's byte order. */
export const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** `n` rounded up to a multiple of 8 (plain arithmetic: sizes may exceed 32 bits). */
function align8(n: number): number {
  return Math.ceil(n / 8) * 8;
}

export interface Layout {
  f64: number;
  u32: number;
  hashes: number;
  offsets: number;
  blob: number;
  end: number;
}

/** Where each part of an index of `n` entries, `strings` strings and `blobBytes` of their bytes starts. */
export function indexLayout(n: number, strings: number, blobBytes: number): Layout {
  const f64 = HEADER_BYTES;
  const u32 = f64 + FLOAT_COLUMN_COUNT * n * 8;
  const hashes = align8(u32 + UINT_COLUMN_COUNT * n * 4);
  const offsets = align8(hashes + n * 40);
  const blob = align8(offsets + (strings + 1) * 4);
  return { f64, u32, hashes, offsets, blob, end: blob + blobBytes };
}

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
