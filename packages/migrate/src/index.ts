/**
 * @pi-session/migrate: pure v1 -> v2 -> v3 migration of pi session records or entries,
 * with a report and optional deterministic ids.
 *
 * The public face of the package (named re-exports only).
 */
export {
  type MigrateEntriesOptions,
  type MigrateOptions,
  type MigrationReport,
  migrateEntries,
  migrateRecords,
} from "./migrate.js";
export { deterministicId } from "./ids.js";
