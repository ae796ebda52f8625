/**
 * The active path of a session and the settings read from it.
 *
 * `buildSessionPath` is pi 1.6.0's walk from a leaf to the root, made cycle-safe: pi loops
 * forever on a parent cycle (#1672), this walk stops at the first id it has already seen.
 * Everything else (leaf fallback, quiet stop at a missing parent) is as pi does it.
 */
import {
  type AgentMessage,
  type AnyEntry,
  type CompactionEntry,
  type EntryOfType,
  type EntryTypeWithContext,
  type MessageEntry,
  contextRoleOf,
  contextView,
  isEntryOfType,
  isObject,
} from "@pi-session/format";
import { SessionIndex } from "@pi-session/tree";

/** Anything that finds an entry by id: a `Map`, or the tree package's `SessionIndex`. */
export interface EntryLookup<E extends AnyEntry = AnyEntry> {
  get(id: string): E | undefined;
}

/** The model a session runs on, as pi stores it. */
export interface SessionModel {
  provider: string;
  modelId: string;
}

export interface SessionContextSettings {
  /** `"off"` unless a `thinking_level_change` on the path says otherwise. */
  thinkingLevel: string;
  model: SessionModel | null;
}

/** An id -> entry map over `entries`; a later duplicate id replaces an earlier one (pi's rule). */
export function indexEntries<E extends AnyEntry>(entries: readonly E[]): Map<string, E> {
  const index = new Map<string, E>();
  for (const entry of entries) index.set(entry.id, entry);
  return index;
}

/**
 * The entries from the root to the leaf, root first.
 *
 * - `leafId === null`: the empty path (pi's "before the first entry").
 * - `leafId` undefined, empty or unknown: the last element of `entries` is the leaf.
 * - A `parentId` that is null, empty or not found ends the walk (an orphan starts the path).
 * - A repeated id ends the walk (cycle guard; pi would hang).
 *
 * O(path length) when `byId` is given; otherwise an index of `entries` is built first (O(n)).
 * A tree `SessionIndex` as `byId` walks its own slots (no lookup per step when entries were
 * appended in order).
 */
export function buildSessionPath<E extends AnyEntry>(
  entries: readonly E[],
  leafId?: string | null,
  byId?: EntryLookup<E>,
): E[] {
  if (leafId === null) return [];
  const index: EntryLookup<E> = byId ?? indexEntries(entries);
  let leaf: E | undefined;
  if (leafId) leaf = index.get(leafId);
  // Below, every entry after the leaf is `index.get(its id)`; when the leaf is too, an id
  // repeats exactly when an entry does, and the walk can watch entries instead of ids.
  if (leaf == null) {
    leaf = entries[entries.length - 1];
    if (!leaf) return [];
    if (index.get(leaf.id) !== leaf) return walkTrackingIds(leaf, index);
  } else if (leaf.id !== leafId) {
    return walkTrackingIds(leaf, index);
  }
  // SessionIndex.pathTo is this walk, with the same stops (see tree's `pathTo`).
  if (index instanceof SessionIndex) return (index as SessionIndex<E>).pathTo(leaf.id);

  // Brent's cycle detection: compare with a checkpoint that moves at powers of two; a cycle
  // is found within a few laps of it, with no per-step set. Then redo the walk precisely.
  const path: E[] = [leaf];
  let checkpoint: E = leaf;
  let power = 1;
  let steps = 0;
  let current: E = leaf;
  for (;;) {
    const parentId = current.parentId;
    if (!parentId) break;
    const parent = index.get(parentId);
    if (parent === undefined) break;
    // A hand-made lookup that files an entry under another id breaks the premise above.
    if (parent === checkpoint || parent.id !== parentId) return walkTrackingIds(leaf, index);
    path.push(parent);
    if (++steps === power) {
      checkpoint = parent;
      power *= 2;
      steps = 0;
    }
    current = parent;
  }
  path.reverse();
  return path;
}

/** The walk with a set of visited ids: exact for any lookup, and the reference semantics. */
function walkTrackingIds<E extends AnyEntry>(leaf: E, index: EntryLookup<E>): E[] {
  const path: E[] = [];
  const seen = new Set<string>();
  let current: E | undefined = leaf;
  while (current && !seen.has(current.id)) {
    seen.add(current.id);
    path.push(current);
    current = current.parentId ? index.get(current.parentId) : undefined;
  }
  path.reverse();
  return path;
}

/** True for a `message` entry whose message has the given role (tolerates a missing message). */
export function isMessageEntryWithRole(entry: AnyEntry, role: string): entry is MessageEntry {
  if (!isEntryOfType(entry, "message")) return false;
  const message: unknown = entry.message;
  return isObject(message) && message.role === role;
}

/**
 * Thinking level and model over the WHOLE path (entries before a compaction included), last
 * writer wins: `thinking_level_change` sets the level; `model_change` and every assistant
 * message (whatever its stopReason) set the model.
 */
export function getSessionContextSettings(path: readonly AnyEntry[]): SessionContextSettings {
  const { thinkingLevel, model } = scanPath(path);
  return { thinkingLevel, model };
}

/** What one pass over a path finds: settings, where the latest compaction is, whether edits exist. */
export interface PathScan extends SessionContextSettings {
  /** Index of the last `compaction` on the path, -1 if none. */
  lastCompaction: number;
  /** Whether some entry on the path is a `context_edit`. */
  hasContextEdits: boolean;
}

/**
 * A path as the context reads it: position `i` (root first) gives the entry's `type`, whether
 * it is an assistant message, its id, and the entry itself. An array of entries is one
 * ({@link arrayPathAccess}); the SDK's lazy open is another, where `entryAt` parses the line:
 * the walk reads `typeAt`, `isAssistantAt` and `idAt` everywhere and `entryAt` only for
 * what it selects or needs the fields of, so one implementation serves both.
 */
export interface PathAccess<E extends AnyEntry = AnyEntry> {
  readonly length: number;
  /**
   * The entry's `type` (what `entryAt(i).type` is), or, when that is none of pi's entry types,
   * any value that is none of them either: the walk only compares it with those.
   */
  typeAt(i: number): unknown;
  /** Whether the entry is a `message` whose message is an object with role `"assistant"`. */
  isAssistantAt(i: number): boolean;
  /** The entry's id (what `entryAt(i).id` is). */
  idAt(i: number): string;
  /**
   * Optional: the first position before `end` whose id is `id`, or -1; what a loop over
   * `idAt` gives, for an access that finds it without making every id a string.
   */
  indexOfId?(id: unknown, end: number): number;
  entryAt(i: number): E;
  /** The entries as an array, when the access is over one (saves a copy). */
  readonly array?: readonly E[];
}

/** The {@link PathAccess} of an array of entries. */
export function arrayPathAccess<E extends AnyEntry>(path: readonly E[]): PathAccess<E> {
  return {
    length: path.length,
    typeAt: (i) => (path[i] as E).type,
    isAssistantAt: (i) => {
      const entry = path[i] as E;
      if (entry.type !== "message") return false;
      // Read without validation: the message may be missing or not an object.
      const message = (entry as MessageEntry).message as AgentMessage | null | undefined;
      return typeof message === "object" && message !== null && message.role === "assistant";
    },
    idAt: (i) => (path[i] as E).id,
    entryAt: (i) => path[i] as E,
    array: path,
  };
}

/**
 * The settings and the facts the context needs, in a single pass: on a long path every pass
 * over the entries costs a cache miss per entry, so the context reads them once here.
 */
export function scanPath(path: readonly AnyEntry[]): PathScan {
  return scanPathAccess(arrayPathAccess(path));
}

/**
 * {@link scanPath} over a {@link PathAccess}: walks back from the end, so the last writer of
 * each setting is the first one met, and only those entries are read whole.
 */
export function scanPathAccess(path: PathAccess): PathScan {
  let thinkingLevel = "off";
  let model: SessionModel | null = null;
  let lastCompaction = -1;
  let hasContextEdits = false;
  let thinkingFound = false;
  let modelFound = false;
  for (let i = path.length - 1; i >= 0; i--) {
    const role = contextRoleOf(path.typeAt(i));
    switch (role) {
      case "message": {
        if (modelFound || !path.isAssistantAt(i)) break;
        // pi copies the fields without checking them (a hand-edited file may leave them undefined).
        const message = (path.entryAt(i) as MessageEntry).message as AgentMessage & { role: "assistant" };
        model = { provider: message.provider, modelId: message.model };
        modelFound = true;
        break;
      }
      case "thinking-level":
        if (thinkingFound) break;
        thinkingLevel = (path.entryAt(i) as EntryOfType<EntryTypeWithContext<"thinking-level">>)
          .thinkingLevel;
        thinkingFound = true;
        break;
      case "model": {
        if (modelFound) break;
        const entry = path.entryAt(i) as EntryOfType<EntryTypeWithContext<"model">>;
        model = { provider: entry.provider, modelId: entry.modelId };
        modelFound = true;
        break;
      }
      case "compaction":
        if (lastCompaction < 0) lastCompaction = i;
        break;
      case "edit":
        hasContextEdits = true;
        break;
      // Messages made of an entry's own fields, and entries outside the context: nothing to read here.
      case "custom-message":
      case "branch-summary":
      case "none":
        break;
      default:
        role satisfies never;
    }
  }
  return { thinkingLevel, model, lastCompaction, hasContextEdits };
}

/** The last `compaction` entry of `entries` (normally a path), or null. */
export function getLatestCompactionEntry(entries: readonly AnyEntry[]): CompactionEntry | null {
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i];
    if (entry === undefined) continue;
    const view = contextView(entry);
    if (view.role === "compaction") return view.entry;
  }
  return null;
}
