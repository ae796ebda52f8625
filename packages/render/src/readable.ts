/**
 * Numbers, sizes and times as the renderers write them for people: `12,345`, `1.2 MB`,
 * `2026-11-02 09:14` (local) or `2026-11-02 09:14 UTC`. Use these in every renderer and in the
 * page, so that the text, the Markdown and the HTML page write them alike.
 */

const KIB = 1024;
const MIB = 1024 * 1024;

// Made on first need: the first `Intl.NumberFormat` of a process loads ICU's number data
// (about 12 ms), and whole numbers never need it.
let intFormat: Intl.NumberFormat | undefined;

/**
 * A count with thousands separators (rounded to a whole number), as `Intl.NumberFormat("en-US")`
 * writes it: `12,345`, `-1,000`.
 */
export function formatInt(count: number): string {
  const n = Math.round(count);
  if (Number.isSafeInteger(n) && !Object.is(n, -0)) {
    const digits = String(n < 0 ? -n : n);
    let out = "";
    let end = digits.length;
    for (; end > 3; end -= 3) out = `,${digits.slice(end - 3, end)}${out}`;
    return `${n < 0 ? "-" : ""}${digits.slice(0, end)}${out}`;
  }
  intFormat ??= new Intl.NumberFormat("en-US");
  return intFormat.format(n);
}

/** A size in bytes: `512 B`, `1.5 KB`, `3.2 MB`. */
export function formatSize(bytes: number): string {
  if (bytes < KIB) return `${bytes} B`;
  if (bytes < MIB) return `${(bytes / KIB).toFixed(1)} KB`;
  return `${(bytes / MIB).toFixed(1)} MB`;
}

const twoDigits = (value: number) => String(value).padStart(2, "0");

/** `2026-11-02 09:00` in local time; the input itself when it is not a time. */
export function localTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.getFullYear()}-${twoDigits(date.getMonth() + 1)}-${twoDigits(date.getDate())} ${twoDigits(date.getHours())}:${twoDigits(date.getMinutes())}`;
}

/** `2026-11-02 09:00 UTC`; the input itself when it is not a time. */
export function utcTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}
