/**
 * The storage interface of the session database: what the indexer and the queries need of a
 * backend, and nothing of SQL. The SQLite backend (`./sqlite/`, opened by `open.ts`)
 * implements it; a PostgreSQL backend can implement the same methods over the same tables.
 *
 * Files are keyed by path; each file's rows change in one transaction ({@link FileWriter}, or
 * the transaction of a {@link SessionDatabase.batch} of whole files), decided inside it from
 * the row as it is then, so two indexers never duplicate a file.
 */
import type {
  EntryDocument,
  FileTouch,
  IndexTexts,
  QueryTerm,
  TextField,
  TreeLink,
  UsagePart,
  UsageRow,
} from "./documents/index.js";

/** What identifies a file's contents without reading them (the listing's cache key). */
export interface FileIdentity {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
}

/** What the database knows of a session file, beyond its identity. */
export interface SessionMeta {
  sessionId: string;
  cwd: string;
  /** Header timestamp (ISO, as written). */
  created: string;
  parentPath: string | null;
  /** The latest `session_info` name (trimmed; empty clears it). */
  name: string | null;
  /** Text of the first user message, "" when there is none. */
  firstMessage: string;
  /** pi's `modified`: the latest user or assistant message time, else the header time (ms). */
  modifiedMs: number;
  messageCount: number;
  /** A tool result with `isError` or a bash execution with a non-zero exit. */
  errored: boolean;
  /** Last entry id in file order (pi's leaf on load). */
  leafId: string | null;
  /** Entries indexed (the next entry's ordinal). */
  entryCount: number;
  /**
   * Usage rows whose key repeats one earlier in the same file (0 for any file pi wrote): a file
   * with none, alone in its lineage, needs no deduplication, so its usage can be summed where
   * it is stored.
   */
  usageRepeats: number;
}

/** What the warm check needs of a file row: its identity when indexed, and little else. */
export interface StoredFile extends FileIdentity {
  path: string;
  /** Byte offset after the last complete line indexed. */
  indexedOffset: number;
  /** Session format version (0: not a session file). */
  version: number;
  sessionId: string | null;
}

/** A file row: its identity when indexed, where indexing stopped, and its session. */
export interface IndexedFile extends FileIdentity {
  path: string;
  /** Byte offset after the last complete line indexed. */
  indexedOffset: number;
  /** Line number of the line at `indexedOffset`. */
  nextLine: number;
  /** Session format version (0: not a session file). */
  version: number;
  /** The first bytes of the file and the bytes before `indexedOffset`, to tell growth from rewrite. */
  head: Uint8Array;
  tail: Uint8Array;
  meta: SessionMeta | null;
}

/** One entry to store. */
export interface EntryRow {
  ordinal: number;
  line: number;
  offset: number;
  /** Bytes of the line (without `\n`). */
  length: number;
  doc: EntryDocument;
  /** What the word index receives of it (its texts may be left out of `doc` then). */
  indexed: IndexTexts;
  onBranch: boolean;
  usage: UsageRow | undefined;
  /** The files its tool calls read, edit or write (file activity). */
  touches: readonly StoredTouch[];
}

/** What the database keeps of a file touch: the tool, the action and the resolved path. */
export type StoredTouch = Pick<FileTouch, "tool" | "action" | "path">;

/** Session-level facts filters use; added to, never removed from, on append. */
export interface Facets {
  tools: Iterable<string>;
  models: Iterable<string>;
  files: Iterable<string>;
}

/** How a file's rows are being written. */
export type WriteMode = "replace" | "append";

/** One file's update, in one transaction. */
export interface FileWriter {
  /** Adds entries (in ordinal order, batch by batch). */
  add(rows: readonly EntryRow[]): void;
  addFacets(facets: Facets): void;
  /** The file's tree links in ordinal order, with their stored flags (for a branch change). */
  links(): (TreeLink & { onBranch: boolean })[];
  /** The keys of the usage rows stored for the file (to count repeats on an append). */
  usageKeys(): string[];
  /** Sets the branch flag of entries whose flag changed. */
  setBranch(changes: readonly { ordinal: number; onBranch: boolean }[]): void;
  /** Writes the file row and commits. */
  commit(file: IndexedFile): void;
  /** Drops everything written since the writer began. */
  rollback(): void;
}

export interface SearchFilters {
  /** Sessions whose header cwd is one of these directories or inside one. */
  projects?: string[];
  sinceMs?: number;
  untilMs?: number;
  roles?: ("user" | "assistant" | "tool")[];
  /** Sessions that called this tool. */
  tool?: string;
  /** Sessions that used this model (`provider/model`, or the model alone). */
  model?: string;
  /** Sessions whose tool calls touched this path (equal, or ending in `/<path>`). */
  file?: string;
  errored?: boolean;
  named?: boolean;
}

export interface SearchRequest {
  terms: readonly QueryTerm[];
  fields: readonly TextField[];
  filters: SearchFilters;
  /**
   * `branch`: current-branch hits first; `rank`: relevance alone; `newest`: unranked, in index
   * order newest first (sessions by when they were first indexed, oldest change first, so by
   * last change; a session's entries last first), at a cost that grows with the rows read
   * rather than with every match (search as you type).
   */
  order: "branch" | "rank" | "newest";
  /**
   * Matches ranked at a time (default 10,000): the newest that many in index order, then the
   * next, so a word found everywhere costs a window, not the whole index.
   */
  window?: number;
  /**
   * `newest`: the rows of a file the caller takes (its hits per session); where every row is a
   * hit, the rest of a file's matches are skipped in the index.
   */
  perFile?: number;
}

/** A candidate hit, in result order (best first). */
export interface CandidateRow {
  path: string;
  ordinal: number;
  line: number;
  offset: number;
  length: number;
  entryId: string | null;
  type: string;
  role: string | null;
  timeMs: number | null;
  onBranch: boolean;
  /** Lower is better (BM25 as SQLite gives it); 0 when the backend does not rank. */
  score: number;
}

export interface Candidates {
  rows: Iterable<CandidateRow>;
  /** Terms the backend could not decide: the caller checks them against each entry's text. */
  undecided: QueryTerm[];
}

/** Usage of one file and model (and quarter hour, when asked), summed in the database. */
export interface UsageSum extends UsagePart {
  path: string;
}

/** Which usage to sum. */
export interface UsageSumQuery {
  /** Only files directly in these directories. */
  dirs?: readonly string[];
  /** Not these files (summed elsewhere). */
  except?: readonly string[];
  /** Only usage at or after this time (ms); a record without a time is in no range. */
  sinceMs?: number;
  /** Only usage before this time (ms). */
  untilMs?: number;
  /** Split by quarter hour too (`quarterMs`, the start of one): for a report by period. */
  quarters?: boolean;
}

/** A session's stored usage. */
export interface UsageSession {
  path: string;
  /** The session's facts (its `firstMessage` left empty: stats do not show it). */
  meta: SessionMeta;
  usage: UsageRow[];
}

/** Which file touches to read (see {@link SessionDatabase.touches}). */
export interface TouchQuery {
  /** Touches of this absolute path, and of every path under it (a directory). */
  path?: string;
  /** Only this session file's touches. */
  sessionPath?: string;
  /** Touches on abandoned branches too (default: the current branch only). */
  allBranches?: boolean;
}

/** One stored file touch, with what the database knows of its entry. */
export interface TouchRow extends StoredTouch {
  /** The session file. */
  sessionPath: string;
  ordinal: number;
  entryId: string | null;
  /** Line of the entry in its file (1-based). */
  line: number;
  timeMs: number | null;
  onBranch: boolean;
}

/** A session file whose entries are not all scanned for secrets yet. */
export interface SecretScanTodo extends FileIdentity {
  path: string;
  /** The first entry (ordinal) not scanned. */
  from: number;
  /** Entries indexed. */
  entries: number;
}

/** Where an entry's line is in its file. */
export interface EntrySlot {
  ordinal: number;
  line: number;
  offset: number;
  length: number;
}

/** Secret marks of a file's entries `[from, to)`, written only if the file is still as scanned. */
export interface SecretMarksUpdate {
  path: string;
  /** The file's identity when its entries were read: marks of a file changed since are dropped. */
  identity: FileIdentity;
  from: number;
  to: number;
  marks: { ordinal: number; kind: string; count: number }[];
}

/** A session file's secret marks. */
export interface SecretMarks {
  path: string;
  /** Secrets by kind, in the entries scanned. */
  kinds: Record<string, number>;
  /** Every entry indexed was scanned. */
  complete: boolean;
}

export interface SessionDatabase {
  /** Which backend answers (e.g. `sqlite (node:sqlite)`). */
  readonly backend: string;
  /** Where it lives; `:memory:` when nothing persists. */
  readonly location: string;
  /**
   * Every indexed file, briefly (cheap: the warm check compares these with one stat per file);
   * `notSessions`: only the files that are no pi session (version 0).
   */
  files(filter?: { notSessions?: boolean }): Map<string, StoredFile>;
  /** The row of one file as it is now. */
  file(path: string): IndexedFile | undefined;
  /**
   * Begins one file's update; `decide` runs inside the transaction with the file's row as it
   * is then and returns the mode, or undefined to leave the file alone (another process did it).
   */
  beginFile(
    path: string,
    decide: (current: IndexedFile | undefined) => WriteMode | undefined,
  ): FileWriter | undefined;
  /** The session ids next to `id` in sort order (other ids only), for the shortest unique prefix. */
  idNeighbours(id: string): { before: string | null; after: string | null };
  /** Removes a file and everything indexed from it, in one transaction. */
  deleteFile(path: string): void;
  /**
   * Runs `fn` in one write transaction: the files begun (and deleted) inside it commit with it,
   * all or nothing; if `fn` throws, or a file's writer was rolled back, nothing of it is kept.
   * Indexing many files in few transactions is much faster. Nothing else may use the database
   * until it settles.
   */
  batch<T>(fn: () => Promise<T> | T): Promise<T>;
  search(request: SearchRequest): Candidates;
  /**
   * Sessions with their usage rows (for `stats`), optionally only the files directly in `dirs`,
   * or only `paths`; `rows: false` leaves the rows out (their facts only).
   */
  usage(filter?: { dirs?: readonly string[]; paths?: readonly string[]; rows?: boolean }): UsageSession[];
  /**
   * Usage rows summed in the database by file and model (and quarter hour), in the range asked
   * (see {@link UsageSumQuery}); files without usage in it have no sums.
   */
  usageSums(query: UsageSumQuery): UsageSum[];
  /** Session files not wholly scanned for secrets. */
  secretScanTodo(): SecretScanTodo[];
  /** Where the entries of a file from `fromOrdinal` are (at most `limit`), in order. */
  entrySlots(path: string, fromOrdinal: number, limit: number): EntrySlot[];
  /**
   * Stores the secret marks of a file's entries `[from, to)` and that they were scanned, in
   * one transaction; false (nothing written) when the file's row changed since `identity`.
   */
  addSecretMarks(update: SecretMarksUpdate): boolean;
  /** Every session file with secrets found, or not wholly scanned. */
  secretMarks(): SecretMarks[];
  /** Stored file touches (file activity), in file and entry order. */
  touches(query: TouchQuery): TouchRow[];
  /**
   * Tidies the storage after a bulk write (a build) so queries read it fast: for SQLite, the
   * word index's segments merged into one. One transaction of its own; not inside a batch.
   */
  optimize(): void;
  /** Bytes on disk (database and its WAL), 0 in memory. */
  sizeOnDisk(): number;
  close(): void;
}
