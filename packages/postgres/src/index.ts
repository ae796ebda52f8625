/**
 * @pi-session/postgres: the session database on PostgreSQL, for a team. Each machine syncs its
 * local pi session store into one shared database as a source (a person or machine);
 * search and stats then answer as the local SQLite database does, over everyone's sessions
 * or some sources'; its sessions can be listed and read back line by line (a web app over
 * it, `pi-session serve --db`). Incremental (the local index's file identities and offsets), each file's
 * change one transaction, secrets redacted and private projects left home on request.
 */
export {
  type OpenPostgresOptions,
  PostgresDatabase,
  PostgresDatabaseError,
  type PostgresSearchOptions,
  type PostgresSearchResult,
  type PostgresSessionHit,
  type PostgresStatsQuery,
  type PostgresStatsResult,
  type SourceInfo,
  openPostgresDatabase,
} from "./database.js";
export { PostgresUrlError, postgresUrlProblem, redactUrl, urlSecrets } from "./url.js";
export type { PostgresSession, PostgresSessionLines } from "./reading.js";
export {
  NewerPostgresSchemaError,
  OlderPostgresSchemaError,
  POSTGRES_SCHEMA_VERSION,
  PostgresSchemaMissingError,
} from "./schema.js";
export type { PostgresSyncOptions, PostgresSyncProgress, PostgresSyncStats } from "./sync.js";
