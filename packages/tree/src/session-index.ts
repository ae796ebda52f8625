/**
 * SessionIndex: the in-memory index of one pi session (ids, children, labels, name, leaf),
 * with root-to-entry paths, the display tree and diagnostics. Use it for every question about
 * the structure of a session once its entries are read (and migrated to v3).
 *
 * Built in O(n) from the entries of a file in file order; `append` is O(1) amortized. Every
 * walk is iterative and cycle-safe, so a corrupt file (self-parents, parent cycles, duplicate
 * ids, dangling references) yields diagnostics instead of a hang or a stack overflow.
 * Pure: no I/O, no clock, no randomness.
 *
 * Opening a session builds the index once per open, so the build does only what every open
 * needs: one id -> slot table (`id-table.ts`), plain arrays, labels and name. The id -> entry
 * map (`byId`), the children lists, the structural analysis (`analysis.ts`) and the tree
 * (`tree-view.ts`) are built on first use and then kept up to date.
 */
import {
  type SessionEntry,
  type SessionRecord,
  indexRoleOf,
  isObject,
  sessionInfoName,
} from "@pi-session/format";
import { type Analysis, type ParentCycle, type TreeDiagnostic, analyzeStructure } from "./analysis.js";
import { IdTable } from "./id-table.js";
import { type EntryPosition, EntryPositions } from "./positions.js";
import { type SessionTreeNode, buildTree } from "./tree-view.js";

/** The fields the index reads from an entry. Everything else is carried along untouched. */
export interface IndexableEntry {
  type: string;
  id: string;
  parentId?: string | null;
  timestamp?: string;
}

export interface SessionIndexOptions {
  /**
   * Positions of the input entries: either a map id -> position (ambiguous for duplicate
   * ids: every occurrence gets the same position) or an array aligned with the input list.
   */
  positions?: ReadonlyMap<string, EntryPosition> | ReadonlyArray<EntryPosition | undefined>;
}

/** The slot `IdTable.find` gives for an unknown id, and the parent slot of a root. */
const NONE = -1;

/**
 * The index of one session. Construct it with the entries after the header, in file order
 * (a `type:"session"` object in the list is skipped, as pi skips extra headers); or use
 * {@link SessionIndex.fromRecords} with the line codec's records.
 *
 * Duplicate ids: like pi's `Map`, {@link get} returns the LAST occurrence in file order, and
 * {@link pathTo} walks through the last occurrences. Unlike pi, every occurrence stays in
 * {@link entries}, in {@link children} and exactly once in {@link getTree} (an earlier
 * occurrence appears under its own parent, without children; children of the id hang under
 * the last occurrence).
 */
export class SessionIndex<E extends IndexableEntry = SessionEntry> {
  readonly #entries: E[] = [];
  /** Where each entry came from (line, offset, input index), by slot. */
  readonly #positions = new EntryPositions();
  /** File-order index (into #entries) of the occurrence that `get` returns. */
  readonly #slotOf = new IdTable(this.#entries);
  /** Whether some id occurs twice (then an entry's neighbour may not be the kept occurrence). */
  #hasDuplicates = false;
  /** id -> entry, built on first use of `byId`, then maintained. */
  #byId: Map<string, E> | undefined = undefined;
  /** parent id -> children, built on first use of `children`, then maintained. */
  #children: Map<string, E[]> | undefined = undefined;
  readonly #labels = new Map<string, string>();
  readonly #labelTimestamps = new Map<string, string>();
  /** Diagnostics of the input items that were not indexed. */
  readonly #notIndexed: TreeDiagnostic[] = [];
  #leafId: string | null = null;
  #sessionName: string | undefined = undefined;
  #analysis: Analysis | undefined = undefined;

  constructor(entries: Iterable<unknown> = [], options: SessionIndexOptions = {}) {
    const { positions } = options;
    let i = 0;
    for (const item of entries) {
      let position: EntryPosition | undefined;
      if (positions !== undefined) {
        if (isPositionList(positions)) position = positions[i];
        else if (isObject(item) && typeof item.id === "string") position = positions.get(item.id);
      }
      this.#add(item, position);
      i++;
    }
  }

  /**
   * Builds an index from the line codec's records: the first JSON record with
   * `type:"session"` is the header and is skipped, raw records are skipped, and every entry
   * carries its record's line and byte offset into the diagnostics.
   */
  static fromRecords<E extends IndexableEntry = SessionEntry>(
    records: Iterable<SessionRecord>,
  ): SessionIndex<E> {
    const index = new SessionIndex<E>();
    if (Array.isArray(records)) index.#reserve(records.length);
    let headerSeen = false;
    for (const record of records) {
      if (record.kind !== "json") continue;
      if (!headerSeen && record.value.type === "session") {
        headerSeen = true;
        continue;
      }
      // The record is its own position (it has `line` and `offset`).
      index.#add(record.value, record);
    }
    return index;
  }

  // ---------------------------------------------------------------------------------------
  // Building

  /** Adds one entry at the end, as pi's `_appendEntry` does: O(1) amortized; the leaf moves to it. */
  append(entry: E, position?: EntryPosition): void {
    this.#add(entry, position);
  }

  /** Room for `entries` slots (positions and id table), so a bulk build does not regrow. */
  #reserve(entries: number): void {
    this.#positions.reserve(entries);
    this.#slotOf.reserve(entries);
  }

  #add(item: unknown, position: EntryPosition | undefined): void {
    if (!isObject(item) || typeof item.id !== "string") {
      const inputIndex = this.#positions.skip();
      if (isObject(item) && item.type === "session") return;
      this.#notIndexed.push({
        code: "missing-id",
        severity: "warning",
        inputIndex,
        ...(position === undefined ? {} : { line: position.line, offset: position.offset }),
        reason: isObject(item)
          ? `entry of type ${JSON.stringify(item.type)} has no string id; it is not indexed`
          : "item is not an object; it is not indexed",
      });
      return;
    }
    if (item.type === "session") {
      this.#positions.skip();
      return;
    }
    const entry = item as unknown as E;
    const id = entry.id;
    // Re-using an id, or adding an id that earlier entries already name as parent, can
    // create or break a parent cycle; plain appends cannot, so they keep the analysis cheap.
    this.#analysis = undefined;
    const slot = this.#positions.add(position);
    this.#entries.push(entry);
    if (!this.#slotOf.add(slot)) this.#hasDuplicates = true;
    if (this.#byId !== undefined) this.#byId.set(id, entry);
    if (this.#children !== undefined) addChild(this.#children, entry);
    this.#leafId = id;
    // What the index keeps of an entry is its index role's (format's registry).
    const role = indexRoleOf(entry.type);
    if (role === "label") this.#applyLabel(item);
    else if (role === "name") this.#sessionName = sessionInfoName(item);
    else role satisfies "none";
  }

  #applyLabel(entry: Record<string, unknown>): void {
    applyLabelEntry(this.#labels, this.#labelTimestamps, entry);
  }

  // ---------------------------------------------------------------------------------------
  // Lookups

  /** All indexed entries in file order, duplicates included (a live view; do not mutate). */
  get entries(): readonly E[] {
    return this.#entries;
  }

  /** Number of indexed entries (duplicates included). */
  get size(): number {
    return this.#entries.length;
  }

  /**
   * id -> entry (last occurrence wins), like pi's `byId` (a live view; do not mutate).
   * Built in O(n) on first use; {@link get} needs no such map.
   */
  get byId(): ReadonlyMap<string, E> {
    if (this.#byId === undefined) {
      const byId = new Map<string, E>();
      for (const entry of this.#entries) byId.set(entry.id, entry);
      this.#byId = byId;
    }
    return this.#byId;
  }

  /** The entry with this id (the last occurrence in file order), O(1). */
  get(id: string): E | undefined {
    const slot = this.#slotOf.find(id);
    return slot === NONE ? undefined : this.#entries[slot];
  }

  has(id: string): boolean {
    return this.#slotOf.find(id) !== NONE;
  }

  /**
   * Entries whose `parentId` is `id`, in file order (every occurrence; a self-parented
   * entry is not its own child). O(1) after an O(n) first call: returns the index's own
   * array, do not mutate it.
   */
  children(id: string): readonly E[] {
    if (this.#children === undefined) {
      const children = new Map<string, E[]>();
      for (const entry of this.#entries) addChild(children, entry);
      this.#children = children;
    }
    return this.#children.get(id) ?? [];
  }

  /** The position given for the occurrence that {@link get} returns, if any. */
  positionOf(id: string): EntryPosition | undefined {
    const slot = this.#slotOf.find(id);
    return slot === NONE ? undefined : this.#positions.position(slot);
  }

  // ---------------------------------------------------------------------------------------
  // Leaf

  /** The current leaf: the last entry in file order unless {@link setLeaf} moved it; null if empty or reset. */
  get leafId(): string | null {
    return this.#leafId;
  }

  /** The leaf entry, if the leaf is set and known. */
  get leafEntry(): E | undefined {
    return this.#leafId === null ? undefined : this.get(this.#leafId);
  }

  /**
   * Moves the leaf (pi's `branch(id)`; `null` is pi's `resetLeaf()`). Throws pi's
   * `Entry <id> not found` for an unknown id.
   */
  setLeaf(id: string | null): void {
    if (id !== null && this.#slotOf.find(id) === NONE) throw new Error(`Entry ${id} not found`);
    this.#leafId = id;
  }

  // ---------------------------------------------------------------------------------------
  // Labels and name

  /** target id -> label; the last label entry per target wins, an absent or empty label clears. */
  get labels(): ReadonlyMap<string, string> {
    return this.#labels;
  }

  getLabel(id: string): string | undefined {
    return this.#labels.get(id);
  }

  /** Timestamp of the label entry that set the current label of `id`. */
  getLabelTimestamp(id: string): string | undefined {
    return this.#labelTimestamps.get(id);
  }

  /** The name from the latest `session_info` entry, trimmed; empty or blank clears it (pi 1.x). */
  get sessionName(): string | undefined {
    return this.#sessionName;
  }

  // ---------------------------------------------------------------------------------------
  // Paths

  /**
   * The entries from the root down to `id` (inclusive), O(depth). An unknown id gives `[]`;
   * a missing parent ends the walk (the path starts at the orphan); a parent cycle ends it
   * at the first repeated id (the cycle is reported in {@link diagnostics}). As in pi's walk,
   * a `parentId` that is not a non-empty string ends it too.
   */
  pathTo(id: string): E[] {
    const start = this.#slotOf.find(id);
    return start === NONE ? [] : this.#pathFrom(start);
  }

  /**
   * pi's path selection (`buildSessionPath`) from `leafId`, which defaults to the current
   * {@link leafId} (also when `undefined` is passed): `null` gives `[]`; `""` or an unknown
   * id falls back to the last entry in file order.
   */
  activePath(leafId: string | null | undefined = this.#leafId): E[] {
    if (leafId === null) return [];
    // pi tests the leaf for truthiness, so "" falls back like undefined. The last entry in
    // file order is always the kept occurrence of its id.
    const start = leafId ? this.#slotOf.find(leafId) : NONE;
    if (start !== NONE) return this.#pathFrom(start);
    return this.#entries.length === 0 ? [] : this.#pathFrom(this.#entries.length - 1);
  }

  /** Root-to-entry path from a kept slot (every slot on it is a kept occurrence). */
  #pathFrom(start: number): E[] {
    const path: E[] = [];
    // A walk through more slots than there are distinct ids must have entered a cycle; only
    // then pay for a visited set, and redo the walk precisely.
    const limit = this.#slotOf.size;
    let slot = start;
    while (slot !== NONE && path.length <= limit) {
      path.push(this.#entries[slot] as E);
      slot = this.#parentSlot(slot);
    }
    if (slot !== NONE) {
      path.length = 0;
      const seen = new Uint8Array(this.#entries.length);
      slot = start;
      while (slot !== NONE && seen[slot] === 0) {
        seen[slot] = 1;
        path.push(this.#entries[slot] as E);
        slot = this.#parentSlot(slot);
      }
    }
    path.reverse();
    return path;
  }

  /** The kept slot of the parent of the entry in `slot`, or NONE (pi's walk stops there). */
  #parentSlot(slot: number): number {
    const entries = this.#entries;
    const entry = entries[slot] as E;
    const parentId = entry.parentId;
    if (typeof parentId !== "string" || parentId === "" || parentId === entry.id) return NONE;
    // Files are mostly appended in order: the parent is usually the entry just before, which
    // is the kept occurrence of its id unless some id occurs twice. Saves a map lookup.
    if (slot > 0 && (entries[slot - 1] as E).id === parentId && !this.#hasDuplicates) return slot - 1;
    return this.#slotOf.find(parentId);
  }

  // ---------------------------------------------------------------------------------------
  // Tree and diagnostics (built on first use by analysis.ts and tree-view.ts)

  /**
   * The display tree in pi's shape. Roots: entries with a null/absent parent, a self
   * parent, a parent that does not exist, and one member per parent cycle (the member
   * earliest in file order; see {@link cycles}). Roots are in file order; children are
   * sorted by timestamp, stable (file order on ties; missing or invalid timestamps last).
   * Every entry appears exactly once. O(n log n) for the sorts; iterative.
   */
  getTree(): SessionTreeNode<E>[] {
    return buildTree({
      entries: this.#entries,
      treeParent: this.#analyze().treeParent,
      labels: this.#labels,
      labelTimestamps: this.#labelTimestamps,
    });
  }

  /** The parent cycles among the entries (empty for a healthy session). */
  get cycles(): readonly ParentCycle[] {
    return this.#analyze().cycles;
  }

  /**
   * Structural problems: `missing-id` (items that were not indexed), `duplicate-id` (one per
   * earlier occurrence: {@link get} keeps the last), `cycle`, `dangling-parent` (an orphan:
   * its parent id is unknown) and `dangling-label-target`. Computed lazily in O(n) and
   * cached until the next append; reflects the current entries.
   */
  get diagnostics(): readonly TreeDiagnostic[] {
    return this.#analyze().diagnostics;
  }

  #analyze(): Analysis {
    this.#analysis ??= analyzeStructure({
      entries: this.#entries,
      slotOf: this.#slotOf,
      positions: this.#positions,
      notIndexed: this.#notIndexed,
    });
    return this.#analysis;
  }
}

/**
 * What a label entry does to the labels of a session: it sets its target's label (and label
 * time), or clears it when empty or absent. Shared by `SessionIndex` and `SlotIndex`.
 */
export function applyLabelEntry(
  labels: Map<string, string>,
  timestamps: Map<string, string>,
  entry: Record<string, unknown>,
): void {
  const target = entry.targetId;
  if (typeof target !== "string") return;
  const label = entry.label;
  if (typeof label === "string" && label !== "") {
    labels.set(target, label);
    if (typeof entry.timestamp === "string") timestamps.set(target, entry.timestamp);
    else timestamps.delete(target);
  } else {
    labels.delete(target);
    timestamps.delete(target);
  }
}

function isPositionList(
  positions: NonNullable<SessionIndexOptions["positions"]>,
): positions is ReadonlyArray<EntryPosition | undefined> {
  return Array.isArray(positions);
}

function addChild<E extends IndexableEntry>(children: Map<string, E[]>, entry: E): void {
  const parentId = entry.parentId;
  if (typeof parentId !== "string" || parentId === entry.id) return;
  const list = children.get(parentId);
  if (list === undefined) children.set(parentId, [entry]);
  else list.push(entry);
}

/** Convenience for `new SessionIndex(entries, options)`. */
export function createIndex<E extends IndexableEntry = SessionEntry>(
  entries: Iterable<unknown> = [],
  options: SessionIndexOptions = {},
): SessionIndex<E> {
  return new SessionIndex<E>(entries, options);
}
