/**
 * The usage queries of the SQLite backend: the usage rows of the chosen session files (for
 * `stats` to deduplicate and add up), and sums computed in the database by file and model, from
 * the per-file totals by model when no time bounds or splits them, else from the rows (in the
 * range, by quarter hour too for a report by period). Use through the session database's
 * `usage` and `usageSums`.
 */
import type { UsageSession, UsageSum, UsageSumQuery } from "../database.js";
import { QUARTER_HOUR_MS, type UsageRow } from "../documents/index.js";
import type { SqlRow } from "./driver.js";
import { SESSION_COLUMNS, metaOf } from "./file-rows.js";
import type { StatementCache } from "./statements.js";
import { num } from "./values.js";

/** Quarter hours: every time zone's offset is a whole number of them, so a day is a set of them. */
const Q = QUARTER_HOUR_MS;

/** A time (ms) from a row, NaN for NULL. */
function timeOf(v: unknown): number {
  return v === null || v === undefined ? Number.NaN : num(v);
}

/** A summed row as a {@link UsageSum} (`q`, when selected, the start of its quarter hour). */
function sumOf(r: SqlRow): UsageSum {
  return {
    path: String(r.path),
    model: String(r.model),
    ...("q" in r ? { quarterMs: timeOf(r.q) } : {}),
    input: num(r.input),
    output: num(r.output),
    cacheRead: num(r.cache_read),
    cacheWrite: num(r.cache_write),
    totalTokens: num(r.total_tokens),
    costNanos: num(r.cost_nanos),
    records: num(r.records),
    zeroCostWithTokens: num(r.zero_cost),
    unpricedTokens: num(r.unpriced_tokens),
    firstMs: timeOf(r.first_ms),
    lastMs: timeOf(r.last_ms),
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

/** Usage summed in the database by file and model (and quarter hour), in the range asked. */
export function usageSums(st: StatementCache, query: UsageSumQuery): UsageSum[] {
  const where = fileConditions(query);
  if (query.sinceMs === undefined && query.untilMs === undefined && !query.quarters) {
    // Without a time, the per-file sums by model are the answer.
    return st
      .get(
        `SELECT f.path AS path, t.model AS model, t.input, t.output, t.cache_read, t.cache_write, t.total_tokens,
           t.cost_nanos, t.records, t.zero_cost, t.unpriced_tokens, t.first_ms, t.last_ms
         FROM usage_totals t JOIN files f ON f.id = t.file_id
         WHERE f.version > 0${where.sql}`,
      )
      .all(...where.params)
      .map(sumOf);
  }
  const params: (string | number)[] = [...where.params];
  let range = "";
  if (query.sinceMs !== undefined) {
    range += " AND u.time_ms >= ?";
    params.push(query.sinceMs);
  }
  if (query.untilMs !== undefined) {
    range += " AND u.time_ms < ?";
    params.push(query.untilMs);
  }
  // The quarter hour's start, rounded down for times before 1970 too; NULL for no time.
  const t = "CAST(u.time_ms AS INTEGER)";
  const quarter = query.quarters ? `, ${t} - ((${t} % ${Q}) + ${Q}) % ${Q} AS q` : "";
  const unpriced =
    "u.cost = 0 AND (u.input + u.output + u.cache_read + u.cache_write > 0 OR u.total_tokens > 0)";
  return st
    .get(
      `SELECT f.path AS path, u.model AS model${quarter}, sum(u.input) AS input, sum(u.output) AS output,
         sum(u.cache_read) AS cache_read, sum(u.cache_write) AS cache_write, sum(u.total_tokens) AS total_tokens,
         sum(CAST(round(u.cost * 1000000000.0) AS INTEGER)) AS cost_nanos, count(*) AS records,
         sum(CASE WHEN ${unpriced} THEN 1 ELSE 0 END) AS zero_cost,
         sum(CASE WHEN ${unpriced} THEN u.total_tokens ELSE 0 END) AS unpriced_tokens,
         min(u.time_ms) AS first_ms, max(u.time_ms) AS last_ms
       FROM usage u JOIN files f ON f.id = u.file_id
       WHERE f.version > 0${where.sql}${range}
       GROUP BY u.file_id, u.model${query.quarters ? ", q" : ""}`,
    )
    .all(...params)
    .map(sumOf);
}
