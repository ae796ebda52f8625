/**
 * The keys the app names sessions by, for either source: a session's id, and for files that
 * share one (copies, a session synced from two machines) `id~2`, `id~3`, ... in the order of
 * their file keys; and each row's parent key. A key names a row, never a path.
 */
import type { SessionRow } from "./rows.js";

/**
 * Sets `key` and `parentKey` on every row of `rows` (file key -> row) and returns the rows by
 * key; `parentFile` gives the file key of a row's parent session, or null.
 */
export function assignSessionKeys(
  rows: ReadonlyMap<string, SessionRow>,
  parentFile: (row: SessionRow) => string | null,
): Map<string, SessionRow> {
  const filesById = new Map<string, string[]>();
  for (const [file, row] of rows) {
    const files = filesById.get(row.id);
    if (files) files.push(file);
    else filesById.set(row.id, [file]);
  }
  const byKey = new Map<string, SessionRow>();
  for (const [id, files] of filesById) {
    files.sort();
    files.forEach((file, i) => {
      const row = rows.get(file) as SessionRow;
      row.key = i === 0 ? id : `${id}~${i + 1}`;
      byKey.set(row.key, row);
    });
  }
  for (const row of rows.values()) {
    const parent = parentFile(row);
    row.parentKey = parent === null ? null : (rows.get(parent)?.key ?? null);
  }
  return byKey;
}

/** What a key or an id prefix typed in the app names. */
export type KeyMatch =
  | { kind: "one"; row: SessionRow }
  | { kind: "none" }
  | { kind: "ambiguous"; count: number };

/**
 * The row `key` names: its key (`id`, `id~2`), else the one session whose id starts with it
 * (any case: a short id as the list and the CLI print it). Files sharing an id are one
 * session's copies: a prefix of that id names the first unless it also names another session.
 */
export function rowByKeyOrPrefix(
  key: string,
  exact: (key: string) => SessionRow | undefined,
  rows: () => Iterable<SessionRow>,
): KeyMatch {
  const row = exact(key);
  if (row) return { kind: "one", row };
  const prefix = key.toLowerCase();
  if (prefix === "" || prefix.includes("~")) return { kind: "none" };
  const found = new Map<string, SessionRow>();
  for (const candidate of rows())
    if (candidate.id.toLowerCase().startsWith(prefix) && !found.has(candidate.id))
      found.set(candidate.id, candidate);
  if (found.size === 0) return { kind: "none" };
  if (found.size > 1) return { kind: "ambiguous", count: found.size };
  const [id] = found.keys();
  return { kind: "one", row: exact(id as string) ?? ([...found.values()][0] as SessionRow) };
}
