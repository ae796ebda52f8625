/**
 * Which entries lie on a session's current branch: pi's path from the leaf (the last entry in
 * file order) to the root. Pure; works on the few fields the tree needs, so the database can
 * recompute it from its own rows when a file grows by a branch.
 */
import { SessionIndex } from "@pi-session/tree";

/** The fields of an entry the branch depends on. */
export interface TreeLink {
  type: string;
  id: string | null;
  parentId: string | null;
}

/** One flag per entry, in the order given: 1 on the current branch, 0 on an abandoned one. */
export function currentBranchFlags(links: readonly TreeLink[]): Uint8Array {
  const flags = new Uint8Array(links.length);
  const items = links.map((l) => ({ type: l.type, id: l.id ?? undefined, parentId: l.parentId }));
  const index = new SessionIndex(items);
  const on = new Set<object>(index.activePath());
  for (let i = 0; i < items.length; i++) if (on.has(items[i] as object)) flags[i] = 1;
  return flags;
}

/**
 * Whether entries appended after `previousLeaf` keep every earlier flag as it was: the new
 * entries form one chain that starts at the old leaf (the usual append), so the old branch
 * is extended, not left. Entries without ids or with duplicate ids need a recomputation.
 */
export function extendsBranch(previousLeafId: string | null, appended: readonly TreeLink[]): boolean {
  let expected = previousLeafId;
  for (const link of appended) {
    if (link.id === null || link.parentId !== expected) return false;
    expected = link.id;
  }
  return true;
}
