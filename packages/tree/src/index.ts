/**
 * @pi-session/tree: the index of one pi session (ids, children, labels, name, leaf), its
 * root-to-entry paths and display tree, with diagnostics instead of hangs.
 */
export { SessionIndex, createIndex } from "./session-index.js";
export type {
  EntryPosition,
  IndexableEntry,
  ParentCycle,
  SessionIndexOptions,
  SessionTreeNode,
  TreeDiagnostic,
} from "./session-index.js";
