/**
 * Sending a local session store to the shared PostgreSQL database as one source: the same
 * file identity (size, mtime, ctime, inode), indexed offset and head/tail probes (kept as their
 * SHA-256) as the local
 * index (`@pi-session/search`'s indexer), and the same reading of each file into rows
 * (`readWhole` / `readAppended`), so a re-run with nothing new sends nothing, an append sends
 * its new entries (and the branch flags it changed), a rewrite resends the session and a
 * removal removes it. Each file's change is one transaction, decided inside it under a lock
 * on that file's key, so a sync killed at any point and run again leaves no duplicate and no
 * gap, and any number of sources (or two syncs of one) can run at once.
 *
 * What leaves the machine: each entry's line (redacted with `redact`), its document texts and
 * a folded copy for the trigram index, its usage row, and the session's facts; sessions whose
 * cwd is in `exclude` do not leave (and are removed if they had).
 *
 * Use {@link syncToPostgres} through `PostgresDatabase.sync`.
 */
import { createHash } from "node:crypto";
import { basename, dirname, resolve } from "node:path";
import { isValidSessionHeader, rawRecordValue } from "@pi-session/format";
import { type StoreFile, listStoreFiles, streamSessionRecordsSync } from "@pi-session/node-store";
import { readFileBytes } from "@pi-session/node-store/internal";
import { type RedactOptions, Redactor } from "@pi-session/render";
import {
  type EntryRow,
  type Facets,
  type IndexedFile,
  PROBE_BYTES,
  type ReadResult,
  type RowSink,
  type SessionMeta,
  headProbe,
  readAppended,
  readWhole,
  secretDetector,
  tailProbe,
} from "@pi-session/search";
import { type EntryDocument, type TreeLink, type UsageRow, roleClass } from "@pi-session/search/documents";
import type { ClientPool, PooledClient } from "./connection.js";
import { META_COLUMNS, type MetaColumns, sessionMetaOfFile } from "./meta-row.js";
import { foldForIndex } from "./terms.js";
import { encodeUsage } from "./usage-json.js";

export interface PostgresSyncProgress {
  /** Files handled so far, of `total` that changed. */
  done: number;
  total: number;
  path: string;
}

export interface PostgresSyncOptions {
  /** The sessions root to send. */
  root: string;
  /** Who sends it: a person or machine (`user@host`); sessions are keyed by it. */
  source: string;
  /** Redact secrets (the export's rules) before anything leaves; options for the rules. */
  redact?: boolean | RedactOptions;
  /** Project directories (session cwd) whose sessions stay home: equal or inside one. */
  exclude?: string[];
  onProgress?: (progress: PostgresSyncProgress) => void;
  signal?: AbortSignal;
  /** Bytes of a file read (and held) at a time (default 32 MiB); each file stays one transaction. */
  chunkBytes?: number;
}

export interface PostgresSyncStats {
  /** Files under the root. */
  filesSeen: number;
  unchanged: number;
  /** Files sent whole (new, rewritten, shrunk, replaced). */
  filesSent: number;
  /** Files whose new entries were sent (an append). */
  filesAppended: number;
  /** Files removed from the database (gone here, or now excluded). */
  filesRemoved: number;
  /** Files left home by `exclude`. */
  filesExcluded: number;
  /** Files another sync of this source had sent by the time this one got to them. */
  skipped: number;
  /** Entry rows sent (inserted). */
  entriesSent: number;
  /** Every row written: entries, file rows, branch flag updates, deletions. */
  rowsSent: number;
  /** Bytes read from session files. */
  bytesRead: number;
  /** Bytes of text sent in entry rows (line, document, folded text). */
  bytesSent: number;
  /** Files and directories that could not be read, with why (left out). */
  unreadable: { path: string; error: Error }[];
}

/** The project label of a file without a header cwd: its directory's name ("" in the root), as `stats` shows it. */
function projectDirOf(root: string, path: string): string {
  const dir = dirname(path);
  return dir === resolve(root) ? "" : basename(dir);
}

/** Text PostgreSQL can hold: no NUL (a JSON string may carry one). */
function pgText(value: string): string;
function pgText(value: string | null): string | null;
function pgText(value: string | null): string | null {
  return value === null || !value.includes("\0") ? value : value.replace(/\0/g, "\uFFFD");
}

function sameIdentity(
  a: { size: number; mtimeMs: number; ctimeMs: number; ino: number },
  b: { size: number; mtimeMs: number; ctimeMs: number; ino: number },
): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino;
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * What the database keeps of a probe (a file's first bytes, the bytes before its indexed
 * offset): their SHA-256, so no bytes of the file leave the machine unredacted.
 */
function probeDigest(bytes: Uint8Array): Buffer {
  // A Buffer, which pg sends as bytea.
  return createHash("sha256").update(bytes).digest();
}

/**
 * The local indexer's rule: grown, same inode, same first bytes, same bytes before the offset
 * (`current.head` and `current.tail` are the digests kept; `head` and `tail` the file's bytes now).
 */
function canResume(current: IndexedFile, st: StoreFile, head: Uint8Array, tail: Uint8Array): boolean {
  return (
    current.version >= 3 &&
    current.meta !== null &&
    st.ino === current.ino &&
    st.size > current.size &&
    current.indexedOffset <= st.size &&
    head.length >= Math.min(PROBE_BYTES, current.size) &&
    equalBytes(probeDigest(head.subarray(0, Math.min(PROBE_BYTES, current.size))), current.head) &&
    equalBytes(probeDigest(tail), current.tail)
  );
}

/** Whether a cwd is one of the directories or inside one. */
export function isUnder(cwd: string, dirs: readonly string[]): boolean {
  return dirs.some((d) => {
    const dir = d.length > 1 && d.endsWith("/") ? d.slice(0, -1) : d;
    return cwd === dir || cwd.startsWith(dir === "/" ? "/" : `${dir}/`);
  });
}

/** A stored entry as an append reads it back: id, parent id, type, on the branch, its usage row's key. */
type StoredLink = [
  id: string | null,
  parentId: string | null,
  type: string,
  onBranch: boolean,
  usageKey: string | null,
];

/** One entry as sent. */
interface OutRow {
  ordinal: number;
  line: number;
  offset: number;
  length: number;
  doc: EntryDocument;
  raw: string;
  onBranch: boolean;
  usage: UsageRow | undefined;
}

/** Collects one file's rows as the reader produces them (it reads synchronously). */
class Collector implements RowSink {
  readonly rows: OutRow[] = [];
  readonly facets = { tools: new Set<string>(), models: new Set<string>(), files: new Set<string>() };
  /** Flag changes of entries already in the database (an append that left the branch). */
  readonly storedChanges: { ordinal: number; onBranch: boolean }[] = [];
  /** With `trackTimes`: the latest user or assistant message time among the rows (pi's `modified`). */
  maxMessageTime = Number.NEGATIVE_INFINITY;
  trackTimes = false;
  private readonly decoder = new TextDecoder();

  constructor(
    private readonly path: string,
    private readonly firstNew: number,
    /** The file's entries already in the database (an append's; none for a whole read). */
    private readonly stored: (TreeLink & { onBranch: boolean })[],
    private readonly storedUsageKeys: string[],
    private readonly redactor: Redactor | undefined,
  ) {}

  add(rows: readonly EntryRow[]): void {
    if (rows.length === 0) return;
    const first = rows[0] as EntryRow;
    const last = rows[rows.length - 1] as EntryRow;
    // One read for the batch's lines (they are in file order).
    const bytes = readFileBytes(this.path, first.offset, last.offset + last.length - first.offset);
    for (const r of rows) {
      const start = r.offset - first.offset;
      let raw = this.decoder.decode(bytes.subarray(start, start + r.length));
      let doc = r.doc;
      if (this.trackTimes && doc.type === "message" && (doc.role === "user" || doc.role === "assistant"))
        this.noteTime(raw, doc);
      if (this.redactor) ({ raw, doc } = redactRow(this.redactor, raw, doc));
      this.rows.push({
        ordinal: r.ordinal,
        line: r.line,
        offset: r.offset,
        length: r.length,
        doc,
        raw,
        onBranch: r.onBranch,
        usage: r.usage,
      });
    }
  }

  /** The message time as the reader takes it: `message.timestamp` when a number, else the entry's. */
  private noteTime(raw: string, doc: EntryDocument): void {
    let t = doc.time ?? Number.NaN;
    try {
      const message = (JSON.parse(raw) as { message?: { timestamp?: unknown } }).message;
      if (typeof message?.timestamp === "number") t = message.timestamp;
    } catch {
      // Not JSON as a whole: the entry's time.
    }
    if (t > this.maxMessageTime) this.maxMessageTime = t;
  }

  addFacets(facets: Facets): void {
    for (const t of facets.tools) this.facets.tools.add(t);
    for (const m of facets.models) this.facets.models.add(m);
    for (const f of facets.files) this.facets.files.add(this.redactor ? this.redactor.text(f) : f);
  }

  links(): (TreeLink & { onBranch: boolean })[] {
    return [
      ...this.stored,
      ...this.rows.map((r) => ({
        type: r.doc.type,
        id: r.doc.id,
        parentId: r.doc.parentId,
        onBranch: r.onBranch,
      })),
    ];
  }

  usageKeys(): string[] {
    return this.storedUsageKeys;
  }

  setBranch(changes: readonly { ordinal: number; onBranch: boolean }[]): void {
    for (const c of changes) {
      if (c.ordinal >= this.firstNew) {
        const row = this.rows[c.ordinal - this.firstNew];
        if (row) row.onBranch = c.onBranch;
      } else this.storedChanges.push(c);
    }
  }
}

/** A line with secrets replaced (the export's rules): its JSON value's strings, else its text. */
/**
 * The redactor of a sync that redacts: the shared secret detector (`@pi-session/search`'s,
 * the rules `pi-session secrets` and the export use) unless the options name their own.
 */
function redactorOf(redact: PostgresSyncOptions["redact"]): Redactor | undefined {
  if (redact === undefined || redact === false) return undefined;
  return new Redactor({ detector: secretDetector(), ...(redact === true ? {} : redact) });
}

function redactLine(redactor: Redactor, raw: string): string {
  try {
    return JSON.stringify(redactor.value(JSON.parse(raw) as unknown));
  } catch {
    return redactor.text(raw);
  }
}

/** An entry's line and document with secrets replaced (the export's rules). */
function redactRow(redactor: Redactor, raw: string, doc: EntryDocument): { raw: string; doc: EntryDocument } {
  return {
    raw: redactLine(redactor, raw),
    doc: {
      ...doc,
      body: redactor.text(doc.body),
      thinking: redactor.text(doc.thinking),
      tool: redactor.text(doc.tool),
      output: redactor.text(doc.output),
      files: doc.files.map((f) => redactor.text(f)),
    },
  };
}

/**
 * The header line of a session file as written (redacted with `redactor`): the first line that
 * parses to a truthy value, when that is a session header (pi's rule); null for a file that is
 * no session. Reads only up to that line.
 */
export function readHeaderLine(path: string, size: number, redactor: Redactor | undefined): string | null {
  for (const r of streamSessionRecordsSync(path, { endOffset: size })) {
    if (!r.terminated) return null;
    const value = r.kind === "json" ? r.value : rawRecordValue(r);
    if (!value) continue;
    if (!isValidSessionHeader(value)) return null;
    const line = new TextDecoder().decode(readFileBytes(path, r.offset, r.byteLength));
    return pgText(redactor ? redactLine(redactor, line) : line);
  }
  return null;
}

interface FileRow extends MetaColumns {
  size: string;
  mtime_ms: number;
  ctime_ms: number;
  ino: string;
  indexed_offset: string;
  next_line: number;
  version: number;
  head: Buffer;
  tail: Buffer;
}

function indexedFileOf(path: string, r: FileRow): IndexedFile {
  const meta = sessionMetaOfFile(r);
  return {
    path,
    size: Number(r.size),
    mtimeMs: r.mtime_ms,
    ctimeMs: r.ctime_ms,
    ino: Number(r.ino),
    indexedOffset: Number(r.indexed_offset),
    nextLine: r.next_line,
    version: r.version,
    head: new Uint8Array(r.head),
    tail: new Uint8Array(r.tail),
    meta,
  };
}

/** Bytes of a file read at a time: its rows are held in memory until sent. */
const CHUNK_BYTES = 32 * 1024 * 1024;

/** Rows per INSERT (and at most this many bytes of text), as arrays through `unnest`. */
const INSERT_ROWS = 1000;
const INSERT_BYTES = 8 * 1024 * 1024;
/** Text of an entry the ranking's tsvector takes (it cannot exceed 1 MB). */
const TSV_CHARS = 100_000;

async function insertRows(
  client: PooledClient,
  source: string,
  path: string,
  fileSeq: string,
  rows: readonly OutRow[],
  stats: PostgresSyncStats,
): Promise<void> {
  let i = 0;
  while (i < rows.length) {
    const cols: unknown[][] = Array.from({ length: 15 }, () => []);
    let bytes = 0;
    while (i < rows.length && (cols[0] as unknown[]).length < INSERT_ROWS && bytes < INSERT_BYTES) {
      const r = rows[i++] as OutRow;
      const d = r.doc;
      const doc = JSON.stringify(d);
      const fold = foldForIndex(d);
      bytes += r.raw.length + doc.length + fold.length;
      const values = [
        r.ordinal,
        r.line,
        r.offset,
        r.length,
        pgText(d.id),
        pgText(d.parentId),
        pgText(d.type),
        pgText(d.role),
        roleClass(d.role),
        d.time,
        r.onBranch,
        r.raw,
        doc,
        fold,
        r.usage ? encodeUsage(r.usage) : null,
      ];
      for (let c = 0; c < values.length; c++) (cols[c] as unknown[]).push(values[c]);
    }
    await client.query(
      `INSERT INTO pi_entries (source, path, file_seq, ordinal, line, byte_offset, length, entry_id, parent_id, type, role,
         role_class, time_ms, on_branch, raw, doc, fold, tsv, usage)
       SELECT $1, $2, $18, u.ordinal, u.line, u.byte_offset, u.length, u.entry_id, u.parent_id, u.type, u.role,
         u.role_class, u.time_ms, u.on_branch, u.raw, u.doc, u.fold, to_tsvector('simple', left(u.fold, ${TSV_CHARS})), u.usage
       FROM unnest($3::int[], $4::int[], $5::bigint[], $6::int[], $7::text[], $8::text[], $9::text[], $10::text[],
         $11::text[], $12::float8[], $13::bool[], $14::text[], $15::text[], $16::text[], $17::text[])
         AS u(ordinal, line, byte_offset, length, entry_id, parent_id, type, role, role_class, time_ms, on_branch,
           raw, doc, fold, usage)
       ORDER BY u.ordinal`,
      [source, path, ...cols, fileSeq],
    );
    stats.entriesSent += (cols[0] as unknown[]).length;
    stats.rowsSent += (cols[0] as unknown[]).length;
    stats.bytesSent += bytes;
  }
}

/** What {@link writeFileRow} writes besides the file's identity and what reading it found. */
interface FileRowParts {
  facets: Collector["facets"] | undefined;
  /** An append: facets added to, the header kept. */
  append: boolean;
  redactor: Redactor | undefined;
  projectDir: string;
  /** The header line as written (redacted); for an append, kept only where none was (a row sent before schema 3). */
  header: string | null;
  /** The file's first bytes (at most {@link PROBE_BYTES}), kept as their digest. */
  head: Uint8Array;
}

/** Writes the file row (identity, probes, session facts, facets, header line). */
async function writeFileRow(
  client: PooledClient,
  source: string,
  st: StoreFile,
  read: ReadResult,
  parts: FileRowParts,
): Promise<string> {
  const { facets, append, redactor, projectDir } = parts;
  const m = read.meta;
  const text = (s: string | null | undefined) =>
    s === null || s === undefined ? null : pgText(redactor ? redactor.text(s) : s);
  const list = (s: Set<string> | undefined) => [...(s ?? [])].map((x) => pgText(x));
  const merge = (col: string, n: number) =>
    append
      ? `ARRAY(SELECT DISTINCT x FROM unnest(pi_files.${col} || $${n}::text[]) AS x ORDER BY x)`
      : `$${n}::text[]`;
  const written = await client.query<{ seq: string }>(
    `INSERT INTO pi_files AS pi_files (source, path, size, mtime_ms, ctime_ms, ino, indexed_offset, next_line, version, head, tail,
       session_id, cwd, created, parent_path, name, first_message, modified_ms, message_count, errored, leaf_id,
       entry_count, usage_repeats, tools, models, touched, project_dir, header)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23,
       $24::text[], $25::text[], $26::text[], $27, $28)
     ON CONFLICT (source, path) DO UPDATE SET size = EXCLUDED.size, mtime_ms = EXCLUDED.mtime_ms,
       ctime_ms = EXCLUDED.ctime_ms, ino = EXCLUDED.ino, indexed_offset = EXCLUDED.indexed_offset,
       next_line = EXCLUDED.next_line, version = EXCLUDED.version, head = EXCLUDED.head, tail = EXCLUDED.tail,
       session_id = EXCLUDED.session_id, cwd = EXCLUDED.cwd, created = EXCLUDED.created,
       parent_path = EXCLUDED.parent_path, name = EXCLUDED.name, first_message = EXCLUDED.first_message,
       modified_ms = EXCLUDED.modified_ms, message_count = EXCLUDED.message_count, errored = EXCLUDED.errored,
       leaf_id = EXCLUDED.leaf_id, entry_count = EXCLUDED.entry_count, usage_repeats = EXCLUDED.usage_repeats,
       tools = ${merge("tools", 24)}, models = ${merge("models", 25)}, touched = ${merge("touched", 26)},
       project_dir = EXCLUDED.project_dir,
       header = ${append ? "COALESCE(pi_files.header, EXCLUDED.header)" : "EXCLUDED.header"}
     RETURNING seq`,
    [
      source,
      st.path,
      st.size,
      st.mtimeMs,
      st.ctimeMs,
      st.ino,
      read.indexedOffset,
      read.nextLine,
      read.version,
      probeDigest(parts.head),
      probeDigest(read.tail),
      m ? pgText(m.sessionId) : null,
      m ? pgText(m.cwd) : null,
      m ? pgText(m.created) : null,
      m ? pgText(m.parentPath) : null,
      m ? text(m.name) : null,
      m ? text(m.firstMessage) : null,
      m ? m.modifiedMs : null,
      m ? m.messageCount : null,
      m ? m.errored : null,
      m ? pgText(m.leafId) : null,
      m ? m.entryCount : null,
      m ? m.usageRepeats : null,
      list(facets?.tools),
      list(facets?.models),
      list(facets?.files),
      pgText(projectDir),
      parts.header,
    ],
  );
  return (written.rows[0] as { seq: string }).seq;
}

/**
 * Runs `fn` in a transaction that holds the lock on one file's key (source and path), so that
 * two syncs of a source never write one file at once; the next one to take it finds the work
 * done.
 */
async function inFileTransaction<T>(
  pool: ClientPool,
  source: string,
  path: string,
  fn: (client: PooledClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  try {
    try {
      await client.query("BEGIN");
      await client.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [`${source}\n${path}`]);
      const out = await fn(client);
      await client.query("COMMIT");
      return out;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    }
  } finally {
    client.release();
  }
}

async function removeFile(
  pool: ClientPool,
  source: string,
  path: string,
  stats: PostgresSyncStats,
): Promise<void> {
  await inFileTransaction(pool, source, path, async (client) => {
    const r = await client.query(`DELETE FROM pi_files WHERE source = $1 AND path = $2`, [source, path]);
    if ((r.rowCount ?? 0) > 0) {
      stats.filesRemoved++;
      stats.rowsSent++;
    }
  });
}

/** Writes the header line of a file sent before the database kept them, if it is still the file sent. */
async function addHeader(
  pool: ClientPool,
  opts: PostgresSyncOptions,
  st: StoreFile,
  stats: PostgresSyncStats,
): Promise<void> {
  const redactor = redactorOf(opts.redact);
  const header = readHeaderLine(st.path, st.size, redactor);
  if (header === null) return;
  await inFileTransaction(pool, opts.source, st.path, async (client) => {
    const r = await client.query(
      `UPDATE pi_files SET header = $3
       WHERE source = $1 AND path = $2 AND header IS NULL AND size = $4 AND mtime_ms = $5 AND ctime_ms = $6 AND ino = $7`,
      [opts.source, st.path, header, st.size, st.mtimeMs, st.ctimeMs, st.ino],
    );
    stats.rowsSent += r.rowCount ?? 0;
  });
}

type Outcome = "skipped" | "sent" | "appended" | "excluded";

/** One file's change, in one transaction. */
async function syncFile(
  pool: ClientPool,
  opts: PostgresSyncOptions,
  st: StoreFile,
  knownOffset: number | undefined,
  stats: PostgresSyncStats,
): Promise<Outcome> {
  const { source } = opts;
  const head = headProbe(st.path, st.size);
  const tail = knownOffset !== undefined ? tailProbe(st.path, knownOffset) : new Uint8Array(0);
  const redactor = redactorOf(opts.redact);
  return inFileTransaction(pool, source, st.path, async (client) => {
    const found = await client.query<FileRow & { has_header: boolean }>(
      `SELECT size, mtime_ms, ctime_ms, ino, indexed_offset, next_line, version, head, tail, ${META_COLUMNS},
         header IS NOT NULL AS has_header
       FROM pi_files WHERE source = $1 AND path = $2`,
      [source, st.path],
    );
    const row = found.rows[0] ? indexedFileOf(st.path, found.rows[0]) : undefined;
    if (row && sameIdentity(row, st)) return "skipped";
    // The tail probe was read at the offset seen before the lock; another offset needs a fresh read.
    const probe = row && row.indexedOffset !== knownOffset ? tailProbe(st.path, row.indexedOffset) : tail;
    const resume =
      row?.meta && canResume(row, st, head, probe) ? (row as IndexedFile & { meta: SessionMeta }) : undefined;
    // An append's stored entries: their links (for the branch flags) and usage keys (for
    // repeats), in file order, as one JSON value.
    let stored: (TreeLink & { onBranch: boolean })[] = [];
    let usageKeys: string[] = [];
    if (resume) {
      const links = await client.query<{ links: string | null }>(
        `SELECT json_agg(json_build_array(entry_id, parent_id, type, on_branch, usage::json->>'key')
           ORDER BY ordinal)::text AS links
         FROM pi_entries WHERE source = $1 AND path = $2`,
        [source, st.path],
      );
      const rows = JSON.parse(links.rows[0]?.links ?? "[]") as StoredLink[];
      stored = rows.map(([id, parentId, type, onBranch]) => ({ type, id, parentId, onBranch }));
      usageKeys = rows.flatMap((r) => (r[4] === null ? [] : [r[4]]));
    }
    // Read in parts of `chunk` bytes (each an append to the part before, as the local index
    // reads a grown file), so a large session costs a part's rows in memory, not the file's;
    // all parts in this one transaction.
    const chunk = Math.max(1, Math.floor(opts.chunkBytes ?? CHUNK_BYTES));
    // Sent whole: its header line goes too; an append keeps the one sent (or, sent before
    // schema 3 kept them, sends it now).
    const header =
      resume && found.rows[0]?.has_header === true ? null : readHeaderLine(st.path, st.size, redactor);
    const facets: Collector["facets"] = { tools: new Set(), models: new Set(), files: new Set() };
    let current = resume;
    let firstNew = resume ? resume.meta.entryCount : 0;
    let end = Math.min(st.size, (current?.indexedOffset ?? 0) + chunk);
    let first = true;
    // Parts after the first start from the meta the part before left, which keeps `modified`
    // but not whether a message set it: the latest message time is kept here across parts.
    const parts = end < st.size;
    let maxMessageTime =
      resume && resume.meta.messageCount > 0 ? resume.meta.modifiedMs : Number.NEGATIVE_INFINITY;
    for (;;) {
      let sink = new Collector(st.path, firstNew, stored, usageKeys, redactor);
      sink.trackTimes = parts;
      let read = current
        ? readAppended(st.path, end, st.mtimeMs, current, sink, opts.signal)
        : readWhole(st.path, end, st.mtimeMs, sink, opts.signal, head);
      if (!current && end < st.size && (read.version < 3 || read.meta === null)) {
        // Older files are migrated whole, and a header may be longer than a part: all at once.
        end = st.size;
        sink = new Collector(st.path, firstNew, stored, usageKeys, redactor);
        read = readWhole(st.path, end, st.mtimeMs, sink, opts.signal, head);
      }
      if (parts && read.meta) {
        if (sink.maxMessageTime > maxMessageTime) maxMessageTime = sink.maxMessageTime;
        if (Number.isFinite(maxMessageTime)) read.meta.modifiedMs = maxMessageTime;
      }
      stats.bytesRead += read.bytesRead;
      if (current && end < st.size && read.indexedOffset === current.indexedOffset) {
        // A line longer than the part: a larger one (nothing was written for this one).
        end = Math.min(st.size, end + Math.max(chunk, end - current.indexedOffset));
        continue;
      }
      if (first) {
        if (opts.exclude && read.meta && isUnder(read.meta.cwd, opts.exclude)) {
          if (row) {
            await client.query(`DELETE FROM pi_files WHERE source = $1 AND path = $2`, [source, st.path]);
            stats.filesRemoved++;
            stats.rowsSent++;
          }
          return "excluded";
        }
        if (!resume && row) {
          await client.query(`DELETE FROM pi_entries WHERE source = $1 AND path = $2`, [source, st.path]);
          stats.rowsSent++;
        }
        first = false;
      }
      for (const k of ["tools", "models", "files"] as const) for (const x of sink.facets[k]) facets[k].add(x);
      const seq = await writeFileRow(client, source, st, read, {
        facets,
        append: resume !== undefined,
        redactor,
        projectDir: projectDirOf(opts.root, st.path),
        header,
        head,
      });
      stats.rowsSent++;
      await insertRows(client, source, st.path, seq, sink.rows, stats);
      if (sink.storedChanges.length > 0) {
        await client.query(
          `UPDATE pi_entries e SET on_branch = c.on_branch
           FROM unnest($3::int[], $4::bool[]) AS c(ordinal, on_branch)
           WHERE e.source = $1 AND e.path = $2 AND e.ordinal = c.ordinal`,
          [
            source,
            st.path,
            sink.storedChanges.map((c) => c.ordinal),
            sink.storedChanges.map((c) => c.onBranch),
          ],
        );
        stats.rowsSent += sink.storedChanges.length;
      }
      if (end >= st.size || read.meta === null) break;
      // The next part reads on from here, with this part's rows as stored ones.
      const links = sink.links();
      for (const c of sink.storedChanges) {
        const link = links[c.ordinal];
        if (link) link.onBranch = c.onBranch;
      }
      stored = links;
      usageKeys = [...usageKeys, ...sink.rows.flatMap((r) => (r.usage ? [r.usage.key] : []))];
      current = {
        path: st.path,
        size: end,
        mtimeMs: st.mtimeMs,
        ctimeMs: st.ctimeMs,
        ino: st.ino,
        indexedOffset: read.indexedOffset,
        nextLine: read.nextLine,
        version: read.version,
        head: read.head,
        tail: read.tail,
        meta: read.meta,
      };
      firstNew = read.meta.entryCount;
      end = Math.min(st.size, read.indexedOffset + chunk);
    }
    return resume ? "appended" : "sent";
  });
}

function isFsError(error: unknown): boolean {
  const e = error as { code?: unknown; syscall?: unknown } | null;
  return typeof e?.code === "string" && typeof e.syscall === "string";
}

function isVanished(error: unknown): boolean {
  const e = error as { code?: unknown; name?: unknown };
  return (
    e.code === "ENOENT" || e.name === "SessionFileNotFoundError" || e.name === "SessionFileNotRegularError"
  );
}

/**
 * A file row as the sync compares it with the store: path, size, mtime, ctime, inode, indexed
 * offset, cwd, and whether its header line is still to send (JSON numbers: sizes, offsets and
 * inodes are below 2^53, and PostgreSQL writes a double's shortest exact form).
 */
type KnownFileRow = [
  path: string,
  size: number,
  mtimeMs: number,
  ctimeMs: number,
  ino: number,
  offset: number,
  cwd: string | null,
];

/**
 * A sync's first question: the files the database holds of source `$1`, with their identities and
 * offsets, and which of them still lack their header line; as one JSON value `[rows, paths]`.
 */
export const KNOWN_FILES_QUERY = `SELECT json_build_array(
    (SELECT json_agg(json_build_array(path, size, mtime_ms, ctime_ms, ino, indexed_offset, cwd))
      FROM pi_files WHERE source = $1),
    (SELECT json_agg(path) FROM pi_files WHERE source = $1 AND header IS NULL AND version > 0)
  )::text AS files`;

/** Brings the source's sessions in the database up to date with the store under `root`. */
export async function syncToPostgres(
  pool: ClientPool,
  options: PostgresSyncOptions,
): Promise<PostgresSyncStats> {
  // Paths as the local index keys them (`search`'s database resolves its root too).
  const opts = { ...options, root: resolve(options.root) };
  const { source } = opts;
  if (source === "") throw new Error("a sync needs a source name (who sends the sessions)");
  // What the database holds of this source, asked before the store is listed: the server
  // answers (a fresh backend reads its catalogs first) while this thread stats the files.
  const client = await pool.connect();
  // One row of JSON rather than a row per file: the client parses one value, not seven per file.
  // Both halves read indexes only (schema 4): a new backend's first touch of each shared page
  // costs a page fault, and the table's pages hold every column of every source's files.
  const knownQuery = client.query<{ files: string | null }>(KNOWN_FILES_QUERY, [source]).then(
    (result) => {
      client.release();
      return result;
    },
    (error: unknown) => {
      // A client whose query failed is not given back for reuse (as pg's `pool.query` does).
      client.release(error instanceof Error ? error : true);
      throw error;
    },
  );
  const unreadable: PostgresSyncStats["unreadable"] = [];
  let found: StoreFile[];
  try {
    found = listStoreFiles(opts.root, {
      onUnreadable: (path, error) => unreadable.push({ path, error }),
    });
  } catch (error) {
    // The listing's failure is the one to report; the query only has to settle.
    await knownQuery.catch(() => {});
    throw error;
  }
  const knownJson = (await knownQuery).rows[0]?.files;
  const [knownRows, headerlessPaths] = (knownJson ? JSON.parse(knownJson) : [null, null]) as [
    KnownFileRow[] | null,
    string[] | null,
  ];
  const needsHeader = new Set(headerlessPaths ?? []);
  const stats: PostgresSyncStats = {
    filesSeen: found.length,
    unchanged: 0,
    filesSent: 0,
    filesAppended: 0,
    filesRemoved: 0,
    filesExcluded: 0,
    skipped: 0,
    entriesSent: 0,
    rowsSent: 0,
    bytesRead: 0,
    bytesSent: 0,
    unreadable,
  };
  const known = new Map(
    (knownRows ?? []).map(([path, size, mtimeMs, ctimeMs, ino, offset, cwd]) => [
      path,
      { size, mtimeMs, ctimeMs, ino, offset, cwd, needsHeader: needsHeader.has(path) },
    ]),
  );
  const exclude = opts.exclude ?? [];
  const todo: StoreFile[] = [];
  const seen = new Set<string>();
  const gone: string[] = [];
  const headerless: StoreFile[] = [];
  for (const st of found) {
    seen.add(st.path);
    const k = known.get(st.path);
    if (k && sameIdentity(k, st)) {
      // Sent before, excluded now: it leaves the database.
      if (k.cwd !== null && exclude.length > 0 && isUnder(k.cwd, exclude)) gone.push(st.path);
      else {
        stats.unchanged++;
        // Sent before the database kept header lines (schema 3): its header goes now.
        if (k.needsHeader) headerless.push(st);
      }
    } else todo.push(st);
  }
  for (const path of known.keys()) if (!seen.has(path)) gone.push(path);
  for (const path of gone) {
    opts.signal?.throwIfAborted();
    await removeFile(pool, source, path, stats);
  }
  for (const st of headerless) {
    opts.signal?.throwIfAborted();
    try {
      await addHeader(pool, opts, st, stats);
    } catch (error) {
      // Unreadable now: left as it is (the next sync tries again).
      if (!isVanished(error) && !isFsError(error)) throw error;
    }
  }
  // Oldest change first, as the local index: entries get their place in the newest-first order so.
  todo.sort((a, b) => a.mtimeMs - b.mtimeMs || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  let done = 0;
  for (const st of todo) {
    opts.signal?.throwIfAborted();
    try {
      const outcome = await syncFile(pool, opts, st, known.get(st.path)?.offset, stats);
      if (outcome === "skipped") stats.skipped++;
      else if (outcome === "sent") stats.filesSent++;
      else if (outcome === "appended") stats.filesAppended++;
      else stats.filesExcluded++;
    } catch (error) {
      if (!isVanished(error) && !isFsError(error)) throw error;
      // Gone between its stat and its read, or unreadable: it leaves the database (reported).
      await removeFile(pool, source, st.path, stats);
      if (!isVanished(error)) unreadable.push({ path: st.path, error: error as Error });
    }
    done++;
    opts.onProgress?.({ done, total: todo.length, path: st.path });
  }
  await pool.query(
    `INSERT INTO pi_sources (name, last_sync_ms) VALUES ($1, $2)
     ON CONFLICT (name) DO UPDATE SET last_sync_ms = EXCLUDED.last_sync_ms`,
    [source, Date.now()],
  );
  return stats;
}
