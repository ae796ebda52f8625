/**
 * The one place the CLI calls `@pi-session/migrate` for reading: the records of a file in any
 * version -> its header and v3 entries, in memory, each with its line and byte offset.
 * Ids given to v1 entries are deterministic (derived from the session id and line), so the
 * ids `tree` shows for a v1 file are the same on every run and usable with `--leaf`.
 */
import type { AnyEntry, SessionHeader, SessionRecord } from "@pi-session/format";
import { splitSession } from "@pi-session/format";
import { type MigrationReport, migrateRecords } from "@pi-session/migrate";

export interface MigratedEntry {
  entry: AnyEntry;
  position: { line: number; offset: number };
}

export interface MigratedSession {
  header: SessionHeader | undefined;
  report: MigrationReport;
  records: SessionRecord[];
  entries: MigratedEntry[];
}

export function migrateForReading(records: readonly SessionRecord[]): MigratedSession {
  const migrated = migrateRecords(records);
  const view = splitSession(migrated.records);
  const entries = view.entries.map((rec) => ({
    entry: rec.value as AnyEntry,
    position: { line: rec.line, offset: rec.offset },
  }));
  return { header: view.header?.value, report: migrated.report, records: migrated.records, entries };
}
