/**
 * The active path of a session and the settings read from it.
 *
 * `buildSessionPath` is pi 1.6.0's walk from a leaf to the root, made cycle-safe: pi loops
 * forever on a parent cycle (#1672), this walk stops at the first id it has already seen.
 * Everything else (leaf fallback, quiet stop at a missing parent) is as pi does it.
 */
import type { AnyEntry, CompactionEntry, MessageEntry } from "@pi-session/format";

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
  leaf ??= entries[entries.length - 1];
  if (!leaf) return [];

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
  if (entry.type !== "message") return false;
  const message = (entry as MessageEntry).message as { role?: unknown } | null | undefined;
  return typeof message === "object" && message !== null && message.role === role;
}

/**
 * Thinking level and model over the WHOLE path (entries before a compaction included), last
 * writer wins: `thinking_level_change` sets the level; `model_change` and every assistant
 * message (whatever its stopReason) set the model.
 */
export function getSessionContextSettings(path: readonly AnyEntry[]): SessionContextSettings {
  let thinkingLevel = "off";
  let model: SessionModel | null = null;
  for (const entry of path) {
    if (entry.type === "thinking_level_change") {
      thinkingLevel = (entry as { thinkingLevel: string }).thinkingLevel;
    } else if (entry.type === "model_change") {
      const change = entry as { provider: string; modelId: string };
      model = { provider: change.provider, modelId: change.modelId };
    } else if (isMessageEntryWithRole(entry, "assistant")) {
      // pi copies the fields without checking them; a hand-edited file may leave them undefined.
      const message = entry.message as { provider: string; model: string };
      model = { provider: message.provider, modelId: message.model };
    }
  }
  return { thinkingLevel, model };
}

/** The last `compaction` entry of `entries` (normally a path), or null. */
export function getLatestCompactionEntry(entries: readonly AnyEntry[]): CompactionEntry | null {
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i];
    if (entry?.type === "compaction") return entry as CompactionEntry;
  }
  return null;
}
