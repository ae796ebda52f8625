/**
 * The infos of files the cache index covers exactly: built straight from the index's columns
 * (no file is opened), with `allMessagesText` as a lazy property read from its text segment on
 * first access. This is the whole per-file cost of a warm listing besides `stat`, so it
 * allocates only what the result holds.
 *
 * Reads of typed arrays and arrays are at indexes in range by construction and written
 * `a[i] as number` (or `as string`): `noUncheckedIndexedAccess` types every read `| undefined`,
 * and a check per read in these loops would cost more than it proves.
 */
import { readCachedText } from "./cache-segments.js";
import type { CacheIndex } from "./cache-index.js";
import { ENTRY_FLAG, HEADER_STATE, KNOWN_FLAGS, VALUE_KIND } from "./cache-index-layout.js";
import { type SessionInfo, finishInfoHead, sessionInfoFromRecords } from "./info.js";
import { readSessionFileSync } from "../read/session-file.js";

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

/**
 * The accessor of a lazy `allMessagesText` for the infos of one listing: the text is read on
 * first access (then kept as a plain value). One descriptor per listing, shared by its infos so
 * that they keep one shape. Which cache entry an info stands for is found on first access, in
 * the listing's own arrays (`results[i]` answered by entry `kept[i]`), not recorded per info: a
 * `WeakMap` entry per info was about a sixth of a warm listing's time building its infos.
 */
function lazyTextDescriptor(
  texts: CachedTexts,
  results: readonly (SessionInfo | null)[],
  kept: Int32Array,
): PropertyDescriptor {
  /** Infos whose text is still to read, with their entries (built on first access). */
  let pending: Map<object, number> | undefined;
  const settle = (info: object, value: string): void => {
    pending?.delete(info);
    Object.defineProperty(info, "allMessagesText", {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  };
  return {
    enumerable: true,
    configurable: true,
    get(this: object): string {
      if (pending === undefined) {
        pending = new Map();
        for (let i = 0; i < results.length; i++) {
          const info = results[i];
          const e = kept[i] as number;
          if (info && e >= 0) pending.set(info, e);
        }
      }
      // `this` may inherit from the info (`Object.create(info)`): the text belongs to the owner.
      let owner: object | null = this;
      while (owner !== null && !pending.has(owner)) owner = Object.getPrototypeOf(owner) as object | null;
      if (owner === null) return "";
      const text = texts.read(pending.get(owner) as number);
      settle(owner, text);
      return text;
    },
    set(this: object, value: string) {
      settle(this, value);
    },
  };
}

/**
 * The usual entry, answered straight from the columns: a session header with a string id and
 * times that do not depend on the time zone, no unknown flag (the other flags may vary).
 */
const FAST_CHECK = ~(
  ENTRY_FLAG.hasParentSession |
  ENTRY_FLAG.hasName |
  ENTRY_FLAG.hasLastActivity |
  ENTRY_FLAG.hasText |
  ENTRY_FLAG.modifiedIsMtime |
  ENTRY_FLAG.textUtf16 |
  (3 << ENTRY_FLAG.timestampShift)
);
const FAST_VALUE = HEADER_STATE.session | ENTRY_FLAG.stableTimes | (VALUE_KIND.string << ENTRY_FLAG.idShift);

/** Whether cache entry `e` describes exactly this file (same size, times and inode, parsed to its end). */
export function covers(
  index: CacheIndex,
  e: number,
  size: number,
  mtimeMs: number,
  ctimeMs: number,
  ino: number,
): boolean {
  return (
    index.size[e] === size &&
    index.offset[e] === size &&
    index.mtimeMs[e] === mtimeMs &&
    index.ctimeMs[e] === ctimeMs &&
    index.ino[e] === ino
  );
}

/** Whether the info of an entry with these flags needs the file's `mtime` (see {@link cachedInfos}). */
export function needsMtime(flags: number): boolean {
  return (flags & FAST_CHECK) !== FAST_VALUE || (flags & ENTRY_FLAG.modifiedIsMtime) !== 0;
}

/** What {@link cachedInfos} did with the candidates it was given. */
export interface CachedAnswers {
  /** Candidates answered (an info, or `null`: not a session). */
  answered: number;
  /** Candidates whose entry is damaged: their files must be read. */
  damaged: number[];
}

/**
 * Answers from the cache every candidate `i` with an entry `covering[i] >= 0` that covers its
 * file (see {@link covers}): `results[i]` becomes its info (`null`: not a session) and
 * `kept[i]` the entry. `mtimeOf` has the file's `mtime` of every candidate whose entry
 * {@link needsMtime}.
 *
 * One loop for all the files, the usual entry built inline: the hot path of a warm listing,
 * which runs once in a fresh process (decision 009).
 */
export function cachedInfos(
  texts: CachedTexts,
  covering: Int32Array,
  paths: readonly string[],
  mtimeOf: ReadonlyMap<number, Date>,
  results: (SessionInfo | null)[],
  kept: Int32Array,
): CachedAnswers {
  const index = texts.index;
  const { blob, starts, strings, stringCount, flags, idRef, firstRef, cwdRef, nameRef, parentRef } = index;
  const { created, modified, messageCount, textCount } = index;
  const damaged: number[] = [];
  let answered = 0;
  const n = covering.length;
  let lazyText: PropertyDescriptor | undefined;
  for (let i = 0; i < n; i++) {
    const e = covering[i] as number;
    if (e < 0) continue;
    const f = flags[e] as number;
    let info: SessionInfo | undefined;
    if ((f & FAST_CHECK) === FAST_VALUE) {
      const id = idRef[e] as number;
      const first = firstRef[e] as number;
      const cwdAt = cwdRef[e] as number;
      const cwd = strings[cwdAt] ?? index.shared(cwdAt);
      const name = (f & ENTRY_FLAG.hasName) !== 0 ? index.shared(nameRef[e] as number) : undefined;
      const parent =
        (f & ENTRY_FLAG.hasParentSession) !== 0 ? index.shared(parentRef[e] as number) : undefined;
      if (
        id < stringCount &&
        first < stringCount &&
        cwd !== undefined &&
        (name !== undefined || (f & ENTRY_FLAG.hasName) === 0) &&
        (parent !== undefined || (f & ENTRY_FLAG.hasParentSession) === 0)
      ) {
        const firstMessage = blob.slice(starts[first] as number, starts[first + 1] as number);
        const count = messageCount[e] as number;
        info = {
          path: paths[i] as string,
          id: blob.slice(starts[id] as number, starts[id + 1] as number),
          cwd,
          name,
          parentSessionPath: parent,
          created: new Date(created[e] as number),
          modified:
            (f & ENTRY_FLAG.modifiedIsMtime) !== 0
              ? (mtimeOf.get(i) as Date)
              : new Date(modified[e] as number),
          // A small integer stays one (a float64 column would box every count).
          messageCount: count < 0x40000000 ? count | 0 : count,
          firstMessage: firstMessage === "" ? "(no messages)" : firstMessage,
        } as SessionInfo;
      }
    } else {
      const other = otherInfo(index, e, paths[i] as string, mtimeOf.get(i));
      if (other === null) {
        kept[i] = e;
        answered++;
        continue;
      }
      info = other;
    }
    if (info !== undefined && (f & ENTRY_FLAG.hasText) !== 0) {
      lazyText ??= lazyTextDescriptor(texts, results, kept);
      Object.defineProperty(info, "allMessagesText", lazyText);
    } else if (info !== undefined && textCount[e] === 0) {
      info.allMessagesText = "";
    } else {
      damaged.push(i);
      continue;
    }
    results[i] = info;
    kept[i] = e;
    answered++;
  }
  return { answered, damaged };
}

/**
 * The info of entry `e` when it is not the usual one (a name, a parent, header values that are
 * not plain strings, times that depend on the time zone, a file that is not a session), without
 * its `allMessagesText`; `null`: not a session; `undefined`: the entry is damaged.
 */
function otherInfo(
  index: CacheIndex,
  e: number,
  path: string,
  mtime: Date | undefined,
): SessionInfo | null | undefined {
  const flags = index.flags[e] as number;
  if ((flags & ~KNOWN_FLAGS) !== 0) return undefined;
  const kind = flags & ENTRY_FLAG.headerMask;
  if (kind !== HEADER_STATE.session)
    return kind === HEADER_STATE.none || kind === HEADER_STATE.notSession ? null : undefined;
  const cached = index.entry(e);
  if (cached === undefined) return undefined;
  return finishInfoHead(path, cached.state, mtime as Date) as SessionInfo | null;
}
