/**
 * Two branches compared: tree's `divergence` of their root-to-leaf paths, each side summed up
 * by {@link summarizeSide}, the ancestor described. One home for what `pi-session diff` prints
 * and the web app's compare view shows. Pure. Use {@link compareBranches} for two entries of
 * one session ({@link defaultPair} names the usual two), {@link comparePaths} for two sessions'
 * paths (a fork and its parent, matched by entry id).
 */
import { type IndexableEntry, type SessionIndex, divergence, leavesOf } from "@pi-session/tree";
import { type SideEntry, type SideSummary, summarizeSide } from "./branch-sides.js";
import { entryTime } from "./entry.js";
import type { TouchBase } from "./file-touches.js";

type Obj = Record<string, unknown>;

/** One side: its leaf, whether that is its session's current leaf, and what it did. */
export interface ComparedSide extends SideSummary {
  leaf: string | null;
  current: boolean;
}

export interface BranchCompare {
  /** The deepest entry both branches hold, briefly; null when they share none. */
  ancestor: SideEntry | null;
  left: ComparedSide;
  right: ComparedSide;
}

/** A branch as compared: its root-to-leaf path, where its paths resolve, its session's leaf. */
export interface ComparedPath<E> {
  path: readonly E[];
  base: TouchBase;
  /** The session's current leaf (to tell whether this branch is it). */
  currentLeaf: string | null;
}

function describe(entry: Obj | null): SideEntry | null {
  return entry === null ? null : (summarizeSide([entry], { cwd: "" }).entries[0] ?? null);
}

/** Two paths compared (`same`: whether an entry of each is the same entry; by id by default). */
export function comparePaths<E extends IndexableEntry>(
  left: ComparedPath<E>,
  right: ComparedPath<E>,
  same: (a: E, b: E) => boolean = (a, b) => a.id === b.id,
): BranchCompare {
  const d = divergence(left.path, right.path, same);
  const sideOf = (p: ComparedPath<E>, entries: readonly E[]): ComparedSide => {
    const leaf = p.path.length > 0 ? (p.path[p.path.length - 1] as E).id : null;
    return {
      leaf,
      current: leaf !== null && leaf === p.currentLeaf,
      ...summarizeSide(entries as unknown as Obj[], p.base),
    };
  };
  return {
    ancestor: describe(d.ancestor as unknown as Obj | null),
    left: sideOf(left, d.left),
    right: sideOf(right, d.right),
  };
}

/** The branches ending at two entries of one session, compared. */
export function compareBranches<E extends IndexableEntry>(
  index: SessionIndex<E>,
  leftId: string,
  rightId: string,
  base: TouchBase,
): BranchCompare {
  const currentLeaf = index.leafId;
  return comparePaths(
    { path: index.pathTo(leftId), base, currentLeaf },
    { path: index.pathTo(rightId), base, currentLeaf },
    (a, b) => a === b,
  );
}

/**
 * The two branches a compare shows by default: the current leaf, and the most recent other
 * leaf (by entry time, then file order); undefined when the session has one branch only.
 */
export function defaultPair<E extends IndexableEntry>(
  index: SessionIndex<E>,
): { left: string; right: string } | undefined {
  const current = index.leafId;
  if (current === null) return undefined;
  let best: E | undefined;
  let bestTime = Number.NEGATIVE_INFINITY;
  for (const leaf of leavesOf(index)) {
    if (leaf.id === current) continue;
    const t = entryTime(leaf as unknown as Obj);
    const time = Number.isNaN(t) ? Number.NEGATIVE_INFINITY : t;
    if (best === undefined || time >= bestTime) {
      best = leaf;
      bestTime = time;
    }
  }
  return best ? { left: current, right: best.id } : undefined;
}
