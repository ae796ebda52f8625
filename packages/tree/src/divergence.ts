/**
 * Where two branches part: the deepest entry two root-to-leaf paths share, and what each path
 * holds after it. Use {@link branchPair} for two entries of one session, {@link divergence}
 * for two paths from anywhere (a fork and the session it was forked from, compared by id).
 */
import type { IndexableEntry, SessionIndex } from "./session-index.js";

/** Two paths after the entry they last share. */
export interface Divergence<E> {
  /** The deepest entry both paths hold (from the left path); null when they share none. */
  ancestor: E | null;
  /** The left path's entries after the ancestor, root first. */
  left: E[];
  /** The right path's entries after the ancestor, root first. */
  right: E[];
}

/**
 * Where two root-to-leaf paths part: their longest common start (`same` compares an entry of
 * each; by default, the same object). Linear in the paths' length.
 */
export function divergence<E>(
  left: readonly E[],
  right: readonly E[],
  same: (a: E, b: E) => boolean = (a, b) => a === b,
): Divergence<E> {
  let shared = 0;
  while (shared < left.length && shared < right.length && same(left[shared] as E, right[shared] as E))
    shared++;
  return {
    ancestor: shared === 0 ? null : (left[shared - 1] as E),
    left: left.slice(shared),
    right: right.slice(shared),
  };
}

/**
 * Where the branches ending at `leftId` and `rightId` part (each path as {@link
 * SessionIndex.pathTo} walks it, O(depth)). An entry that is an ancestor of the other is the
 * ancestor itself, its side empty; an unknown id has an empty path.
 */
export function branchPair<E extends IndexableEntry>(
  index: SessionIndex<E>,
  leftId: string,
  rightId: string,
): Divergence<E> {
  return divergence(index.pathTo(leftId), index.pathTo(rightId));
}

/**
 * The leaves of a session (entries without children), in file order. With the index's
 * leaf, the branches a session holds.
 */
export function leavesOf<E extends IndexableEntry>(index: SessionIndex<E>): E[] {
  // Each id once (its kept occurrence, as the index's lookups answer it).
  return index.entries.filter((e) => index.get(e.id) === e && index.children(e.id).length === 0);
}
