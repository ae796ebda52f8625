/**
 * pi's timestamps (`YYYY-MM-DDTHH:mm:ss.sssZ`) as times and back without the engine's date
 * parser or `toISOString`: such a time does not depend on the local time zone, so a listing may
 * compute it once and cache it.
 */

/** The digits of `s` from `at` to `end` as a number; -1 if any is not a digit. */
function digits(s: string, at: number, end: number): number {
  let n = 0;
  for (let i = at; i < end; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}

/**
 * The time of a timestamp in pi's exact `YYYY-MM-DDTHH:mm:ss.sssZ` form, in the ranges where
 * `Date.UTC` gives exactly what the engine's date parser gives; `undefined` for anything else.
 * Such a time does not depend on the local time zone, so it may be computed once and cached.
 */
export function isoTimeMs(s: string): number | undefined {
  if (
    s.length !== 24 ||
    s.charCodeAt(4) !== 45 || // -
    s.charCodeAt(7) !== 45 ||
    s.charCodeAt(10) !== 84 || // T
    s.charCodeAt(13) !== 58 || // :
    s.charCodeAt(16) !== 58 ||
    s.charCodeAt(19) !== 46 || // .
    s.charCodeAt(23) !== 90 // Z
  ) {
    return undefined;
  }
  const y = digits(s, 0, 4);
  const mo = digits(s, 5, 7);
  const d = digits(s, 8, 10);
  const h = digits(s, 11, 13);
  const mi = digits(s, 14, 16);
  const sec = digits(s, 17, 19);
  const ms = digits(s, 20, 23);
  if (
    y >= 1000 &&
    mo >= 1 &&
    mo <= 12 &&
    d >= 1 &&
    d <= 31 &&
    h >= 0 &&
    h <= 23 &&
    mi >= 0 &&
    mi <= 59 &&
    sec >= 0 &&
    sec <= 59 &&
    ms >= 0
  ) {
    return Date.UTC(y, mo - 1, d, h, mi, sec, ms);
  }
  return undefined;
}

/**
 * Whether `s` is exactly the ISO string of its own time (`new Date(isoTimeMs(s)).toISOString()`):
 * pi's form, with a day that exists in its month (else `Date.UTC` rolls it over). Computed
 * without `toISOString`, whose first call in a process loads the time zone (decision 031).
 */
export function isExactIso(s: string): boolean {
  if (isoTimeMs(s) === undefined) return false;
  const y = digits(s, 0, 4);
  const mo = digits(s, 5, 7);
  const d = digits(s, 8, 10);
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  const days = mo === 2 ? (leap ? 29 : 28) : mo === 4 || mo === 6 || mo === 9 || mo === 11 ? 30 : 31;
  return d <= days;
}

const pad = (n: number, width: number): string => String(n).padStart(width, "0");

/**
 * `new Date(t).toISOString()` for a time of years 1000–9999 (the times {@link isExactIso}
 * strings parse to), computed without `toISOString` (see there); `undefined` outside them.
 */
export function isoOfTime(t: number): string | undefined {
  if (!Number.isInteger(t)) return undefined;
  const days = Math.floor(t / 86_400_000);
  const ms = t - days * 86_400_000;
  // Civil date of a day count since 1970-01-01 (proleptic Gregorian, 400-year eras).
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const mo = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (mo <= 2 ? 1 : 0);
  if (y < 1000 || y > 9999) return undefined;
  const h = Math.floor(ms / 3_600_000);
  const mi = Math.floor((ms % 3_600_000) / 60_000);
  const sec = Math.floor((ms % 60_000) / 1000);
  return `${y}-${pad(mo, 2)}-${pad(d, 2)}T${pad(h, 2)}:${pad(mi, 2)}:${pad(sec, 2)}.${pad(ms % 1000, 3)}Z`;
}

/**
 * `new Date(value)`, with a fast path for pi's timestamps ({@link isoTimeMs}; see decision
 * 031). Anything else: `new Date`.
 */
export function dateOf(value: unknown): Date {
  if (typeof value === "string") {
    const t = isoTimeMs(value);
    if (t !== undefined) return new Date(t);
  }
  return new Date(value as string);
}
