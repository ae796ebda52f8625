/**
 * The schema of the session database (SQLite dialect), and its version. Bump
 * {@link SCHEMA_VERSION} whenever a table, a column, a tokenizer or what is indexed changes:
 * a database of an older version is rebuilt, one of a newer version is left alone.
 */

export const SCHEMA_VERSION = 8;

/**
 * Entry row ids: the file's id times this, plus the entry's ordinal, so a file's entries are
 * one range of ids (no index of their own) and the word index stores them in file order.
 */
export const ENTRY_ID_SCALE = 2 ** 32;

/**
 * The column of each text field's identifier parts in `words` (see the documents' `terms.ts`):
 * a field of its own per text field, so a word found in a part obeys the same field choice.
 */
export const PARTS_COLUMN = {
  body: "body_parts",
  thinking: "thinking_parts",
  tool: "tool_parts",
  output: "output_parts",
} as const;

/** Bit per text field in `entries.fields` (which fields have text). */
export const FIELD_BIT = { body: 1, thinking: 2, tool: 4, output: 8 } as const;

/**
 * The tables. `files` is what the warm check reads (a row per file, kept small); `details` the
 * rest of a file's row, read for one file at a time: the probes that tell growth from a
 * rewrite, the first message, and the facets (tools called, models used, paths the tool calls
 * touched) as one text each, every value between newlines (`\nread\nbash\n`), so a filter is
 * one `instr` per file and an update one row. `usage_totals` sums each file's `usage` rows
 * by model (cost in billionths, so sums are exact; the first and last time, for a report's
 * span), so a report over files that need no deduplication reads a row per file and model.
 * `touches` is file activity: a row per file a tool call read, edited or wrote (the path
 * resolved against the session's cwd), keyed like `entries` by file and ordinal, so whether it
 * is on the current branch, and when, are the entry's (`entries.on_branch`, kept right as the
 * file grows); indexed by path for `pi-session files`, a path and everything under it.
 * `secrets` marks the entries that hold secrets (kind and count, never the secret), and
 * `secret_scans` how far each file was scanned (the entries before `next_ordinal`): the scan
 * is slow (decision 153) so it runs when asked (`pi-session secrets`, `ls --secrets`, serve),
 * not at indexing, and goes on from where it stopped as a file grows; a file indexed again
 * loses both.
 */
export const SCHEMA = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE files (
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL UNIQUE,
  dir TEXT NOT NULL,
  size INTEGER NOT NULL,
  mtime_ms REAL NOT NULL,
  ctime_ms REAL NOT NULL,
  ino REAL NOT NULL,
  indexed_offset INTEGER NOT NULL,
  next_line INTEGER NOT NULL,
  version INTEGER NOT NULL,
  session_id TEXT,
  cwd TEXT,
  created TEXT,
  parent_path TEXT,
  name TEXT,
  modified_ms REAL,
  message_count INTEGER,
  errored INTEGER,
  leaf_id TEXT,
  entry_count INTEGER,
  usage_repeats INTEGER
);
CREATE TABLE details (
  id INTEGER PRIMARY KEY,
  head BLOB NOT NULL,
  tail BLOB NOT NULL,
  first_message TEXT,
  tools TEXT NOT NULL DEFAULT '',
  models TEXT NOT NULL DEFAULT '',
  paths TEXT NOT NULL DEFAULT ''
);
CREATE INDEX files_dir ON files(dir);
CREATE INDEX files_session ON files(session_id);
CREATE TABLE entries (
  id INTEGER PRIMARY KEY,
  file_id INTEGER NOT NULL,
  line INTEGER NOT NULL,
  offset INTEGER NOT NULL,
  length INTEGER NOT NULL,
  entry_id TEXT,
  parent_id TEXT,
  type TEXT NOT NULL,
  role TEXT,
  time_ms REAL,
  on_branch INTEGER NOT NULL,
  fields INTEGER NOT NULL
);
CREATE TABLE usage (
  file_id INTEGER NOT NULL,
  ordinal INTEGER NOT NULL,
  key TEXT NOT NULL,
  source TEXT NOT NULL,
  model TEXT NOT NULL,
  time_ms REAL,
  input REAL NOT NULL,
  output REAL NOT NULL,
  cache_read REAL NOT NULL,
  cache_write REAL NOT NULL,
  total_tokens REAL NOT NULL,
  cost REAL NOT NULL,
  PRIMARY KEY (file_id, ordinal)
) WITHOUT ROWID;
CREATE TABLE usage_totals (
  file_id INTEGER NOT NULL,
  model TEXT NOT NULL,
  input REAL NOT NULL,
  output REAL NOT NULL,
  cache_read REAL NOT NULL,
  cache_write REAL NOT NULL,
  total_tokens REAL NOT NULL,
  cost_nanos INTEGER NOT NULL,
  records INTEGER NOT NULL,
  zero_cost INTEGER NOT NULL,
  unpriced_tokens REAL NOT NULL,
  first_ms REAL,
  last_ms REAL,
  PRIMARY KEY (file_id, model)
) WITHOUT ROWID;
CREATE TABLE touches (
  file_id INTEGER NOT NULL,
  ordinal INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  tool TEXT NOT NULL,
  action TEXT NOT NULL,
  path TEXT NOT NULL,
  PRIMARY KEY (file_id, ordinal, seq)
) WITHOUT ROWID;
CREATE INDEX touches_path ON touches(path);
CREATE TABLE secrets (
  file_id INTEGER NOT NULL,
  ordinal INTEGER NOT NULL,
  kind TEXT NOT NULL,
  count INTEGER NOT NULL,
  PRIMARY KEY (file_id, ordinal, kind)
) WITHOUT ROWID;
CREATE TABLE secret_scans (
  file_id INTEGER PRIMARY KEY,
  next_ordinal INTEGER NOT NULL
);
CREATE VIRTUAL TABLE words USING fts5(
  body, thinking, tool, output, body_parts, thinking_parts, tool_parts, output_parts,
  tokenize = 'unicode61 remove_diacritics 2', content = '', contentless_delete = 1
);
`;
