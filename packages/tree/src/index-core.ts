/**
 * SessionIndex: the in-memory index of one pi session (ids, children, labels, name, leaf),
 * with root-to-entry paths and the display tree.
 *
 * Built in O(n) from the entries of a file in file order; `append` is O(1) amortized. Every
 * walk is iterative and cycle-safe, so a corrupt file (self-parents, parent cycles, duplicate
 * ids, dangling references) yields diagnostics instead of a hang or a stack overflow.
 * Pure: no I/O, no clock, no randomness.
 */
import type { DiagnosticCode, DiagnosticSeverity, SessionEntry, SessionRecord } from "@pi-session/format";

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
  readonly #inputIndexOf: number[] = [];
  readonly #positionOf: (EntryPosition | undefined)[] = [];
  readonly #byId = new Map<string, E>();
  /** File-order index (into #entries) of the occurrence that `get` returns. */
  readonly #slotOf = new Map<string, number>();
  readonly #children = new Map<string, E[]>();
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
    const entries: unknown[] = [];
    const positions: EntryPosition[] = [];
    let headerSeen = false;
    for (const record of records) {
      if (record.kind !== "json") continue;
      if (!headerSeen && record.value.type === "session") {
        headerSeen = true;
        continue;
      }
      entries.push(record.value);
      positions.push({ line: record.line, offset: record.offset });
    }
    return new SessionIndex<E>(entries, { positions });
  }

  // ---------------------------------------------------------------------------------------
  // Building

  /** Adds one entry at the end, as pi's `_appendEntry` does: O(1) amortized; the leaf moves to it. */
  append(entry: E, position?: EntryPosition): void {
    this.#add(entry, position);
  }

  #add(item: unknown, position: EntryPosition | undefined): void {
    const inputIndex = this.#inputCount++;
    if (!isObject(item) || typeof item.id !== "string") {
      if (isObject(item) && item.type === "session") return;
      this.#ignored.push({
        code: "missing-id",
        severity: "warning",
        inputIndex,
        ...position,
        reason: isObject(item)
          ? `entry of type ${JSON.stringify(item.type)} has no string id; it is not indexed`
          : "item is not an object; it is not indexed",
      });
      return;
    }
    if (item.type === "session") return;
    const entry = item as unknown as E;
    const id = entry.id;
    const slot = this.#entries.length;
    // Re-using an id, or adding an id that earlier entries already name as parent, can
    // create or break a parent cycle; plain appends cannot, so they keep the analysis cheap.
    this.#analysis = undefined;
    this.#entries.push(entry);
    this.#inputIndexOf.push(inputIndex);
    this.#positionOf.push(position);
    this.#byId.set(id, entry);
    this.#slotOf.set(id, slot);
    const parentId = entry.parentId;
    if (typeof parentId === "string" && parentId !== id) {
      const list = this.#children.get(parentId);
      if (list === undefined) this.#children.set(parentId, [entry]);
      else list.push(entry);
    }
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

  /** id -> entry (last occurrence wins), like pi's `byId` (a live view; do not mutate). */
  get byId(): ReadonlyMap<string, E> {
    return this.#byId;
  }

  /** The entry with this id (the last occurrence in file order), O(1). */
  get(id: string): E | undefined {
    return this.#byId.get(id);
  }

  has(id: string): boolean {
    return this.#byId.has(id);
  }

  /**
   * Entries whose `parentId` is `id`, in file order (every occurrence; a self-parented
   * entry is not its own child). O(1): returns the index's own array, do not mutate it.
   */
  children(id: string): readonly E[] {
    return this.#children.get(id) ?? [];
  }

  /** The position given for the occurrence that {@link get} returns, if any. */
  positionOf(id: string): EntryPosition | undefined {
    const slot = this.#slotOf.get(id);
    return slot === undefined ? undefined : this.#positionOf[slot];
  }

  // ---------------------------------------------------------------------------------------
  // Leaf

  /** The current leaf: the last entry in file order unless {@link setLeaf} moved it; null if empty or reset. */
  get leafId(): string | null {
    return this.#leafId;
  }

  /** The leaf entry, if the leaf is set and known. */
  get leafEntry(): E | undefined {
    return this.#leafId === null ? undefined : this.#byId.get(this.#leafId);
  }

  /**
   * Moves the leaf (pi's `branch(id)`; `null` is pi's `resetLeaf()`). Throws pi's
   * `Entry <id> not found` for an unknown id.
   */
  setLeaf(id: string | null): void {
    if (id !== null && !this.#byId.has(id)) throw new Error(`Entry ${id} not found`);
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
   * at the first repeated id (the cycle is reported in {@link diagnostics}).
   */
  pathTo(id: string): E[] {
    const path: E[] = [];
    let current = this.#byId.get(id);
    // A walk longer than the number of distinct ids must have entered a cycle; only then
    // pay for a visited set, and redo the walk precisely.
    const limit = this.#byId.size;
    while (current !== undefined && path.length <= limit) {
      path.push(current);
      current = this.#parentOf(current);
    }
    if (current === undefined) {
      path.reverse();
      return path;
    }
    path.length = 0;
    const seen = new Set<string>();
    current = this.#byId.get(id);
    while (current !== undefined && !seen.has(current.id)) {
      seen.add(current.id);
      path.push(current);
      current = this.#parentOf(current);
    }
    path.reverse();
    return path;
  }

  /**
   * pi's path selection (`buildSessionPath`) from `leafId`, which defaults to the current
   * {@link leafId} (also when `undefined` is passed): `null` gives `[]`; `""` or an unknown
   * id falls back to the last entry in file order.
   */
  activePath(leafId: string | null | undefined = this.#leafId): E[] {
    if (leafId === null) return [];
    // pi tests the leaf for truthiness, so "" falls back like undefined.
    const start = (leafId ? this.#byId.get(leafId) : undefined) ?? this.#entries.at(-1);
    return start === undefined ? [] : this.pathTo(start.id);
  }

  #parentOf(entry: E): E | undefined {
    const parentId = entry.parentId;
    if (typeof parentId !== "string" || parentId === entry.id) return undefined;
    return this.#byId.get(parentId);
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
      const node: SessionTreeNode<E> = { entry, children: [] };
      const label = hasLabels ? this.#labels.get(entry.id) : undefined;
      if (label !== undefined) {
        node.label = label;
        const ts = this.#labelTimestamps.get(entry.id);
        if (ts !== undefined) node.labelTimestamp = ts;
      }
      nodes[i] = node;
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
    const position = this.#positionOf[slot];
    const inputIndex = this.#inputIndexOf[slot] ?? slot;
    return position === undefined
      ? { inputIndex }
      : { inputIndex, line: position.line, offset: position.offset };
  }

  #where(slot: number): string {
    const position = this.#positionOf[slot];
    return position === undefined ? `entry #${slot + 1}` : `line ${position.line}`;
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
      const kept = this.#slotOf.get(entry.id) as number;
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
        const p = this.#slotOf.get(parentId);
        if (p === undefined) {
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
        if (typeof target === "string" && !this.#byId.has(target)) {
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
