/**
 * A usage row as the database keeps it (a JSON text): written by the sync, read back by the
 * reports. Apart from the sync so that a reader loads none of the sync's code.
 */
import type { UsageRow } from "@pi-session/search/documents";

const NUMERIC = new Set(["time", "input", "output", "cacheRead", "cacheWrite", "totalTokens", "cost"]);

/** A usage row as JSON, its non-finite numbers (an unknown time is NaN) kept. */
export function encodeUsage(row: UsageRow): string {
  return JSON.stringify(row, (k, v) =>
    NUMERIC.has(k) && typeof v === "number" && !Number.isFinite(v) ? String(v) : v,
  );
}

export function decodeUsage(text: string): UsageRow {
  return JSON.parse(text, (k, v) => (NUMERIC.has(k) && typeof v === "string" ? Number(v) : v)) as UsageRow;
}
