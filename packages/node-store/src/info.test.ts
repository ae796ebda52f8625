/** Tests of the info helpers: the fast timestamp parser agrees with `new Date` everywhere. */
import { fcOptions } from "@pi-session/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { dateOf } from "./info.js";

const pad = (n: number, w: number) => String(n).padStart(w, "0");

describe("dateOf", () => {
  it("gives new Date(value)'s time for ISO-like strings, in and out of range, and for anything else", () => {
    const iso = fc
      .tuple(
        fc.integer({ min: 0, max: 9999 }),
        fc.integer({ min: 0, max: 13 }),
        fc.integer({ min: 0, max: 32 }),
        fc.integer({ min: 0, max: 25 }),
        fc.integer({ min: 0, max: 61 }),
        fc.integer({ min: 0, max: 61 }),
        fc.integer({ min: 0, max: 999 }),
        fc.constantFrom("Z", "z", "+", "X"),
      )
      .map(
        ([y, mo, d, h, mi, s, ms, z]) =>
          `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}T${pad(h, 2)}:${pad(mi, 2)}:${pad(s, 2)}.${pad(ms, 3)}${z}`,
      );
    const any = fc.oneof(iso, fc.string(), fc.integer(), fc.constant(undefined), fc.constant(null));
    fc.assert(
      fc.property(any, (v) => {
        expect(dateOf(v).getTime()).toBe(new Date(v as string).getTime());
      }),
      fcOptions(),
    );
    expect(dateOf("2025-01-01T24:00:00.000Z").getTime()).toBe(new Date("2025-01-01T24:00:00.000Z").getTime());
    expect(dateOf("0099-01-01T00:00:00.000Z").getTime()).toBe(new Date("0099-01-01T00:00:00.000Z").getTime());
  });
});
