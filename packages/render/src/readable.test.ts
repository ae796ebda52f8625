import { fcOptions, scaledRuns } from "@pi-session/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatInt } from "./readable.js";

const intl = new Intl.NumberFormat("en-US");
const edges = [0, -0, 1, -1, 999, 1000, -1000, 999_999, 1_000_000, 12_345.5, -12_345.5, 0.4, -0.4, -0.5];
const far = [
  Number.MAX_SAFE_INTEGER,
  -Number.MAX_SAFE_INTEGER,
  2 ** 60,
  1e21,
  Number.NaN,
  Infinity,
  -Infinity,
];

describe("formatInt", () => {
  it("writes what Intl.NumberFormat('en-US') writes, at the edges", () => {
    for (const n of [...edges, ...far]) expect(formatInt(n)).toBe(intl.format(Math.round(n)));
  });

  it("writes what Intl.NumberFormat('en-US') writes, for any number", () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: -(2 ** 53), max: 2 ** 53 }), fc.double()), (n) => {
        expect(formatInt(n)).toBe(intl.format(Math.round(n)));
      }),
      fcOptions({ numRuns: scaledRuns(500) }),
    );
  });
});
