/**
 * The file-activity query of the SQLite backend: stored file touches (`touches`) of a path and
 * everything under it, or of one session file, joined with their entries (id, line, time,
 * branch flag) and files. Use through the session database's `touches`.
 */
import type { TouchQuery, TouchRow } from "../database.js";
import type { FileAction } from "../documents/index.js";
import { ENTRY_ID_SCALE } from "./schema.js";
import type { StatementCache } from "./statements.js";
import { num, strOrNull } from "./values.js";

/**
 * The path condition: the path itself, or a path under it (`path/` up to `path0`, `0` being
 * the character after `/`, so the index on `touches.path` reads one range).
 */
function pathCondition(given: string): { sql: string; params: string[] } {
  const path = given.length > 1 ? given.replace(/\/+$/, "") || "/" : given;
  const dir = path.endsWith("/") ? path : `${path}/`;
  const upper = `${dir.slice(0, -1)}0`;
  return { sql: "(t.path = ? OR (t.path >= ? AND t.path < ?))", params: [path, dir, upper] };
}

export function touchRows(st: StatementCache, query: TouchQuery): TouchRow[] {
  const conds: string[] = ["f.version > 0"];
  const params: (string | number)[] = [];
  if (query.path !== undefined) {
    const c = pathCondition(query.path);
    conds.push(c.sql);
    params.push(...c.params);
  }
  if (query.sessionPath !== undefined) {
    conds.push("f.path = ?");
    params.push(query.sessionPath);
  }
  if (query.allBranches !== true) conds.push("e.on_branch = 1");
  return st
    .get(
      `SELECT f.path AS session_path, t.ordinal, t.tool, t.action, t.path, e.entry_id, e.line, e.time_ms, e.on_branch
       FROM touches t
       JOIN files f ON f.id = t.file_id
       JOIN entries e ON e.id = t.file_id * ${ENTRY_ID_SCALE} + t.ordinal
       WHERE ${conds.join(" AND ")}
       ORDER BY t.file_id, t.ordinal, t.seq`,
    )
    .all(...params)
    .map((r) => ({
      sessionPath: String(r.session_path),
      ordinal: num(r.ordinal),
      tool: String(r.tool),
      action: String(r.action) as FileAction,
      path: String(r.path),
      entryId: strOrNull(r.entry_id),
      line: num(r.line),
      timeMs: r.time_ms === null || r.time_ms === undefined ? null : num(r.time_ms),
      onBranch: num(r.on_branch) === 1,
    }));
}
