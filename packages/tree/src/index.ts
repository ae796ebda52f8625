/**
 * @pi-session/tree: the index of one pi session (ids, children, labels, name, leaf), its
 * root-to-entry paths and display tree, with diagnostics instead of hangs.
 *
 * The public face of the package (named re-exports only).
 */
export {
  type IndexableEntry,
  SessionIndex,
  type SessionIndexOptions,
  createIndex,
} from "./session-index.js";
export type { EntryPosition } from "./positions.js";
export { type SessionTreeNode, timeKey } from "./tree-view.js";
export type { ParentCycle, TreeDiagnostic } from "./analysis.js";
export { type SlotSource, SlotIndex } from "./slot-index.js";
export { type Divergence, branchPair, divergence, leavesOf } from "./divergence.js";
