/**
 * The entries of one session in memory, as `SessionManager` holds them: every entry after the
 * header in file order (including any the index would not take), the tree index over them
 * (`@pi-session/tree`), pi's order of children, and the absorption of entries another process
 * appended. A new session, a branched one or another file gets a new `SessionEntries`.
 */
import type { SessionRecord } from "@pi-session/format";
import { recordObject } from "@pi-session/node-store";
import { SessionIndex } from "@pi-session/tree";
import type { SessionEntry } from "../types.js";
import { generateId } from "./ids.js";

export class SessionEntries {
  readonly list: SessionEntry[];
  readonly index: SessionIndex<SessionEntry>;
  /** id -> file position of its first occurrence; built only when `children` meets a duplicated id. */
  private firstSeen: { scanned: number; rank: Map<string, number> } | undefined;

  constructor(entries: SessionEntry[] = []) {
    this.list = entries;
    this.index = new SessionIndex<SessionEntry>(entries);
  }

  append(entry: SessionEntry): void {
    this.list.push(entry);
    this.index.append(entry);
  }

  /**
   * Takes in entries other processes appended (indexed, labels and name applied, the leaf
   * kept ours); if one of them took `ours`'s id, `ours` gets a fresh one. Returns them.
   */
  absorbForeign(records: readonly SessionRecord[], ours: SessionEntry): SessionEntry[] {
    const leaf = this.index.leafId;
    const foreign: SessionEntry[] = [];
    for (const record of records) {
      // As pi reads the lines: a raw line whose (U+FFFD-decoded) text parses to an object counts.
      const value = recordObject(record);
      if (value === undefined || value.type === "session") continue;
      const absorbed = value as unknown as SessionEntry;
      this.append(absorbed);
      foreign.push(absorbed);
    }
    if (foreign.length) this.index.setLeaf(leaf);
    if (this.index.has(ours.id)) {
      const previous = ours.id;
      ours.id = generateId(this.index);
      if (ours.type === "compaction" && ours.firstKeptEntryId === previous) ours.firstKeptEntryId = ours.id;
    }
    return foreign;
  }

  /**
   * Direct children of an entry. As pi (which scans its id map), one entry per id: the
   * occurrence `get` returns, in the order each id was first seen. That is file order
   * unless some id repeats; only then are the (few) children sorted.
   */
  children(parentId: string): SessionEntry[] {
    const kept = this.index.children(parentId).filter((entry) => this.index.get(entry.id) === entry);
    if (kept.length < 2 || this.index.byId.size === this.index.size) return kept;
    const rank = this.firstSeenRanks();
    const rankOf = (entry: SessionEntry): number => rank.get(entry.id) ?? 0;
    return kept.sort((a, b) => rankOf(a) - rankOf(b));
  }

  /** The first-seen positions, brought up to date with the entries appended since (the index only grows). */
  private firstSeenRanks(): Map<string, number> {
    this.firstSeen ??= { scanned: 0, rank: new Map() };
    const cache = this.firstSeen;
    const entries = this.index.entries;
    for (; cache.scanned < entries.length; cache.scanned++) {
      const id = entries[cache.scanned]?.id;
      if (id !== undefined && !cache.rank.has(id)) cache.rank.set(id, cache.scanned);
    }
    return cache.rank;
  }
}
