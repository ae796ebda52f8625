/**
 * Writing a listing index: the entries of one listed directory (new cache entries, and entries
 * of the previous index copied as they are) in the layout of `cache-index-layout.ts`.
 *
 * Reads of typed arrays and arrays are at indexes in range by construction and written
 * `a[i] as number` (or `as string`): `noUncheckedIndexedAccess` types every read `| undefined`,
 * and a check per read in these loops would cost more than it proves.
 */
import type { CachedFile } from "./cache.js";
import type { TextRef } from "./cache-segments.js";
import type { CacheIndex } from "./cache-index.js";
import {
  BYTE_ORDER,
  ENCODINGS,
  FLOAT_COLUMN,
  ENTRY_FLAG,
  FLOAT_COLUMN_COUNT,
  HEADER_STATE,
  INDEX_VERSION,
  KNOWN_FLAGS,
  MAGIC,
  NO_STRING,
  UINT_COLUMN,
  UINT_COLUMN_COUNT,
  VALUE_KIND,
  exactEncoding,
  indexLayout,
} from "./cache-index-layout.js";
import { isExactIso } from "./iso-time.js";
import { stableInfoTimes } from "./info.js";

const HEX40 = /^[0-9a-f]{40}$/;
const SEGMENT_ID = /^[0-9a-f]{16}$/;

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
const STRING_COLUMNS = [
  UINT_COLUMN.id,
  UINT_COLUMN.cwd,
  UINT_COLUMN.parentSession,
  UINT_COLUMN.name,
  UINT_COLUMN.timestamp,
  UINT_COLUMN.firstMessage,
  UINT_COLUMN.textSegment,
];

/** Whether an entry of an existing index can be copied: known flags, strings that exist. */
function copyable(from: CacheIndex, e: number, ref: TextRef | null | undefined): boolean {
  if (!(e >= 0 && e < from.count)) return false;
  const flags = from.flags[e] as number;
  if ((flags & ~KNOWN_FLAGS) !== 0) return false;
  for (const c of STRING_COLUMNS) {
    const s = (from.u32[c] as Uint32Array)[e] as number;
    if (s !== NO_STRING && s >= from.stringCount) return false;
  }
  const hasText = ref === undefined ? (flags & ENTRY_FLAG.hasText) !== 0 : ref !== null;
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
  if (f.text !== undefined && !SEGMENT_ID.test(f.text.segment)) return false;
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
  // DIR_STRING, then KEYS_STRING.
  add(dir);
  add(kept.map((e) => e.key).join("\0"));

  const f64 = new Float64Array(FLOAT_COLUMN_COUNT * n);
  const u32 = new Uint32Array(UINT_COLUMN_COUNT * n).fill(NO_STRING);
  const hashes = Buffer.alloc(n * 40);
  const setFloat = (col: number, i: number, v: number) => {
    f64[col * n + i] = v;
  };
  const setUint = (col: number, i: number, v: number) => {
    u32[col * n + i] = v;
  };
  const value = (v: unknown, col: number, i: number): number => {
    if (v === undefined) return VALUE_KIND.absent;
    if (typeof v === "string") {
      setUint(col, i, intern(v));
      return VALUE_KIND.string;
    }
    setUint(col, i, intern(JSON.stringify(v)));
    return VALUE_KIND.json;
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
    u32[UINT_COLUMN.flags * n + i] = from.flags[e] as number;
    if (ref !== undefined) {
      let flags = (from.flags[e] as number) & ~(ENTRY_FLAG.hasText | ENTRY_FLAG.textUtf16);
      u32[UINT_COLUMN.textSegment * n + i] = NO_STRING;
      if (ref !== null) {
        flags |= ENTRY_FLAG.hasText | (ref.utf16 ? ENTRY_FLAG.textUtf16 : 0);
        setUint(UINT_COLUMN.textSegment, i, intern(ref.segment));
      }
      u32[UINT_COLUMN.flags * n + i] = flags;
    }
  };
  for (let i = 0; i < n; i++) {
    const { file, rank, from, entry, ref } = kept[i] as IndexEntry;
    setUint(UINT_COLUMN.rank, i, rank >>> 0);
    if (!file) {
      copy(i, from as CacheIndex, entry as number, ref);
      continue;
    }
    const s = file.state;
    setFloat(FLOAT_COLUMN.size, i, file.size);
    setFloat(FLOAT_COLUMN.mtimeMs, i, file.mtimeMs);
    setFloat(FLOAT_COLUMN.ctimeMs, i, file.ctimeMs);
    setFloat(FLOAT_COLUMN.ino, i, file.ino);
    setFloat(FLOAT_COLUMN.offset, i, file.offset);
    setFloat(FLOAT_COLUMN.nextLine, i, file.nextLine);
    setFloat(FLOAT_COLUMN.messageCount, i, s.messageCount);
    setFloat(FLOAT_COLUMN.textCount, i, s.textCount);
    let flags = 0;
    if (s.lastActivity !== undefined) {
      flags |= ENTRY_FLAG.hasLastActivity;
      setFloat(FLOAT_COLUMN.lastActivity, i, s.lastActivity);
    }
    if (s.name !== undefined) {
      flags |= ENTRY_FLAG.hasName;
      setUint(UINT_COLUMN.name, i, intern(s.name));
    }
    setUint(UINT_COLUMN.firstMessage, i, intern(s.firstMessage));
    const h = s.header;
    if (h === false) flags |= HEADER_STATE.notSession;
    else if (h !== undefined) {
      flags |= HEADER_STATE.session;
      setUint(UINT_COLUMN.cwd, i, intern(h.cwd));
      if (h.parentSession !== undefined) {
        flags |= ENTRY_FLAG.hasParentSession;
        setUint(UINT_COLUMN.parentSession, i, intern(h.parentSession));
      }
      flags |= value(h.id, UINT_COLUMN.id, i) << ENTRY_FLAG.idShift;
      const times = stableInfoTimes(s);
      if (times) {
        flags |= ENTRY_FLAG.stableTimes;
        setFloat(FLOAT_COLUMN.created, i, times.created);
        if (times.modified === undefined) flags |= ENTRY_FLAG.modifiedIsMtime;
        else setFloat(FLOAT_COLUMN.modified, i, times.modified);
      }
      // (times.created is the time of h.timestamp then.)
      if (times && typeof h.timestamp === "string" && isExactIso(h.timestamp)) {
        flags |= VALUE_KIND.isoOfCreated << ENTRY_FLAG.timestampShift;
      } else {
        flags |= value(h.timestamp, UINT_COLUMN.timestamp, i) << ENTRY_FLAG.timestampShift;
      }
    }
    if (file.text !== undefined) {
      flags |= ENTRY_FLAG.hasText;
      if (file.text.utf16) flags |= ENTRY_FLAG.textUtf16;
      setUint(UINT_COLUMN.textSegment, i, intern(file.text.segment));
      setFloat(FLOAT_COLUMN.textOffset, i, file.text.offset);
      setFloat(FLOAT_COLUMN.textLength, i, file.text.length);
    }
    setUint(UINT_COLUMN.flags, i, flags);
    hashes.write(file.headHash, i * 40, 20, "hex");
    hashes.write(file.edgeHash, i * 40 + 20, 20, "hex");
  }
  // The numbers and hashes of copied entries, one run at a time.
  for (const { from, e, i, length } of runs) {
    for (let c = 0; c < FLOAT_COLUMN_COUNT; c++)
      f64.set((from.f64[c] as Float64Array).subarray(e, e + length), c * n + i);
    from.copyHashes(e, length, hashes, i * 40);
  }
  for (let i = 0; i < n; i++) {
    const { file, ref } = kept[i] as IndexEntry;
    if (file || !ref) continue;
    setFloat(FLOAT_COLUMN.textOffset, i, ref.offset);
    setFloat(FLOAT_COLUMN.textLength, i, ref.length);
  }
  starts.push(chars);

  const blob = parts.join("");
  const encoding = exactEncoding(blob);
  const blobBytes = Buffer.byteLength(blob, encoding);
  // Offsets and sizes are uint32 (the caller gives up saving, and files are read next time).
  if (blobBytes > 0xffffffff || starts.length > 0xffffffff) throw new RangeError("listing index too large");
  const at = indexLayout(n, starts.length - 1, blobBytes);
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
