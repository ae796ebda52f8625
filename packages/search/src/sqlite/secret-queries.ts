/**
 * The secret marks of the SQLite backend (`secrets`, `secret_scans`): which session files are
 * not wholly scanned, where their entries are, the marks of a scanned range written only
 * while the file is as it was read, and the marks by file. Use through the session database's
 * `secretScanTodo`, `entrySlots`, `addSecretMarks` and `secretMarks`.
 */
import type { EntrySlot, SecretMarks, SecretMarksUpdate, SecretScanTodo } from "../database.js";
import { ENTRY_ID_SCALE } from "./schema.js";
import type { StatementCache } from "./statements.js";
import { num } from "./values.js";

export function secretScanTodo(st: StatementCache): SecretScanTodo[] {
  return st
    .get(
      `SELECT f.path, f.size, f.mtime_ms, f.ctime_ms, f.ino, coalesce(s.next_ordinal, 0) AS next, f.entry_count
       FROM files f LEFT JOIN secret_scans s ON s.file_id = f.id
       WHERE f.version > 0 AND coalesce(s.next_ordinal, 0) < f.entry_count
       ORDER BY f.id`,
    )
    .all()
    .map((r) => ({
      path: String(r.path),
      size: num(r.size),
      mtimeMs: num(r.mtime_ms),
      ctimeMs: num(r.ctime_ms),
      ino: num(r.ino),
      from: num(r.next),
      entries: num(r.entry_count),
    }));
}

export function entrySlots(
  st: StatementCache,
  path: string,
  fromOrdinal: number,
  limit: number,
): EntrySlot[] {
  const file = st.get(`SELECT id FROM files WHERE path = ?`).get(path);
  if (!file) return [];
  const base = num(file.id) * ENTRY_ID_SCALE;
  return st
    .get(`SELECT id, line, offset, length FROM entries WHERE id BETWEEN ? AND ? ORDER BY id LIMIT ?`)
    .all(base + fromOrdinal, base + ENTRY_ID_SCALE - 1, limit)
    .map((r) => ({
      ordinal: num(r.id) - base,
      line: num(r.line),
      offset: num(r.offset),
      length: num(r.length),
    }));
}

export function addSecretMarks(st: StatementCache, u: SecretMarksUpdate): boolean {
  const row = st.get(`SELECT id, size, mtime_ms, ctime_ms, ino FROM files WHERE path = ?`).get(u.path);
  const id = u.identity;
  if (
    !row ||
    num(row.size) !== id.size ||
    num(row.mtime_ms) !== id.mtimeMs ||
    num(row.ctime_ms) !== id.ctimeMs ||
    num(row.ino) !== id.ino
  )
    return false;
  const fileId = num(row.id);
  const scanned = st.get(`SELECT next_ordinal FROM secret_scans WHERE file_id = ?`).get(fileId);
  // Another process scanned this range meanwhile: nothing to add.
  if (num(scanned?.next_ordinal ?? 0) !== u.from) return false;
  const insert = st.get(`INSERT OR REPLACE INTO secrets (file_id, ordinal, kind, count) VALUES (?, ?, ?, ?)`);
  for (const m of u.marks) insert.run(fileId, m.ordinal, m.kind, m.count);
  st.get(
    `INSERT INTO secret_scans (file_id, next_ordinal) VALUES (?, ?)
     ON CONFLICT (file_id) DO UPDATE SET next_ordinal = excluded.next_ordinal`,
  ).run(fileId, u.to);
  return true;
}

export function secretMarks(st: StatementCache): SecretMarks[] {
  const byPath = new Map<string, SecretMarks>();
  for (const r of st
    .get(
      `SELECT f.path, coalesce(s.next_ordinal, 0) >= f.entry_count AS complete
       FROM files f LEFT JOIN secret_scans s ON s.file_id = f.id
       WHERE f.version > 0 AND (coalesce(s.next_ordinal, 0) < f.entry_count OR EXISTS (SELECT 1 FROM secrets x WHERE x.file_id = f.id))`,
    )
    .all())
    byPath.set(String(r.path), { path: String(r.path), kinds: {}, complete: num(r.complete) === 1 });
  for (const r of st
    .get(
      `SELECT f.path, x.kind, sum(x.count) AS n FROM secrets x JOIN files f ON f.id = x.file_id GROUP BY f.path, x.kind`,
    )
    .all()) {
    const marks = byPath.get(String(r.path));
    if (marks) marks.kinds[String(r.kind)] = num(r.n);
  }
  return [...byPath.values()];
}
