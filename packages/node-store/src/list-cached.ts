/**
 * The infos of files the cache index covers exactly: built straight from the index's columns
 * (no file is opened), with `allMessagesText` as a lazy property read from its text segment on
 * first access. This is the whole per-file cost of a warm listing besides `stat`, so it
 * allocates only what the result holds.
 */
import { readCachedText } from "./cache.js";
import { type CacheIndex, FLAG, HEADER, KNOWN_FLAGS, VALUE } from "./cache-index.js";
import { type SessionInfo, finishInfoHead, sessionInfoFromRecords } from "./info.js";
import { readSessionFileSync } from "./read.js";

/**
 * `allMessagesText` of a file, recomputed from the file itself (when its cached copy cannot
 * be read back). Synchronous: it backs a property getter.
 */
function recomputeText(path: string): string {
  try {
    const contents = readSessionFileSync(path);
    return sessionInfoFromRecords(path, contents.records, new Date(0))?.allMessagesText ?? "";
  } catch {
    return "";
  }
}

/** The cache one listing answers from: where its texts are. */
export class CachedTexts {
  constructor(
    readonly cacheDir: string,
    readonly listedDir: string,
    readonly index: CacheIndex,
  ) {}

  /** The text of entry `e`: from its segment, else recomputed from the file. */
  read(e: number): string {
    const ref = this.index.textRef(e);
    const text = ref === undefined ? undefined : readCachedText(this.cacheDir, this.listedDir, ref);
    if (text !== undefined) return text;
    const path = this.index.key(e);
    return path === undefined ? "" : recomputeText(path);
  }
}

/** Pending lazy texts, by info (a side table, so the info itself has only pi's keys). */
const lazyTexts = new WeakMap<object, { texts: CachedTexts; entry: number }>();

function settleText(info: object, value: string): void {
  lazyTexts.delete(info);
  Object.defineProperty(info, "allMessagesText", {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

/**
 * The accessor of a lazy `allMessagesText`: the text is read on first access (then kept as a
 * plain value). One descriptor for every info of every listing, so they all keep one shape.
 */
const lazyTextDescriptor: PropertyDescriptor = {
  enumerable: true,
  configurable: true,
  get(this: object): string {
    // `this` may inherit from the info (`Object.create(info)`): the text belongs to the owner.
    let owner: object | null = this;
    while (owner !== null && !lazyTexts.has(owner)) owner = Object.getPrototypeOf(owner) as object | null;
    const lazy = owner === null ? undefined : lazyTexts.get(owner);
    if (owner === null || lazy === undefined) return "";
    const text = lazy.texts.read(lazy.entry);
    settleText(owner, text);
    return text;
  },
  set(this: object, value: string) {
    settleText(this, value);
  },
};

/**
 * The usual entry, answered straight from the columns: a session header with a string id and
 * times that do not depend on the time zone, no unknown flag (the other flags may vary).
 */
const FAST_CHECK = ~(
  FLAG.hasParentSession |
  FLAG.hasName |
  FLAG.hasLastActivity |
  FLAG.hasText |
  FLAG.modifiedIsMtime |
  FLAG.textUtf16 |
  (3 << FLAG.timestampShift)
);
const FAST_VALUE = HEADER.session | FLAG.stableTimes | (VALUE.string << FLAG.idShift);

/** Whether cache entry `e` describes exactly this file (same size, mtime and inode, parsed to its end). */
export function covers(index: CacheIndex, e: number, size: number, mtimeMs: number, ino: number): boolean {
  return (
    index.size[e] === size && index.offset[e] === size && index.mtimeMs[e] === mtimeMs && index.ino[e] === ino
  );
}

/** Whether the info of an entry with these flags needs the file's `mtime` (see {@link cachedInfo}). */
export function needsMtime(flags: number): boolean {
  return (flags & FAST_CHECK) !== FAST_VALUE || (flags & FLAG.modifiedIsMtime) !== 0;
}

/**
 * The info of a file from its cache entry `e`, which covers it (see {@link covers}); `mtime`
 * is the file's when {@link needsMtime}. `null` when the file is not a session, `undefined`
 * when the entry is damaged (the file must then be read). Runs once per file of a warm
 * listing, mostly before the engine optimizes it: kept short.
 */
export function cachedInfo(
  texts: CachedTexts,
  e: number,
  path: string,
  mtime: Date | undefined,
): SessionInfo | null | undefined {
  const index = texts.index;
  const flags = index.flags[e] as number;
  let info: SessionInfo | null;
  if ((flags & FAST_CHECK) === FAST_VALUE) {
    const idRef = index.idRef[e] as number;
    const firstRef = index.firstRef[e] as number;
    const cwdRef = index.cwdRef[e] as number;
    const { blob, starts, strings } = index;
    const cwd = strings[cwdRef] ?? index.shared(cwdRef);
    let name: string | undefined;
    let parent: string | undefined;
    if ((flags & FLAG.hasName) !== 0) name = index.shared(index.nameRef[e] as number);
    if ((flags & FLAG.hasParentSession) !== 0) parent = index.shared(index.parentRef[e] as number);
    if (
      idRef >= index.stringCount ||
      firstRef >= index.stringCount ||
      cwd === undefined ||
      (name === undefined && (flags & FLAG.hasName) !== 0) ||
      (parent === undefined && (flags & FLAG.hasParentSession) !== 0)
    ) {
      return undefined;
    }
    const first = blob.slice(starts[firstRef] as number, starts[firstRef + 1] as number);
    const count = index.messageCount[e] as number;
    info = {
      path,
      id: blob.slice(starts[idRef] as number, starts[idRef + 1] as number),
      cwd,
      name,
      parentSessionPath: parent,
      created: new Date(index.created[e] as number),
      modified:
        (flags & FLAG.modifiedIsMtime) !== 0 ? (mtime as Date) : new Date(index.modified[e] as number),
      // A small integer stays one (a float64 column would box every count).
      messageCount: count < 0x40000000 ? count | 0 : count,
      firstMessage: first === "" ? "(no messages)" : first,
    } as SessionInfo;
  } else {
    // Header values that are not plain strings, times that depend on the time zone, files
    // that are not sessions.
    if ((flags & ~KNOWN_FLAGS) !== 0) return undefined;
    const kind = flags & FLAG.headerMask;
    if (kind !== HEADER.session) return kind === HEADER.none || kind === HEADER.notSession ? null : undefined;
    const cached = index.entry(e);
    if (cached === undefined) return undefined;
    info = finishInfoHead(path, cached.state, mtime as Date) as SessionInfo | null;
    if (info === null) return null;
  }
  if ((flags & FLAG.hasText) !== 0) {
    lazyTexts.set(info, { texts, entry: e });
    Object.defineProperty(info, "allMessagesText", lazyTextDescriptor);
  } else {
    if (index.textCount[e] !== 0) return undefined;
    info.allMessagesText = "";
  }
  return info;
}
