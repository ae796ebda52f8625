/**
 * Where two branches part, against a plain walk of the tree: on generated sessions (branches,
 * extra roots, every entry type), for any two entries, the ancestor is the first entry of one
 * entry's chain of parents that is on the other's, and each side is its chain below it, root
 * first. Also: an ancestor of the other, the same entry, different roots, and paths compared by id.
 */
import type { AnyEntry } from "@pi-session/format";
import { arbSessionV3, fcOptions } from "@pi-session/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { branchPair, divergence, leavesOf } from "./divergence.js";
import { SessionIndex } from "./session-index.js";

/** The chain of ids from `id` up to its root, by following `parentId` (a plain walk). */
function chainUp(byId: Map<string, AnyEntry>, id: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (let e = byId.get(id); e && !seen.has(e.id); e = e.parentId ? byId.get(e.parentId) : undefined) {
    seen.add(e.id);
    out.push(e.id);
  }
  return out;
}

describe("branchPair", () => {
  it("names the ancestor and each side's entries as a plain walk of the tree does", () => {
    fc.assert(
      fc.property(arbSessionV3({ minEntries: 1, maxEntries: 30 }), fc.nat(), fc.nat(), (session, a, b) => {
        const entries = session.entries;
        const index = new SessionIndex<AnyEntry>(entries);
        const byId = new Map(entries.map((e) => [e.id, e]));
        const leftId = (entries[a % entries.length] as AnyEntry).id;
        const rightId = (entries[b % entries.length] as AnyEntry).id;
        const up = chainUp(byId, leftId);
        const other = chainUp(byId, rightId);
        const onRight = new Set(other);
        const ancestor = up.find((id) => onRight.has(id)) ?? null;
        const below = (chain: string[]) =>
          (ancestor === null ? chain : chain.slice(0, chain.indexOf(ancestor))).reverse();
        const pair = branchPair(index, leftId, rightId);
        expect(pair.ancestor?.id ?? null).toBe(ancestor);
        expect(pair.left.map((e) => e.id)).toEqual(below(up));
        expect(pair.right.map((e) => e.id)).toEqual(below(other));
      }),
      fcOptions(),
    );
  });

  it("an entry and its descendant: the entry is the ancestor, its side empty; an entry with itself: both empty", () => {
    const e = (id: string, parentId: string | null) => ({ type: "message", id, parentId });
    const index = new SessionIndex([e("a", null), e("b", "a"), e("c", "b"), e("d", "b"), e("x", null)]);
    const pair = branchPair(index, "b", "d");
    expect([pair.ancestor?.id, pair.left, pair.right.map((x) => x.id)]).toEqual(["b", [], ["d"]]);
    const same = branchPair(index, "c", "c");
    expect([same.ancestor?.id, same.left, same.right]).toEqual(["c", [], []]);
    const apart = branchPair(index, "c", "x");
    expect([apart.ancestor, apart.left.map((x) => x.id), apart.right.map((x) => x.id)]).toEqual([
      null,
      ["a", "b", "c"],
      ["x"],
    ]);
    expect(leavesOf(index).map((x) => x.id)).toEqual(["c", "d", "x"]);
  });

  it("compares two sessions' paths by id (a fork and its parent)", () => {
    const e = (id: string) => ({ id });
    const parent = [e("a"), e("b"), e("c")];
    const fork = [e("a"), e("b"), e("f"), e("g")];
    const d = divergence(parent, fork, (x, y) => x.id === y.id);
    expect([d.ancestor?.id, d.left.map((x) => x.id), d.right.map((x) => x.id)]).toEqual([
      "b",
      ["c"],
      ["f", "g"],
    ]);
  });
});
