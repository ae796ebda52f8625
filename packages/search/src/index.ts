/**
 * @pi-session/search: the session database. An SQLite mirror of a pi session store, kept up
 * to date incrementally from node-store's readers, with full-text search (FTS5: stemmed
 * words, CJK, code substrings, regexes) and the usage rows `stats` adds up. The format logic
 * (documents, queries, usage) is pure and lives in `@pi-session/search/documents`.
 */
export {
  type EntryHit,
  type OpenSearchOptions,
  SearchDatabase,
  type SearchOptions,
  type SearchProgress,
  type SearchResult,
  type SessionHit,
  type StatsQuery,
  databasePath,
  openSearchDatabase,
} from "./search.js";
export type {
  FileActivityOptions,
  FileTouchHit,
  SessionTouches,
  TouchedFile,
} from "./file-activity.js";
export { secretDetector } from "./secrets/detector.js";
export { type SecretFinding, maskSecret, maskedPreview, redactSecrets } from "./secrets/scan.js";
export { type SecretCounter, secretCounter } from "./secrets/text-scan.js";
export type { SecretScanOptions, SecretScanStats } from "./secrets/marks.js";
export type {
  CandidateRow,
  Candidates,
  EntryRow,
  Facets,
  FileIdentity,
  FileWriter,
  IndexedFile,
  SearchFilters,
  SearchRequest,
  SessionDatabase,
  SessionMeta,
  EntrySlot,
  SecretMarks,
  SecretMarksUpdate,
  SecretScanTodo,
  StoredFile,
  StoredTouch,
  TouchQuery,
  TouchRow,
  UsageSession,
  WriteMode,
} from "./database.js";
export { type SyncOptions, type SyncProgress, type SyncStats, syncStore } from "./indexer.js";
export {
  NewerSchemaError,
  type OpenOutcome,
  isCorruptionError,
  openSqliteDatabase,
} from "./sqlite/open.js";
export { SCHEMA_VERSION } from "./sqlite/schema.js";
export { QuerySyntaxError, type Snippet } from "./documents/index.js";
// For other backends of the session database (`@pi-session/postgres`): reading one file into
// rows exactly as the SQLite indexer does, and the file identity it keys them by.
export {
  PROBE_BYTES,
  type ReadResult,
  type RowSink,
  headProbe,
  readAppended,
  readWhole,
  tailProbe,
} from "./read-file.js";
