/**
 * Token and cost totals across sessions, counted once per lineage. Pure: the session
 * database stores the {@link UsageRow}s of every entry, and `computeStats` adds them up.
 *
 * A fork (`parentSession`, legacy `branchedFrom`) starts with a verbatim copy of its parent's
 * entries, ids included, so summing files naively counts the parent's spend once per fork.
 * Here every usage row is keyed by (lineage root, entry key) and counted the first time it is
 * seen; sessions are visited ancestors first, so a copied entry is credited to the session that
 * produced it. A cost recorded as 0 (or missing) next to non-zero tokens is not trusted: it adds
 * nothing to the cost, and such records and their tokens are counted apart (the tokens are real,
 * the price is unknown).
 *
 * Rows group by model, project, session or calendar period (day, ISO week, month) in a time
 * zone (`calendar.ts`), each optionally split by model; every grouping adds up to the same
 * totals, costs exactly (they are summed in billionths).
 */
import { zonedCalendar } from "./calendar.js";
import { entryTime } from "./entry.js";

type Obj = Record<string, unknown>;

function isObject(value: unknown): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function num(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

export type UsageSource = "assistant" | "usage" | "compaction" | "branch_summary" | "toolResult";

/** The usage one entry carries, as numbers. */
export interface UsageRow {
  /** The entry within its lineage: `id:<id>`, or for v1 entries (no ids) their times and type. */
  key: string;
  source: UsageSource;
  /** The model to credit it to (`provider/model`, or `(compaction)` and the like). */
  model: string;
  /** Entry time in ms, NaN when unknown. */
  time: number;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
  /** `usage.cost.total`, 0 when missing. */
  cost: number;
}

/** What stats needs of one session: its header fields and its usage rows in file order. */
export interface StatsSession {
  path: string;
  id: string;
  /** Project label (the header cwd, else the directory name). */
  project: string;
  /** Header `parentSession` or legacy `branchedFrom`. */
  parentPath: string | undefined;
  /** Header timestamp (ISO), used to visit parents before their forks. */
  created: string;
  /** The session's name (latest `session_info`), for `by: "session"` rows. */
  name?: string | null;
  usage: readonly UsageRow[];
}

export type GroupBy = "model" | "day" | "week" | "month" | "project" | "session";

/** The groupings, in the order a help text lists them. */
export const GROUPINGS: readonly GroupBy[] = ["day", "week", "month", "session", "project", "model"];

/** The groupings by calendar period. */
export const PERIODS: readonly GroupBy[] = ["day", "week", "month"];

export interface TokenTotals {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
  /**
   * Sum of `usage.cost.total`, in the provider's currency (USD for pi). Added up exactly in
   * billionths (each record's cost rounded to 1e-9 first), so a row's cost is the sum of its
   * parts whatever the order; round it for display with {@link roundCost}.
   */
  cost: number;
  /** Usage records counted. */
  records: number;
  /**
   * Records whose cost is 0 or missing although they carry tokens: their price is unknown, so
   * `cost` leaves them out (it is too low by their price).
   */
  zeroCostWithTokens: number;
  /** The tokens (`totalTokens`) of those records. */
  unpricedTokens: number;
}

/** A session a `by: "session"` row stands for. */
export interface StatsRowSession {
  id: string;
  path: string;
  /** Its name (latest `session_info`), or null. */
  name: string | null;
  project: string;
  /** Header timestamp (ISO, as written). */
  created: string;
  /** Times (ms) of the first and last usage record counted in the row; NaN when unknown. */
  firstUsageMs: number;
  lastUsageMs: number;
}

export interface StatsRow extends TokenTotals {
  key: string;
  /** With `breakdown`: the row split by model, most expensive first (they add up to the row). */
  models?: StatsRow[];
  /** With `by: "session"`: the session. */
  session?: StatsRowSession;
}

export interface StatsResult {
  /** Sessions the report covers: those with at least one usage record counted. */
  sessions: number;
  /** Sessions read (covered or not: no usage in the range, or only copies of a parent's). */
  sessionsRead: number;
  /** Usage records skipped because an ancestor in the same lineage already counted them. */
  duplicatesSkipped: number;
  /** Usage records left out by `sinceMs` / `untilMs` (an unknown time is out of any range). */
  outsideRange: number;
  totals: TokenTotals;
  by: GroupBy | null;
  breakdown: boolean;
  /** The time zone periods were taken in. */
  timeZone: string;
  /** Times (ms) of the first and last usage record counted; NaN when none has a time. */
  firstUsageMs: number;
  lastUsageMs: number;
  rows: StatsRow[];
}

export interface StatsOptions {
  by?: GroupBy;
  /** Split each row by model (not with `by: "model"`). */
  breakdown?: boolean;
  /** Only usage whose entry time is at or after this time (ms). */
  sinceMs?: number;
  /** Only usage whose entry time is before this time (ms). */
  untilMs?: number;
  /** The time zone of day, week and month periods (IANA name); default the runtime's. */
  timeZone?: string;
  /**
   * The row key of counted usage, instead of `by`'s: for a report grouped by two things at once
   * (a week and a project, a day and a model), counted once per lineage all the same. `time` is
   * the record's (NaN when unknown), or the start of its quarter hour for usage summed elsewhere.
   */
  groupOf?: (usage: { model: string; time: number }, session: Omit<StatsSession, "usage">) => string;
}

/** A cost rounded to `decimals` places (6 by default: what JSON output shows). */
export function roundCost(cost: number, decimals = 6): number {
  const scale = 10 ** decimals;
  return Math.round(cost * scale) / scale;
}

/** The usage an entry carries, if any, and the model to credit it to. */
function usageOf(entry: Obj): { source: UsageSource; model: string; usage: Obj } | undefined {
  const type = entry.type;
  if (type === "message" && isObject(entry.message)) {
    const message = entry.message;
    if (!isObject(message.usage)) return undefined;
    if (message.role === "assistant") {
      const provider = typeof message.provider === "string" ? message.provider : "";
      const model = typeof message.model === "string" ? message.model : "unknown";
      return { source: "assistant", model: provider ? `${provider}/${model}` : model, usage: message.usage };
    }
    if (message.role === "toolResult")
      return { source: "toolResult", model: "(tool results)", usage: message.usage };
    return undefined;
  }
  if (type === "usage" && isObject(entry.usage)) {
    const provider = typeof entry.provider === "string" ? entry.provider : "";
    const model = typeof entry.model === "string" ? entry.model : "unknown";
    return { source: "usage", model: provider ? `${provider}/${model}` : model, usage: entry.usage };
  }
  if ((type === "compaction" || type === "branch_summary") && isObject(entry.usage)) {
    return {
      source: type,
      model: type === "compaction" ? "(compaction)" : "(branch summary)",
      usage: entry.usage,
    };
  }
  return undefined;
}

/** A key for an entry within its lineage: its id, or (v1 files, no ids) its timestamps and type. */
function entryKey(entry: Obj): string {
  if (typeof entry.id === "string") return `id:${entry.id}`;
  const message = isObject(entry.message) ? entry.message : undefined;
  return `v1:${String(entry.type)}:${String(entry.timestamp)}:${String(message?.timestamp ?? "")}:${String(message?.role ?? "")}`;
}

/**
 * The usage row of one entry as it is in the file (any version: v1 entries are keyed by their
 * times, so read usage from the records, not from migrated entries), or undefined.
 */
export function usageRow(entry: Obj): UsageRow | undefined {
  const found = usageOf(entry);
  if (!found) return undefined;
  const usage = found.usage;
  const input = num(usage.input);
  const output = num(usage.output);
  const cacheRead = num(usage.cacheRead);
  const cacheWrite = num(usage.cacheWrite);
  const tokens = input + output + cacheRead + cacheWrite;
  return {
    key: entryKey(entry),
    source: found.source,
    model: found.model,
    time: entryTime(entry),
    input,
    output,
    cacheRead,
    cacheWrite,
    totalTokens: typeof usage.totalTokens === "number" ? num(usage.totalTokens) : tokens,
    cost: isObject(usage.cost) ? num(usage.cost.total) : 0,
  };
}

/** The usage rows of entries in file order. */
export function usageRows(entries: Iterable<Obj>): UsageRow[] {
  const rows: UsageRow[] = [];
  for (const entry of entries) {
    const row = usageRow(entry);
    if (row) rows.push(row);
  }
  return rows;
}

/**
 * Totals being added up, cost in billionths (an integer), so sums are exact in any order; a
 * database keeps the same figures, so what it sums equals what is added up here.
 */
export interface Accumulator extends Omit<TokenTotals, "cost"> {
  costNanos: number;
}

/** Totals of nothing. */
export function emptyAccumulator(): Accumulator {
  return {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 0,
    costNanos: 0,
    records: 0,
    zeroCostWithTokens: 0,
    unpricedTokens: 0,
  };
}

/**
 * A cost in billionths, rounded half away from zero (as SQLite's `round` does, so a sum in SQL
 * of `round(cost * 1e9)` is the same integer).
 */
export function costNanos(cost: number): number {
  const n = cost * 1e9;
  return n < 0 ? -Math.round(-n) : Math.round(n);
}

/** Whether a row's cost is unknown: 0 (or none) next to tokens. */
export function unpriced(row: UsageRow): boolean {
  return (
    row.cost === 0 && (row.input + row.output + row.cacheRead + row.cacheWrite > 0 || row.totalTokens > 0)
  );
}

/** Adds one usage row to `into`. */
export function addUsage(into: Accumulator, row: UsageRow): void {
  into.input += row.input;
  into.output += row.output;
  into.cacheRead += row.cacheRead;
  into.cacheWrite += row.cacheWrite;
  into.totalTokens += row.totalTokens;
  into.costNanos += costNanos(row.cost);
  into.records += 1;
  if (unpriced(row)) {
    into.zeroCostWithTokens += 1;
    into.unpricedTokens += row.totalTokens;
  }
}

/** Adds totals summed elsewhere to `into`. */
function addSum(into: Accumulator, sum: Accumulator): void {
  into.input += sum.input;
  into.output += sum.output;
  into.cacheRead += sum.cacheRead;
  into.cacheWrite += sum.cacheWrite;
  into.totalTokens += sum.totalTokens;
  into.costNanos += sum.costNanos;
  into.records += sum.records;
  into.zeroCostWithTokens += sum.zeroCostWithTokens;
  into.unpricedTokens += sum.unpricedTokens;
}

function totalsOf(acc: Accumulator): TokenTotals {
  const { costNanos, ...rest } = acc;
  return {
    input: rest.input,
    output: rest.output,
    cacheRead: rest.cacheRead,
    cacheWrite: rest.cacheWrite,
    totalTokens: rest.totalTokens,
    cost: costNanos / 1e9,
    records: rest.records,
    zeroCostWithTokens: rest.zeroCostWithTokens,
    unpricedTokens: rest.unpricedTokens,
  };
}

/** The file name's last segment without directories (either separator). */
function baseName(path: string): string {
  const cut = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"));
  return cut >= 0 ? path.slice(cut + 1) : path;
}

/** Session id from a path pi wrote (`<timestamp>_<id>.jsonl`), else the path itself. */
function idFromPath(path: string): string {
  const name = baseName(path);
  const stem = name.endsWith(".jsonl") ? name.slice(0, -6) : name;
  const cut = stem.indexOf("_");
  return cut >= 0 ? stem.slice(cut + 1) : stem;
}

/**
 * The lineage root of every session: follow parent links through the sessions given (by path,
 * or by the id in the parent's file name, since a store may have moved); a parent that is not
 * among them still names the root by its id, so two forks of a missing parent share a root.
 */
export function lineageRoots<S extends Pick<StatsSession, "path" | "id" | "parentPath">>(
  sessions: readonly S[],
): Map<S, string> {
  const byPath = new Map<string, S>();
  const byId = new Map<string, S>();
  for (const s of sessions) {
    byPath.set(s.path, s);
    if (!byId.has(s.id)) byId.set(s.id, s);
  }
  const roots = new Map<S, string>();
  for (const start of sessions) {
    let current = start;
    let root = start.id;
    const seen = new Set<S>([start]);
    while (current.parentPath !== undefined) {
      const parentId = idFromPath(current.parentPath);
      const parent = byPath.get(current.parentPath) ?? byId.get(parentId);
      root = parent ? parent.id : parentId;
      if (!parent || seen.has(parent)) break;
      seen.add(parent);
      current = parent;
    }
    roots.set(start, root);
  }
  return roots;
}

/** The key of the row of usage records whose time is unknown, in a report by period. */
export const UNKNOWN_TIME = "unknown";

/**
 * Usage of one session summed where it is stored (a database sums the sessions that need no
 * deduplication: alone in their lineage, no entry key repeated), for {@link computeStats}.
 */
export interface SummedSession {
  session: Omit<StatsSession, "usage">;
  /**
   * Its usage records in the range, summed by model and, for a report by period, by quarter
   * hour (every zone's offset is a whole number of them, so a quarter hour lies in one day).
   */
  parts: readonly UsagePart[];
  /** Its usage records the range left out. */
  outsideRange: number;
}

/** Usage records of one session and model (and quarter hour), summed. */
export interface UsagePart extends Accumulator {
  model: string;
  /**
   * The start (ms) of the quarter hour the records fall in, NaN for records without a time;
   * absent when the parts are not split by time (then no report by period can use them).
   */
  quarterMs?: number;
  /** Times (ms) of the first and last of the records; NaN when none has a time. */
  firstMs: number;
  lastMs: number;
}

/** A row being added up. */
interface Group {
  totals: Accumulator;
  models: Map<string, Accumulator> | undefined;
  session: StatsRowSession | undefined;
}

const byCost = (a: StatsRow, b: StatsRow) =>
  b.cost - a.cost || b.totalTokens - a.totalTokens || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

/** Periods in time order; the records without a time last. */
const byPeriod = (a: StatsRow, b: StatsRow) =>
  a.key === b.key ? 0 : a.key === UNKNOWN_TIME ? 1 : b.key === UNKNOWN_TIME ? -1 : a.key < b.key ? -1 : 1;

const earlier = (a: number, b: number) => (Number.isNaN(a) || b < a ? b : a);
const later = (a: number, b: number) => (Number.isNaN(a) || b > a ? b : a);

/**
 * Token and cost totals of sessions, each usage record counted once per lineage (see the
 * module header), grouped as `options` asks: by model, project, session, or calendar period in
 * a time zone, each row optionally split by model. Every grouping adds up to the same totals.
 *
 * `summed` are sessions whose usage was summed elsewhere (they must need no deduplication, and
 * be summed by quarter hour for a report by period); they count as if their rows were given.
 */
export function computeStats(
  sessions: readonly StatsSession[],
  options: StatsOptions = {},
  summed: readonly SummedSession[] = [],
): StatsResult {
  const by = options.by;
  const breakdown = options.breakdown === true && by !== undefined && by !== "model";
  const calendar = zonedCalendar(options.timeZone);
  const roots = lineageRoots(sessions);
  // Ancestors first: a parent is created before its forks; ties by path for stable output.
  const ordered = [...sessions].sort((a, b) =>
    a.created < b.created ? -1 : a.created > b.created ? 1 : a.path < b.path ? -1 : a.path > b.path ? 1 : 0,
  );
  const seen = new Set<string>();
  const totals = emptyAccumulator();
  const groups = new Map<string, Group>();
  let duplicatesSkipped = 0;
  let outsideRange = 0;
  let covered = 0;
  let firstUsageMs = Number.NaN;
  let lastUsageMs = Number.NaN;

  /** Credits records (one, or a sum) of `session` and `model` to the totals and their row. */
  function credit(
    session: Omit<StatsSession, "usage">,
    model: string,
    time: number,
    firstMs: number,
    lastMs: number,
    addTo: (into: Accumulator) => void,
  ): void {
    addTo(totals);
    if (!Number.isNaN(firstMs)) {
      firstUsageMs = earlier(firstUsageMs, firstMs);
      lastUsageMs = later(lastUsageMs, lastMs);
    }
    if (!by && !options.groupOf) return;
    let groupKey = "";
    if (options.groupOf) groupKey = options.groupOf({ model, time }, session);
    else
      switch (by) {
        case "model":
          groupKey = model;
          break;
        case "day":
          groupKey = Number.isNaN(time) ? UNKNOWN_TIME : calendar.dayOf(time);
          break;
        case "week":
          groupKey = Number.isNaN(time) ? UNKNOWN_TIME : calendar.weekOf(time);
          break;
        case "month":
          groupKey = Number.isNaN(time) ? UNKNOWN_TIME : calendar.monthOf(time);
          break;
        case "project":
          groupKey = session.project;
          break;
        case "session":
          groupKey = session.id;
          break;
      }
    let group = groups.get(groupKey);
    if (!group) {
      group = {
        totals: emptyAccumulator(),
        models: breakdown ? new Map() : undefined,
        session:
          by === "session"
            ? {
                id: session.id,
                path: session.path,
                name: session.name ?? null,
                project: session.project,
                created: session.created,
                firstUsageMs: Number.NaN,
                lastUsageMs: Number.NaN,
              }
            : undefined,
      };
      groups.set(groupKey, group);
    }
    addTo(group.totals);
    if (group.session && !Number.isNaN(firstMs)) {
      group.session.firstUsageMs = earlier(group.session.firstUsageMs, firstMs);
      group.session.lastUsageMs = later(group.session.lastUsageMs, lastMs);
    }
    if (group.models) {
      let sum = group.models.get(model);
      if (!sum) {
        sum = emptyAccumulator();
        group.models.set(model, sum);
      }
      addTo(sum);
    }
  }

  for (const session of ordered) {
    const root = roots.get(session) ?? session.id;
    let counted = false;
    for (const row of session.usage) {
      const key = `${root}\u0000${row.key}`;
      if (seen.has(key)) {
        duplicatesSkipped++;
        continue;
      }
      seen.add(key);
      const time = row.time;
      if (
        (options.sinceMs !== undefined && !(time >= options.sinceMs)) ||
        (options.untilMs !== undefined && !(time < options.untilMs))
      ) {
        outsideRange++;
        continue;
      }
      counted = true;
      credit(session, row.model, time, time, time, (into) => addUsage(into, row));
    }
    if (counted) covered++;
  }
  const periods = by !== undefined && PERIODS.includes(by);
  for (const { session, parts, outsideRange: out } of summed) {
    outsideRange += out;
    let counted = false;
    for (const part of parts) {
      if (part.records === 0) continue;
      if (periods && part.quarterMs === undefined)
        throw new Error(`computeStats: a report by ${by} needs usage summed by quarter hour`);
      counted = true;
      credit(session, part.model, part.quarterMs ?? Number.NaN, part.firstMs, part.lastMs, (into) =>
        addSum(into, part),
      );
    }
    if (counted) covered++;
  }
  const rows: StatsRow[] = [...groups.entries()].map(([key, group]) => {
    const row: StatsRow = { key, ...totalsOf(group.totals) };
    if (group.models)
      row.models = [...group.models.entries()]
        .map(([model, t]) => ({ key: model, ...totalsOf(t) }))
        .sort(byCost);
    if (group.session) row.session = group.session;
    return row;
  });
  rows.sort(periods ? byPeriod : byCost);
  return {
    sessions: covered,
    sessionsRead: sessions.length + summed.length,
    duplicatesSkipped,
    outsideRange,
    totals: totalsOf(totals),
    by: by ?? null,
    breakdown,
    timeZone: calendar.timeZone,
    firstUsageMs,
    lastUsageMs,
    rows,
  };
}
