/**
 * `isEntryOfType(entry, type)`: narrows an entry of any type to the entry type its `type` tag
 * names (`"compaction"` -> `CompactionEntry`). Use it where code reads the fields of one entry
 * type from a list that may hold unknown types too (`AnyEntry`, whose `type` is any string, so
 * a `switch` on it cannot narrow). It checks the tag only, as the format's types promise: the
 * fields are what the file holds (check untrusted data with `@pi-session/format/schema`).
 */
import type { KnownSessionEntry, SessionEntryType } from "./types.js";

/** The entry type of a known `type` tag. */
export type EntryOfType<T extends SessionEntryType> = Extract<KnownSessionEntry, { type: T }>;

export function isEntryOfType<T extends SessionEntryType>(
  entry: { type: string },
  type: T,
): entry is EntryOfType<T> {
  return entry.type === type;
}
