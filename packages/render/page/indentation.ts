/**
 * How far each entry is indented in the tree and in the all-branches view
 * (`branchIndentation`: side branches step in, the line the session went on with stays in
 * line). Computed once the session is loaded.
 */
import { branchIndentation } from "../src/tree-layout.js";
import { NONE, layout, sessionLeaf } from "./state.js";

/** Indentation per entry position. */
export let indent: Int32Array = new Int32Array(0);
/** Per position: 1 for the child a branch point went on with. */
let mainChild: Uint8Array = new Uint8Array(0);

export function computeIndent(): void {
  ({ indent, mainChild } = branchIndentation(layout, sessionLeaf));
}

/** Whether the entry starts a side branch (a child of a branch point the session did not go on with). */
export function startsSideBranch(pos: number): boolean {
  return layout.parent[pos] !== NONE && mainChild[pos] === 0;
}
