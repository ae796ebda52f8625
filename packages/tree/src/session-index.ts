/**
 * SessionIndex: the in-memory index of one pi session (ids, children, labels, name, leaf),
 * with root-to-entry paths and the display tree.
 *
 * Built in O(n) from the entries of a file in file order; `append` is O(1) amortized. Every
 * walk is iterative and cycle-safe, so a corrupt file (self-parents, parent cycles, duplicate
 * ids, dangling references) yields diagnostics instead of a hang or a stack overflow.
 * Pure: no I/O, no clock, no randomness.
 *
 * Opening a session builds the index once per open, so the build does only what every open
 * needs: one id -> slot map, plain arrays, labels and name. The id -> entry map (`byId`), the
 * children lists and the structural analysis are built on first use and then kept up to date.
 */
import type { DiagnosticCode, DiagnosticSeverity, SessionEntry, SessionRecord } from "@pi-session/format";
import { IdTable } from "./id-table.js";

/** The fields the index reads from an entry. Everything else is carried along untouched. */
export interface IndexableEntry {
  type: string;
  id: string;
  parentId?: string | null;
  timestamp?: string;
}

/** Where an entry sits in its file (from the line codec's records). */
export interface EntryPosition {
  /** 1-based line number. */
  line: number;
  /** Byte offset of the line's first byte. */
  offset: number;
}

/** A node of {@link SessionIndex.getTree}, in pi's shape. */
export interface SessionTreeNode<E extends IndexableEntry = SessionEntry> {
  entry: E;
  children: SessionTreeNode<E>[];
  /** The entry's current label, if any. */
  label?: string;
  /** Timestamp of the label entry that set {@link label}. */
  labelTimestamp?: string;
}

/** A structural problem found by the index. */
export interface TreeDiagnostic {
  code: DiagnosticCode;
  severity: DiagnosticSeverity;
  /** The entry the problem is about (absent for an entry without an id). */
  id?: string;
  /** Index of the entry in the input/append order (counting ignored items too). */
  inputIndex: number;
  /** Position in the file, when the caller supplied positions. */
  line?: number;
  offset?: number;
  /** What is wrong, in a sentence. */
  reason: string;
  /** For `cycle`: the ids on the cycle, in parent order starting at the entry that was cut. */
  cycle?: string[];
}

export interface SessionIndexOptions {
  /**
   * Positions of the input entries: either a map id -> position (ambiguous for duplicate
   * ids: every occurrence gets the same position) or an array aligned with the input list.
   */
  positions?: ReadonlyMap<string, EntryPosition> | ReadonlyArray<EntryPosition | undefined>;
}

/** One parent cycle, found by the structural analysis. */
export interface ParentCycle {
  /** The ids on the cycle, in parent order, starting at {@link cutAt}. */
  ids: string[];
  /** The member (earliest in file order) that {@link SessionIndex.getTree} shows as a root. */
  cutAt: string;
}

interface Analysis {
  cycles: ParentCycle[];
  /** Per slot: the slot of the parent node in the tree, -1 for a root (cycle cuts applied). */
  treeParent: Int32Array;
  diagnostics: TreeDiagnostic[];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** ISO timestamp to ms; invalid or missing timestamps sort after every valid one. */
function timeKey(entry: IndexableEntry): number {
  const t = typeof entry.timestamp === "string" ? Date.parse(entry.timestamp) : Number.NaN;
  return Number.isNaN(t) ? Number.POSITIVE_INFINITY : t;
}

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
  /** Input index per slot; undefined while every input item was indexed (input index = slot). */
  #inputIndexOf: number[] | undefined = undefined;
  /** Position per slot as two numbers (line -1: none given), not one object per entry. */
  /** Per slot: line at 2*slot (-1: none given), byte offset at 2*slot+1; grown by doubling. */
  #positions = new Float64Array(0);
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
  readonly #ignored: TreeDiagnostic[] = [];
  #inputCount = 0;
  #leafId: string | null = null;
  #sessionName: string | undefined = undefined;
  #analysis: Analysis | undefined = undefined;

  constructor(entries: Iterable<unknown> = [], options: SessionIndexOptions = {}) {
    const { positions } = options;
    let i = 0;
    for (const item of entries) {
      let position: EntryPosition | undefined;
      if (positions !== undefined) {
        if (Array.isArray(positions)) position = (positions as ReadonlyArray<EntryPosition | undefined>)[i];
        else if (isObject(item) && typeof item.id === "string")
          position = (positions as ReadonlyMap<string, EntryPosition>).get(item.id);
      }
      if (position === undefined) this.#add(item, -1, 0);
      else this.#add(item, position.line, position.offset);
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
      index.#add(record.value, record.line, record.offset);
    }
    return index;
  }

  // ---------------------------------------------------------------------------------------
  // Building

  /** Adds one entry at the end, as pi's `_appendEntry` does: O(1) amortized; the leaf moves to it. */
  append(entry: E, position?: EntryPosition): void {
    if (position === undefined) this.#add(entry, -1, 0);
    else this.#add(entry, position.line, position.offset);
  }

  /** An input item was skipped: from now on input indexes differ from slots. */
  #notIndexed(): void {
    if (this.#inputIndexOf !== undefined) return;
    const identity: number[] = [];
    for (let slot = 0; slot < this.#entries.length; slot++) identity.push(slot);
    this.#inputIndexOf = identity;
  }

  /** Room for `entries` slots (positions and id table), so a bulk build does not regrow. */
  #reserve(entries: number): void {
    if (2 * entries > this.#positions.length) this.#growPositions(entries);
    this.#slotOf.reserve(entries);
  }

  #growPositions(slots: number): void {
    const grown = new Float64Array(2 * slots);
    grown.set(this.#positions);
    this.#positions = grown;
  }

  /** `line` -1: no position. */
  #add(item: unknown, line: number, offset: number): void {
    const inputIndex = this.#inputCount++;
    if (!isObject(item) || typeof item.id !== "string") {
      this.#notIndexed();
      if (isObject(item) && item.type === "session") return;
      this.#ignored.push({
        code: "missing-id",
        severity: "warning",
        inputIndex,
        ...(line === -1 ? {} : { line, offset }),
        reason: isObject(item)
          ? `entry of type ${JSON.stringify(item.type)} has no string id; it is not indexed`
          : "item is not an object; it is not indexed",
      });
      return;
    }
    if (item.type === "session") {
      this.#notIndexed();
      return;
    }
    const entry = item as unknown as E;
    const id = entry.id;
    const slot = this.#entries.length;
    // Re-using an id, or adding an id that earlier entries already name as parent, can
    // create or break a parent cycle; plain appends cannot, so they keep the analysis cheap.
    this.#analysis = undefined;
    this.#entries.push(entry);
    if (this.#inputIndexOf !== undefined) this.#inputIndexOf.push(inputIndex);
    if (2 * slot + 2 > this.#positions.length) this.#growPositions(Math.max(32, 2 * slot + 2));
    this.#positions[2 * slot] = line;
    this.#positions[2 * slot + 1] = offset;
    if (!this.#slotOf.add(slot)) this.#hasDuplicates = true;
    if (this.#byId !== undefined) this.#byId.set(id, entry);
    if (this.#children !== undefined) addChild(this.#children, entry);
    this.#leafId = id;
    const record = entry as unknown as Record<string, unknown>;
    if (entry.type === "label") {
      const target = record.targetId;
      if (typeof target === "string") {
        const label = record.label;
        if (typeof label === "string" && label !== "") {
          this.#labels.set(target, label);
          if (typeof entry.timestamp === "string") this.#labelTimestamps.set(target, entry.timestamp);
          else this.#labelTimestamps.delete(target);
        } else {
          this.#labels.delete(target);
          this.#labelTimestamps.delete(target);
        }
      }
    } else if (entry.type === "session_info") {
      const name = record.name;
      const trimmed = typeof name === "string" ? name.trim() : "";
      this.#sessionName = trimmed === "" ? undefined : trimmed;
    }
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
    return slot === -1 ? undefined : this.#entries[slot];
  }

  has(id: string): boolean {
    return this.#slotOf.find(id) !== -1;
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
    if (slot === -1) return undefined;
    const line = this.#positions[2 * slot] as number;
    return line === -1 ? undefined : { line, offset: this.#positions[2 * slot + 1] as number };
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
    if (id !== null && this.#slotOf.find(id) === -1) throw new Error(`Entry ${id} not found`);
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
    return start === -1 ? [] : this.#pathFrom(start);
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
    const start = leafId ? this.#slotOf.find(leafId) : -1;
    if (start !== -1) return this.#pathFrom(start);
    return this.#entries.length === 0 ? [] : this.#pathFrom(this.#entries.length - 1);
  }

  /** Root-to-entry path from a kept slot (every slot on it is a kept occurrence). */
  #pathFrom(start: number): E[] {
    const path: E[] = [];
    // A walk through more slots than there are distinct ids must have entered a cycle; only
    // then pay for a visited set, and redo the walk precisely.
    const limit = this.#slotOf.size;
    let slot = start;
    while (slot !== -1 && path.length <= limit) {
      path.push(this.#entries[slot] as E);
      slot = this.#parentSlot(slot);
    }
    if (slot !== -1) {
      path.length = 0;
      const seen = new Uint8Array(this.#entries.length);
      slot = start;
      while (slot !== -1 && seen[slot] === 0) {
        seen[slot] = 1;
        path.push(this.#entries[slot] as E);
        slot = this.#parentSlot(slot);
      }
    }
    path.reverse();
    return path;
  }

  /** The kept slot of the parent of the entry in `slot`, or -1 (pi's walk stops there). */
  #parentSlot(slot: number): number {
    const entries = this.#entries;
    const entry = entries[slot] as E;
    const parentId = entry.parentId;
    if (typeof parentId !== "string" || parentId === "" || parentId === entry.id) return -1;
    // Files are mostly appended in order: the parent is usually the entry just before, which
    // is the kept occurrence of its id unless some id occurs twice. Saves a map lookup.
    if (slot > 0 && (entries[slot - 1] as E).id === parentId && !this.#hasDuplicates) return slot - 1;
    return this.#slotOf.find(parentId);
  }

  // ---------------------------------------------------------------------------------------
  // Tree

  /**
   * The display tree in pi's shape. Roots: entries with a null/absent parent, a self
   * parent, a parent that does not exist, and one member per parent cycle (the member
   * earliest in file order; see {@link cycles}). Roots are in file order; children are
   * sorted by timestamp, stable (file order on ties; missing or invalid timestamps last).
   * Every entry appears exactly once. O(n log n) for the sorts; iterative.
   */
  getTree(): SessionTreeNode<E>[] {
    const { treeParent } = this.#analyze();
    const entries = this.#entries;
    const nodes: SessionTreeNode<E>[] = new Array(entries.length);
    const hasLabels = this.#labels.size > 0;
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i] as E;
      const label = hasLabels ? this.#labels.get(entry.id) : undefined;
      const labelTimestamp = label !== undefined ? this.#labelTimestamps.get(entry.id) : undefined;
      // Both keys always present (possibly undefined), as in pi's nodes.
      nodes[i] = { entry, children: [], label, labelTimestamp };
    }
    const roots: SessionTreeNode<E>[] = [];
    for (let i = 0; i < entries.length; i++) {
      const parent = treeParent[i] as number;
      const node = nodes[i] as SessionTreeNode<E>;
      if (parent === -1) roots.push(node);
      else (nodes[parent] as SessionTreeNode<E>).children.push(node);
    }
    for (const node of nodes) {
      if (node.children.length > 1) sortByTime(node.children);
    }
    return roots;
  }

  /** The parent cycles among the entries (empty for a healthy session). */
  get cycles(): readonly ParentCycle[] {
    return this.#analyze().cycles;
  }

  // ---------------------------------------------------------------------------------------
  // Diagnostics

  /**
   * Structural problems: `missing-id` (items that were not indexed), `duplicate-id` (one per
   * earlier occurrence: {@link get} keeps the last), `cycle`, `dangling-parent` (an orphan:
   * its parent id is unknown) and `dangling-label-target`. Computed lazily in O(n) and
   * cached until the next append; reflects the current entries.
   */
  get diagnostics(): readonly TreeDiagnostic[] {
    return this.#analyze().diagnostics;
  }

  #at(slot: number): Pick<TreeDiagnostic, "inputIndex" | "line" | "offset"> {
    const line = this.#positions[2 * slot] as number;
    const inputIndex = this.#inputIndexOf?.[slot] ?? slot;
    return line === -1
      ? { inputIndex }
      : { inputIndex, line, offset: this.#positions[2 * slot + 1] as number };
  }

  #where(slot: number): string {
    const line = this.#positions[2 * slot] as number;
    return line === -1 ? `entry #${slot + 1}` : `line ${line}`;
  }

  #analyze(): Analysis {
    if (this.#analysis !== undefined) return this.#analysis;
    const entries = this.#entries;
    const n = entries.length;
    const found: TreeDiagnostic[] = [];
    // Slot of each entry's parent (the kept occurrence), or -1 for a root: null/absent,
    // self or unknown parent.
    const parentSlot = new Int32Array(n);

    // Duplicates, self-parents, dangling parents and label targets, in file order.
    for (let slot = 0; slot < n; slot++) {
      const entry = entries[slot] as E;
      const kept = this.#slotOf.find(entry.id);
      if (kept !== slot) {
        found.push({
          code: "duplicate-id",
          severity: "error",
          id: entry.id,
          ...this.#at(slot),
          reason: `id ${JSON.stringify(entry.id)} is used again at ${this.#where(kept)}; the index keeps that last occurrence`,
        });
      }
      const parentId = entry.parentId;
      let parent = -1;
      if (parentId === entry.id) {
        found.push({
          code: "cycle",
          severity: "error",
          id: entry.id,
          ...this.#at(slot),
          reason: `entry ${JSON.stringify(entry.id)} is its own parent; it is treated as a root`,
          cycle: [entry.id],
        });
      } else if (typeof parentId === "string") {
        const p = this.#slotOf.find(parentId);
        if (p === -1) {
          found.push({
            code: "dangling-parent",
            severity: "warning",
            id: entry.id,
            ...this.#at(slot),
            reason: `parent ${JSON.stringify(parentId)} does not exist; the entry is an orphan root`,
          });
        } else {
          parent = p;
        }
      }
      parentSlot[slot] = parent;
      if (entry.type === "label") {
        const target = (entry as unknown as Record<string, unknown>).targetId;
        if (typeof target === "string" && this.#slotOf.find(target) === -1) {
          found.push({
            code: "dangling-label-target",
            severity: "warning",
            id: entry.id,
            ...this.#at(slot),
            reason: `label target ${JSON.stringify(target)} does not exist`,
          });
        }
      }
    }

    // Parent cycles: parent links point at kept occurrences, so the kept occurrences form a
    // functional graph and one colouring pass finds every cycle once. An earlier duplicate
    // is never pointed at, so it cannot be on a cycle. state: 0 unseen, 1 on the current
    // walk, 2 done.
    const cycles: ParentCycle[] = [];
    const cut = new Uint8Array(n);
    const state = new Uint8Array(n);
    const posInWalk = new Int32Array(n);
    const walk: number[] = [];
    for (let start = 0; start < n; start++) {
      if (state[start] !== 0) continue;
      walk.length = 0;
      let current = start;
      while (current !== -1 && state[current] === 0) {
        state[current] = 1;
        posInWalk[current] = walk.length;
        walk.push(current);
        current = parentSlot[current] as number;
      }
      if (current !== -1 && state[current] === 1) {
        const members = walk.slice(posInWalk[current]);
        // Cut at the member earliest in file order: deterministic, independent of where
        // the walk entered the cycle.
        let cutIndex = 0;
        for (let k = 1; k < members.length; k++) {
          if ((members[k] as number) < (members[cutIndex] as number)) cutIndex = k;
        }
        const ordered = [...members.slice(cutIndex), ...members.slice(0, cutIndex)];
        const cutSlot = ordered[0] as number;
        const ids = ordered.map((slot) => (entries[slot] as E).id);
        const cutAt = ids[0] as string;
        cycles.push({ ids, cutAt });
        cut[cutSlot] = 1;
        found.push({
          code: "cycle",
          severity: "error",
          id: cutAt,
          ...this.#at(cutSlot),
          reason: `parent cycle of ${ids.length} entries (${ids.map((x) => JSON.stringify(x)).join(" -> ")}); the tree shows ${JSON.stringify(cutAt)} as a root`,
          cycle: ids,
        });
      }
      for (const slot of walk) state[slot] = 2;
    }
    for (let slot = 0; slot < n; slot++) if (cut[slot] === 1) parentSlot[slot] = -1;

    const diagnostics = [...this.#ignored, ...found].sort((a, b) => a.inputIndex - b.inputIndex);
    this.#analysis = { cycles, treeParent: parentSlot, diagnostics };
    return this.#analysis;
  }
}

function addChild<E extends IndexableEntry>(children: Map<string, E[]>, entry: E): void {
  const parentId = entry.parentId;
  if (typeof parentId !== "string" || parentId === entry.id) return;
  const list = children.get(parentId);
  if (list === undefined) children.set(parentId, [entry]);
  else list.push(entry);
}

/** Stable sort of sibling nodes by entry timestamp (Array#sort is stable). */
function sortByTime<E extends IndexableEntry>(nodes: SessionTreeNode<E>[]): void {
  const keys = new Map<SessionTreeNode<E>, number>();
  for (const node of nodes) keys.set(node, timeKey(node.entry));
  nodes.sort((a, b) => {
    const ka = keys.get(a) as number;
    const kb = keys.get(b) as number;
    return ka === kb ? 0 : ka < kb ? -1 : 1;
  });
}

/** Convenience for `new SessionIndex(entries, options)`. */
export function createIndex<E extends IndexableEntry = SessionEntry>(
  entries: Iterable<unknown> = [],
  options: SessionIndexOptions = {},
): SessionIndex<E> {
  return new SessionIndex<E>(entries, options);
}
