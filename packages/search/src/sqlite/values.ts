/**
 * Reading SQLite column values as the session database's types: the drivers give numbers as
 * number or bigint, text as string or null, blobs as Uint8Array. Use on every value a
 * statement returns.
 */

export function num(v: unknown): number {
  return typeof v === "bigint" ? Number(v) : typeof v === "number" ? v : 0;
}

export function strOrNull(v: unknown): string | null {
  return typeof v === "string" ? v : null;
}

export function bytes(v: unknown): Uint8Array {
  return v instanceof Uint8Array ? v : new Uint8Array(0);
}
