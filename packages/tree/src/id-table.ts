/**
 * IdTable: the id -> slot lookup behind `SessionIndex`, an open-addressing hash table over
 * the index's own entry array.
 *
 * Why not a `Map`: indexing is the main cost of opening a session, and on a freshly parsed
 * 200,000-entry file a `Map<string, number>` costs several times more than this table (one
 * `Int32Array` of slots, one of hashes; no per-entry allocation, no rehash of string keys).
 *
 * The hash is unseeded (a pure package has no randomness), so a crafted file could make
 * ids collide. Every probe sequence is therefore bounded: the first one longer than
 * {@link MAX_PROBE} moves the table to a `Map` (V8's hash is seeded), keeping every operation
 * O(1) expected whatever the input.
 */

/** An item with an id, as stored in the index's entry array. */
interface Keyed {
  id: string;
}

const EMPTY = -1;
const MAX_PROBE = 64;
const INITIAL_CAPACITY = 64;

/** FNV-1a over UTF-16 code units, then a murmur3 finaliser so the low bits mix well. */
function hashId(id: string): number {
  let h = 0x811c9dc5 | 0;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

export class IdTable {
  /** The index's entry array (shared, append-only): slot -> item. */
  readonly #items: readonly Keyed[];
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

  constructor(items: readonly Keyed[], hash: (id: string) => number = hashId) {
    this.#items = items;
    this.#hash = hash;
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
    const id = (this.#items[slot] as Keyed).id;
    if (this.#map !== undefined) {
      const known = this.#map.size;
      this.#map.set(id, slot);
      return this.#map.size !== known;
    }
    const h = this.#hash(id) | 0;
    if (slot >= this.#hashes.length) {
      const grown = new Int32Array(this.#hashes.length * 2);
      grown.set(this.#hashes);
      this.#hashes = grown;
    }
    this.#hashes[slot] = h;
    if ((this.#size + 1) * 2 > this.#table.length && !this.#grow()) {
      this.#toMap();
      return this.add(slot);
    }
    const table = this.#table;
    const mask = table.length - 1;
    let i = h & mask;
    for (let probes = 0; probes < MAX_PROBE; probes++) {
      const s = table[i] as number;
      if (s === EMPTY) {
        table[i] = slot;
        this.#size++;
        return true;
      }
      if (this.#hashes[s] === h && (this.#items[s] as Keyed).id === id) {
        table[i] = slot;
        return false;
      }
      i = (i + 1) & mask;
    }
    this.#toMap();
    return this.add(slot);
  }

  /** The slot last recorded for `id`, or -1. */
  find(id: string): number {
    if (this.#map !== undefined) return this.#map.get(id) ?? EMPTY;
    // Lookups come from untyped JSON too (a numeric parentId); only strings are keys.
    if (typeof id !== "string") return EMPTY;
    const h = this.#hash(id) | 0;
    const table = this.#table;
    const mask = table.length - 1;
    let i = h & mask;
    for (let probes = 0; probes < MAX_PROBE; probes++) {
      const s = table[i] as number;
      if (s === EMPTY) return EMPTY;
      if (this.#hashes[s] === h && (this.#items[s] as Keyed).id === id) return s;
      i = (i + 1) & mask;
    }
    this.#toMap();
    return this.find(id);
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
    for (let k = 0; k < old.length; k++) {
      const s = old[k] as number;
      if (s === EMPTY) continue;
      let i = (this.#hashes[s] as number) & mask;
      let probes = 0;
      while (table[i] !== EMPTY) {
        if (++probes === MAX_PROBE) return false;
        i = (i + 1) & mask;
      }
      table[i] = s;
    }
    this.#table = table;
    return true;
  }

  /** Moves to a `Map` (see the module comment); slots keep their meaning. */
  #toMap(): void {
    const map = new Map<string, number>();
    for (const s of this.#table) if (s !== EMPTY) map.set((this.#items[s] as Keyed).id, s);
    this.#map = map;
    this.#table = new Int32Array(0);
    this.#hashes = new Int32Array(0);
  }
}
