import { fcOptions } from "@pi-session/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { matchIdPrefix, shortIds, uniquePrefixLengths } from "./ids.js";

describe("uniquePrefixLengths", () => {
  it("is 8 when ids differ early, longer where time-ordered ids share their start", () => {
    const ids = [
      "01a232d6-1111-7000-8000-000000000001",
      "01a232d6-1112-7000-8000-000000000002",
      "01a232d6-2222-7000-8000-000000000003",
      "7f000000-0000-4000-8000-000000000004",
    ];
    expect(shortIds(ids, ids)).toEqual(["01a232d6-1111", "01a232d6-1112", "01a232d6-2", "7f000000"]);
  });

  it("ignores case and copies of one id; an id is never cut longer than itself", () => {
    expect(uniquePrefixLengths(["ABCDEF0123"], ["abcdef0123", "abcdef0123", "ABCDEF0123"])).toEqual([8]);
    expect(uniquePrefixLengths(["abc"], ["abc", "abcd"])).toEqual([3]);
    expect(uniquePrefixLengths(["abcdefgh1"], ["abcdefgh1", "abcdefgh2"])).toEqual([9]);
  });

  it("property: the prefix names the id alone, and one character less would not (above the minimum)", () => {
    const id = fc.string({ unit: fc.constantFrom("0", "1", "a", "A", "b"), minLength: 1, maxLength: 12 });
    fc.assert(
      fc.property(
        fc.uniqueArray(id, { minLength: 1, maxLength: 30, selector: (s) => s.toLowerCase() }),
        (universe) => {
          const lengths = uniquePrefixLengths(universe, universe, 4);
          universe.forEach((one, i) => {
            const n = lengths[i] as number;
            const starts = (len: number) =>
              universe.filter((other) => other.toLowerCase().startsWith(one.slice(0, len).toLowerCase()));
            expect(n).toBeLessThanOrEqual(one.length);
            // Unique unless the id is itself the start of a longer one (then the whole id is shown).
            if (n < one.length) expect(starts(n)).toEqual([one]);
            if (n > 4) expect(starts(n - 1).length).toBeGreaterThan(1);
          });
        },
      ),
      fcOptions(),
    );
  });
});

describe("matchIdPrefix", () => {
  const files = ["019a4c1e-aaaa", "019a4c1f-bbbb", "7F00-cccc"];
  const match = (typed: string) => matchIdPrefix(typed, files, (f) => f);

  it("matches a unique prefix in any case", () => {
    expect(match("019A4C1E")).toEqual({ kind: "one", item: "019a4c1e-aaaa" });
    expect(match("7f00")).toEqual({ kind: "one", item: "7F00-cccc" });
    expect(match("019a4c1")).toEqual({ kind: "ambiguous", items: ["019a4c1e-aaaa", "019a4c1f-bbbb"] });
    expect(match("zz")).toEqual({ kind: "none" });
    expect(match("")).toEqual({ kind: "none" });
  });

  it("an exact id wins over a longer id it starts", () => {
    const ids = ["b200", "b2000009", "B200"];
    expect(matchIdPrefix("b200", ids, (f) => f)).toEqual({ kind: "one", item: "b200" });
    // Two ids equal but for case: the one typed exactly, else both.
    expect(matchIdPrefix("B200", ids, (f) => f)).toEqual({ kind: "one", item: "B200" });
    expect(matchIdPrefix("b2000", ids, (f) => f)).toEqual({ kind: "one", item: "b2000009" });
  });
});
