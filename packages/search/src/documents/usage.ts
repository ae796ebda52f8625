/**
 * Token and cost totals across sessions, counted once per lineage. Pure: the session
 * database stores the {@link UsageRow}s of every entry, and `computeStats` adds them up.
 *
 * A fork (`parentSession`, legacy `branchedFrom`) starts with a verbatim copy of its parent's
 * entries, ids included, so summing files naively counts the parent's spend once per fork.
 * Here every usage row is keyed by (lineage root, entry key) and counted the first time it is
 * seen; sessions are visited ancestors first, so a copied entry is credited to the session that
 * produced it. A cost recorded as 0 (or missing) next to non-zero tokens is counted as 0 and
 * flagged: the tokens are real, the price is unknown.
 */
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
  usage: readonly UsageRow[];
}

export type GroupBy = "model" | "day" | "project" | "session";

export interface TokenTotals {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
  /** Sum of `usage.cost.total`, in the provider's currency (USD for pi). */
  cost: number;
  /** Usage records counted. */
  records: number;
  /** Records whose cost is 0 or missing although they carry tokens (cost not trusted). */
  zeroCostWithTokens: number;
}

export interface StatsRow extends TokenTotals {
  key: string;
}

export interface StatsResult {
  sessions: number;
  /** Usage records skipped because an ancestor in the same lineage already counted them. */
  duplicatesSkipped: number;
  totals: TokenTotals;
  by: GroupBy | null;
  rows: StatsRow[];
}

export interface StatsOptions {
  by?: GroupBy;
  /** Only usage whose entry timestamp is at or after this time (ms). */
  sinceMs?: number;
  /** Formats an entry time (ms) as a day key; defaults to the local `YYYY-MM-DD`. */
  dayOf?: (ms: number) => string;
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

function emptyTotals(): TokenTotals {
  return {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 0,
    cost: 0,
    records: 0,
    zeroCostWithTokens: 0,
  };
}

function add(into: TokenTotals, row: UsageRow): void {
  into.input += row.input;
  into.output += row.output;
  into.cacheRead += row.cacheRead;
  into.cacheWrite += row.cacheWrite;
  into.totalTokens += row.totalTokens;
  into.cost += row.cost;
  into.records += 1;
  const tokens = row.input + row.output + row.cacheRead + row.cacheWrite;
  if (row.cost === 0 && (tokens > 0 || row.totalTokens > 0)) into.zeroCostWithTokens += 1;
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

/** The local `YYYY-MM-DD` of a time (ms): the default day key of `computeStats`. */
export function localDay(ms: number): string {
  const d = new Date(ms);
  const mm = String(d.getMonth() + 1).padStart(2, "0");
  const dd = String(d.getDate()).padStart(2, "0");
  return `${d.getFullYear()}-${mm}-${dd}`;
}

export function computeStats(sessions: readonly StatsSession[], options: StatsOptions = {}): StatsResult {
  const roots = lineageRoots(sessions);
  // Ancestors first: a parent is created before its forks; ties by path for stable output.
  const ordered = [...sessions].sort((a, b) =>
    a.created < b.created ? -1 : a.created > b.created ? 1 : a.path < b.path ? -1 : a.path > b.path ? 1 : 0,
  );
  const seen = new Set<string>();
  const totals = emptyTotals();
  const groups = new Map<string, TokenTotals>();
  const dayOf = options.dayOf ?? localDay;
  let duplicatesSkipped = 0;
  for (const session of ordered) {
    const root = roots.get(session) ?? session.id;
    for (const row of session.usage) {
      const key = `${root}\u0000${row.key}`;
      if (seen.has(key)) {
        duplicatesSkipped++;
        continue;
      }
      seen.add(key);
      const time = row.time;
      if (options.sinceMs !== undefined && !(time >= options.sinceMs)) continue;
      add(totals, row);
      if (!options.by) continue;
      let group: string;
      switch (options.by) {
        case "model":
          group = row.model;
          break;
        case "day":
          group = Number.isNaN(time) ? "unknown" : dayOf(time);
          break;
        case "project":
          group = session.project;
          break;
        case "session":
          group = session.id;
          break;
      }
      let bucket = groups.get(group);
      if (!bucket) {
        bucket = emptyTotals();
        groups.set(group, bucket);
      }
      add(bucket, row);
    }
  }
  const rows = [...groups.entries()].map(([key, t]) => ({ key, ...t }));
  return {
    sessions: sessions.length,
    duplicatesSkipped,
    totals,
    by: options.by ?? null,
    rows: sortRows(rows, options.by),
  };
}

/** Rows in report order: days in order; other groups by cost, then tokens, then key. */
function sortRows(rows: StatsRow[], by: GroupBy | undefined): StatsRow[] {
  if (by === "day") return rows.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return rows.sort((a, b) => b.cost - a.cost || b.totalTokens - a.totalTokens || (a.key < b.key ? -1 : 1));
}

/**
 * A result with totals summed elsewhere added (usage a database summed where it is stored, of
 * sessions that needed no deduplication: see `computeStats`), `sessions` more sessions counted.
 * Each sum is credited to its group key (ignored without a grouping).
 */
export function withSums(
  result: StatsResult,
  sums: readonly { group: string; totals: TokenTotals }[],
  sessions: number,
): StatsResult {
  const totals = { ...result.totals };
  const groups = new Map(result.rows.map((r) => [r.key, { ...r }]));
  for (const { group, totals: t } of sums) {
    addTotals(totals, t);
    if (!result.by) continue;
    let bucket = groups.get(group);
    if (!bucket) {
      bucket = { key: group, ...emptyTotals() };
      groups.set(group, bucket);
    }
    addTotals(bucket, t);
  }
  return {
    sessions: result.sessions + sessions,
    duplicatesSkipped: result.duplicatesSkipped,
    totals,
    by: result.by,
    rows: sortRows([...groups.values()], result.by ?? undefined),
  };
}

function addTotals(into: TokenTotals, t: TokenTotals): void {
  into.input += t.input;
  into.output += t.output;
  into.cacheRead += t.cacheRead;
  into.cacheWrite += t.cacheWrite;
  into.totalTokens += t.totalTokens;
  into.cost += t.cost;
  into.records += t.records;
  into.zeroCostWithTokens += t.zeroCostWithTokens;
}
