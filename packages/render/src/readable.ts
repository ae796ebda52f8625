/**
 * Numbers, sizes and times as the renderers write them for people: `12,345`, `1.2 MB`,
 * `2026-11-02 09:14` (local) or `2026-11-02 09:14 UTC`. Use these in every renderer and in the
 * page, so that the text, the Markdown and the HTML page write them alike.
 */

const KIB = 1024;
const MIB = 1024 * 1024;

const intFormat = new Intl.NumberFormat("en-US");

/** A count with thousands separators (rounded to a whole number). */
export function formatInt(count: number): string {
  return intFormat.format(Math.round(count));
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
