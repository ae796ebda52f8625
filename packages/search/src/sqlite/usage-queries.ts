/**
 * The usage queries of the SQLite backend: the usage rows of the chosen session files (for
 * `stats` to deduplicate and add up), and sums computed in the database, from the per-file
 * totals by model when no time bounds them, else from the rows (by model, file or quarter
 * hour). Use through the session database's `usage` and `usageSums`.
 */
import type { UsageSession, UsageSum, UsageSumQuery } from "../database.js";
import type { UsageRow } from "../documents/index.js";
import type { SqlRow } from "./driver.js";
import { SESSION_COLUMNS, metaOf } from "./file-rows.js";
import type { StatementCache } from "./statements.js";
import { num } from "./values.js";

/** Quarter hours: every time zone's offset is a whole number of them, so a day is a set of them. */
const QUARTER_HOUR_MS = 15 * 60 * 1000;

/** A summed row (`g` the group) as a {@link UsageSum}. */
function sumOf(r: SqlRow): UsageSum {
  return {
    group: r.g === null || r.g === undefined ? null : typeof r.g === "string" ? r.g : num(r.g),
    input: num(r.input),
    output: num(r.output),
    cacheRead: num(r.cache_read),
    cacheWrite: num(r.cache_write),
    totalTokens: num(r.total_tokens),
    cost: num(r.cost),
    records: num(r.records),
    zeroCostWithTokens: num(r.zero),
  };
}

/** `f.dir IN (...)` and `f.path IN / NOT IN (...)` conditions, with their parameters. */
function fileConditions(filter: {
  dirs?: readonly string[] | undefined;
  paths?: readonly string[] | undefined;
  except?: readonly string[] | undefined;
}): { sql: string; params: string[] } {
  const conds: string[] = [];
  const params: string[] = [];
  const list = (values: readonly string[]) => values.map(() => "?").join(", ");
  if (filter.dirs) {
    conds.push(`f.dir IN (${list(filter.dirs)})`);
    params.push(...filter.dirs);
  }
  if (filter.paths) {
    conds.push(`f.path IN (${list(filter.paths)})`);
    params.push(...filter.paths);
  }
  if (filter.except && filter.except.length > 0) {
    conds.push(`f.path NOT IN (${list(filter.except)})`);
    params.push(...filter.except);
  }
  return { sql: conds.map((c) => ` AND ${c}`).join(""), params };
}

/** The usage rows of the chosen session files, grouped by file (`rows: false`: the files only). */
export function usageSessions(
  st: StatementCache,
  filter: { dirs?: readonly string[]; paths?: readonly string[]; rows?: boolean } = {},
): UsageSession[] {
  const where = fileConditions(filter);
  const files = st
    .get(
      `SELECT f.id, f.path, ${SESSION_COLUMNS.split(", ")
        .map((c) => `f.${c}`)
        .join(", ")} FROM files f WHERE f.version > 0${where.sql} ORDER BY f.id`,
    )
    .all(...where.params);
  const byId = new Map<number, UsageSession>();
  for (const row of files) {
    const meta = metaOf(row);
    if (meta) byId.set(num(row.id), { path: String(row.path), meta, usage: [] });
  }
  if (filter.rows === false || byId.size === 0) return [...byId.values()];
  const usageSql = `SELECT u.* FROM usage u JOIN files f ON f.id = u.file_id WHERE f.version > 0${where.sql} ORDER BY u.file_id, u.ordinal`;
  for (const r of st.get(usageSql).iterate(...where.params)) {
    const s = byId.get(num(r.file_id));
    if (!s) continue;
    const row: UsageRow = {
      key: String(r.key),
      source: String(r.source) as UsageRow["source"],
      model: String(r.model),
      time: r.time_ms === null ? Number.NaN : num(r.time_ms),
      input: num(r.input),
      output: num(r.output),
      cacheRead: num(r.cache_read),
      cacheWrite: num(r.cache_write),
      totalTokens: num(r.total_tokens),
      cost: num(r.cost),
    };
    s.usage.push(row);
  }
  return [...byId.values()];
}

/** Usage summed in the database, grouped as asked. */
export function usageSums(st: StatementCache, query: UsageSumQuery): UsageSum[] {
  const where = fileConditions(query);
  if (query.sinceMs === undefined && query.by !== "quarter") {
    // Without a time, the per-file sums by model add up to the answer.
    const group = query.by === "model" ? "t.model" : query.by === "file" ? "f.path" : "NULL";
    const rows = st
      .get(
        `SELECT ${group} AS g, sum(t.input) AS input, sum(t.output) AS output, sum(t.cache_read) AS cache_read,
         sum(t.cache_write) AS cache_write, sum(t.total_tokens) AS total_tokens, sum(t.cost) AS cost,
         sum(t.records) AS records, sum(t.zero_cost) AS zero
       FROM usage_totals t JOIN files f ON f.id = t.file_id
       WHERE f.version > 0${where.sql}
       GROUP BY g`,
      )
      .all(...where.params);
    return rows.map(sumOf);
  }
  const group =
    query.by === "model"
      ? "u.model"
      : query.by === "file"
        ? "f.path"
        : query.by === "quarter"
          ? `CAST(u.time_ms / ${QUARTER_HOUR_MS} AS INTEGER) * ${QUARTER_HOUR_MS}`
          : "NULL";
  const params: (string | number)[] = [...where.params];
  let since = "";
  if (query.sinceMs !== undefined) {
    since = " AND u.time_ms >= ?";
    params.push(query.sinceMs);
  }
  const rows = st
    .get(
      `SELECT ${group} AS g, sum(u.input) AS input, sum(u.output) AS output, sum(u.cache_read) AS cache_read,
       sum(u.cache_write) AS cache_write, sum(u.total_tokens) AS total_tokens, sum(u.cost) AS cost, count(*) AS records,
       sum(u.cost = 0 AND (u.input + u.output + u.cache_read + u.cache_write > 0 OR u.total_tokens > 0)) AS zero
     FROM usage u JOIN files f ON f.id = u.file_id
     WHERE f.version > 0${where.sql}${since}
     GROUP BY g`,
    )
    .all(...params);
  return rows.map(sumOf);
}
