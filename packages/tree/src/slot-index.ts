/**
 * SlotIndex: `SessionIndex`'s answers for a session whose entries are not parsed (the lazy
 * open of decision 101): entries are slots 0..n-1 in file order, known by their id and their
 * parent id, read through a {@link SlotSource} that need not hold either as a string (it
 * hashes and compares them by slot); only label and `session_info` entries are seen whole.
 *
 * Same rules as `SessionIndex`: the last occurrence of an id wins, the leaf is the last
 * indexed entry, a path stops at a missing, empty, non-string or self parent and at the first
 * repeated slot of a cycle; labels and the name are applied in file order. It grows as
 * `SessionIndex` does: {@link SlotIndex.append} takes a slot the source added (an append
 * after the open) and makes it the leaf, {@link SlotIndex.setLeaf} moves the leaf (pi's
 * `branch`, `resetLeaf`). Pure: the source is the caller's (it never sees bytes).
 */
import { indexRoleOf, sessionInfoName } from "@pi-session/format";
import { type IdKeys, IdTable } from "./id-table.js";
import { applyLabelEntry } from "./session-index.js";

/** What the index reads of each slot (it may grow: see {@link SlotIndex.append}). */
export interface SlotSource {
  /** Number of slots. */
  readonly count: number;
  /** Whether the slot's id is a string (else the entry is not indexed). */
  hasId(slot: number): boolean;
  /** The slot's id when it is a string, else undefined. */
  idOf(slot: number): string | undefined;
  /** format's `idHash` of the slot's id (a slot with an id). */
  idHashOf(slot: number): number;
  /** Whether the slot's id is `id`. */
  isId(slot: number, id: unknown): boolean;
  /** Whether slots `a` and `b` have the same id (both with one). */
  sameId(a: number, b: number): boolean;
  /** The slot's `parentId` when it is a string, else undefined. */
  parentIdOf(slot: number): string | undefined;
  /**
   * True only if the slot's `parentId` is a string equal to the previous slot's id (a hint
   * that spares reading it; false is always safe).
   */
  parentIsPrevious(slot: number): boolean;
  /**
   * The first slot of the chain that ends at `slot`: the slots from it to `slot` each have
   * a `parentId` equal to the (non-empty) id of the slot before (`parentIsPrevious`). `slot`
   * itself is always safe.
   */
  chainStart(slot: number): number;
}

const NONE = -1;

export class SlotIndex {
  readonly #source: SlotSource;
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
    const keys: IdKeys = {
      hashAt: (slot) => source.idHashOf(slot),
      idAt: (slot) => source.idOf(slot) as string,
      sameAt: (a, b) => source.sameId(a, b),
      isAt: (slot, id) => source.isId(slot, id),
    };
    const table = IdTable.overKeys(keys);
    table.reserve(source.count);
    let leaf = NONE;
    for (let slot = 0; slot < source.count; slot++) {
      if (!source.hasId(slot)) continue;
      if (!table.add(slot)) this.#hasDuplicates = true;
      leaf = slot;
    }
    this.#table = table;
    this.#leafSlot = leaf;
    for (const { slot, entry } of meta) {
      if (!source.hasId(slot)) continue;
      this.#keep(entry);
    }
  }

  /**
   * Indexes `slot`, which the source just added (its id in `ids`), and makes it the leaf, as
   * `SessionIndex.append`; `entry` is the slot's entry when it is a label or `session_info`
   * (applied to the labels or the name).
   */
  append(slot: number, entry?: Record<string, unknown>): void {
    if (!this.#source.hasId(slot)) return;
    if (!this.#table.add(slot)) this.#hasDuplicates = true;
    this.#leafSlot = slot;
    if (entry !== undefined) this.#keep(entry);
  }

  /** What the index keeps of an entry: its index role's (format's registry) label or name. */
  #keep(entry: Record<string, unknown>): void {
    const role = indexRoleOf(entry.type);
    if (role === "label") applyLabelEntry(this.#labels, this.#labelTimestamps, entry);
    else if (role === "name") this.#sessionName = sessionInfoName(entry);
    else role satisfies "none";
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
    return this.#leafSlot === NONE ? null : (this.#source.idOf(this.#leafSlot) as string);
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
  pathFrom(slot: number): Int32Array {
    // Filled leaf first, reversed at the end; a typed array, since a path can be the whole file.
    let path = new Int32Array(64);
    let n = 0;
    const limit = this.#table.size;
    let at = slot;
    while (at !== NONE && n <= limit) {
      let room = n + 1;
      // A chain's parents are the slots before, each the only one with its id: no lookups.
      // (Slots only fall along a chain, so it holds no cycle.)
      const first = this.#hasDuplicates ? at : this.#source.chainStart(at);
      room += at - first;
      if (room > path.length) path = grown(path, room);
      for (; at > first; at--) path[n++] = at;
      path[n++] = at;
      at = this.#parentSlot(at);
    }
    if (at !== NONE) {
      // More steps than distinct ids: a cycle. Redo the walk with a visited set.
      n = 0;
      const seen = new Uint8Array(this.#source.count);
      at = slot;
      while (at !== NONE && seen[at] === 0) {
        seen[at] = 1;
        if (n === path.length) path = grown(path, n + 1);
        path[n++] = at;
        at = this.#parentSlot(at);
      }
    }
    return path.subarray(0, n).reverse();
  }

  /**
   * The slot of `slot`'s parent as {@link pathFrom} walks it (the kept occurrence of its
   * `parentId`), or -1 for none (a root: no, an empty, a missing or its own parent id).
   */
  parentSlotOf(slot: number): number {
    return this.#parentSlot(slot);
  }

  /** Whether some id is on two slots (then the tree view keeps the last; see `SessionIndex`). */
  get hasDuplicateIds(): boolean {
    return this.#hasDuplicates;
  }

  /** The root-to-entry slots for `id` (empty when unknown). */
  pathTo(id: string): Int32Array {
    const start = this.#table.find(id);
    return start === NONE ? new Int32Array(0) : this.pathFrom(start);
  }

  #parentSlot(slot: number): number {
    const source = this.#source;
    // A chain (nearly every entry of pi's files): the parent id is the previous slot's,
    // compared and looked up by slot, without making it a string. An empty id is no parent;
    // the slot's own id (a duplicate) neither.
    if (slot > 0 && source.parentIsPrevious(slot)) {
      if (source.isId(slot - 1, "") || source.sameId(slot, slot - 1)) return NONE;
      return this.#hasDuplicates ? this.#table.findSameAs(slot - 1) : slot - 1;
    }
    const parentId = source.parentIdOf(slot);
    if (parentId === undefined || parentId === "" || source.isId(slot, parentId)) return NONE;
    if (slot > 0 && !this.#hasDuplicates && source.isId(slot - 1, parentId)) return slot - 1;
    return this.#table.find(parentId);
  }
}

/** `array`'s elements in a larger array, with room for at least `size`. */
function grown(array: Int32Array, size: number): Int32Array<ArrayBuffer> {
  const next = new Int32Array(Math.max(size, array.length * 2));
  next.set(array);
  return next;
}
