/** Tests of the info helpers: the fast timestamp parser agrees with `new Date` everywhere. */
import { fcOptions } from "@pi-session/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { dateOf, isExactIso, isoOfTime, isoTimeMs } from "./info.js";

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

describe("isExactIso", () => {
  it("is true exactly when a string of pi's form is the toISOString of the time it parses to", () => {
    const iso = fc
      .tuple(
        // Years around the leap-year rules (1900, 2000, 2100) and the 4-digit edges.
        fc.oneof(fc.integer({ min: 0, max: 9999 }), fc.constantFrom(999, 1000, 1900, 2000, 2024, 2100, 9999)),
        fc.integer({ min: 0, max: 13 }),
        fc.oneof(fc.integer({ min: 0, max: 32 }), fc.constantFrom(28, 29, 30, 31)),
        fc.integer({ min: 0, max: 25 }),
        fc.integer({ min: 0, max: 61 }),
        fc.integer({ min: 0, max: 61 }),
        fc.integer({ min: 0, max: 999 }),
        fc.constantFrom("Z", "z"),
      )
      .map(
        ([y, mo, d, h, mi, s, ms, z]) =>
          `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}T${pad(h, 2)}:${pad(mi, 2)}:${pad(s, 2)}.${pad(ms, 3)}${z}`,
      );
    fc.assert(
      fc.property(fc.oneof(iso, fc.string()), (s) => {
        const t = new Date(s).getTime();
        const exact = !Number.isNaN(t) && new Date(t).toISOString() === s;
        // Outside pi's form (and isoTimeMs's ranges) it is false: the timestamp is then kept.
        expect(isExactIso(s)).toBe(isoTimeMs(s) !== undefined && exact);
      }),
      fcOptions(),
    );
    expect(isExactIso("2024-02-29T00:00:00.000Z")).toBe(true);
    expect(isExactIso("2100-02-29T00:00:00.000Z")).toBe(false);
    expect(isExactIso("2025-04-31T12:00:00.000Z")).toBe(false);
  });
});

describe("isoOfTime", () => {
  it("is toISOString for every time of years 1000–9999, and undefined outside them", () => {
    const lo = Date.UTC(1000, 0, 1);
    const hi = Date.UTC(10000, 0, 1) - 1;
    const t = fc.oneof(
      fc.integer({ min: lo, max: hi }),
      fc.constantFrom(
        lo,
        hi,
        0,
        Date.UTC(2000, 1, 29),
        Date.UTC(2100, 2, 1) - 1,
        Date.UTC(1600, 1, 29, 23, 59, 59, 999),
      ),
    );
    fc.assert(
      fc.property(t, (ms) => {
        expect(isoOfTime(ms)).toBe(new Date(ms).toISOString());
      }),
      fcOptions(),
    );
    expect(isoOfTime(lo - 1)).toBeUndefined();
    expect(isoOfTime(hi + 1)).toBeUndefined();
    expect(isoOfTime(1.5)).toBeUndefined();
    expect(isoOfTime(Number.NaN)).toBeUndefined();
  });
});
