/**
 * Bringing the session database up to date with a store: one stat per file (node-store's
 * `listStoreFiles`), then only what changed is read. A file that only grew is read from
 * where it was indexed last (its first bytes and the bytes before that point unchanged); a
 * rewritten, replaced or shrunk file is indexed again; a removed file leaves the index. Each
 * file's update is one transaction, so a process killed mid-way leaves a usable index.
 *
 * Use {@link syncStore} before every query: the warm check costs a stat per file.
 */
import type { JsonRecord, SessionHeader, SessionRecord } from "@pi-session/format";
import { isValidSessionHeader, splitSession } from "@pi-session/format";
import { migrateRecords } from "@pi-session/migrate";
import {
  type StoreFile,
  listStoreFiles,
  rawRecordValue,
  readFileBytes,
  recordObject,
  sessionInfoName,
  streamSessionRecordsSync,
} from "@pi-session/node-store";
import type {
  EntryRow,
  FileIdentity,
  FileWriter,
  IndexedFile,
  SessionDatabase,
  SessionMeta,
  StoredFile,
} from "./database.js";
import {
  type TreeLink,
  contentText,
  currentBranchFlags,
  entryDocument,
  extendsBranch,
  usageRow,
} from "./documents/index.js";

/** Bytes kept of a file's start and of the end of what was indexed, to tell growth from a rewrite. */
export const PROBE_BYTES = 256;

/** Entries held before they are written (a file with more is written in parts, its branch flags fixed after). */
const BATCH = 512;

/**
 * Bytes read per write transaction (several files each): FTS5 writes one index segment per
 * transaction and merges them as they pile up, so a transaction per small file costs several
 * times the indexing itself. Each file stays all or nothing within it.
 */
const TRANSACTION_BYTES = 32 * 1024 * 1024;

export interface SyncProgress {
  /** Files read so far, of `total` that changed. */
  done: number;
  total: number;
}

export interface SyncOptions {
  /** Called after each changed file is indexed. */
  onProgress?: (progress: SyncProgress) => void;
  /** Called before the first changed file is read, with how many there are. */
  onStart?: (changed: number, bytes: number) => void;
  signal?: AbortSignal;
  /** Bytes read per write transaction (default 32 MiB; each file stays all or nothing). */
  transactionBytes?: number;
}

export interface SyncStats {
  /** Files under the root. */
  files: number;
  unchanged: number;
  /** Files indexed from the start (new, rewritten, shrunk, replaced). */
  indexed: number;
  /** Files read from where they were indexed last. */
  resumed: number;
  /** Files that left the index. */
  removed: number;
  /** Files another process had indexed by the time this one got to them. */
  skipped: number;
  bytesRead: number;
  /**
   * Files and directories that could not be read (no permission, a dangling link, not a
   * regular file), with why: left out of the index (as pi's listing leaves them out), so the
   * caller can say so.
   */
  unreadable: { path: string; error: Error }[];
}

function sameIdentity(a: FileIdentity, b: FileIdentity): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino;
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function headOf(path: string, size: number): Uint8Array {
  return readFileBytes(path, 0, Math.min(PROBE_BYTES, size));
}

function tailBefore(path: string, offset: number): Uint8Array {
  const start = Math.max(0, offset - PROBE_BYTES);
  return readFileBytes(path, start, offset - start);
}

/** Whether `current` can be extended by reading `st`'s file from `current.indexedOffset`. */
function canResume(current: IndexedFile, st: StoreFile, head: Uint8Array, tail: Uint8Array): boolean {
  return (
    current.version >= 3 &&
    current.meta !== null &&
    st.ino === current.ino &&
    st.size > current.size &&
    current.indexedOffset <= st.size &&
    equalBytes(head.subarray(0, current.head.length), current.head) &&
    current.head.length === Math.min(PROBE_BYTES, current.size) &&
    equalBytes(tail, current.tail)
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Resolves a tool-call path against the session's cwd, as text (no filesystem). */
function resolveAgainst(cwd: string, path: string): string | undefined {
  if (path.startsWith("/") || cwd === "" || !cwd.startsWith("/")) return undefined;
  const parts = cwd.split("/");
  for (const seg of path.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") {
      if (parts.length > 1) parts.pop();
    } else parts.push(seg);
  }
  return parts.join("/") || "/";
}

/** What indexing a file accumulates besides its rows. */
class FileState {
  meta: SessionMeta;
  maxMessageTime = Number.NEGATIVE_INFINITY;
  readonly tools = new Set<string>();
  readonly models = new Set<string>();
  readonly files = new Set<string>();
  readonly links: TreeLink[] = [];
  nextOrdinal: number;
  pending: EntryRow[] = [];

  constructor(
    meta: SessionMeta,
    private readonly writer: FileWriter,
  ) {
    this.meta = meta;
    this.nextOrdinal = meta.entryCount;
    if (meta.messageCount > 0 && Number.isFinite(meta.modifiedMs)) this.maxMessageTime = meta.modifiedMs;
  }

  /** Adds one entry (`value`: as in the file, for usage; `entry`: v3, for the document). */
  add(entry: Record<string, unknown>, value: Record<string, unknown>, record: SessionRecord): void {
    const doc = entryDocument(entry);
    const m = this.meta;
    if (doc.type === "message") {
      m.messageCount++;
      const message = isObject(entry.message) ? entry.message : undefined;
      if (doc.role === "user" && m.firstMessage === "") {
        const text = contentText(message?.content).split("\n").join(" ");
        if (text !== "") m.firstMessage = text;
      }
      if (doc.role === "user" || doc.role === "assistant") {
        const t = typeof message?.timestamp === "number" ? message.timestamp : (doc.time ?? Number.NaN);
        if (t > this.maxMessageTime) this.maxMessageTime = t;
      }
    } else if (doc.type === "session_info") {
      m.name = sessionInfoName(entry) ?? null;
    }
    if (doc.errored) m.errored = true;
    if (doc.id !== null) m.leafId = doc.id;
    for (const t of doc.tools) this.tools.add(t);
    if (doc.model) this.models.add(doc.model);
    for (const f of doc.files) this.files.add(f);
    this.links.push({ type: doc.type, id: doc.id, parentId: doc.parentId });
    this.pending.push({
      ordinal: this.nextOrdinal++,
      line: record.line,
      offset: record.offset,
      length: record.byteLength,
      doc,
      onBranch: true,
      usage: usageRow(value),
    });
    if (this.pending.length >= BATCH) this.flush();
  }

  /** Writes the entries held (as on the current branch: {@link finish} corrects what is not). */
  flush(): void {
    if (this.pending.length === 0) return;
    this.writer.add(this.pending);
    this.pending = [];
  }

  /**
   * Writes what is held with its branch flags and returns the final meta (counts, `modified`
   * by pi's rule). `previousLeaf` and `firstNew`: where this update started (a file read again
   * from the start: null and 0).
   */
  finish(mtimeMs: number, previousLeaf: string | null, firstNew: number): SessionMeta {
    if (firstNew === 0) {
      // All entries are here: the flags come from them, before what is held is written.
      const flags = currentBranchFlags(this.links);
      const written = this.links.length - this.pending.length;
      for (const row of this.pending) row.onBranch = flags[row.ordinal] === 1;
      this.flush();
      if (written > 0) this.writer.setBranch(offBranch(flags, written));
    } else {
      this.flush();
      if (!extendsBranch(previousLeaf, this.links)) this.recomputeBranch();
    }
    // Paths as written and, when relative, resolved against the cwd (each distinct one once).
    const files = new Set(this.files);
    for (const f of this.files) {
      const abs = resolveAgainst(this.meta.cwd, f);
      if (abs) files.add(abs);
    }
    this.writer.addFacets({ tools: this.tools, models: this.models, files });
    const m = this.meta;
    m.entryCount = this.nextOrdinal;
    if (Number.isFinite(this.maxMessageTime)) m.modifiedMs = this.maxMessageTime;
    else {
      const created = Date.parse(m.created);
      m.modifiedMs = Number.isNaN(created) ? mtimeMs : created;
    }
    return m;
  }

  /** Sets the branch flags of the whole file from its stored links (an append left the branch). */
  private recomputeBranch(): void {
    const stored = this.writer.links();
    const flags = currentBranchFlags(stored);
    const changes: { ordinal: number; onBranch: boolean }[] = [];
    for (let i = 0; i < stored.length; i++) {
      const on = flags[i] === 1;
      if ((stored[i] as { onBranch: boolean }).onBranch !== on) changes.push({ ordinal: i, onBranch: on });
    }
    this.writer.setBranch(changes);
  }
}

/** The entries among the first `written` that are off the branch (written as on it). */
function offBranch(flags: Uint8Array, written: number): { ordinal: number; onBranch: boolean }[] {
  const out: { ordinal: number; onBranch: boolean }[] = [];
  for (let i = 0; i < written; i++) if (flags[i] !== 1) out.push({ ordinal: i, onBranch: false });
  return out;
}

function newMeta(header: SessionHeader): SessionMeta {
  const parent =
    typeof header.parentSession === "string"
      ? header.parentSession
      : typeof (header as Record<string, unknown>).branchedFrom === "string"
        ? ((header as Record<string, unknown>).branchedFrom as string)
        : null;
  return {
    sessionId: header.id,
    cwd: typeof header.cwd === "string" ? header.cwd : "",
    created: typeof header.timestamp === "string" ? header.timestamp : "",
    parentPath: parent,
    name: null,
    firstMessage: "",
    modifiedMs: 0,
    messageCount: 0,
    errored: false,
    leafId: null,
    entryCount: 0,
  };
}

/** The end of the last complete line among records (a torn last line is left for later). */
interface Progress {
  offset: number;
  nextLine: number;
}

function advance(p: Progress, r: SessionRecord): void {
  if (!r.terminated) return;
  p.offset = r.offset + r.byteLength + 1;
  p.nextLine = r.line + 1;
}

/**
 * Indexes one file whose identity differs from its row (or that has none); counts it as
 * skipped when another process indexed this identity meanwhile.
 */
function indexFile(
  db: SessionDatabase,
  st: StoreFile,
  known: StoredFile | undefined,
  stats: SyncStats,
  signal: AbortSignal | undefined,
): void {
  const head = headOf(st.path, st.size);
  const tail = known ? tailBefore(st.path, known.indexedOffset) : new Uint8Array(0);
  let mode = "replace" as "replace" | "append";
  let current: IndexedFile | undefined;
  const writer = db.beginFile(st.path, (row) => {
    if (row && sameIdentity(row, st)) return undefined;
    current = row;
    // The probes were read for the row seen before the transaction; another one needs a fresh read.
    const sameRow = row && known && row.indexedOffset === known.indexedOffset && row.size === known.size;
    mode = row && sameRow && canResume(row, st, head, tail) ? "append" : "replace";
    return mode;
  });
  if (!writer) {
    stats.skipped++;
    return;
  }
  try {
    if (mode === "append" && current?.meta) {
      appendRecords(writer, st, current, current.meta, stats, signal);
      stats.resumed++;
    } else {
      replaceRecords(writer, st, head, stats, signal);
      stats.indexed++;
    }
  } catch (error) {
    writer.rollback();
    throw error;
  }
}

function appendRecords(
  writer: FileWriter,
  st: StoreFile,
  current: IndexedFile,
  meta: SessionMeta,
  stats: SyncStats,
  signal: AbortSignal | undefined,
): void {
  const state = new FileState({ ...meta }, writer);
  const progress: Progress = { offset: current.indexedOffset, nextLine: current.nextLine };
  const readStats = { bytesRead: 0 };
  for (const r of streamSessionRecordsSync(st.path, {
    startOffset: current.indexedOffset,
    startLine: current.nextLine,
    endOffset: st.size,
    stats: readStats,
    ...(signal ? { signal } : {}),
  })) {
    if (!r.terminated) break;
    advance(progress, r);
    const entry = entryRecord(r);
    if (entry) state.add(entry.value, entry.value, entry);
  }
  stats.bytesRead += readStats.bytesRead;
  const m = state.finish(st.mtimeMs, meta.leafId, meta.entryCount);
  writer.commit({
    path: st.path,
    size: st.size,
    mtimeMs: st.mtimeMs,
    ctimeMs: st.ctimeMs,
    ino: st.ino,
    indexedOffset: progress.offset,
    nextLine: progress.nextLine,
    version: current.version,
    head: current.head,
    tail: tailBefore(st.path, progress.offset),
    meta: m,
  });
}

/**
 * A record as pi reads its line (node-store's `recordObject`: a raw line whose text, decoded
 * with U+FFFD for invalid UTF-8, parses to an object is an entry), as a JSON record; undefined
 * for a line pi skips and for another `session` line.
 */
function entryRecord(record: SessionRecord): JsonRecord | undefined {
  if (record.kind === "json") return record.value.type === "session" ? undefined : record;
  const value = recordObject(record);
  if (!value || value.type === "session") return undefined;
  const { line, offset, byteLength, terminated } = record;
  return { kind: "json", line, offset, byteLength, terminated, value };
}

/** The header record as a JSON record (it may have been a raw line pi reads). */
function asJson(record: SessionRecord, value: SessionHeader): JsonRecord {
  if (record.kind === "json") return record;
  const { line, offset, byteLength, terminated } = record;
  return { kind: "json", line, offset, byteLength, terminated, value: value as Record<string, unknown> };
}

/**
 * pi's header rule, as the listing and the SDK apply it: the first line that parses to a truthy
 * value decides. Returns undefined to read on (the line does not parse, or is `0`, `null`, ...),
 * the header when that value is one (`type: "session"`, a string id), or null: not a session.
 */
function headerDecision(record: SessionRecord): SessionHeader | null | undefined {
  const value = record.kind === "json" ? record.value : rawRecordValue(record);
  if (!value) return undefined;
  return isValidSessionHeader(value) ? (value as SessionHeader) : null;
}

function replaceRecords(
  writer: FileWriter,
  st: StoreFile,
  head: Uint8Array,
  stats: SyncStats,
  signal: AbortSignal | undefined,
): void {
  const progress: Progress = { offset: 0, nextLine: 1 };
  const readStats = { bytesRead: 0 };
  const stream = streamSessionRecordsSync(st.path, {
    endOffset: st.size,
    stats: readStats,
    ...(signal ? { signal } : {}),
  });
  let state: FileState | undefined;
  let version = 0;
  let older: SessionRecord[] | undefined;
  let decided = false;
  for (const r of stream) {
    if (!r.terminated) break;
    advance(progress, r);
    if (!decided) {
      const header = headerDecision(r);
      if (header === undefined) continue;
      decided = true;
      if (header === null) break;
      version = typeof header.version === "number" ? header.version : 1;
      state = new FileState(newMeta(header), writer);
      // Older files are migrated in memory, whole (ids for v1 entries, v3 roles).
      if (version < 3) older = [asJson(r, header)];
      continue;
    }
    if (older) {
      older.push(entryRecord(r) ?? r);
      continue;
    }
    const entry = entryRecord(r);
    if (entry) state?.add(entry.value, entry.value, entry);
  }
  stats.bytesRead += readStats.bytesRead;
  if (state && older) addMigrated(state, older);
  const meta = state ? state.finish(st.mtimeMs, null, 0) : null;
  writer.commit({
    path: st.path,
    size: st.size,
    mtimeMs: st.mtimeMs,
    ctimeMs: st.ctimeMs,
    ino: st.ino,
    indexedOffset: progress.offset,
    nextLine: progress.nextLine,
    version: state ? Math.max(1, version) : 0,
    head,
    tail: tailBefore(st.path, progress.offset),
    meta,
  });
}

/** Adds the entries of a v1 or v2 file: documents from the migrated entries, usage as written. */
function addMigrated(state: FileState, records: SessionRecord[]): void {
  const migrated = splitSession(migrateRecords(records).records);
  const original = new Map<number, Record<string, unknown>>();
  for (const r of splitSession(records).entries) original.set(r.line, r.value);
  for (const r of migrated.entries as JsonRecord[]) state.add(r.value, original.get(r.line) ?? r.value, r);
}

/**
 * Brings `db` up to date with the sessions under `root` (a sessions root: `.jsonl` files in it
 * and in its per-project directories). Safe to run in several processes at once.
 */
export async function syncStore(
  db: SessionDatabase,
  root: string,
  opts: SyncOptions = {},
): Promise<SyncStats> {
  const unreadable: SyncStats["unreadable"] = [];
  const found = listStoreFiles(root, { onUnreadable: (path, error) => unreadable.push({ path, error }) });
  const known = db.files();
  const stats: SyncStats = {
    files: found.length,
    unchanged: 0,
    indexed: 0,
    resumed: 0,
    removed: 0,
    skipped: 0,
    bytesRead: 0,
    unreadable,
  };
  const todo: StoreFile[] = [];
  const seen = new Set<string>();
  let bytes = 0;
  for (const st of found) {
    seen.add(st.path);
    const k = known.get(st.path);
    if (k && sameIdentity(k, st)) stats.unchanged++;
    else {
      todo.push(st);
      bytes += k && st.size > k.indexedOffset ? st.size - k.indexedOffset : st.size;
    }
  }
  const gone = [...known.keys()].filter((path) => !seen.has(path));
  if (gone.length > 0)
    db.batch(() => {
      for (const path of gone) {
        opts.signal?.throwIfAborted();
        db.deleteFile(path);
        stats.removed++;
      }
    });
  // Oldest change first: new files get their ids, and entries theirs, in that order, which the
  // ranking's windows follow (newest first).
  todo.sort((a, b) => a.mtimeMs - b.mtimeMs || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  if (todo.length > 0) opts.onStart?.(todo.length, bytes);
  let done = 0;
  let reported = 0;
  while (done < todo.length) {
    const first = done;
    const before = { ...stats };
    try {
      let budget = opts.transactionBytes ?? TRANSACTION_BYTES;
      db.batch(() => {
        while (done < todo.length && budget > 0) {
          opts.signal?.throwIfAborted();
          const read = stats.bytesRead;
          const st = todo[done] as StoreFile;
          indexFile(db, st, known.get(st.path), stats, opts.signal);
          budget -= Math.max(stats.bytesRead - read, 64 * 1024);
          done++;
          if (done > reported) {
            reported = done;
            opts.onProgress?.({ done, total: todo.length });
          }
        }
      });
    } catch (error) {
      const gone = (error as Error).name === "SessionFileNotRegularError" || isVanished(error);
      // Not the file system's (SQLite's errors have codes too): a real failure.
      if (!gone && !isFsError(error)) throw error;
      // The batch was undone. A file that vanished between its stat and its read, or was
      // replaced by a FIFO or a directory, leaves the index; one that cannot be read (EACCES,
      // EIO) leaves it too, and is reported. The batch is done again without it.
      const st = todo.splice(done, 1)[0] as StoreFile;
      Object.assign(stats, before);
      db.deleteFile(st.path);
      if (gone) stats.removed++;
      else unreadable.push({ path: st.path, error: error as Error });
      done = first;
    }
  }
  return stats;
}

/** An error of a file system call (`EACCES`, `EIO`, ...): it has a code and names the call. */
function isFsError(error: unknown): boolean {
  const e = error as { code?: unknown; syscall?: unknown } | null;
  return typeof e?.code === "string" && typeof e.syscall === "string";
}

function isVanished(error: unknown): boolean {
  return (
    (error as { code?: unknown }).code === "ENOENT" || (error as Error).name === "SessionFileNotFoundError"
  );
}

/** Reads one entry's line again (for snippets and exact checks); undefined if it moved. */
export function readEntryLine(
  path: string,
  offset: number,
  length: number,
): Record<string, unknown> | undefined {
  const bytes = readFileBytes(path, offset, length);
  if (bytes.length !== length) return undefined;
  try {
    const value = JSON.parse(new TextDecoder().decode(bytes)) as unknown;
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
