/**
 * The structural analysis of a session index: duplicate ids, self-parents, parents and label
 * targets that do not exist, and parent cycles, with one diagnostic each, plus the parent of
 * every entry in the display tree (cycles cut). `SessionIndex` runs it on first use of
 * `diagnostics`, `cycles` or `getTree()` and keeps the result until the entries change. O(n),
 * iterative: a corrupt file gives diagnostics, never a hang.
 */
import { type DiagnosticCode, type DiagnosticSeverity, indexRoleOf } from "@pi-session/format";
import type { IdTable } from "./id-table.js";
import type { EntryPositions } from "./positions.js";
import type { IndexableEntry } from "./session-index.js";

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

/** One parent cycle, found by the structural analysis. */
export interface ParentCycle {
  /** The ids on the cycle, in parent order, starting at {@link cutAt}. */
  ids: string[];
  /** The member (earliest in file order) that `SessionIndex.getTree` shows as a root. */
  cutAt: string;
}

export interface Analysis {
  cycles: ParentCycle[];
  /** Per slot: the slot of the parent node in the tree, -1 for a root (cycle cuts applied). */
  treeParent: Int32Array;
  /** Every problem, in input order (the items that were not indexed included). */
  diagnostics: TreeDiagnostic[];
}

/** What the analysis reads of an index. */
export interface AnalysisInput<E extends IndexableEntry> {
  /** The indexed entries, by slot (file order, duplicates included). */
  entries: readonly E[];
  /** id -> slot of the kept (last) occurrence. */
  slotOf: IdTable;
  positions: EntryPositions;
  /** Diagnostics of the input items that were not indexed. */
  notIndexed: readonly TreeDiagnostic[];
}

/** No parent: a root of the tree. */
const ROOT = -1;
/** Colours of the cycle search: not reached yet, on the walk in progress, finished. */
const UNSEEN = 0;
const ON_WALK = 1;
const DONE = 2;

export function analyzeStructure<E extends IndexableEntry>(input: AnalysisInput<E>): Analysis {
  const { entries, slotOf, positions } = input;
  const count = entries.length;
  const found: TreeDiagnostic[] = [];
  // Slot of each entry's parent (the kept occurrence), or ROOT: null/absent, self or unknown parent.
  const parentSlot = new Int32Array(count);

  // Duplicates, self-parents, dangling parents and label targets, in file order.
  for (let slot = 0; slot < count; slot++) {
    const entry = entries[slot] as E;
    const kept = slotOf.find(entry.id);
    if (kept !== slot) {
      found.push({
        code: "duplicate-id",
        severity: "error",
        id: entry.id,
        ...positions.place(slot),
        reason: `id ${JSON.stringify(entry.id)} is used again at ${positions.describe(kept)}; the index keeps that last occurrence`,
      });
    }
    const parentId = entry.parentId;
    let parent = ROOT;
    if (parentId === entry.id) {
      found.push({
        code: "cycle",
        severity: "error",
        id: entry.id,
        ...positions.place(slot),
        reason: `entry ${JSON.stringify(entry.id)} is its own parent; it is treated as a root`,
        cycle: [entry.id],
      });
    } else if (typeof parentId === "string") {
      const parentSlotFound = slotOf.find(parentId);
      if (parentSlotFound === -1) {
        found.push({
          code: "dangling-parent",
          severity: "warning",
          id: entry.id,
          ...positions.place(slot),
          reason: `parent ${JSON.stringify(parentId)} does not exist; the entry is an orphan root`,
        });
      } else {
        parent = parentSlotFound;
      }
    }
    parentSlot[slot] = parent;
    if (indexRoleOf(entry.type) === "label") {
      const target = (entry as { targetId?: unknown }).targetId;
      if (typeof target === "string" && slotOf.find(target) === -1) {
        found.push({
          code: "dangling-label-target",
          severity: "warning",
          id: entry.id,
          ...positions.place(slot),
          reason: `label target ${JSON.stringify(target)} does not exist`,
        });
      }
    }
  }

  // Parent cycles: parent links point at kept occurrences, so the kept occurrences form a
  // functional graph and one colouring pass finds every cycle once. An earlier duplicate
  // is never pointed at, so it cannot be on a cycle.
  const cycles: ParentCycle[] = [];
  const cut = new Uint8Array(count);
  const colour = new Uint8Array(count);
  const posInWalk = new Int32Array(count);
  const walk: number[] = [];
  for (let start = 0; start < count; start++) {
    if (colour[start] !== UNSEEN) continue;
    walk.length = 0;
    let current = start;
    while (current !== ROOT && colour[current] === UNSEEN) {
      colour[current] = ON_WALK;
      posInWalk[current] = walk.length;
      walk.push(current);
      current = parentSlot[current] as number;
    }
    if (current !== ROOT && colour[current] === ON_WALK) {
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
        ...positions.place(cutSlot),
        reason: `parent cycle of ${ids.length} entries (${ids.map((id) => JSON.stringify(id)).join(" -> ")}); the tree shows ${JSON.stringify(cutAt)} as a root`,
        cycle: ids,
      });
    }
    for (const slot of walk) colour[slot] = DONE;
  }
  for (let slot = 0; slot < count; slot++) if (cut[slot] === 1) parentSlot[slot] = ROOT;

  const diagnostics = [...input.notIndexed, ...found].sort((a, b) => a.inputIndex - b.inputIndex);
  return { cycles, treeParent: parentSlot, diagnostics };
}
