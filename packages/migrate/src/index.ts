/**
 * @pi-session/migrate: pure v1 -> v2 -> v3 migration of pi session records or entries,
 * with a report and optional deterministic ids.
 */
export { deterministicId, migrateEntries, migrateRecords } from "./migrate.js";
export type { MigrateEntriesOptions, MigrateOptions, MigrationReport } from "./migrate.js";
