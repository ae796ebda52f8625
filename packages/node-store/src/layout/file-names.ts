/**
 * Session ids and file names: pi's id rule, and `<timestamp with : and . as ->_<id>.jsonl`
 * made and parsed.
 */
import { basename } from "node:path";
import { UnsafePathError, safeJoin } from "./pi-paths.js";

/** pi's session id rule (`assertValidSessionId`, 1.6.0). */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/;

/** pi's message, reproduced literally. */
export const INVALID_SESSION_ID_MESSAGE =
  "Session id must be non-empty, contain only alphanumeric characters, '-', '_', and '.', and start and end with an alphanumeric character";

export function isValidSessionId(id: unknown): id is string {
  return typeof id === "string" && SESSION_ID_PATTERN.test(id);
}

/** Throws pi's error when `id` is not a valid session id. */
export function assertValidSessionId(id: unknown): asserts id is string {
  if (!isValidSessionId(id)) throw new Error(INVALID_SESSION_ID_MESSAGE);
}

/**
 * The file name pi gives a session: `<isoTimestamp with : and . replaced by ->_<id>.jsonl`.
 * Throws for an invalid id, or a timestamp that contains a path separator, NUL or `_`.
 */
export function sessionFileName(isoTimestamp: string, sessionId: string): string {
  assertValidSessionId(sessionId);
  if (/[/\\\0_]/.test(isoTimestamp) || isoTimestamp === "") {
    throw new UnsafePathError(".", isoTimestamp);
  }
  return `${isoTimestamp.replace(/[:.]/g, "-")}_${sessionId}.jsonl`;
}

/** Full path of a new session file in `dir`. */
export function sessionFilePath(dir: string, isoTimestamp: string, sessionId: string): string {
  return safeJoin(dir, sessionFileName(isoTimestamp, sessionId));
}

export interface ParsedSessionFileName {
  /** The timestamp part as it appears in the name, e.g. `2025-01-01T00-00-00-000Z`. */
  fileTimestamp: string;
  /** The ISO timestamp it encodes (`2025-01-01T00:00:00.000Z`), when it has pi's shape. */
  isoTimestamp?: string;
  sessionId: string;
}

/**
 * Splits a pi session file name (a base name or a path) into timestamp and id; null when the
 * name is not `<timestamp>_<valid id>.jsonl`.
 */
export function parseSessionFileName(name: string): ParsedSessionFileName | null {
  const base = basename(name);
  if (!base.endsWith(".jsonl")) return null;
  const stem = base.slice(0, -".jsonl".length);
  const cut = stem.indexOf("_");
  if (cut <= 0) return null;
  const fileTimestamp = stem.slice(0, cut);
  const sessionId = stem.slice(cut + 1);
  if (!isValidSessionId(sessionId)) return null;
  const m = /^(\d{4,}-\d{2}-\d{2}T\d{2})-(\d{2})-(\d{2})-(\d{3})Z$/.exec(fileTimestamp);
  const result: ParsedSessionFileName = { fileTimestamp, sessionId };
  if (m) result.isoTimestamp = `${m[1]}:${m[2]}:${m[3]}.${m[4]}Z`;
  return result;
}

/**
 * The session id a file's name gives: the id of a pi file name (see {@link parseSessionFileName}),
 * else what follows its first `_`, else the name itself (without `.jsonl`). For finding a session
 * by id among files without reading them; the header's id is the session's own.
 */
export function sessionIdOfFileName(name: string): string {
  const parsed = parseSessionFileName(name);
  if (parsed) return parsed.sessionId;
  const base = basename(name);
  const stem = base.endsWith(".jsonl") ? base.slice(0, -".jsonl".length) : base;
  const cut = stem.indexOf("_");
  return cut >= 0 ? stem.slice(cut + 1) : stem;
}
