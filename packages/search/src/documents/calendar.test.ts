/**
 * Calendar periods in a time zone: against Intl's own civil dates for random instants in zones
 * with odd offsets and clock changes, and the edges (a day that starts at 01:00, weeks across a
 * year's end, a name that is no zone).
 */
import { fcOptions } from "@pi-session/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { zonedCalendar } from "./calendar.js";

const ZONES = [
  "UTC",
  "Europe/Paris",
  "America/New_York",
  "America/Santiago",
  "Asia/Kathmandu",
  "Australia/Lord_Howe",
  "Pacific/Chatham",
  "Pacific/Kiritimati",
  "America/St_Johns",
  "Asia/Tehran",
];

/** Intl's civil date of an instant, the slow and obvious way. */
function intlDay(ms: number, timeZone: string): string {
  const parts = new Intl.DateTimeFormat("en-CA", {
    timeZone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  }).formatToParts(ms);
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? "";
  return `${get("year")}-${get("month")}-${get("day")}`;
}

// 2000-01-01 to 2040-01-01.
const instant = fc.integer({ min: 946_684_800_000, max: 2_208_988_800_000 });

describe("zonedCalendar", () => {
  it("gives the day Intl gives, in every zone, for any instant", () => {
    fc.assert(
      fc.property(instant, fc.constantFrom(...ZONES), (ms, zone) => {
        const cal = zonedCalendar(zone);
        expect(cal.dayOf(ms)).toBe(intlDay(ms, zone));
      }),
      fcOptions(),
    );
  });

  it("puts an instant in the week of the Monday at most six days before its day, and in its day's month", () => {
    fc.assert(
      fc.property(instant, fc.constantFrom(...ZONES), (ms, zone) => {
        const cal = zonedCalendar(zone);
        const day = cal.dayOf(ms);
        const week = cal.weekOf(ms);
        const monday = Date.parse(`${week}T00:00:00Z`);
        const dayUtc = Date.parse(`${day}T00:00:00Z`);
        expect(new Date(monday).getUTCDay()).toBe(1);
        expect(dayUtc - monday).toBeGreaterThanOrEqual(0);
        expect(dayUtc - monday).toBeLessThan(7 * 86_400_000);
        expect(cal.monthOf(ms)).toBe(day.slice(0, 7));
      }),
      fcOptions(),
    );
  });

  it("changes day where Intl does across a clock change at midnight (Santiago, 2023-09-03)", () => {
    const cal = zonedCalendar("America/Santiago");
    // Clocks went from 00:00 to 01:00, so the day starts at 01:00 -03 (04:00 UTC).
    expect(cal.dayOf(Date.parse("2023-09-03T04:00:00Z"))).toBe("2023-09-03");
    expect(cal.dayOf(Date.parse("2023-09-03T03:59:59Z"))).toBe("2023-09-02");
  });

  it("keys weeks by their Monday across a year's end, and months by YYYY-MM", () => {
    const utc = zonedCalendar("UTC");
    expect(utc.weekOf(Date.parse("2026-01-01T12:00:00Z"))).toBe("2025-12-29");
    expect(utc.weekOf(Date.parse("2025-12-28T23:59:59Z"))).toBe("2025-12-22");
    expect(utc.weekOf(Date.parse("2025-12-29T00:00:00Z"))).toBe("2025-12-29");
    expect(utc.monthOf(Date.parse("2026-02-28T23:00:00Z"))).toBe("2026-02");
    // The same instant is a Monday in Tokyo and still Sunday in New York.
    const ms = Date.parse("2026-03-01T20:00:00Z");
    expect(zonedCalendar("Asia/Tokyo").weekOf(ms)).toBe("2026-03-02");
    expect(zonedCalendar("America/New_York").weekOf(ms)).toBe("2026-02-23");
  });

  it("refuses a name that is no zone", () => {
    expect(() => zonedCalendar("Mars/Olympus")).toThrow(RangeError);
  });
});
