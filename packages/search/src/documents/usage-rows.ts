/**
 * The usage one entry carries, as numbers ({@link UsageRow}): an assistant message's, a `usage`
 * entry's, a compaction's or branch summary's, a tool result's; keyed within its lineage, so
 * a fork's copy of a parent's entry is recognised. Use it where usage is read from entries
 * (the session database stores these rows; `stats` adds them up).
 */
import { isObject } from "@pi-session/format";
import { entryTime } from "./entry.js";

type Obj = Record<string, unknown>;

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
