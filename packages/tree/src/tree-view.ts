/**
 * The display tree of a session in pi's shape: a node per entry with its label, children
 * sorted by timestamp. `SessionIndex.getTree()` builds it from the tree parents the structural
 * analysis gives (`analysis.ts`); use that method, this module is its builder.
 */
import type { SessionEntry } from "@pi-session/format";
import type { IndexableEntry } from "./session-index.js";

/** A node of `SessionIndex.getTree`, in pi's shape. */
export interface SessionTreeNode<E extends IndexableEntry = SessionEntry> {
  entry: E;
  children: SessionTreeNode<E>[];
  /** The entry's current label, if any. */
  label?: string;
  /** Timestamp of the label entry that set {@link label}. */
  labelTimestamp?: string;
}

/** What the tree is built from. */
export interface TreeInput<E extends IndexableEntry> {
  /** The indexed entries, by slot (file order, duplicates included). */
  entries: readonly E[];
  /** Per slot: the slot of the parent node, -1 for a root (cycles already cut). */
  treeParent: Int32Array;
  labels: ReadonlyMap<string, string>;
  labelTimestamps: ReadonlyMap<string, string>;
}

const ROOT = -1;

/**
 * The roots of the tree, in file order, every entry exactly once; children sorted by timestamp,
 * stable (file order on ties; missing or invalid timestamps last). O(n log n) for the sorts.
 */
export function buildTree<E extends IndexableEntry>(input: TreeInput<E>): SessionTreeNode<E>[] {
  const { entries, treeParent, labels, labelTimestamps } = input;
  const nodes: SessionTreeNode<E>[] = new Array(entries.length);
  const hasLabels = labels.size > 0;
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i] as E;
    const label = hasLabels ? labels.get(entry.id) : undefined;
    const labelTimestamp = label !== undefined ? labelTimestamps.get(entry.id) : undefined;
    // Both keys always present (possibly undefined), as in pi's nodes.
    nodes[i] = { entry, children: [], label, labelTimestamp };
  }
  const roots: SessionTreeNode<E>[] = [];
  for (let i = 0; i < entries.length; i++) {
    const parent = treeParent[i] as number;
    const node = nodes[i] as SessionTreeNode<E>;
    if (parent === ROOT) roots.push(node);
    else (nodes[parent] as SessionTreeNode<E>).children.push(node);
  }
  for (const node of nodes) {
    if (node.children.length > 1) sortByTime(node.children);
  }
  return roots;
}

/**
 * How siblings are ordered (a stable sort on it): the entry's ISO timestamp in ms; invalid or
 * missing timestamps after every valid one.
 */
export function timeKey(entry: { timestamp?: unknown }): number {
  const time = typeof entry.timestamp === "string" ? Date.parse(entry.timestamp) : Number.NaN;
  return Number.isNaN(time) ? Number.POSITIVE_INFINITY : time;
}

/** Stable sort of sibling nodes by entry timestamp (Array#sort is stable). */
function sortByTime<E extends IndexableEntry>(nodes: SessionTreeNode<E>[]): void {
  const keys = new Map<SessionTreeNode<E>, number>();
  for (const node of nodes) keys.set(node, timeKey(node.entry));
  nodes.sort((a, b) => {
    const keyA = keys.get(a) as number;
    const keyB = keys.get(b) as number;
    return keyA === keyB ? 0 : keyA < keyB ? -1 : 1;
  });
}
