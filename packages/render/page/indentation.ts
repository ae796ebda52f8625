/**
 * How far each entry is indented in the tree and in the all-branches view: one step more below
 * a branch point, as pi's tree draws it. Where the conversation branches, the child the session
 * went on with (the one holding the session's leaf, else the newest) stays in line with its
 * parent and every other child steps in by one: a long session's main line never drifts right,
 * and each side branch nests where it starts. Computed once the session is loaded.
 */
import { NONE, entries, layout, sessionLeaf } from "./state.js";

/** Indentation per entry position. */
export let indent = new Int32Array(0);
/** Per position: 1 for the child a branch point went on with. */
let mainChild = new Uint8Array(0);

export function computeIndent(): void {
  indent = new Int32Array(entries.length);
  mainChild = new Uint8Array(entries.length);
  const onLeafPath = new Uint8Array(entries.length);
  for (let at = sessionLeaf; at !== NONE; at = layout.parent[at] as number) onLeafPath[at] = 1;
  for (let pos = 0; pos < entries.length; pos++) {
    const children = layout.children[pos] as readonly number[];
    if (children.length === 0) continue;
    const main =
      children.find((child) => onLeafPath[child] === 1) ?? (children[children.length - 1] as number);
    mainChild[main] = 1;
  }
  for (const pos of layout.order) {
    const parent = layout.parent[pos] as number;
    if (parent === NONE) continue;
    indent[pos] = (indent[parent] as number) + (mainChild[pos] ? 0 : 1);
  }
}

/** Whether the entry starts a side branch (a child of a branch point the session did not go on with). */
export function startsSideBranch(pos: number): boolean {
  return layout.parent[pos] !== NONE && mainChild[pos] === 0;
}
