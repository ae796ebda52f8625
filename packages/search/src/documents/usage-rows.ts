/**
 * The usage one entry carries, as numbers ({@link UsageRow}): an assistant message's, a `usage`
 * entry's, a compaction's or branch summary's, a tool result's; keyed within its lineage, so
 * a fork's copy of a parent's entry is recognised. Use it where usage is read from entries
 * (the session database stores these rows; `stats` adds them up).
 */
import {
  ENTRY_TYPE_INFO,
  type EntryTypeWithUsage,
  entryTypeInfo,
  isObject,
  type UsageRole,
} from "@pi-session/format";
import { entryTime } from "./entry.js";

type Obj = Record<string, unknown>;

function num(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

/** The entry types that carry usage of their own (format's registry). */
type UsageEntryType = EntryTypeWithUsage<Exclude<UsageRole, "none">>;

/** Where a row's usage was found: a message's role, or an entry type that carries usage. */
export type UsageSource = "assistant" | "toolResult" | UsageEntryType;

function carriesUsage(type: unknown): type is UsageEntryType {
  const role = entryTypeInfo(type)?.usage;
  return role !== undefined && role !== "none";
}

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
  if (!carriesUsage(type) || !isObject(entry.usage)) return undefined;
  // Other entry types: where format's registry credits the usage they carry.
  const { usage: role, summary } = ENTRY_TYPE_INFO[type];
  switch (role) {
    case "model": {
      const provider = typeof entry.provider === "string" ? entry.provider : "";
      const model = typeof entry.model === "string" ? entry.model : "unknown";
      return { source: type, model: provider ? `${provider}/${model}` : model, usage: entry.usage };
    }
    case "summary":
      return { source: type, model: `(${summary.kind})`, usage: entry.usage };
    default:
      return role satisfies never;
  }
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
