/**
 * SlotIndex: `SessionIndex`'s answers for a session whose entries are not parsed (the lazy
 * open of decision 101): entries are slots 0..n-1 in file order, known by their id (one
 * string per slot, or undefined for an entry the index skips) and their parent id, read
 * through a {@link SlotSource}; only label and `session_info` entries are seen whole.
 *
 * Same rules as `SessionIndex`: the last occurrence of an id wins, the leaf is the last
 * indexed entry, a path stops at a missing, empty, non-string or self parent and at the first
 * repeated slot of a cycle; labels and the name are applied in file order. It grows as
 * `SessionIndex` does: {@link SlotIndex.append} takes a slot the source added (an append
 * after the open) and makes it the leaf, {@link SlotIndex.setLeaf} moves the leaf (pi's
 * `branch`, `resetLeaf`). Pure: the source is the caller's (it never sees bytes).
 */
import { sessionInfoName } from "@pi-session/format";
import { IdTable } from "./id-table.js";
import { applyLabelEntry } from "./session-index.js";

/** What the index reads of each slot. */
export interface SlotSource {
  /** Number of slots (it may grow: see {@link SlotIndex.append}). */
  readonly count: number;
  /** Per slot: the id, or undefined when it is not a string (the entry is not indexed); grows with `count`. */
  readonly ids: readonly (string | undefined)[];
  /** The slot's `parentId` when it is a string, else undefined. */
  parentIdOf(slot: number): string | undefined;
}

const NONE = -1;

export class SlotIndex {
  readonly #source: SlotSource;
  readonly #ids: readonly (string | undefined)[];
  readonly #table: IdTable;
  #hasDuplicates = false;
  #leafSlot: number;
  readonly #labels = new Map<string, string>();
  readonly #labelTimestamps = new Map<string, string>();
  #sessionName: string | undefined = undefined;

  /**
   * `meta`: the label and `session_info` entries with their slots, in file order (entries of
   * other types, or without a string id, are ignored as `SessionIndex` ignores them).
   */
  constructor(source: SlotSource, meta: Iterable<{ slot: number; entry: Record<string, unknown> }> = []) {
    this.#source = source;
    const ids = source.ids;
    this.#ids = ids;
    const table = IdTable.overIds(ids);
    table.reserve(source.count);
    let leaf = NONE;
    for (let slot = 0; slot < source.count; slot++) {
      if (ids[slot] === undefined) continue;
      if (!table.add(slot)) this.#hasDuplicates = true;
      leaf = slot;
    }
    this.#table = table;
    this.#leafSlot = leaf;
    for (const { slot, entry } of meta) {
      if (ids[slot] === undefined) continue;
      if (entry.type === "label") applyLabelEntry(this.#labels, this.#labelTimestamps, entry);
      else if (entry.type === "session_info") this.#sessionName = sessionInfoName(entry);
    }
  }

  /**
   * Indexes `slot`, which the source just added (its id in `ids`), and makes it the leaf, as
   * `SessionIndex.append`; `entry` is the slot's entry when it is a label or `session_info`
   * (applied to the labels or the name).
   */
  append(slot: number, entry?: Record<string, unknown>): void {
    if (this.#ids[slot] === undefined) return;
    if (!this.#table.add(slot)) this.#hasDuplicates = true;
    this.#leafSlot = slot;
    if (entry?.type === "label") applyLabelEntry(this.#labels, this.#labelTimestamps, entry);
    else if (entry?.type === "session_info") this.#sessionName = sessionInfoName(entry);
  }

  /** Moves the leaf to `id` (null: no leaf); pi's `Entry <id> not found` for an unknown id. */
  setLeaf(id: string | null): void {
    if (id === null) {
      this.#leafSlot = NONE;
      return;
    }
    const slot = this.#table.find(id);
    if (slot === NONE) throw new Error(`Entry ${id} not found`);
    this.#leafSlot = slot;
  }

  /** Number of distinct ids (pi's `byId.size`). */
  get distinctIds(): number {
    return this.#table.size;
  }

  /** The last indexed slot (the leaf), or -1. */
  get leafSlot(): number {
    return this.#leafSlot;
  }

  get leafId(): string | null {
    return this.#leafSlot === NONE ? null : (this.#ids[this.#leafSlot] as string);
  }

  /** The slot of the last occurrence of `id`, or -1. */
  find(id: string): number {
    return this.#table.find(id);
  }

  has(id: string): boolean {
    return this.#table.find(id) !== NONE;
  }

  get labels(): ReadonlyMap<string, string> {
    return this.#labels;
  }

  getLabel(id: string): string | undefined {
    return this.#labels.get(id);
  }

  getLabelTimestamp(id: string): string | undefined {
    return this.#labelTimestamps.get(id);
  }

  get sessionName(): string | undefined {
    return this.#sessionName;
  }

  /** The slots from the root down to `slot` (a kept occurrence), root first; `SessionIndex.pathTo`'s walk. */
  pathFrom(slot: number): number[] {
    const path: number[] = [];
    const limit = this.#table.size;
    let at = slot;
    while (at !== NONE && path.length <= limit) {
      path.push(at);
      at = this.#parentSlot(at);
    }
    if (at !== NONE) {
      // More steps than distinct ids: a cycle. Redo the walk with a visited set.
      path.length = 0;
      const seen = new Uint8Array(this.#source.count);
      at = slot;
      while (at !== NONE && seen[at] === 0) {
        seen[at] = 1;
        path.push(at);
        at = this.#parentSlot(at);
      }
    }
    path.reverse();
    return path;
  }

  /** The root-to-entry slots for `id` (`[]` when unknown). */
  pathTo(id: string): number[] {
    const start = this.#table.find(id);
    return start === NONE ? [] : this.pathFrom(start);
  }

  #parentSlot(slot: number): number {
    const parentId = this.#source.parentIdOf(slot);
    if (parentId === undefined || parentId === "" || parentId === this.#ids[slot]) return NONE;
    if (slot > 0 && !this.#hasDuplicates && this.#ids[slot - 1] === parentId) return slot - 1;
    return this.#table.find(parentId);
  }
}
