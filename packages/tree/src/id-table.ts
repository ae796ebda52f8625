/**
 * IdTable: the id -> slot lookup behind `SessionIndex`, an open-addressing hash table over
 * the index's own entry array.
 *
 * Why not a `Map`: indexing is the main cost of opening a session, and this table (one
 * `Int32Array` of slots, one of hashes; no per-entry allocation, no rehash of string keys)
 * costs several times less (decision 004).
 *
 * The hash is unseeded (a pure package has no randomness), so a crafted file could make
 * ids collide. Every probe sequence is therefore bounded: the first one longer than
 * {@link MAX_PROBE} moves the table to a `Map` (V8's hash is seeded), keeping every operation
 * O(1) expected whatever the input.
 *
 * Reads of typed arrays and arrays are at indexes in range by construction and written
 * `a[i] as number` (or `as string`): `noUncheckedIndexedAccess` types every read `| undefined`,
 * and a check per read in these loops would cost more than it proves.
 */

import { idHash } from "@pi-session/format";

/** An item with an id, as stored in the index's entry array. */
interface Keyed {
  id: string;
}

/**
 * Ids that need not be strings (`SlotIndex` over a lazy open, whose ids stay bytes): the
 * table asks the keeper of the ids for hashes and comparisons, by slot. `hashAt(slot)` must
 * be format's `idHash` of the slot's id.
 */
export interface IdKeys {
  hashAt(slot: number): number;
  /** The id of `slot` as a string (needed only if the table becomes a `Map`). */
  idAt(slot: number): string;
  /** Whether slots `a` and `b` have the same id. */
  sameAt(a: number, b: number): boolean;
  /** Whether the id of `slot` is `id`. */
  isAt(slot: number, id: string): boolean;
}

const EMPTY = -1;
const MAX_PROBE = 64;
const INITIAL_CAPACITY = 64;

export class IdTable {
  /** The index's entry array (shared, append-only): slot -> item. */
  readonly #items: readonly Keyed[];
  /** Or, for a table over keys kept elsewhere (`SlotIndex`), what answers for them. */
  #keys: IdKeys | undefined = undefined;
  /** Open-addressing table of slots (EMPTY when free), length a power of two. */
  #table = new Int32Array(INITIAL_CAPACITY).fill(EMPTY);
  /** Hash of the id of each slot that went through {@link add}. */
  #hashes = new Int32Array(INITIAL_CAPACITY);
  /** Distinct ids. */
  #size = 0;
  /** Set once a probe sequence grew too long: from then on the table is this map. */
  #map: Map<string, number> | undefined = undefined;

  /** The hash function; replaceable so tests can force collisions. */
  readonly #hash: (id: string) => number;

  constructor(items: readonly Keyed[], hash: (id: string) => number = idHash) {
    this.#items = items;
    this.#hash = hash;
  }

  /**
   * A table whose slots' ids `keys` hashes and compares; add only slots that have an id.
   * `hash` (what `keys.hashAt` gives, by id) is replaceable so tests can force collisions.
   */
  static overKeys(keys: IdKeys, hash: (id: string) => number = idHash): IdTable {
    const table = new IdTable([], hash);
    table.#keys = keys;
    return table;
  }

  /** The id of `slot` (an added one). */
  #idAt(slot: number): string {
    const keys = this.#keys;
    return keys === undefined ? (this.#items[slot] as Keyed).id : keys.idAt(slot);
  }

  /** Number of distinct ids. */
  get size(): number {
    return this.#map === undefined ? this.#size : this.#map.size;
  }

  /**
   * Records `items[slot]` (the newest item) under its id; a later slot replaces an earlier
   * one with the same id. Returns false when the id was already known (a duplicate).
   */
  add(slot: number): boolean {
    if (this.#map !== undefined) {
      const known = this.#map.size;
      this.#map.set(this.#idAt(slot), slot);
      return this.#map.size !== known;
    }
    const keys = this.#keys;
    // Over keys the id stays with its keeper and is compared by slot; else it is the item's.
    const id = keys === undefined ? (this.#items[slot] as Keyed).id : "";
    const hash = (keys === undefined ? this.#hash(id) : keys.hashAt(slot)) | 0;
    if (slot >= this.#hashes.length) {
      const grown = new Int32Array(Math.max(this.#hashes.length * 2, slot + 1));
      grown.set(this.#hashes);
      this.#hashes = grown;
    }
    this.#hashes[slot] = hash;
    if ((this.#size + 1) * 2 > this.#table.length && !this.#grow()) {
      this.#toMap();
      return this.add(slot);
    }
    const table = this.#table;
    const mask = table.length - 1;
    let at = hash & mask;
    for (let probes = 0; probes < MAX_PROBE; probes++) {
      const occupant = table[at] as number;
      if (occupant === EMPTY) {
        table[at] = slot;
        this.#size++;
        return true;
      }
      if (
        this.#hashes[occupant] === hash &&
        (keys === undefined ? this.#isAt(occupant, id) : keys.sameAt(occupant, slot))
      ) {
        table[at] = slot;
        return false;
      }
      at = (at + 1) & mask;
    }
    this.#toMap();
    return this.add(slot);
  }

  /** The slot last recorded for `id`, or -1. */
  find(id: string): number {
    if (this.#map !== undefined) return this.#map.get(id) ?? EMPTY;
    // Lookups come from untyped JSON too (a numeric parentId); only strings are keys.
    if (typeof id !== "string") return EMPTY;
    return this.#lookup(this.#hash(id) | 0, EMPTY, id);
  }

  /** Over {@link IdKeys}: the slot last recorded for the id of `slot` (any slot with an id), or -1. */
  findSameAs(slot: number): number {
    const keys = this.#keys as IdKeys;
    if (this.#map !== undefined) return this.#map.get(keys.idAt(slot)) ?? EMPTY;
    return this.#lookup(keys.hashAt(slot) | 0, slot, "");
  }

  /** The probe of {@link find} and {@link findSameAs}: the id is `slot`'s when it is one, else `id`. */
  #lookup(hash: number, slot: number, id: string): number {
    const table = this.#table;
    const mask = table.length - 1;
    let at = hash & mask;
    for (let probes = 0; probes < MAX_PROBE; probes++) {
      const occupant = table[at] as number;
      if (occupant === EMPTY) return EMPTY;
      if (
        this.#hashes[occupant] === hash &&
        (slot === EMPTY ? this.#isAt(occupant, id) : (this.#keys as IdKeys).sameAt(occupant, slot))
      )
        return occupant;
      at = (at + 1) & mask;
    }
    this.#toMap();
    return slot === EMPTY ? this.find(id) : this.findSameAs(slot);
  }

  #isAt(slot: number, id: string): boolean {
    const keys = this.#keys;
    return keys === undefined ? (this.#items[slot] as Keyed).id === id : keys.isAt(slot, id);
  }

  /** Makes room for `count` items in all, so that a bulk build does not rehash as it goes. */
  reserve(count: number): void {
    if (this.#map !== undefined) return;
    if (count > this.#hashes.length) {
      const grown = new Int32Array(count);
      grown.set(this.#hashes);
      this.#hashes = grown;
    }
    let capacity = this.#table.length;
    while (capacity < 2 * count) capacity *= 2;
    if (capacity > this.#table.length && !this.#grow(capacity)) this.#toMap();
  }

  /** Rehashes into `capacity` slots (default: double); false (nothing changed) if some id would probe too far. */
  #grow(capacity = this.#table.length * 2): boolean {
    const old = this.#table;
    const table = new Int32Array(capacity).fill(EMPTY);
    const mask = table.length - 1;
    for (const slot of old) {
      if (slot === EMPTY) continue;
      let at = (this.#hashes[slot] as number) & mask;
      let probes = 0;
      while (table[at] !== EMPTY) {
        if (++probes === MAX_PROBE) return false;
        at = (at + 1) & mask;
      }
      table[at] = slot;
    }
    this.#table = table;
    return true;
  }

  /** Moves to a `Map` (see the module comment); slots keep their meaning. */
  #toMap(): void {
    const map = new Map<string, number>();
    for (const slot of this.#table) if (slot !== EMPTY) map.set(this.#idAt(slot), slot);
    this.#map = map;
    this.#table = new Int32Array(0);
    this.#hashes = new Int32Array(0);
  }
}
