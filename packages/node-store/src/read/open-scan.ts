/**
 * The lazy open of a v3 session file (decision 101): one pass of the WebAssembly open scanner
 * (`scanEntries` of `assembly/scan.ts`) over the file's bytes gives, per entry line, its byte
 * range, `type` and message role as codes, its `id` and how its `parentId` reads, without
 * `JSON.parse`. Only the header, `label` and `session_info` lines (few; the index needs their
 * fields) and the lines the scanner cannot vouch for are parsed at open, the latter exactly as
 * the eager path reads them (U+FFFD decoding, `JSON.parse`, objects only), so the entries are
 * the ones `readSessionFileSync` + `readLinesAsPi` give. Every other entry is parsed when asked
 * for ({@link LazySessionFile.entry}), from the descriptor opened here, and cached.
 *
 * Use {@link openLazySessionFile}; it returns undefined whenever the eager path must decide:
 * no WebAssembly, no file or an unreadable one, a first line that is not a plain v3 header
 * (older versions need migration), a last line without `\n` (a torn tail is the writer's
 * business), a line longer than the scanner takes. Reading never writes.
 *
 * Reads of typed arrays and arrays are at indexes in range by construction and written
 * `a[i] as number` (or `as string`): `noUncheckedIndexedAccess` types every read `| undefined`,
 * and a check per read in these loops would cost more than it proves.
 */
import { isAscii } from "node:buffer";
import { closeSync, fstatSync, readSync } from "node:fs";
import {
  idHash,
  isJsonText,
  isValidSessionHeader,
  objectShaped,
  type SessionHeader,
} from "@pi-session/format";
import { SessionFileRewrittenError } from "../errors.js";
import { openRegularFileSync } from "../fs/regular-files.js";
import { type LineScanner, lineScanner } from "../listing/line-scanner.js";

/**
 * The entry types the open scanner tells by code (`T_*` of `assembly/scan.ts`, in code order;
 * 0 is any other type): every type the lazy path reads by its type alone must be here, those
 * with a context or index role in format's registry (`open-scan.test.ts` checks it). A type
 * that is not reads as "" (an unknown type) until its entry is parsed.
 */
export const SCANNED_TYPES: readonly string[] = [
  "",
  "message",
  "thinking_level_change",
  "model_change",
  "compaction",
  "branch_summary",
  "custom",
  "custom_message",
  "label",
  "session_info",
  "session",
  "context_edit",
  "usage",
];
const TYPE_CODE = new Map(SCANNED_TYPES.map((type, code) => [type, code] as const));
const TYPE_MESSAGE = 1;

/** How an entry's `parentId` reads (the `P_*` of `assembly/scan.ts`). */
export const ParentKind = {
  Absent: 0,
  Null: 1,
  /** A string: {@link LazySessionFile.parentIdOf} has it. */
  String: 2,
  /** A string equal to the id of the entry just before. */
  Previous: 3,
  /** A number, boolean, object or array. */
  Other: 4,
} as const;

/** Message role codes (`R_*`): the message is an object whose `role` is... */
export const RoleCode = { None: 0, Assistant: 1, User: 2, Other: 3 } as const;

const E_FALLBACK = 0;
const E_ENTRY = 1;
const E_SLOW = 2;

/** Bytes read per step at open (straight into the scanner's memory). */
const CHUNK = 4 * 1024 * 1024;
/** A line (with what precedes it in its chunk) longer than this leaves the open to the eager path. */
const MAX_REGION = 64 * 1024 * 1024;
/** Bytes {@link LazySessionFile.entry} reads from a line on (the next lines are then read already). */
const WINDOW = 256 * 1024;
/** Bytes read per step by {@link LazySessionFile.entries}. */
const READ_ALL_CHUNK = 8 * 1024 * 1024;
/**
 * Bytes of whole lines decoded at once (as latin1 when they are all ASCII) for the lines of a
 * window to be parsed from slices of one string; a stretch with other bytes decodes line by
 * line. Strings this short stay in V8's young generation, which is cheap to allocate and drop.
 */
const PIECE = 64 * 1024;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** pi's decoding of a line: U+FFFD for invalid UTF-8, a BOM kept (then `JSON.parse` rejects it). */
const lossy = new TextDecoder("utf-8", { ignoreBOM: true });

/**
 * What pi parses from a line: its value, or undefined when it is no JSON (proved without the
 * exception). With `objectsOnly` (after the header, where only an object is an entry) a text
 * not from `{` to `}` is undefined unparsed.
 */
function parseAsPi(bytes: Uint8Array, objectsOnly: boolean): unknown {
  const text = lossy.decode(bytes);
  if (objectsOnly && !objectShaped(text)) return undefined;
  if (!isJsonText(text)) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** How a slot's id is kept: none (not a string: the index skips the entry), ASCII bytes, a string. */
const ID_NONE = 0;
const ID_BYTES = 1;
const ID_STRING = 2;

/**
 * The slots of an open as it scans. Ids stay bytes: an ASCII id (nearly all) is copied into
 * one arena and hashed by the scanner, so an open makes no string per entry; other ids (not
 * ASCII, or from a line parsed at open) are strings.
 */
class Growable {
  offsets: Float64Array;
  lengths: Uint32Array;
  types: Uint8Array;
  roles: Uint8Array;
  parents: Uint8Array;
  /** Per slot: the first slot of the chain it ends (see `chainStart`). */
  chains: Int32Array;
  idKinds: Uint8Array;
  idStarts: Uint32Array;
  idLengths: Uint32Array;
  idHashes: Int32Array;
  idStrings = new Map<number, string>();
  /** The ASCII ids, back to back, in slot order (each batch's ids arrive in one copy). */
  arena: Uint8Array;
  arenaUsed = 0;
  count = 0;

  constructor(capacity: number) {
    this.offsets = new Float64Array(capacity);
    this.lengths = new Uint32Array(capacity);
    this.types = new Uint8Array(capacity);
    this.roles = new Uint8Array(capacity);
    this.parents = new Uint8Array(capacity);
    this.chains = new Int32Array(capacity);
    this.idKinds = new Uint8Array(capacity);
    this.idStarts = new Uint32Array(capacity);
    this.idLengths = new Uint32Array(capacity);
    this.idHashes = new Int32Array(capacity);
    this.arena = new Uint8Array(capacity * 8);
  }

  /** Makes room for `count` slots in all. */
  reserve(count: number): void {
    while (this.offsets.length < count) this.grow();
  }

  /** Makes room for `bytes` more arena bytes. */
  reserveArena(bytes: number): void {
    if (this.arenaUsed + bytes <= this.arena.length) return;
    const grown = new Uint8Array(Math.max(this.arena.length * 2, this.arenaUsed + bytes));
    grown.set(this.arena.subarray(0, this.arenaUsed));
    this.arena = grown;
  }

  grow(): void {
    const n = this.offsets.length * 2;
    const o = new Float64Array(n);
    o.set(this.offsets);
    this.offsets = o;
    for (const key of ["lengths", "idStarts", "idLengths"] as const) {
      const a = new Uint32Array(n);
      a.set(this[key]);
      this[key] = a;
    }
    for (const key of ["types", "roles", "parents", "idKinds"] as const) {
      const a = new Uint8Array(n);
      a.set(this[key]);
      this[key] = a;
    }
    for (const key of ["idHashes", "chains"] as const) {
      const a = new Int32Array(n);
      a.set(this[key]);
      this[key] = a;
    }
  }

  /** The slot's id is `id` (not a string: none). */
  setId(slot: number, id: unknown): void {
    if (typeof id !== "string") {
      this.idKinds[slot] = ID_NONE;
      return;
    }
    this.idKinds[slot] = ID_STRING;
    this.idStrings.set(slot, id);
    this.idHashes[slot] = idHash(id);
  }
}

/** What a line parsed at open tells the index: the same fields the scanner gives. */
function describe(value: Record<string, unknown>): { type: number; role: number; parent: number } {
  const type = typeof value.type === "string" ? (TYPE_CODE.get(value.type) ?? 0) : 0;
  const message = value.message;
  let role: number = RoleCode.None;
  if (isObject(message) && typeof message.role === "string") {
    role =
      message.role === "assistant"
        ? RoleCode.Assistant
        : message.role === "user"
          ? RoleCode.User
          : RoleCode.Other;
  }
  const p = value.parentId;
  const parent =
    p === undefined
      ? ParentKind.Absent
      : p === null
        ? ParentKind.Null
        : typeof p === "string"
          ? ParentKind.String
          : ParentKind.Other;
  return { type, role, parent };
}

/**
 * One lazily opened session file: the header, and per entry (every object line after the
 * header that is not another header, in file order: the eager path's entry list) its slot.
 */
export class LazySessionFile {
  readonly path: string;
  readonly header: SessionHeader;
  /** Size, line count and inode at open (a writer starts from them). */
  readonly size: number;
  readonly lines: number;
  readonly ino: number;
  /** Slots read from the file at open; the typed arrays below cover these. */
  readonly scanned: number;
  /** Per slot: byte offset of the line, its length without `\n`. */
  readonly offsets: Float64Array;
  readonly lengths: Uint32Array;
  /** Per slot: index into {@link SCANNED_TYPES} (0: another type, or none). */
  readonly types: Uint8Array;
  /** Per slot: a {@link RoleCode}. */
  readonly roles: Uint8Array;
  /** Per slot: a {@link ParentKind}. */
  readonly parentKinds: Uint8Array;
  readonly #chains: Int32Array;
  /** Per scanned slot: how its id is kept (`ID_*`), where in the arena, its hash. */
  readonly #idKinds: Uint8Array;
  readonly #idStarts: Uint32Array;
  readonly #idLengths: Uint32Array;
  readonly #idHashes: Int32Array;
  /** The ids' arena, as a Buffer (to decode and compare). */
  readonly #arena: Buffer;
  /** The ids kept as strings: of scanned slots with `ID_STRING`, and of appended slots. */
  readonly #idStrings: Map<number, string>;
  readonly #parentIds: Map<number, string>;
  /** Per slot: the entry once parsed (pi returns the same object each time). */
  readonly #cache: (Record<string, unknown> | undefined)[];
  /** Slots in all: the scanned ones, then those {@link appendEntry} added. */
  #count: number;
  #fd: number | undefined;
  #all = false;
  /** The bytes last read by {@link entry}: file range [windowStart, windowStart + windowLength). */
  #window: Buffer | undefined;
  #windowStart = 0;
  #windowLength = 0;
  /**
   * Window bytes [pieceStart, pieceEnd) decoded (see {@link PIECE}): their text when they are
   * ASCII, else null (each line decodes alone).
   */
  #pieceStart = 0;
  #pieceEnd = 0;
  #pieceText: string | null = null;
  /** Where the line parsed last from the window ends (after its `\n`), relative to the window. */
  #parsedEnd = -1;

  constructor(init: {
    path: string;
    fd: number;
    header: SessionHeader;
    size: number;
    lines: number;
    ino: number;
    slots: Growable;
    parentIds: Map<number, string>;
    cache: (Record<string, unknown> | undefined)[];
  }) {
    this.path = init.path;
    this.#fd = init.fd;
    this.header = init.header;
    this.size = init.size;
    this.lines = init.lines;
    this.ino = init.ino;
    const s = init.slots;
    this.scanned = s.count;
    this.#count = s.count;
    this.offsets = s.offsets.subarray(0, s.count);
    this.lengths = s.lengths.subarray(0, s.count);
    this.types = s.types.subarray(0, s.count);
    this.roles = s.roles.subarray(0, s.count);
    this.parentKinds = s.parents.subarray(0, s.count);
    this.#chains = s.chains;
    this.#idKinds = s.idKinds;
    this.#idStarts = s.idStarts;
    this.#idLengths = s.idLengths;
    this.#idHashes = s.idHashes;
    this.#arena = Buffer.from(s.arena.buffer, s.arena.byteOffset, s.arenaUsed);
    this.#idStrings = s.idStrings;
    this.#parentIds = init.parentIds;
    this.#cache = init.cache;
    lazyFiles.register(this, { fd: init.fd }, this);
  }

  /** Entries (slots): the scanned ones and the appended ones. */
  get count(): number {
    return this.#count;
  }

  /**
   * Adds an entry this process wrote after the open (its line is the file's, not read back)
   * as the next slot, its object cached. Returns the slot. Use it for appends, so that a
   * lazily opened session stays lazy.
   */
  appendEntry(entry: Record<string, unknown>): number {
    const slot = this.#count++;
    this.#cache[slot] = entry;
    if (typeof entry.id === "string") this.#idStrings.set(slot, entry.id);
    return slot;
  }

  #idKind(slot: number): number {
    if (slot < this.scanned) return this.#idKinds[slot] as number;
    return this.#idStrings.has(slot) ? ID_STRING : ID_NONE;
  }

  /** Whether the slot's id is a string (else the index skips the entry). */
  hasId(slot: number): boolean {
    return this.#idKind(slot) !== ID_NONE;
  }

  /** The slot's id when it is a string, else undefined. Decodes it: prefer {@link isId} to compare. */
  idOf(slot: number): string | undefined {
    const kind = this.#idKind(slot);
    if (kind === ID_STRING) return this.#idStrings.get(slot);
    if (kind === ID_NONE) return undefined;
    const start = this.#idStarts[slot] as number;
    return this.#arena.toString("latin1", start, start + (this.#idLengths[slot] as number));
  }

  /** format's `idHash` of the slot's id (a slot with a string id), known without decoding it. */
  idHashOf(slot: number): number {
    if (slot < this.scanned) return this.#idHashes[slot] as number;
    return idHash(this.#idStrings.get(slot) ?? "");
  }

  /** Whether the slot's id is the string `id`. */
  isId(slot: number, id: unknown): boolean {
    if (typeof id !== "string") return false;
    const kind = this.#idKind(slot);
    if (kind === ID_STRING) return this.#idStrings.get(slot) === id;
    if (kind === ID_NONE) return false;
    const length = this.#idLengths[slot] as number;
    if (id.length !== length) return false;
    const arena = this.#arena;
    const start = this.#idStarts[slot] as number;
    for (let i = 0; i < length; i++) if (id.charCodeAt(i) !== arena[start + i]) return false;
    return true;
  }

  /** Whether slots `a` and `b` have the same string id. */
  sameId(a: number, b: number): boolean {
    const ka = this.#idKind(a);
    const kb = this.#idKind(b);
    if (ka === ID_BYTES && kb === ID_BYTES) {
      const length = this.#idLengths[a] as number;
      if (length !== this.#idLengths[b]) return false;
      const sa = this.#idStarts[a] as number;
      const sb = this.#idStarts[b] as number;
      return this.#arena.compare(this.#arena, sb, sb + length, sa, sa + length) === 0;
    }
    if (ka === ID_STRING) return this.isId(b, this.#idStrings.get(a));
    if (kb === ID_STRING) return this.isId(a, this.#idStrings.get(b));
    return false;
  }

  /** Whether the slot's `parentId` is known (without reading it) to be the previous slot's id. */
  parentIsPrevious(slot: number): boolean {
    return slot < this.scanned && this.parentKinds[slot] === ParentKind.Previous;
  }

  /**
   * The first slot of the chain that ends at `slot`: each slot after it up to `slot` has the
   * previous slot's (non-empty) id as its `parentId`. `slot` when it starts one.
   */
  chainStart(slot: number): number {
    return slot < this.scanned ? (this.#chains[slot] as number) : slot;
  }

  /** The `parentId` string of a slot (String or Previous parent kinds when scanned), else undefined. */
  parentIdOf(slot: number): string | undefined {
    if (slot >= this.scanned) {
      const parentId = this.#cache[slot]?.parentId;
      return typeof parentId === "string" ? parentId : undefined;
    }
    const kind = this.parentKinds[slot];
    if (kind === ParentKind.String) return this.#parentIds.get(slot);
    if (kind === ParentKind.Previous) return this.idOf(slot - 1);
    return undefined;
  }

  /** The slot's `type` if it is one of {@link SCANNED_TYPES}, else "" (any other value). */
  typeOf(slot: number): string {
    if (slot >= this.scanned) {
      const type = this.#cache[slot]?.type;
      return typeof type === "string" && TYPE_CODE.has(type) ? type : "";
    }
    return SCANNED_TYPES[this.types[slot] as number] as string;
  }

  /** The scanned slots whose `type` is one of `types` (each one of {@link SCANNED_TYPES}), in file order. */
  scannedSlotsOfType(types: readonly string[]): number[] {
    const codes = new Set(types.map((type) => TYPE_CODE.get(type) ?? 0));
    codes.delete(0);
    const slots: number[] = [];
    for (let slot = 0; slot < this.scanned; slot++)
      if (codes.has(this.types[slot] as number)) slots.push(slot);
    return slots;
  }

  /** Whether the slot is a `message` entry whose message is an object with role `assistant`. */
  isAssistantMessage(slot: number): boolean {
    if (slot >= this.scanned) {
      const entry = this.#cache[slot];
      const message = entry?.message;
      return entry?.type === "message" && isObject(message) && message.role === "assistant";
    }
    return this.types[slot] === TYPE_MESSAGE && this.roles[slot] === RoleCode.Assistant;
  }

  /** Whether every entry has been parsed (then the descriptor is closed). */
  get complete(): boolean {
    return this.#all;
  }

  /** The entry in `slot`, parsed on first use. Throws {@link SessionFileRewrittenError}. */
  entry(slot: number): Record<string, unknown> {
    const cached = this.#cache[slot];
    if (cached !== undefined) return cached;
    const value = this.#load(slot);
    this.#cache[slot] = value;
    return value;
  }

  /**
   * The entry in `slot`, parsed now and not kept (the one already kept, if any): for one pass
   * over many entries whose objects are dropped as it goes, such as a streamed export of a
   * session too large to hold. Throws {@link SessionFileRewrittenError}.
   */
  read(slot: number): Record<string, unknown> {
    return this.#cache[slot] ?? this.#load(slot);
  }

  #load(slot: number): Record<string, unknown> {
    const length = this.lengths[slot] as number;
    const offset = this.offsets[slot] as number;
    let value: Record<string, unknown>;
    if (
      this.#window !== undefined &&
      offset >= this.#windowStart &&
      offset + length + 1 <= this.#windowStart + this.#windowLength
    ) {
      value = this.#parseInWindow(slot, offset);
    } else if (length + 1 > WINDOW) {
      const buffer = Buffer.allocUnsafe(length + 1);
      const n = readFully(this.#descriptor(), buffer, length + 1, offset);
      value = this.#parse(slot, buffer, 0, n, null, 0);
    } else {
      // One read of the window from this line on: a walk that parses many entries in file
      // order (the path of a session without compaction) costs a read per window, not per line.
      this.#fill(offset, Math.min(WINDOW, this.size - offset), WINDOW);
      value = this.#parseInWindow(slot, offset);
    }
    return value;
  }

  /** Every entry in file order, parsed in one sequential read of what is not parsed yet. */
  entries(): Record<string, unknown>[] {
    if (!this.#all) this.#readAll();
    return this.#cache as Record<string, unknown>[];
  }

  /** Closes the descriptor (a later {@link entry} reopens the file, checking it is the same one). */
  close(): void {
    const fd = this.#fd;
    this.#fd = undefined;
    if (fd === undefined) return;
    lazyFiles.unregister(this);
    try {
      closeSync(fd);
    } catch {
      // Already gone.
    }
  }

  #descriptor(): number {
    if (this.#fd !== undefined) return this.#fd;
    const { fd, stats } = openRegularFileSync(this.path);
    if (stats.ino !== this.ino || stats.size < this.size) {
      closeSync(fd);
      throw new SessionFileRewrittenError(this.path, 0);
    }
    this.#fd = fd;
    lazyFiles.register(this, { fd }, this);
    return fd;
  }

  /**
   * Reads `size` bytes from `offset` on into the window; its buffer is reused when large
   * enough, else replaced by one of at least `capacity` bytes (fresh memory costs page faults).
   */
  #fill(offset: number, size: number, capacity: number): void {
    let buffer = this.#window;
    if (buffer === undefined || buffer.length < size) {
      this.#window = undefined;
      buffer = Buffer.allocUnsafe(Math.max(size, capacity));
    }
    const n = readFully(this.#descriptor(), buffer, size, offset);
    this.#window = buffer;
    this.#windowStart = offset;
    this.#windowLength = n;
    this.#pieceStart = 0;
    this.#pieceEnd = 0;
    this.#parsedEnd = -1;
  }

  /** Parses the line of `slot`, which starts at `offset` inside the window. */
  #parseInWindow(slot: number, offset: number): Record<string, unknown> {
    const buffer = this.#window as Buffer;
    const at = offset - this.#windowStart;
    const end = at + (this.lengths[slot] as number) + 1;
    const sequential = at === this.#parsedEnd;
    this.#parsedEnd = end;
    if (at < this.#pieceStart || end > this.#pieceEnd) {
      // A line out of order decodes alone; one right after the line parsed last starts the
      // next piece: whole lines from it on, at most PIECE bytes (or this line).
      if (!sequential) return this.#parse(slot, buffer, at, this.#windowLength - at, null, 0);
      let pieceEnd = Math.min(at + PIECE, this.#windowLength);
      if (pieceEnd > end) pieceEnd = buffer.lastIndexOf(0x0a, pieceEnd - 1) + 1;
      if (pieceEnd < end) pieceEnd = end;
      const bytes = buffer.subarray(at, pieceEnd);
      this.#pieceStart = at;
      this.#pieceEnd = pieceEnd;
      this.#pieceText = isAscii(bytes) ? bytes.toString("latin1") : null;
    }
    const text = this.#pieceText;
    if (text === null) return this.#parse(slot, buffer, at, this.#windowLength - at, null, 0);
    return this.#parse(slot, buffer, at, this.#windowLength - at, text, this.#pieceStart);
  }

  /**
   * Parses the line of `slot` from `buffer[at, at + n)`, which should hold it and its `\n`;
   * anything else (a shorter read, other bytes, another id or type) means the file was
   * rewritten in place. `text` is the ASCII bytes of `buffer` from `textStart` on, decoded
   * (then the line is a slice of it), or null (then the line is decoded alone).
   */
  #parse(
    slot: number,
    buffer: Buffer,
    at: number,
    n: number,
    text: string | null,
    textStart: number,
  ): Record<string, unknown> {
    const length = this.lengths[slot] as number;
    if (n < length + 1 || buffer[at] !== 0x7b || buffer[at + length] !== 0x0a) this.#rewritten(slot);
    let value: unknown;
    try {
      const source =
        text === null
          ? buffer.toString("utf8", at, at + length)
          : text.slice(at - textStart, at - textStart + length);
      value = JSON.parse(source);
    } catch {
      this.#rewritten(slot);
    }
    if (!isObject(value) || !this.isId(slot, value.id)) this.#rewritten(slot);
    const code = this.types[slot] as number;
    if (code !== 0 && value.type !== SCANNED_TYPES[code]) this.#rewritten(slot);
    return value;
  }

  #rewritten(slot: number): never {
    throw new SessionFileRewrittenError(this.path, this.offsets[slot] as number);
  }

  #readAll(): void {
    const cache = this.#cache;
    let slot = 0;
    while (slot < this.scanned) {
      if (cache[slot] !== undefined) {
        slot++;
        continue;
      }
      // The run of slots from `slot` whose lines fit in one read, read into the window.
      const start = this.offsets[slot] as number;
      const limit = Math.max(READ_ALL_CHUNK, (this.lengths[slot] as number) + 1);
      let last = slot;
      while (last + 1 < this.scanned) {
        const next = last + 1;
        const end = (this.offsets[next] as number) + (this.lengths[next] as number) + 1;
        if (end - start > limit) break;
        last = next;
      }
      this.#fill(start, (this.offsets[last] as number) + (this.lengths[last] as number) + 1 - start, limit);
      for (let s = slot; s <= last; s++) {
        if (cache[s] === undefined) cache[s] = this.#parseInWindow(s, this.offsets[s] as number);
      }
      slot = last + 1;
    }
    this.#all = true;
    this.#window = undefined;
    this.close();
  }
}

/** Reads up to `length` bytes at `position` into `buffer` (fewer only at the end of the file). */
function readFully(fd: number, buffer: Buffer, length: number, position: number): number {
  let got = 0;
  while (got < length) {
    const n = readSync(fd, buffer, got, length - got, position + got);
    if (n === 0) break;
    got += n;
  }
  return got;
}

/** Closes the descriptor of a lazy file that was garbage-collected without being closed. */
const lazyFiles = new FinalizationRegistry<{ fd: number }>((held) => {
  try {
    closeSync(held.fd);
  } catch {
    // Already gone.
  }
});

/** Thrown inside the scan to hand the open to the eager path. */
class Eager extends Error {}

/**
 * Opens `path` lazily (see the module comment), or returns undefined: then the eager path
 * (`readSessionFileSync` + `readLinesAsPi`) must read it, and decides every error.
 */
export function openLazySessionFile(
  path: string,
  opts: { chunkBytes?: number; scanner?: LineScanner | null } = {},
): LazySessionFile | undefined {
  const scanner = opts.scanner === undefined ? lineScanner() : opts.scanner;
  if (!scanner) return undefined;
  let opened: { fd: number; stats: { ino: number; size: number } };
  try {
    opened = openRegularFileSync(path);
  } catch {
    return undefined;
  }
  const { fd } = opened;
  try {
    const result = scanFile(path, fd, scanner, opts.chunkBytes ?? CHUNK);
    if (result) return result;
  } catch (error) {
    if (!(error instanceof Eager)) {
      closeSync(fd);
      throw error;
    }
  }
  closeSync(fd);
  return undefined;
}

function scanFile(
  path: string,
  fd: number,
  scanner: LineScanner,
  chunk: number,
): LazySessionFile | undefined {
  // Room for the slots of lines of 2 KiB on average (pi's lines are 0.4-2 KiB); more grows.
  const slots = new Growable(Math.min(Math.max(1024, Math.ceil(fstatSync(fd).size / 2048)), 1 << 22));
  const parentIds = new Map<number, string>();
  // The lines parsed at open, by slot (few; the per-slot array is made at the end).
  const parsedAtOpen = new Map<number, Record<string, unknown>>();
  let header: SessionHeader | undefined;
  let lines = 0;
  let base = 0; // file offset of the scanner's input start
  let mem = scanner.ensure(chunk);
  const input = scanner.input;

  const add = (offset: number, length: number, type: number, role: number, parent: number): number => {
    if (slots.count === slots.offsets.length) slots.grow();
    const slot = slots.count++;
    slots.offsets[slot] = offset;
    slots.lengths[slot] = length;
    slots.types[slot] = type;
    slots.roles[slot] = role;
    slots.parents[slot] = parent;
    slots.chains[slot] = slot;
    return slot;
  };

  /** A line parsed at open (SLOW or FALLBACK): an entry if it is an object and not a header. */
  const parsed = (offset: number, length: number, value: unknown): void => {
    if (header === undefined) {
      // The first line must be a plain v3 header; anything else is the eager path's.
      if (!isValidSessionHeader(value) || typeof value.version !== "number" || value.version < 3)
        throw new Eager();
      header = value;
      return;
    }
    if (!isObject(value) || value.type === "session") return;
    const { type, role, parent } = describe(value);
    const slot = add(offset, length, type, role, parent);
    slots.setId(slot, value.id);
    if (parent === ParentKind.String) parentIds.set(slot, value.parentId as string);
    parsedAtOpen.set(slot, value);
  };

  /** The records [from, to) of the scanner's memory words: one line each. */
  const onRecords = (from: number, to: number, ids: number, idsEnd: number): void => {
    const w = scanner.memoryWords;
    slots.reserve(slots.count + (to - from) / 8);
    // The batch's copied ids, in line order, go to the arena in one copy.
    slots.reserveArena(idsEnd - ids);
    let idAt = slots.arenaUsed;
    slots.arena.set(mem.subarray(ids, idsEnd), idAt);
    slots.arenaUsed += idsEnd - ids;
    // The arrays in locals for the loop (reserved above: no slot added here grows them).
    const { offsets, lengths, types, roles, parents, chains, idKinds, idStarts, idLengths, idHashes } = slots;
    for (let k = from; k < to; k += 8) {
      const start = w[k] as number;
      const end = w[k + 1] as number;
      const info = w[k + 2] as number;
      const code = info & 15;
      const offset = base + (start - input);
      const length = end - start;
      lines++;
      if (code === E_FALLBACK) {
        parsed(offset, length, parseAsPi(mem.subarray(start, end), header !== undefined));
        continue;
      }
      if (code === E_SLOW || header === undefined) {
        if (info & (1 << 26)) idAt += (w[k + 4] as number) - (w[k + 3] as number);
        parsed(offset, length, JSON.parse(mem.toString("utf8", start, end)));
        continue;
      }
      if (code !== E_ENTRY) throw new Error(`internal: open scanner code ${code}`);
      const parent = (info >>> 12) & 15;
      const slot = slots.count++;
      offsets[slot] = offset;
      lengths[slot] = length;
      types[slot] = (info >>> 4) & 255;
      roles[slot] = (info >>> 16) & 255;
      parents[slot] = parent;
      const idStart = w[k + 3] as number;
      const idEnd = w[k + 4] as number;
      if (info & (1 << 26)) {
        idKinds[slot] = ID_BYTES;
        idStarts[slot] = idAt;
        idLengths[slot] = idEnd - idStart;
        idHashes[slot] = (w[k + 7] as number) | 0;
        idAt += idEnd - idStart;
      } else slots.setId(slot, mem.toString(info & (1 << 24) ? "utf8" : "latin1", idStart, idEnd));
      // The scanner says Previous only when the line before was an entry: the slot before.
      chains[slot] =
        parent === ParentKind.Previous && (idKinds[slot - 1] !== ID_BYTES || idLengths[slot - 1] !== 0)
          ? (chains[slot - 1] as number)
          : slot;
      if (parent === ParentKind.String) {
        const encoding = info & (1 << 25) ? "utf8" : "latin1";
        parentIds.set(slot, mem.toString(encoding, w[k + 5] as number, w[k + 6] as number));
      }
    }
  };

  const size = fstatSync(fd).size;
  let carry = 0;
  let position = 0;
  for (;;) {
    mem = scanner.ensure(carry + chunk);
    const n = readSync(fd, mem, input + carry, chunk, position);
    if (n === 0) break;
    position += n;
    const total = carry + n;
    const lastNl = mem.lastIndexOf(10, input + total - 1);
    if (lastNl < input) {
      carry = total;
      if (carry > MAX_REGION) throw new Eager();
      continue;
    }
    scanner.scanEntries(input, lastNl + 1, onRecords);
    carry = input + total - (lastNl + 1);
    mem.copyWithin(input, lastNl + 1, input + total);
    base += lastNl + 1 - input;
  }
  // A last line without "\n" (torn, or still being written), or a file that changed size
  // while read: the eager path.
  if (carry > 0 || position !== size || header === undefined) throw new Eager();
  const ino = fstatSync(fd).ino;
  // Holey, with room for every slot: V8 keeps it a fast array (a sparse one would not be).
  const cache = new Array<Record<string, unknown> | undefined>(slots.count);
  for (const [slot, value] of parsedAtOpen) cache[slot] = value;
  return new LazySessionFile({ path, fd, header, size, lines, ino, slots, parentIds, cache });
}
