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
