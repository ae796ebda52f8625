/**
 * pi 1.6.0's free functions around sessions, same names and signatures. `loadEntriesFromFile`
 * differs in one way: it never writes (pi appends a `\n` to a file whose last line is torn).
 */
import { existsSync } from "node:fs";
import type { FileEntry } from "@pi-session/format";
import { entriesOf, readLinesFrom } from "./internal/file-io.js";
import { migrateToCurrentVersion } from "./internal/migration.js";
import { resolvePath } from "./internal/paths.js";

/** Migrates v1/v2 entries (header included) to v3, in place. */
export function migrateSessionEntries(entries: FileEntry[]): void {
  migrateToCurrentVersion(entries);
}

/** Parses JSONL text; blank and malformed lines are skipped (as pi). */
export function parseSessionEntries(content: string): FileEntry[] {
  const entries: FileEntry[] = [];
  for (const line of content.trim().split("\n")) {
    if (!line.trim()) continue;
    try {
      entries.push(JSON.parse(line) as FileEntry);
    } catch {
      // skipped, as pi does
    }
  }
  return entries;
}

/**
 * The parsed lines of a session file: `[]` if it is missing, empty, or its first parsed line is
 * not a header with a string id. Malformed lines are skipped. Reads in chunks; never writes.
 */
export function loadEntriesFromFile(filePath: string): FileEntry[] {
  const path = resolvePath(filePath);
  if (!existsSync(path)) return [];
  return entriesOf(readLinesFrom(path).lines) as unknown as FileEntry[];
}
