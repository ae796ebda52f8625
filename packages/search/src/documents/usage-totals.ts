/**
 * Token and cost totals ({@link TokenTotals}) and the {@link Accumulator} that adds usage rows
 * up, cost in billionths so every sum is exact in any order (a database sums the same
 * integers). Use it to add up usage rows or sums of them.
 */
import type { UsageRow } from "./usage-rows.js";

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

/** A cost rounded to `decimals` places (6 by default: what JSON output shows). */
export function roundCost(cost: number, decimals = 6): number {
  const scale = 10 ** decimals;
  return Math.round(cost * scale) / scale;
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
export function addSum(into: Accumulator, sum: Accumulator): void {
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

/** The totals an accumulator holds, cost in the currency again. */
export function totalsOf(acc: Accumulator): TokenTotals {
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
