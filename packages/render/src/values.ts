/**
 * Reading the values of a session for display: files are read without validation, so a field
 * may hold anything. Use these where a renderer reads a field it will show: a string or
 * nothing ({@link stringOrEmpty}), a value as JSON text ({@link displayJson}), a message time
 * as ISO ({@link msToIso}). For the JSON-object test itself, format's `isObject`.
 */
import { jsonText } from "./json.js";

/** The value if it is a string, else "". */
export function stringOrEmpty(value: unknown): string {
  return typeof value === "string" ? value : "";
}

/** Pretty JSON of a session value, at any depth; `String(value)` where JSON cannot show it. */
export function displayJson(value: unknown): string {
  try {
    return jsonText(value, 2) || String(value);
  } catch {
    // A getter that throws, a BigInt: not what a parsed file holds; show what can be shown.
    return String(value);
  }
}

/** Milliseconds (a message timestamp) to ISO, or undefined. */
export function msToIso(ms: unknown): string | undefined {
  if (typeof ms !== "number" || !Number.isFinite(ms)) return undefined;
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}
