/**
 * The shape of a session's tree by file position: each entry's parent in the display tree,
 * its children (pi's order: by timestamp), its depth, and the depth-first order. Entries are
 * numbered by their position in the file, so duplicate ids (a real corruption) still give
 * one node each. Built once in O(n log n) from `SessionIndex.getTree()`, iteratively.
 *
 * Use it to mark branch points on a path, to list every branch (all-branches view) and to
 * draw the tree in the page.
 */
import type { AnyEntry } from "@pi-session/format";
import type { SessionIndex, SessionTreeNode } from "@pi-session/tree";

export interface TreeLayout {
  /** Entry positions in depth-first order (roots in file order, children by time). */
  order: Int32Array;
  /** Display-tree parent position per entry, -1 for a root. */
  parent: Int32Array;
  /** Depth per entry (roots are 0). */
  depth: Int32Array;
  /** Position of each entry among its siblings (its parent's children, or the roots), from 0. */
  siblingIndex: Int32Array;
  /** Children positions per entry, in display order (an empty array shared by leaves). */
  children: readonly (readonly number[])[];
  /** Root positions, in file order. */
  roots: readonly number[];
  /** Position in the file of an entry object of this session. */
  positionOf(entry: AnyEntry): number | undefined;
}

const NO_CHILDREN: readonly number[] = Object.freeze([]);

/** Lays out the tree of `index` (see {@link TreeLayout}). */
export function layoutTree(index: SessionIndex<AnyEntry>): TreeLayout {
  const entries = index.entries;
  const n = entries.length;
  const position = new Map<AnyEntry, number>();
  for (let i = 0; i < n; i++) position.set(entries[i] as AnyEntry, i);
  const parent = new Int32Array(n).fill(-1);
  const depth = new Int32Array(n);
  const siblingIndex = new Int32Array(n);
  const children: (readonly number[])[] = new Array(n).fill(NO_CHILDREN);
  const order = new Int32Array(n);
  const treeRoots = index.getTree();
  const roots = treeRoots.map((node) => position.get(node.entry) as number);
  for (let r = 0; r < roots.length; r++) siblingIndex[roots[r] as number] = r;
  let k = 0;
  // Depth-first, iterative (sessions can be 100,000 entries deep).
  const stack: SessionTreeNode<AnyEntry>[] = [];
  for (let r = treeRoots.length - 1; r >= 0; r--) stack.push(treeRoots[r] as SessionTreeNode<AnyEntry>);
  while (stack.length > 0) {
    const node = stack.pop() as SessionTreeNode<AnyEntry>;
    const at = position.get(node.entry) as number;
    order[k++] = at;
    if (node.children.length === 0) continue;
    const kids: number[] = new Array(node.children.length);
    for (let c = 0; c < node.children.length; c++) {
      const child = node.children[c] as SessionTreeNode<AnyEntry>;
      const childAt = position.get(child.entry) as number;
      kids[c] = childAt;
      parent[childAt] = at;
      siblingIndex[childAt] = c;
      depth[childAt] = (depth[at] as number) + 1;
    }
    children[at] = kids;
    for (let c = node.children.length - 1; c >= 0; c--)
      stack.push(node.children[c] as SessionTreeNode<AnyEntry>);
  }
  return {
    order: k === n ? order : order.subarray(0, k),
    parent,
    depth,
    siblingIndex,
    children,
    roots,
    positionOf: (entry) => position.get(entry),
  };
}

/** Siblings of the entry at `at` (itself included): its parent's children, or the roots. */
export function siblingsOf(layout: TreeLayout, at: number): readonly number[] {
  const p = layout.parent[at] as number;
  return p === -1 ? layout.roots : (layout.children[p] as readonly number[]);
}

/**
 * The leaf a branch ends at when it is entered at `at`: follow the newest child (the last in
 * display order) down to an entry without children. This is where "switch to this branch"
 * lands.
 */
export function newestLeafBelow(layout: TreeLayout, at: number): number {
  let cur = at;
  for (;;) {
    const kids = layout.children[cur] as readonly number[];
    if (kids.length === 0) return cur;
    cur = kids[kids.length - 1] as number;
  }
}

/** How far each entry is indented: see {@link branchIndentation}. */
export interface BranchIndentation {
  /** Steps of indentation per position. */
  indent: Int32Array;
  /** Per position: 1 for the child a branch point went on with (it stays in line). */
  mainChild: Uint8Array;
}

/**
 * The indentation of a tree as pi draws it: where the conversation branches, the child the
 * session went on with (the one holding `sessionLeaf`, else the newest) stays in line with its
 * parent and every other child steps in by one, so a long session's main line never drifts
 * right and each side branch nests where it starts. `sessionLeaf` is a position, or -1.
 */
export function branchIndentation(layout: TreeLayout, sessionLeaf: number): BranchIndentation {
  const count = layout.parent.length;
  const indent = new Int32Array(count);
  const mainChild = new Uint8Array(count);
  const onLeafPath = new Uint8Array(count);
  for (let at = sessionLeaf; at !== -1; at = layout.parent[at] as number) onLeafPath[at] = 1;
  for (let pos = 0; pos < count; pos++) {
    const children = layout.children[pos] as readonly number[];
    if (children.length === 0) continue;
    const main =
      children.find((child) => onLeafPath[child] === 1) ?? (children[children.length - 1] as number);
    mainChild[main] = 1;
  }
  for (const pos of layout.order) {
    const parent = layout.parent[pos] as number;
    if (parent !== -1) indent[pos] = (indent[parent] as number) + (mainChild[pos] ? 0 : 1);
  }
  return { indent, mainChild };
}
