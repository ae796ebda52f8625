import { fcOptions } from "@pi-session/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TimeArgError, fromWallClock, isTimeZone, parseTimeArg, wallClock } from "./dates.js";

const NOW = Date.UTC(2026, 4, 31, 15, 30, 0); // 2026-05-31 15:30 UTC
const utc = { nowMs: NOW, timeZone: "UTC" };

function refused(text: string, zone = "UTC"): string {
  try {
    parseTimeArg(text, { nowMs: NOW, timeZone: zone });
  } catch (error) {
    expect(error).toBeInstanceOf(TimeArgError);
    return (error as Error).message;
  }
  throw new Error(`${text} was accepted`);
}

describe("parseTimeArg", () => {
  it("reads a day as the whole day, in the zone", () => {
    expect(parseTimeArg("2026-03-01", utc)).toEqual({
      startMs: Date.UTC(2026, 2, 1),
      endMs: Date.UTC(2026, 2, 2),
    });
    const berlin = parseTimeArg("2026-03-01", { nowMs: NOW, timeZone: "Europe/Berlin" });
    expect(berlin.startMs).toBe(Date.UTC(2026, 1, 28, 23));
  });

  it("a day of a DST change has 23 or 25 hours", () => {
    const spring = parseTimeArg("2026-03-29", { nowMs: NOW, timeZone: "Europe/Berlin" });
    expect((spring.endMs - spring.startMs) / 3_600_000).toBe(23);
    const autumn = parseTimeArg("2026-10-25", { nowMs: NOW, timeZone: "Europe/Berlin" });
    expect((autumn.endMs - autumn.startMs) / 3_600_000).toBe(25);
  });

  it("refuses days that do not exist, saying why", () => {
    expect(refused("2026-13-45")).toBe("no such date: there is no month 13");
    expect(refused("2026-02-29")).toBe("no such date: February 2026 has 28 days");
    expect(parseTimeArg("2028-02-29", utc).startMs).toBe(Date.UTC(2028, 1, 29));
    expect(refused("2026-04-31")).toBe("no such date: April 2026 has 30 days");
    expect(refused("2026-00-10")).toBe("no such date: there is no month 0");
  });

  it("reads ISO times, with or without an offset", () => {
    expect(parseTimeArg("2026-03-01T10:00", utc)).toEqual({
      startMs: Date.UTC(2026, 2, 1, 10),
      endMs: Date.UTC(2026, 2, 1, 10) + 1,
    });
    expect(parseTimeArg("2026-03-01 10:00:30.5Z", utc).startMs).toBe(Date.UTC(2026, 2, 1, 10, 0, 30, 500));
    expect(parseTimeArg("2026-03-01T10:00+02:00", utc).startMs).toBe(Date.UTC(2026, 2, 1, 8));
    expect(parseTimeArg("2026-03-01T10:00-0530", utc).startMs).toBe(Date.UTC(2026, 2, 1, 15, 30));
    expect(parseTimeArg("2026-03-01T10:00", { nowMs: NOW, timeZone: "Asia/Tokyo" }).startMs).toBe(
      Date.UTC(2026, 2, 1, 1),
    );
    expect(refused("2026-03-01T24:00")).toBe("no such time of day");
    expect(refused("2026-03-01T10:60")).toBe("no such time of day");
    expect(refused("2026-02-30T10:00")).toBe("no such date: February 2026 has 28 days");
  });

  it("reads spans back from now", () => {
    expect(parseTimeArg("12h", utc).startMs).toBe(NOW - 12 * 3_600_000);
    expect(parseTimeArg("7d", utc).startMs).toBe(NOW - 7 * 86_400_000);
    expect(parseTimeArg("2w", utc).startMs).toBe(NOW - 14 * 86_400_000);
    // Months by the calendar: three months before May 31 is the last day of February.
    expect(parseTimeArg("3mo", utc).startMs).toBe(Date.UTC(2026, 1, 28, 15, 30));
    expect(parseTimeArg("1y", utc).startMs).toBe(Date.UTC(2025, 4, 31, 15, 30));
    // With `ago` or not, units short or spelt out, as the hint writes them.
    for (const text of ["2w ago", "2 w ago", "2 weeks ago", "2 weeks", "14 days ago", "2W AGO"])
      expect(parseTimeArg(text, utc).startMs, text).toBe(NOW - 14 * 86_400_000);
    expect(parseTimeArg("12 hours ago", utc).startMs).toBe(NOW - 12 * 3_600_000);
    expect(parseTimeArg("3 months ago", utc).startMs).toBe(parseTimeArg("3mo", utc).startMs);
    expect(parseTimeArg("1 year ago", utc).startMs).toBe(parseTimeArg("1y", utc).startMs);
    expect(refused("3m")).toMatch(/ambiguous/);
    expect(refused("3m ago")).toMatch(/ambiguous/);
    expect(refused("3 fortnights ago")).toMatch(/unknown unit/);
    expect(refused("3x")).toMatch(/unknown unit/);
    expect(refused("-7d")).toMatch(/back from now/);
    expect(refused("99999999999999999999d")).toBe("too far back");
  });

  it("reads today and yesterday in the zone", () => {
    expect(parseTimeArg("today", utc)).toEqual({
      startMs: Date.UTC(2026, 4, 31),
      endMs: Date.UTC(2026, 5, 1),
    });
    expect(parseTimeArg("Yesterday", utc).startMs).toBe(Date.UTC(2026, 4, 30));
    // 15:30 UTC is already June 1 in Auckland (UTC+12).
    expect(parseTimeArg("today", { nowMs: NOW, timeZone: "Pacific/Auckland" }).startMs).toBe(
      Date.UTC(2026, 4, 31, 12),
    );
  });

  it("refuses everything else", () => {
    for (const text of [
      "",
      "ago",
      "1w ago ago",
      "last week",
      "2026-3-1",
      "20260301",
      "2026/03/01",
      "March 1",
      "1e3d",
      "0x10d",
    ])
      expect(refused(text), text).toBeTruthy();
  });

  it("any existing day parses to its own midnight, any other day is refused", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1970, max: 2100 }),
        fc.integer({ min: 0, max: 13 }),
        fc.integer({ min: 0, max: 32 }),
        fc.constantFrom("UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe"),
        (year, month, day, timeZone) => {
          const text = `${year}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
          const real = new Date(Date.UTC(year, month - 1, day));
          const exists = month >= 1 && month <= 12 && real.getUTCDate() === day;
          if (!exists) {
            expect(() => parseTimeArg(text, { nowMs: NOW, timeZone })).toThrow(TimeArgError);
            return;
          }
          const { startMs, endMs } = parseTimeArg(text, { nowMs: NOW, timeZone });
          const w = wallClock(startMs, timeZone);
          expect([w.year, w.month, w.day, w.hour, w.minute]).toEqual([year, month, day, 0, 0]);
          const e = wallClock(endMs, timeZone);
          expect([e.hour, e.minute]).toEqual([0, 0]);
          expect(endMs - startMs).toBeGreaterThanOrEqual(23 * 3_600_000);
          expect(endMs - startMs).toBeLessThanOrEqual(25 * 3_600_000);
        },
      ),
      fcOptions(),
    );
  });

  it("a wall-clock time in a zone reads back as itself", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(1990, 0, 1), max: Date.UTC(2060, 0, 1) }),
        fc.constantFrom("UTC", "Europe/Berlin", "America/Sao_Paulo", "Asia/Kathmandu"),
        (ms, timeZone) => {
          const w = wallClock(ms, timeZone);
          const back = fromWallClock(w, timeZone);
          // A repeated hour (DST ends) reads as its first instance: the same wall clock either way.
          expect(wallClock(back, timeZone)).toEqual(w);
        },
      ),
      fcOptions(),
    );
  });
});

describe("isTimeZone", () => {
  it("knows IANA zones and refuses the rest", () => {
    expect(isTimeZone("UTC")).toBe(true);
    expect(isTimeZone("Europe/Berlin")).toBe(true);
    expect(isTimeZone("Mars/Olympus")).toBe(false);
    expect(isTimeZone("")).toBe(false);
  });
});
