/**
 * Dates as people and agents type them, read strictly: the one parser behind every `--since`
 * and `--until` of the CLI (ls, show, search, stats) and every `since` / `until` of the agent
 * tools (`@pi-session/agent-tools`). Use {@link parseTimeArg} for a value and
 * {@link isTimeZone} for a `--timezone`; each front-end turns a {@link TimeArgError} into its
 * own kind of error (a usage error, a tool error).
 *
 * Accepted: `YYYY-MM-DD` (a day that exists), an ISO time (`2026-03-01T10:00`, seconds and
 * fractions optional, `T` or a space, `Z` or `±HH:MM` optional), `today`, `yesterday`, `now`, and
 * a span back from now: `12h`, `7d`, `2w`, `3mo`, `1y`, with `ago` or not and the unit spelt out
 * or not (`2w ago`, `3 days ago`, `1 month`). Anything else is refused with the reason.
 * A day and a time without an offset are read in the given time zone (default: the system's,
 * which `TZ` sets).
 *
 * Every value is a range `[startMs, endMs)`: a day is its 24 (23, 25) hours, a time or a span is
 * one millisecond. So `--since X` means "at or after the start of X" and `--until X` "before the
 * end of X": `--until 2026-03-01` includes all of March 1, `--until 10:00` includes 10:00:00.000.
 */

/** A value read: the half-open range of epoch milliseconds it names. */
export interface TimeRange {
  startMs: number;
  endMs: number;
}

export interface TimeArgOptions {
  /** "Now", for `today`, `yesterday` and spans (epoch ms). */
  nowMs: number;
  /** An IANA time zone (`Europe/Berlin`, `UTC`); default: the system's. */
  timeZone?: string | undefined;
}

/** Why a value was refused (for the usage error). */
export class TimeArgError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = "TimeArgError";
  }
}

/** What the usage errors suggest. */
export const TIME_ARG_FORMS =
  "YYYY-MM-DD, an ISO time (2026-03-01T10:00), 12h / 7d / 2w / 3mo ago, today or yesterday";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Whether `name` is a time zone this Node knows (`UTC`, `Europe/Berlin`, `America/New_York`). */
export function isTimeZone(name: string): boolean {
  if (name === "") return false;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** Wall-clock fields of an instant in a zone (the system's when `timeZone` is undefined). */
export interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  ms: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** The wall clock of `ms` in `timeZone` (default: the system's). */
export function wallClock(ms: number, timeZone?: string): WallClock {
  const msPart = ((ms % 1000) + 1000) % 1000;
  if (timeZone === undefined) {
    const d = new Date(ms);
    return {
      year: d.getFullYear(),
      month: d.getMonth() + 1,
      day: d.getDate(),
      hour: d.getHours(),
      minute: d.getMinutes(),
      second: d.getSeconds(),
      ms: msPart,
    };
  }
  const parts: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(ms))
    if (p.type !== "literal") parts[p.type] = Number(p.value);
  return {
    year: parts.year as number,
    month: parts.month as number,
    day: parts.day as number,
    hour: parts.hour as number,
    minute: parts.minute as number,
    second: parts.second as number,
    ms: msPart,
  };
}

/** Offset of the zone from UTC at instant `ms` (local minus UTC, in ms). */
function offsetAt(ms: number, timeZone?: string): number {
  const w = wallClock(ms, timeZone);
  return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second, w.ms) - ms;
}

/**
 * The instant a wall-clock time names in a zone. A time skipped by a DST change is read with
 * the offset before it (02:30 on a spring-forward night is 03:30); a repeated one is its first.
 */
export function fromWallClock(w: WallClock, timeZone?: string): number {
  if (timeZone === undefined) {
    const d = new Date(w.year, w.month - 1, w.day, w.hour, w.minute, w.second, w.ms);
    // Years 0-99 are read by Date as 1900-1999.
    if (w.year < 100) d.setFullYear(w.year);
    return d.getTime();
  }
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second, w.ms);
  const early = asUtc - offsetAt(asUtc - DAY, timeZone);
  const late = asUtc - offsetAt(asUtc + DAY, timeZone);
  // The candidate whose wall clock reads back as asked; else (a skipped time) the earlier offset.
  for (const t of early <= late ? [early, late] : [late, early])
    if (offsetAt(t, timeZone) === asUtc - t) return t;
  return early;
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysInMonth(year: number, month: number): number {
  return month === 2 && isLeap(year) ? 29 : (MONTH_DAYS[month - 1] as number);
}

function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** The range of one calendar day in the zone. */
function dayRange(year: number, month: number, day: number, timeZone?: string): TimeRange {
  const start = fromWallClock({ year, month, day, hour: 0, minute: 0, second: 0, ms: 0 }, timeZone);
  const next = new Date(Date.UTC(year, month - 1, day + 1));
  const end = fromWallClock(
    {
      year: next.getUTCFullYear(),
      month: next.getUTCMonth() + 1,
      day: next.getUTCDate(),
      hour: 0,
      minute: 0,
      second: 0,
      ms: 0,
    },
    timeZone,
  );
  return { startMs: start, endMs: end };
}

const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

/** Checks the fields of a date; the reason it does not exist, or undefined. */
function dateProblem(year: number, month: number, day: number): string | undefined {
  if (year < 1000) return "years before 1000 are not read";
  if (month < 1 || month > 12) return `there is no month ${month}`;
  const last = daysInMonth(year, month);
  if (day < 1 || day > last) return `${MONTHS[month - 1]} ${year} has ${last} days`;
  return undefined;
}

const DAY_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME_RE =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;
/** `7d`, `2w ago`, `3 months ago`, `1 year`: a span back from now (units short or spelt out). */
const SPAN_RE = /^(\d+)\s*(h|hours?|hrs?|d|days?|w|wks?|weeks?|mo|mos|months?|y|yrs?|years?)(?:\s+ago)?$/;

/** A spelt-out unit as the short one. */
function spanUnit(unit: string): string {
  if (unit.startsWith("mo")) return "mo";
  return unit[0] as string;
}

/**
 * Reads a `--since` / `--until` value (see the module header); throws a {@link TimeArgError}
 * saying what is wrong with anything else.
 */
export function parseTimeArg(text: string, options: TimeArgOptions): TimeRange {
  const value = text.trim().toLowerCase();
  const { nowMs, timeZone } = options;
  if (value === "") throw new TimeArgError("an empty date");
  if (value === "now") return { startMs: nowMs, endMs: nowMs + 1 };
  if (value === "today" || value === "yesterday") {
    const w = wallClock(nowMs, timeZone);
    const d = new Date(Date.UTC(w.year, w.month - 1, w.day - (value === "yesterday" ? 1 : 0)));
    return dayRange(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate(), timeZone);
  }
  const span = SPAN_RE.exec(value);
  if (span) return spanBack(Number(span[1]), spanUnit(span[2] as string), nowMs, timeZone);
  const day = DAY_RE.exec(value);
  if (day) {
    const [y, m, d] = [Number(day[1]), Number(day[2]), Number(day[3])];
    const problem = dateProblem(y, m, d);
    if (problem) throw new TimeArgError(`no such date: ${problem}`);
    return dayRange(y, m, d, timeZone);
  }
  const time = TIME_RE.exec(value);
  if (time) return instant(time, timeZone);
  if (/^\d+\s*m(\s+ago)?$/.test(value))
    throw new TimeArgError("`m` is ambiguous: write `mo` for months or `h` for hours");
  if (/^\d+\s*[a-z]+(\s+ago)?$/.test(value)) throw new TimeArgError("unknown unit: use h, d, w, mo or y");
  if (/^-\d/.test(value)) throw new TimeArgError("a span is counted back from now: write `7d`, not `-7d`");
  throw new TimeArgError("not a date");
}

function spanBack(n: number, unit: string, nowMs: number, timeZone?: string): TimeRange {
  if (!Number.isSafeInteger(n)) throw new TimeArgError("too far back");
  let t: number;
  if (unit === "h") t = nowMs - n * HOUR;
  else if (unit === "d") t = nowMs - n * DAY;
  else if (unit === "w") t = nowMs - n * 7 * DAY;
  else {
    // Months and years by the calendar: the same day (or the month's last) and clock time.
    const w = wallClock(nowMs, timeZone);
    const months = unit === "mo" ? n : n * 12;
    const total = w.year * 12 + (w.month - 1) - months;
    const year = Math.floor(total / 12);
    const month = total - year * 12 + 1;
    if (year < 1) throw new TimeArgError("too far back");
    t = fromWallClock({ ...w, year, month, day: Math.min(w.day, daysInMonth(year, month)) }, timeZone);
  }
  if (!Number.isFinite(t) || t < -8.64e15) throw new TimeArgError("too far back");
  return { startMs: t, endMs: t + 1 };
}

function instant(m: RegExpExecArray, timeZone?: string): TimeRange {
  const [y, mo, d, h, mi] = [1, 2, 3, 4, 5].map((i) => Number(m[i]));
  const s = m[6] === undefined ? 0 : Number(m[6]);
  const ms = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, "0"));
  const problem = dateProblem(y as number, mo as number, d as number);
  if (problem) throw new TimeArgError(`no such date: ${problem}`);
  if ((h as number) > 23 || (mi as number) > 59 || s > 59) throw new TimeArgError("no such time of day");
  const zone = m[8];
  let t: number;
  if (zone === undefined) {
    t = fromWallClock(
      {
        year: y as number,
        month: mo as number,
        day: d as number,
        hour: h as number,
        minute: mi as number,
        second: s,
        ms,
      },
      timeZone,
    );
  } else {
    const utc = Date.UTC(y as number, (mo as number) - 1, d as number, h as number, mi as number, s, ms);
    if (zone.toUpperCase() === "Z") t = utc;
    else {
      const digits = zone.slice(1).replace(":", "");
      const oh = Number(digits.slice(0, 2));
      const om = digits.length > 2 ? Number(digits.slice(2, 4)) : 0;
      if (oh > 23 || om > 59) throw new TimeArgError("no such UTC offset");
      const sign = zone.startsWith("-") ? -1 : 1;
      t = utc - sign * (oh * HOUR + om * 60_000);
    }
  }
  return { startMs: t, endMs: t + 1 };
}
