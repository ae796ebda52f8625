/**
 * A file's row as the SQLite backend stores it: the session columns of `files`, the select
 * that joins `files` with `details` (facets left out), a row read back as an
 * {@link IndexedFile} and its {@link SessionMeta}, and the facet texts (every value between
 * newlines, see the schema). Use wherever a file row is written or read.
 */
import type { IndexedFile, SessionMeta } from "../database.js";
import type { SqlRow } from "./driver.js";
import { bytes, num, strOrNull } from "./values.js";

/** The session columns of `files` (the first message is in `details`). */
export const SESSION_COLUMNS =
  "session_id, cwd, created, parent_path, name, modified_ms, message_count, errored, leaf_id, entry_count, usage_repeats";

/** A whole file row (its facets, which can be long, left out): `files` joined with `details`. */
export const FILE_SELECT = `SELECT f.path, f.size, f.mtime_ms, f.ctime_ms, f.ino, f.indexed_offset, f.next_line, f.version,
  d.head, d.tail, d.first_message, ${SESSION_COLUMNS.split(", ")
    .map((c) => `f.${c}`)
    .join(", ")}
  FROM files f JOIN details d ON d.id = f.id`;

export function metaOf(row: SqlRow): SessionMeta | null {
  if (row.session_id === null || row.session_id === undefined) return null;
  return {
    sessionId: String(row.session_id),
    cwd: strOrNull(row.cwd) ?? "",
    created: strOrNull(row.created) ?? "",
    parentPath: strOrNull(row.parent_path),
    name: strOrNull(row.name),
    firstMessage: strOrNull(row.first_message) ?? "",
    modifiedMs: num(row.modified_ms),
    messageCount: num(row.message_count),
    errored: num(row.errored) === 1,
    leafId: strOrNull(row.leaf_id),
    entryCount: num(row.entry_count),
    usageRepeats: num(row.usage_repeats),
  };
}

export function fileOf(row: SqlRow): IndexedFile {
  return {
    path: String(row.path),
    size: num(row.size),
    mtimeMs: num(row.mtime_ms),
    ctimeMs: num(row.ctime_ms),
    ino: num(row.ino),
    indexedOffset: num(row.indexed_offset),
    nextLine: num(row.next_line),
    version: num(row.version),
    head: bytes(row.head),
    tail: bytes(row.tail),
    meta: metaOf(row),
  };
}

export function dirOf(path: string): string {
  const cut = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"));
  return cut > 0 ? path.slice(0, cut) : cut === 0 ? path.slice(0, 1) : "";
}

/** A facet value as stored: one line (a newline inside one would end it). */
export function facetValue(value: string): string {
  return value.replace(/[\n\r]/g, " ");
}

/** The facet text of `stored` with `values` added (each distinct value once, first seen first). */
export function facetText(stored: unknown, values: Iterable<string>): string {
  const old = typeof stored === "string" && stored !== "" ? stored.slice(1, -1).split("\n") : [];
  const all = new Set(old);
  for (const v of values) all.add(facetValue(v));
  return all.size === 0 ? "" : `\n${[...all].join("\n")}\n`;
}
