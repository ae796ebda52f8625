/**
 * Calendar periods in a time zone: the day (`YYYY-MM-DD`), week (the date of its Monday, ISO
 * weeks) and month (`YYYY-MM`) an instant falls in. Use it to group
 * times by period for a person in a given zone (`stats --by week --timezone Europe/Paris`).
 *
 * Pure: time zones come from `Intl` (IANA names, the runtime's own data), no clock is read. A
 * zone's offset only changes on a 15-minute boundary of UTC (every offset in use is a multiple
 * of 15 minutes and changes at a whole or half local hour), so the civil date is the same for
 * every instant of one 15-minute slot; it is computed once per slot.
 */

/**
 * A quarter hour (ms): every UTC offset in use is a whole number of them and changes on one, so
 * the civil date is the same through each quarter hour of UTC.
 */
export const QUARTER_HOUR_MS = 15 * 60_000;
const SLOT_MS = QUARTER_HOUR_MS;
const DAY_MS = 86_400_000;

/** The civil date of a zone at one instant. */
interface CivilDate {
  year: number;
  month: number;
  day: number;
}

/** The periods of one time zone. */
export interface ZonedCalendar {
  /** The IANA name as `Intl` resolved it (`UTC`, `Europe/Paris`). */
  readonly timeZone: string;
  /** `YYYY-MM-DD` of the day `ms` falls in. */
  dayOf(ms: number): string;
  /** `YYYY-MM-DD` of the Monday of the (ISO) week `ms` falls in. */
  weekOf(ms: number): string;
  /** `YYYY-MM` of the month `ms` falls in. */
  monthOf(ms: number): string;
}

const pad2 = (n: number) => String(n).padStart(2, "0");
const pad4 = (n: number) => (n < 0 ? `-${String(-n).padStart(4, "0")}` : String(n).padStart(4, "0"));

function dateKey(c: CivilDate): string {
  return `${pad4(c.year)}-${pad2(c.month)}-${pad2(c.day)}`;
}

/** Days since 1970-01-01 of a civil date (proleptic Gregorian). */
function epochDay(c: CivilDate): number {
  const at = new Date(0);
  at.setUTCFullYear(c.year, c.month - 1, c.day);
  return Math.floor(at.getTime() / DAY_MS);
}

function civilOfEpochDay(days: number): CivilDate {
  const d = new Date(days * DAY_MS);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

/**
 * The calendar of a time zone (default: the runtime's). Throws a `RangeError` for a name
 * `Intl` does not know (a caller checks a name it was given first, for a friendlier message).
 */
export function zonedCalendar(timeZone?: string): ZonedCalendar {
  const format = new Intl.DateTimeFormat("en-US", {
    ...(timeZone !== undefined ? { timeZone } : {}),
    year: "numeric",
    month: "numeric",
    day: "numeric",
    era: "short",
  });
  const resolved = format.resolvedOptions().timeZone;
  const slots = new Map<number, CivilDate>();

  /** The civil date of an instant, via Intl. */
  function civilOf(ms: number): CivilDate {
    let year = 0;
    let month = 0;
    let day = 0;
    let bc = false;
    for (const p of format.formatToParts(ms)) {
      if (p.type === "year") year = Number(p.value);
      else if (p.type === "month") month = Number(p.value);
      else if (p.type === "day") day = Number(p.value);
      else if (p.type === "era") bc = p.value.startsWith("B");
    }
    // Intl counts years before 1 CE by era (1 BC is year 0 astronomically).
    return { year: bc ? 1 - year : year, month, day };
  }

  function civil(ms: number): CivilDate {
    const slot = Math.floor(ms / SLOT_MS);
    let found = slots.get(slot);
    if (!found) {
      found = civilOf(slot * SLOT_MS);
      if (slots.size > 100_000) slots.clear();
      slots.set(slot, found);
    }
    return found;
  }

  return {
    timeZone: resolved,
    dayOf: (ms) => dateKey(civil(ms)),
    weekOf(ms) {
      const days = epochDay(civil(ms));
      // 1970-01-01 was a Thursday: (days + 3) mod 7 is 0 on Mondays.
      const sinceMonday = (((days + 3) % 7) + 7) % 7;
      return dateKey(civilOfEpochDay(days - sinceMonday));
    },
    monthOf(ms) {
      const c = civil(ms);
      return `${pad4(c.year)}-${pad2(c.month)}`;
    },
  };
}
