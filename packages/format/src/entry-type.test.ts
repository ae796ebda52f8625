/** Tests of `isEntryOfType`: the tag decides, for known and unknown entry types alike. */
import { describe, expect, it } from "vitest";
import { isEntryOfType } from "./entry-type.js";
import type { AnyEntry } from "./types.js";

describe("isEntryOfType", () => {
  it("is true exactly when the type tag is the one named", () => {
    const base = { id: "a", parentId: null, timestamp: "t" };
    const entries: AnyEntry[] = [
      { type: "compaction", ...base, summary: "s", firstKeptEntryId: "b", tokensBefore: 1 },
      { type: "label", ...base, targetId: "x", label: "l" },
      { type: "future_type", ...base },
    ];
    expect(entries.map((e) => isEntryOfType(e, "compaction"))).toEqual([true, false, false]);
    expect(entries.map((e) => isEntryOfType(e, "label"))).toEqual([false, true, false]);
    const first = entries[0] as AnyEntry;
    // Narrowed: the compaction's own fields type-check.
    if (isEntryOfType(first, "compaction")) expect(first.tokensBefore).toBe(1);
  });
});
