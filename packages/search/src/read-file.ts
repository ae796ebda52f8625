/**
 * Reading one session file into the rows of the session database: pi's header rule, lines as
 * pi reads them, older files migrated in memory, each entry's document, index texts and usage
 * row, the session's facts and facets, and the branch flags. The rows go to a {@link RowSink}:
 * the database's file writer, or (in `index-worker.ts`) messages to the thread that writes.
 *
 * Use {@link readWhole} for a file read from its start, {@link readAppended} for one read
 * from where it was indexed last.
 */
import type { JsonRecord, SessionHeader, SessionRecord } from "@pi-session/format";
import {
  contentText,
  indexRoleOf,
  isObject,
  isValidSessionHeader,
  rawRecordValue,
  sessionInfoName,
  splitSession,
} from "@pi-session/format";
import { migrateRecords } from "@pi-session/migrate";
import { recordObject, streamSessionRecordsSync } from "@pi-session/node-store";
import { readFileBytes } from "@pi-session/node-store/internal";
import { homedir } from "node:os";
import type { EntryRow, FileWriter, IndexedFile, SessionMeta } from "./database.js";
import {
  type TreeLink,
  currentBranchFlags,
  entryDocument,
  extendsBranch,
  fileTouches,
  indexTexts,
  resolveTouchPath,
  sessionParent,
  usageRow,
} from "./documents/index.js";

/** Bytes kept of a file's start and of the end of what was indexed, to tell growth from a rewrite. */
export const PROBE_BYTES = 256;

/** What `~` in a tool-call path stands for: this machine's home (where pi ran, for a local store). */
const HOME = homedir();

/** Entries held before they are written (a file with more is written in parts, its branch flags fixed after). */
const BATCH = 512;

/** Where a file's rows go: the parts of a {@link FileWriter} reading needs. */
export type RowSink = Pick<FileWriter, "add" | "setBranch" | "addFacets" | "links" | "usageKeys">;

/** What reading a file found, besides its rows. */
export interface ReadResult {
  /** Byte offset after the last complete line read, and that line's number plus one. */
  indexedOffset: number;
  nextLine: number;
  /** Session format version (0: not a session file). */
  version: number;
  meta: SessionMeta | null;
  /** The first bytes of the file and the bytes before `indexedOffset` (see {@link PROBE_BYTES}). */
  head: Uint8Array;
  tail: Uint8Array;
  bytesRead: number;
}

/** A file's head probe: its first {@link PROBE_BYTES} bytes (fewer in a shorter file). */
export function headProbe(path: string, size: number): Uint8Array {
  return readFileBytes(path, 0, Math.min(PROBE_BYTES, size));
}

/** A file's tail probe: the {@link PROBE_BYTES} bytes before `offset` (fewer near its start). */
export function tailProbe(path: string, offset: number): Uint8Array {
  const start = Math.max(0, offset - PROBE_BYTES);
  return readFileBytes(path, start, offset - start);
}

/** What indexing a file accumulates besides its rows. */
export class FileState {
  meta: SessionMeta;
  maxMessageTime = Number.NEGATIVE_INFINITY;
  readonly tools = new Set<string>();
  readonly models = new Set<string>();
  readonly files = new Set<string>();
  readonly links: TreeLink[] = [];
  nextOrdinal: number;
  pending: EntryRow[] = [];
  private usageKeys: Set<string> | undefined;

  constructor(
    meta: SessionMeta,
    private readonly writer: RowSink,
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
    } else if (indexRoleOf(doc.type) === "name") {
      m.name = sessionInfoName(entry) ?? null;
    }
    if (doc.errored) m.errored = true;
    if (doc.id !== null) m.leafId = doc.id;
    for (const t of doc.tools) this.tools.add(t);
    if (doc.model) this.models.add(doc.model);
    for (const f of doc.files) this.files.add(f);
    this.links.push({ type: doc.type, id: doc.id, parentId: doc.parentId });
    const usage = usageRow(value);
    if (usage) {
      // Keys seen in this file (those stored before an append are loaded when needed).
      this.usageKeys ??= new Set(this.meta.entryCount > 0 ? this.writer.usageKeys() : []);
      if (this.usageKeys.has(usage.key)) m.usageRepeats++;
      else this.usageKeys.add(usage.key);
    }
    this.pending.push({
      ordinal: this.nextOrdinal++,
      line: record.line,
      offset: record.offset,
      length: record.byteLength,
      doc,
      indexed: indexTexts(doc),
      onBranch: true,
      usage,
      touches: fileTouches(entry, { cwd: m.cwd, home: HOME }).map(({ tool, action, path }) => ({
        tool,
        action,
        path,
      })),
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
    // Paths as written and as resolved against the cwd (each distinct one once).
    const files = new Set(this.files);
    for (const f of this.files) files.add(resolveTouchPath(f, { cwd: this.meta.cwd, home: HOME }));
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
  return {
    sessionId: header.id,
    cwd: typeof header.cwd === "string" ? header.cwd : "",
    created: typeof header.timestamp === "string" ? header.timestamp : "",
    parentPath: sessionParent(header) ?? null,
    name: null,
    firstMessage: "",
    modifiedMs: 0,
    messageCount: 0,
    errored: false,
    leafId: null,
    entryCount: 0,
    usageRepeats: 0,
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

/** The header record as a JSON record (it may have been a raw line pi reads); `value` is its object. */
function asJson(record: SessionRecord, value: object): JsonRecord {
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

/**
 * Reads a file from its start (`size`: how far; `mtimeMs` for `modified` without messages) and
 * sends its rows to `sink`; `head`: its first bytes, when already read.
 */
export function readWhole(
  path: string,
  size: number,
  mtimeMs: number,
  sink: RowSink,
  signal?: AbortSignal,
  head?: Uint8Array,
): ReadResult {
  const progress: Progress = { offset: 0, nextLine: 1 };
  const readStats = { bytesRead: 0 };
  const stream = streamSessionRecordsSync(path, {
    endOffset: size,
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
      state = new FileState(newMeta(header), sink);
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
  if (state && older) addMigrated(state, older);
  const meta = state ? state.finish(mtimeMs, null, 0) : null;
  return {
    indexedOffset: progress.offset,
    nextLine: progress.nextLine,
    version: state ? Math.max(1, version) : 0,
    meta,
    head: head ?? headProbe(path, size),
    tail: tailProbe(path, progress.offset),
    bytesRead: readStats.bytesRead,
  };
}

/** Reads what was appended to a file since `current` was indexed, and sends its rows to `sink`. */
export function readAppended(
  path: string,
  size: number,
  mtimeMs: number,
  current: IndexedFile & { meta: SessionMeta },
  sink: RowSink,
  signal?: AbortSignal,
): ReadResult {
  const meta = current.meta;
  const state = new FileState({ ...meta }, sink);
  const progress: Progress = { offset: current.indexedOffset, nextLine: current.nextLine };
  const readStats = { bytesRead: 0 };
  for (const r of streamSessionRecordsSync(path, {
    startOffset: current.indexedOffset,
    startLine: current.nextLine,
    endOffset: size,
    stats: readStats,
    ...(signal ? { signal } : {}),
  })) {
    if (!r.terminated) break;
    advance(progress, r);
    const entry = entryRecord(r);
    if (entry) state.add(entry.value, entry.value, entry);
  }
  return {
    indexedOffset: progress.offset,
    nextLine: progress.nextLine,
    version: current.version,
    meta: state.finish(mtimeMs, meta.leafId, meta.entryCount),
    head: current.head,
    tail: tailProbe(path, progress.offset),
    bytesRead: readStats.bytesRead,
  };
}

/** Adds the entries of a v1 or v2 file: documents from the migrated entries, usage as written. */
function addMigrated(state: FileState, records: SessionRecord[]): void {
  const migrated = splitSession(migrateRecords(records).records);
  const original = new Map<number, Record<string, unknown>>();
  for (const r of splitSession(records).entries) original.set(r.line, r.value);
  for (const r of migrated.entries as JsonRecord[]) state.add(r.value, original.get(r.line) ?? r.value, r);
}
