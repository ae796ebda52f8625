/**
 * pi 1.6.0's free functions around sessions, same names and signatures, each composed from a
 * layer: migration from `@pi-session/migrate`, parsing from `@pi-session/format`, context
 * from `@pi-session/context`, files and paths from `@pi-session/node-store`.
 * `loadEntriesFromFile` differs in one way: it never writes (pi appends a `\n` to a file whose
 * last line is torn).
 */
import {
  getLatestCompactionEntry as latestCompaction,
  projectContextEntry as projectEntry,
} from "@pi-session/context";
import {
  type AgentMessage,
  type AnyEntry,
  type ContextEditEntry,
  parseSessionText,
} from "@pi-session/format";
import { migrateEntries } from "@pi-session/migrate";
import { keepLinesPiReads, readLinesAsPi, readSessionFileSync, resolvePiPath } from "@pi-session/node-store";
import { randomEntryId } from "./internal/ids.js";
import { jsonValues } from "./internal/open-file.js";
import type { CompactionEntry, FileEntry, SessionEntry } from "./types.js";

export {
  buildContextEntries,
  buildSessionContext,
  buildSessionProjection,
  sessionEntryToContextMessages,
} from "@pi-session/context";

/** The last compaction among the entries, or null (under pi's type, see `types.ts`). */
export function getLatestCompactionEntry(entries: SessionEntry[]): CompactionEntry | null {
  return latestCompaction(entries) as CompactionEntry | null;
}

/** One entry's messages with a context edit applied (pi's signature: the edit is optional). */
export function projectContextEntry(entry: AnyEntry, edit?: ContextEditEntry): AgentMessage[] {
  return projectEntry(entry, edit);
}

/** Migrates v1/v2 entries to v3, in place; without a header they are read as v1, as pi does. */
export function migrateSessionEntries(entries: FileEntry[]): void {
  // pi reads a missing header as version 1: header-less entries get new ids in one chain.
  migrateEntries(entries, { inPlace: true, randomId: randomEntryId, assumeVersion: 1 });
}

/** Parses JSONL text; blank and malformed lines are skipped (as pi). */
export function parseSessionEntries(content: string): FileEntry[] {
  return jsonValues(parseSessionText(content, { maxDiagnostics: 0 }).records) as unknown as FileEntry[];
}

/**
 * The parsed lines of a session file, as pi reads them (a line with invalid UTF-8 is decoded
 * with U+FFFD and kept if it parses): `[]` if it is missing, empty, or its first truthy parsed
 * line is not a header with a string id. Malformed lines are skipped. Streams; never writes.
 */
export function loadEntriesFromFile(filePath: string): FileEntry[] {
  const contents = readSessionFileSync(resolvePiPath(filePath), {
    missing: "null",
    maxDiagnostics: 0,
    keepRecord: keepLinesPiReads(),
  });
  if (!contents) return [];
  const lines = readLinesAsPi(contents.records);
  return lines.isSession ? (lines.values as unknown as FileEntry[]) : [];
}

export { findMostRecentSession, getDefaultSessionDir } from "./internal/session-dirs.js";
