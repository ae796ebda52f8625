/**
 * Ids as people type and read them: the shortest prefix that tells a session (or entry) apart
 * from every other one, and what a typed prefix names. Prefixes are matched without regard to
 * case (`019A4C1E` is `019a4c1e`). Use {@link uniquePrefixLengths} to print ids in a listing and
 * {@link matchIdPrefix} to read an id argument (a session id, `--leaf`, a label's entry).
 */

/** Ids are shown with at least this many characters, as `ls` always did. */
export const MIN_ID_LENGTH = 8;

/** Length of the common start of two (lower-cased) ids. */
function commonPrefix(a: string, b: string): number {
  let k = 0;
  while (k < a.length && k < b.length && a[k] === b[k]) k++;
  return k;
}

/**
 * For each of `ids`, the length of its shortest prefix (at least `min`, at most the whole id)
 * that no other id of `universe` starts with, case-insensitively; `ids` are expected to be in
 * `universe` (an id that is not is compared with all of it). Copies of one id (two files of one
 * session) do not lengthen each other. O((n + m) log m).
 */
export function uniquePrefixLengths(
  ids: readonly string[],
  universe: Iterable<string>,
  min = MIN_ID_LENGTH,
): number[] {
  const sorted = [...new Set([...universe].map((id) => id.toLowerCase()))].sort();
  return ids.map((id) => {
    const key = id.toLowerCase();
    // Binary search for where `key` is (or would be) in `sorted`; its neighbours share the longest prefixes.
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((sorted[mid] as string) < key) lo = mid + 1;
      else hi = mid;
    }
    let shared = 0;
    const before = sorted[lo - 1];
    if (before !== undefined) shared = Math.max(shared, commonPrefix(key, before));
    const at = sorted[lo] === key ? lo + 1 : lo;
    const after = sorted[at];
    if (after !== undefined) shared = Math.max(shared, commonPrefix(key, after));
    return Math.min(id.length, Math.max(min, shared + 1));
  });
}

/** `ids`, each cut to its shortest unique prefix in `universe` (see {@link uniquePrefixLengths}). */
export function shortIds(ids: readonly string[], universe: Iterable<string>, min = MIN_ID_LENGTH): string[] {
  const lengths = uniquePrefixLengths(ids, universe, min);
  return ids.map((id, i) => id.slice(0, lengths[i]));
}

/** What a typed id names among candidates. */
export type IdMatch<T> = { kind: "one"; item: T } | { kind: "none" } | { kind: "ambiguous"; items: T[] };

/**
 * The candidates `typed` names: those whose id is exactly `typed` (as it is, then ignoring
 * case), else those whose id starts with it, ignoring case. One is a match; several are
 * ambiguous (all of them returned, for the error to list).
 */
export function matchIdPrefix<T>(
  typed: string,
  candidates: Iterable<T>,
  idOf: (item: T) => string,
): IdMatch<T> {
  const key = typed.toLowerCase();
  const exact: T[] = [];
  const folded: T[] = [];
  const prefixed: T[] = [];
  for (const item of candidates) {
    const id = idOf(item);
    if (id === typed) exact.push(item);
    const lower = id.toLowerCase();
    if (lower === key) folded.push(item);
    else if (key !== "" && lower.startsWith(key)) prefixed.push(item);
  }
  for (const found of [exact, folded, prefixed]) {
    if (found.length === 1) return { kind: "one", item: found[0] as T };
    if (found.length > 1) return { kind: "ambiguous", items: found };
  }
  return { kind: "none" };
}
