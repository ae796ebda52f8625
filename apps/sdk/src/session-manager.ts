/**
 * `SessionManager`: pi 1.6.0's session API (same methods, results and thrown messages),
 * composed from the layers: `@pi-session/migrate` upgrades legacy entries, `@pi-session/tree`
 * indexes them (ids, children, labels, name, leaf, paths, display tree; cycle-safe),
 * `@pi-session/context` rebuilds the context, `@pi-session/node-store` reads, creates,
 * appends to, rewrites and lists files. This class keeps only what is pi's API itself: entry
 * shapes, argument checks and messages, when the file is written.
 *
 * Opening never writes (except a header into an empty file, as pi); a legacy file is migrated
 * in memory and replaced atomically, with a backup and its malformed lines in place, at the
 * first append; appends are one write each under a cross-process lock, absorbing what other
 * processes appended, through one writer kept open per file (see `internal/session-file.ts`
 * for how its descriptor is released without a `close()` in pi's API).
 */
import { mkdirSync, readdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { buildContextEntries, buildSessionProjection } from "@pi-session/context";
import {
  type AgentMessage,
  type BranchSummaryEntry,
  type CompactionEntry,
  type ContextEditEntry,
  CURRENT_SESSION_VERSION,
  type CustomEntry,
  type CustomMessageEntry,
  type FileEntry,
  type ImageContent,
  isValidSessionHeader,
  type LabelEntry,
  type ModelChangeEntry,
  type SessionEntry,
  type SessionHeader,
  type SessionInfoEntry,
  type SessionRecord,
  type TextContent,
  type ThinkingLevelChangeEntry,
  type Usage,
  type UsageEntry,
} from "@pi-session/format";
import { migrateEntries, migrateRecords } from "@pi-session/migrate";
import {
  assertValidSessionId,
  createSessionFile,
  getDefaultSessionsRoot,
  listAllSessions,
  listSessionDir,
  listSessions,
  firstValueAsPi,
  keepLinesPiReads,
  readLinesAsPi,
  readSessionFileSync,
  recordObject,
  type SessionFileContents,
  sessionFilePath,
} from "@pi-session/node-store";
import { SessionIndex } from "@pi-session/tree";
import {
  cwdMatches,
  defaultSessionDirPath,
  findMostRecentSession,
  getDefaultSessionDir,
  headerOrNull,
  jsonValues,
  resolvePath,
} from "./free-functions.js";
import { createSessionId, generateId, randomEntryId } from "./internal/ids.js";
import { type PendingRewrite, SessionFile } from "./internal/session-file.js";
import { getCurrentSystemMessage } from "./internal/system-message.js";
import type {
  ContextEditableContent,
  ForeignEntriesListener,
  NewSessionOptions,
  SessionContext,
  SessionInfo,
  SessionListProgress,
  SessionProjection,
  SessionTreeNode,
} from "./types.js";

/** Options of {@link SessionManager.setWriteOptions}. */
export interface WriteOptions {
  /** fsync after every append (durable at the cost of speed). Default false, as pi. */
  fsync?: boolean;
  /**
   * How long a write waits for the session's cross-process lock before it throws
   * `SessionLockTimeoutError` (default 10 s, or `PI_SESSION_LOCK_TIMEOUT_MS` when set).
   */
  lockTimeoutMs?: number;
}

const isConversation = (entry: FileEntry): boolean =>
  entry.type === "message" && (entry.message.role === "user" || entry.message.role === "assistant");

function now(): string {
  return new Date().toISOString();
}

/**
 * Reads a file for opening: `undefined` when it does not exist. No codec diagnostics are kept
 * (the manager shows none), nor, unless `whole`, the lines pi skips: they matter only to a
 * rewrite, which reads the file whole first (a million broken lines cost no million objects).
 */
function readIfExists(path: string, whole = false): SessionFileContents | undefined {
  const opts = { missing: "null", maxDiagnostics: 0 } as const;
  return readSessionFileSync(path, whole ? opts : { ...opts, keepRecord: keepLinesPiReads() }) ?? undefined;
}

/** The header's cwd, if the file's first parsed line is a valid header with one. */
function headerCwd(contents: SessionFileContents | undefined): string | undefined {
  const first = contents ? firstValueAsPi(contents.records) : undefined;
  return isValidSessionHeader(first) && typeof first.cwd === "string" ? first.cwd : undefined;
}

export class SessionManager {
  private sessionId = "";
  private sessionFile: string | undefined;
  private readonly sessionDir: string;
  private cwd: string;
  private readonly persist: boolean;
  private readonly readOnly: boolean;
  private header!: SessionHeader;
  /** Every entry after the header, in file order (including any a layer would not index). */
  private entries: SessionEntry[] = [];
  private index = new SessionIndex<SessionEntry>();
  /** First-seen positions of ids, built only when `getChildren` meets a duplicated id. */
  private firstSeen:
    | { index: SessionIndex<SessionEntry>; scanned: number; rank: Map<string, number> }
    | undefined;
  /** The file being written; undefined in memory. */
  private file: SessionFile | undefined;
  private foreignListeners = new Set<ForeignEntriesListener>();
  private syncWrites = false;
  private lockTimeoutMs: number | undefined;

  private constructor(
    cwd: string,
    sessionDir: string,
    sessionFile: string | undefined,
    persist: boolean,
    options?: NewSessionOptions,
    preloaded?: FileEntry[] | SessionFileContents,
    readOnly = false,
  ) {
    this.cwd = resolvePath(cwd);
    this.sessionDir = sessionDir ? resolvePath(sessionDir) : "";
    this.persist = persist;
    this.readOnly = readOnly;
    if (persist && !readOnly && this.sessionDir) mkdirSync(this.sessionDir, { recursive: true });
    if (sessionFile) this._setSessionFile(sessionFile, preloaded as SessionFileContents | undefined);
    else if (Array.isArray(preloaded) && preloaded.length) this._loadEntries(preloaded.slice(), options);
    else this._newSession(options);
  }

  // ---------------------------------------------------------------------------------------
  // Session lifecycle

  /** Switch to a different session file (used for resume and branching). */
  setSessionFile(sessionFile: string): void {
    this._setSessionFile(sessionFile);
  }

  private _setSessionFile(sessionFile: string, preread?: SessionFileContents): void {
    const path = resolvePath(sessionFile);
    const contents = preread ?? readIfExists(path);
    if (!contents) {
      this._newSession();
      this._useFile(path); // keep the explicit path; the file is created at the first flush
      return;
    }
    // Lines as pi reads them (a raw line whose U+FFFD text parses to an object is an entry);
    // a torn fragment stays a raw line for the writer (see SessionFile.adopt).
    const torn = contents.tornTail?.kind === "fragment" ? contents.tornTail.offset : undefined;
    const lines = readLinesAsPi(contents.records, torn);
    if (!lines.isSession) {
      if (contents.size > 0) throw new Error(`Session file is not a valid pi session: ${path}`);
      this._newSession();
      const file = this._useFile(path);
      // As pi: an empty file gets its header at once (never through a read-only view).
      if (!this.readOnly) file.initEmpty(this.header);
      return;
    }
    const migration = migrateRecords(lines.records, { randomId: randomEntryId });
    const { report } = migration;
    if (report.changed && contents.omittedRecords > 0) {
      // The file will be rewritten: read it with the lines pi skips, to write them back.
      const whole = readIfExists(path, true);
      if (whole) {
        this._setSessionFile(sessionFile, whole);
        return;
      }
    }
    this._adopt((report.changed ? jsonValues(migration.records) : lines.values) as unknown as FileEntry[]);
    this.sessionFile = path;
    // What a rewrite writes: a raw line that migration left unchanged goes back byte for byte
    // (a changed one is written migrated; its old bytes are in the backup).
    const records = migration.records.map(lines.original);
    // A torn fragment (a crashed writer's last line) is moved to a `.torn-*` sidecar by the
    // first append (the writer's torn-tail repair, or the migrating rewrite), never left in
    // the file as a malformed line; unless it grows meanwhile: then it was an append in
    // flight, and is read again, whole.
    const pending: PendingRewrite | undefined = report.changed
      ? { records, migratedFrom: report.fromVersion }
      : undefined;
    this._useFile(path).adopt(contents, pending);
  }

  /** Points the manager at `path` with a fresh writer state (nothing written yet). */
  private _useFile(path: string): SessionFile {
    this.file?.close();
    this.sessionFile = path;
    this.file = new SessionFile(path);
    this.file.durability = this.syncWrites ? "fsync" : "none";
    if (this.lockTimeoutMs !== undefined) this.file.lockOptions = { timeoutMs: this.lockTimeoutMs };
    return this.file;
  }

  newSession(options?: NewSessionOptions): string | undefined {
    this.assertWritable();
    return this._newSession(options);
  }

  private _newSession(options?: NewSessionOptions): string | undefined {
    if (options?.id !== undefined) assertValidSessionId(options.id);
    this.sessionId = options?.id ?? createSessionId();
    const timestamp = now();
    this.header = {
      type: "session",
      version: CURRENT_SESSION_VERSION,
      id: this.sessionId,
      timestamp,
      cwd: this.cwd,
      parentSession: options?.parentSession,
    };
    this.entries = [];
    this.index = new SessionIndex<SessionEntry>();
    this.file?.close();
    this.file = undefined;
    this.sessionFile = undefined;
    if (this.persist) this._useFile(sessionFilePath(this.getSessionDir(), timestamp, this.sessionId));
    return this.sessionFile;
  }

  /** Entries given to `inMemory`: with a header they are the session; without, they follow a new one. */
  private _loadEntries(entries: FileEntry[], options?: NewSessionOptions): void {
    if (entries.some((e) => e.type === "session")) {
      migrateEntries(entries, { inPlace: true, randomId: randomEntryId });
      this._adopt(entries);
      return;
    }
    this._newSession(options);
    this._setEntries(entries as SessionEntry[]);
  }

  /** Takes over migrated file entries: the first header is the session's, other headers are ignored (as pi). */
  private _adopt(fileEntries: FileEntry[]): void {
    this.header = fileEntries.find((e): e is SessionHeader => e.type === "session") as SessionHeader;
    this.sessionId = this.header.id;
    this._setEntries(fileEntries.filter((e): e is SessionEntry => e.type !== "session"));
  }

  private _setEntries(entries: SessionEntry[]): void {
    this.entries = entries;
    this.index = new SessionIndex<SessionEntry>(entries);
  }

  isPersisted(): boolean {
    return this.persist;
  }

  getCwd(): string {
    return this.cwd;
  }

  getSessionDir(): string {
    return this.sessionDir;
  }

  usesDefaultSessionDir(): boolean {
    return this.sessionDir === defaultSessionDirPath(this.cwd);
  }

  getSessionId(): string {
    return this.sessionId;
  }

  getSessionFile(): string | undefined {
    return this.sessionFile;
  }

  /** Not in pi: is this a read-only view (from {@link SessionManager.openReadonly})? */
  isReadonly(): boolean {
    return this.readOnly;
  }

  /**
   * Not in pi: be told about entries another process appended to this file. They are
   * already absorbed (ids known, labels applied) when the listener runs; the leaf stays ours.
   * Returns a function that removes the listener.
   */
  onForeignEntries(listener: ForeignEntriesListener): () => void {
    this.foreignListeners.add(listener);
    return () => this.foreignListeners.delete(listener);
  }

  /** Not in pi: write options (fsync after each append, lock timeout). */
  setWriteOptions(options: WriteOptions): void {
    this.syncWrites = options.fsync ?? false;
    this.lockTimeoutMs = options.lockTimeoutMs;
    if (this.file) {
      this.file.durability = this.syncWrites ? "fsync" : "none";
      this.file.lockOptions = this.lockTimeoutMs === undefined ? {} : { timeoutMs: this.lockTimeoutMs };
    }
  }

  /**
   * Not in pi: closes the session file's descriptor and gives up the append lock now. Optional:
   * the manager stays usable (the next append reopens the file), and a manager that is simply
   * dropped has its descriptor closed when it is garbage-collected (and at process exit).
   */
  close(): void {
    this.file?.close();
  }

  // ---------------------------------------------------------------------------------------
  // Persistence

  private assertWritable(): void {
    if (this.readOnly) throw new Error(`Session is read-only: ${this.sessionFile ?? "(in memory)"}`);
  }

  /** Writes `entry` (and, at the first flush, everything buffered). Memory is untouched on failure. */
  private _persist(entry: SessionEntry): void {
    const file = this.file;
    if (!this.persist || !file) return;
    if (!file.flushed) {
      if (!isConversation(entry) && !this.entries.some(isConversation)) return;
      file.create([this.header, ...this.entries, entry]);
      return;
    }
    const foreign: SessionEntry[] = [];
    try {
      file.append(
        entry,
        (records) => foreign.push(...this._absorbForeign(records, entry)),
        () => [this.header, ...this.entries],
      );
    } finally {
      if (foreign.length) for (const listener of this.foreignListeners) listener(foreign, file.path);
    }
  }

  /**
   * Takes in entries other processes appended (indexed, labels and name applied, the leaf
   * kept ours); if one of them took our entry's id, our entry gets a fresh one.
   */
  private _absorbForeign(records: SessionRecord[], entry: SessionEntry): SessionEntry[] {
    const leaf = this.index.leafId;
    const foreign: SessionEntry[] = [];
    for (const record of records) {
      // As pi reads the lines: a raw line whose (U+FFFD-decoded) text parses to an object counts.
      const value = recordObject(record);
      if (value === undefined || value.type === "session") continue;
      const absorbed = value as unknown as SessionEntry;
      this.entries.push(absorbed);
      this.index.append(absorbed);
      foreign.push(absorbed);
    }
    if (foreign.length) this.index.setLeaf(leaf);
    if (this.index.has(entry.id)) {
      const previous = entry.id;
      entry.id = generateId(this.index);
      if (entry.type === "compaction" && entry.firstKeptEntryId === previous)
        entry.firstKeptEntryId = entry.id;
    }
    return foreign;
  }

  private _appendEntry(entry: SessionEntry): void {
    this.assertWritable();
    this._persist(entry);
    this.entries.push(entry);
    this.index.append(entry);
  }

  // ---------------------------------------------------------------------------------------
  // Appending

  /** Append a message as child of the current leaf, then advance the leaf. Returns the entry id. */
  appendMessage(message: AgentMessage): string {
    const entry = {
      type: "message",
      id: generateId(this.index),
      parentId: this.index.leafId,
      timestamp: now(),
      message,
    } as SessionEntry;
    this._appendEntry(entry);
    return entry.id;
  }

  appendThinkingLevelChange(thinkingLevel: string): string {
    const entry: ThinkingLevelChangeEntry = {
      type: "thinking_level_change",
      id: generateId(this.index),
      parentId: this.index.leafId,
      timestamp: now(),
      thinkingLevel,
    };
    this._appendEntry(entry);
    return entry.id;
  }

  appendModelChange(provider: string, modelId: string): string {
    const entry: ModelChangeEntry = {
      type: "model_change",
      id: generateId(this.index),
      parentId: this.index.leafId,
      timestamp: now(),
      provider,
      modelId,
    };
    this._appendEntry(entry);
    return entry.id;
  }

  /** Append usage outside the LLM context. Returns the appended entry (not only its id), as pi. */
  appendUsage(kind: string, provider: string, model: string, usage: Usage, note?: string): UsageEntry {
    const entry: UsageEntry = {
      type: "usage",
      id: generateId(this.index),
      parentId: this.index.leafId,
      timestamp: now(),
      kind,
      provider,
      model,
      usage,
      ...(note ? { note } : {}),
    };
    this._appendEntry(entry);
    return entry;
  }

  /** `firstKeptEntryId === null` keeps nothing before the compaction (stores the compaction's own id). */
  appendCompaction<T = unknown>(
    summary: string,
    firstKeptEntryId: string | null,
    tokensBefore: number,
    details?: T,
    fromHook?: boolean,
    usage?: Usage,
  ): string {
    const timestamp = now();
    const systemMessage = getCurrentSystemMessage(this.buildSessionProjection().messages);
    const id = generateId(this.index);
    const entry: CompactionEntry<T> = {
      type: "compaction",
      id,
      parentId: this.index.leafId,
      timestamp,
      summary,
      firstKeptEntryId: firstKeptEntryId ?? id,
      tokensBefore,
      details,
      usage,
      fromHook,
      ...(systemMessage
        ? { systemMessage: { ...systemMessage, timestamp: new Date(timestamp).getTime() } }
        : {}),
    };
    this._appendEntry(entry as CompactionEntry);
    return entry.id;
  }

  appendCustomEntry(customType: string, data?: unknown): string {
    const entry: CustomEntry = {
      type: "custom",
      customType,
      data,
      id: generateId(this.index),
      parentId: this.index.leafId,
      timestamp: now(),
    };
    this._appendEntry(entry);
    return entry.id;
  }

  appendSessionInfo(name: string): string {
    const entry: SessionInfoEntry = {
      type: "session_info",
      id: generateId(this.index),
      parentId: this.index.leafId,
      timestamp: now(),
      name: name.replace(/[\r\n]+/g, " ").trim(),
    };
    this._appendEntry(entry);
    return entry.id;
  }

  /** The name from the latest `session_info` entry (an empty name clears it). */
  getSessionName(): string | undefined {
    return this.index.sessionName;
  }

  appendCustomMessageEntry<T = unknown>(
    customType: string,
    content: string | (TextContent | ImageContent)[],
    display: boolean,
    details?: T,
  ): string {
    const entry: CustomMessageEntry<T> = {
      type: "custom_message",
      customType,
      content,
      display,
      details,
      id: generateId(this.index),
      parentId: this.index.leafId,
      timestamp: now(),
    };
    this._appendEntry(entry as CustomMessageEntry);
    return entry.id;
  }

  /** Append a branch-local edit of an earlier model-visible entry. Messages are pi's. */
  appendContextEdit(targetId: string, replacement: { content: ContextEditableContent } | null): string {
    if (
      replacement !== null &&
      (typeof replacement !== "object" ||
        !("content" in replacement) ||
        (typeof replacement.content !== "string" && !Array.isArray(replacement.content)))
    ) {
      throw new Error("Context edit replacement must be null or contain string/array content");
    }
    const target = this.index.get(targetId);
    if (!target) throw new Error(`Entry ${targetId} not found`);
    if (!this.getBranch().some((entry) => entry.id === targetId)) {
      throw new Error(`Entry ${targetId} is not on the active branch`);
    }
    const role = target.type === "message" ? target.message.role : undefined;
    const editable =
      target.type === "custom_message" || role === "user" || role === "assistant" || role === "toolResult";
    if (!editable) throw new Error(`Entry ${targetId} does not contribute editable model content`);
    const normalized =
      replacement !== null &&
      (role === "assistant" || role === "toolResult") &&
      typeof replacement.content === "string"
        ? { content: [{ type: "text" as const, text: replacement.content }] }
        : replacement;
    const entry: ContextEditEntry = {
      type: "context_edit",
      id: generateId(this.index),
      parentId: this.index.leafId,
      timestamp: now(),
      targetId,
      replacement: normalized,
    };
    this._appendEntry(entry);
    return entry.id;
  }

  // ---------------------------------------------------------------------------------------
  // Tree traversal

  getLeafId(): string | null {
    return this.index.leafId;
  }

  getLeafEntry(): SessionEntry | undefined {
    return this.index.leafEntry;
  }

  getEntry(id: string): SessionEntry | undefined {
    return this.index.get(id);
  }

  /**
   * Direct children of an entry. As pi (which scans its id map), one entry per id: the
   * occurrence `getEntry` returns, in the order each id was first seen. That is file order
   * unless some id repeats; only then are the (few) children sorted.
   */
  getChildren(parentId: string): SessionEntry[] {
    const kept = this.index.children(parentId).filter((entry) => this.index.get(entry.id) === entry);
    if (kept.length < 2 || this.index.byId.size === this.index.size) return kept;
    const rank = this._firstSeenRanks();
    return kept.sort((a, b) => (rank.get(a.id) as number) - (rank.get(b.id) as number));
  }

  /** id -> file position of its first occurrence, kept up to date from the index's entries. */
  private _firstSeenRanks(): Map<string, number> {
    let cache = this.firstSeen;
    // An index only grows by appends, so a cache for the same index just scans the new entries.
    if (cache === undefined || cache.index !== this.index) {
      cache = { index: this.index, scanned: 0, rank: new Map() };
      this.firstSeen = cache;
    }
    const entries = this.index.entries;
    for (; cache.scanned < entries.length; cache.scanned++) {
      const id = (entries[cache.scanned] as SessionEntry).id;
      if (!cache.rank.has(id)) cache.rank.set(id, cache.scanned);
    }
    return cache.rank;
  }

  getLabel(id: string): string | undefined {
    return this.index.getLabel(id);
  }

  /** Set (or, with `undefined`/empty, clear) a label. Unknown targets throw `Entry <id> not found`. */
  appendLabelChange(targetId: string, label: string | undefined): string {
    if (!this.index.has(targetId)) throw new Error(`Entry ${targetId} not found`);
    const entry: LabelEntry = {
      type: "label",
      id: generateId(this.index),
      parentId: this.index.leafId,
      timestamp: now(),
      targetId,
      label,
    };
    this._appendEntry(entry);
    return entry.id;
  }

  /** Root-to-entry path (default: the leaf). Stops at a cycle instead of looping. */
  getBranch(fromId?: string): SessionEntry[] {
    const startId = fromId ?? this.index.leafId;
    return startId ? this.index.pathTo(startId) : [];
  }

  buildContextEntries(): SessionEntry[] {
    return buildContextEntries(this.entries, this.index.leafId, this.index);
  }

  buildSessionProjection(): SessionProjection {
    return buildSessionProjection(this.entries, this.index.leafId, this.index);
  }

  buildSessionContext(): SessionContext {
    const { messages, thinkingLevel, model } = this.buildSessionProjection();
    return { messages, thinkingLevel, model };
  }

  getHeader(): SessionHeader | null {
    return this.header;
  }

  getEntryCount(): number {
    return this.index.byId.size;
  }

  /** All entries except the header, in file order (a shallow copy). */
  getEntries(): SessionEntry[] {
    return this.entries.slice();
  }

  /**
   * The session as a forest; children sorted by timestamp, labels with their timestamps.
   * Unlike pi, each line is its own node and an entry is never its own descendant, so
   * duplicate ids or cycles cannot make the result infinite (one member of a cycle is a root).
   */
  getTree(): SessionTreeNode[] {
    return this.index.getTree();
  }

  // ---------------------------------------------------------------------------------------
  // Branching

  /** Move the leaf (in memory only, as pi). */
  branch(branchFromId: string): void {
    this.index.setLeaf(branchFromId);
  }

  /** The next append becomes a new root. */
  resetLeaf(): void {
    this.index.setLeaf(null);
  }

  /** Move the leaf to `branchFromId` and append a summary there; `fromId` is the previous leaf or `"root"`. */
  branchWithSummary(
    branchFromId: string | null,
    summary: string,
    details?: unknown,
    fromHook?: boolean,
    usage?: Usage,
  ): string {
    this.assertWritable();
    const previousLeaf = this.index.leafId;
    const fromId = previousLeaf ?? "root";
    this.index.setLeaf(branchFromId);
    const entry: BranchSummaryEntry = {
      type: "branch_summary",
      id: generateId(this.index),
      parentId: branchFromId,
      timestamp: now(),
      fromId,
      summary,
      details,
      usage,
      fromHook,
    };
    try {
      this._appendEntry(entry);
    } catch (error) {
      this.index.setLeaf(previousLeaf);
      throw error;
    }
    return entry.id;
  }

  /**
   * A new session holding the path to `leafId`: labels dropped from the path and re-created
   * after it (with their timestamps). Persisted mode returns the new file (written at once if
   * the path has a conversation); in-memory mode replaces this session and returns undefined.
   */
  createBranchedSession(leafId: string): string | undefined {
    this.assertWritable();
    const previousSessionFile = this.sessionFile;
    const path = this.getBranch(leafId);
    if (path.length === 0) throw new Error(`Entry ${leafId} not found`);
    const kept: SessionEntry[] = [];
    const replacementByLabelId = new Map<string, string>();
    const pendingLabels: string[] = [];
    let parentId: string | null = null;
    for (const entry of path) {
      if (entry.type === "label") {
        pendingLabels.push(entry.id);
        continue;
      }
      for (const labelId of pendingLabels) replacementByLabelId.set(labelId, entry.id);
      pendingLabels.length = 0;
      if (entry.type === "compaction") {
        const first = entry.firstKeptEntryId;
        const redirected =
          first === entry.id || first === undefined ? first : (replacementByLabelId.get(first) ?? first);
        kept.push({ ...entry, parentId, firstKeptEntryId: redirected } as SessionEntry);
      } else kept.push({ ...entry, parentId });
      parentId = entry.id;
    }
    const newSessionId = createSessionId();
    const timestamp = now();
    const header: SessionHeader = {
      type: "session",
      version: CURRENT_SESSION_VERSION,
      id: newSessionId,
      timestamp,
      cwd: this.cwd,
      parentSession: this.persist ? previousSessionFile : undefined,
    };
    const keptIds = new Set(kept.map((e) => e.id));
    const labels: LabelEntry[] = [];
    let labelParent = kept[kept.length - 1]?.id || null;
    for (const [targetId, label] of this.index.labels) {
      if (!keptIds.has(targetId)) continue;
      const labelEntry: LabelEntry = {
        type: "label",
        id: generateId(keptIds),
        parentId: labelParent,
        timestamp: this.index.getLabelTimestamp(targetId) as string,
        targetId,
        label,
      };
      keptIds.add(labelEntry.id);
      labels.push(labelEntry);
      labelParent = labelEntry.id;
    }
    this.header = header;
    this.sessionId = newSessionId;
    this._setEntries([...kept, ...labels]);
    if (!this.persist) return undefined;
    const file = this._useFile(sessionFilePath(this.getSessionDir(), timestamp, newSessionId));
    if (this.entries.some(isConversation)) file.create([header, ...this.entries]);
    return file.path;
  }

  // ---------------------------------------------------------------------------------------
  // Factories

  /** A new persisted session in `sessionDir` (default: the per-cwd directory). */
  static create(cwd: string, sessionDir?: string, options?: NewSessionOptions): SessionManager {
    const dir = sessionDir ? resolvePath(sessionDir) : getDefaultSessionDir(cwd);
    return new SessionManager(cwd, dir, undefined, true, options);
  }

  /** Open a session file (created at the first flush if missing). Never writes, except a header into an empty file. */
  static open(path: string, sessionDir?: string, cwdOverride?: string): SessionManager {
    const resolved = resolvePath(path);
    const contents = readIfExists(resolved);
    const cwd = cwdOverride ?? headerCwd(contents) ?? process.cwd();
    const dir = sessionDir ? resolvePath(sessionDir) : dirname(resolved);
    return new SessionManager(cwd, dir, resolved, true, undefined, contents);
  }

  /**
   * Not in pi: open a file for reading only. Nothing is ever written (not even a header into
   * an empty file); every mutating method throws `Session is read-only: <path>`.
   */
  static openReadonly(path: string, cwdOverride?: string): ReadonlySessionManager & SessionManager {
    const resolved = resolvePath(path);
    const contents = readIfExists(resolved);
    if (!contents) throw new Error(`Session file not found: ${resolved}`);
    const cwd = cwdOverride ?? headerCwd(contents) ?? process.cwd();
    return new SessionManager(cwd, dirname(resolved), resolved, true, undefined, contents, true);
  }

  /** The most recent session of `cwd`, or a new one. */
  static continueRecent(cwd: string, sessionDir?: string): SessionManager {
    const dir = sessionDir ? resolvePath(sessionDir) : getDefaultSessionDir(cwd);
    const filterCwd = sessionDir !== undefined && dir !== defaultSessionDirPath(cwd);
    const mostRecent = findMostRecentSession(dir, filterCwd ? cwd : undefined);
    return mostRecent
      ? SessionManager.open(mostRecent, dir, cwd)
      : new SessionManager(cwd, dir, undefined, true);
  }

  /** A session that never touches the disk, optionally from entries (with or without a header). */
  static inMemory(
    cwd: string = process.cwd(),
    options?: NewSessionOptions,
    entries?: FileEntry[],
  ): SessionManager {
    return new SessionManager(cwd, "", undefined, false, options, entries);
  }

  /**
   * Copy a session (all branches, same entry ids) into a new file for `targetCwd`, written at
   * once. Unlike pi 1.6.0, a v1/v2 source is migrated (ids, parent chain, roles); the source is untouched.
   */
  static forkFrom(
    sourcePath: string,
    targetCwd: string,
    sessionDir?: string,
    options?: NewSessionOptions,
  ): SessionManager {
    const source = resolvePath(sourcePath);
    const cwd = resolvePath(targetCwd);
    const contents = readIfExists(source);
    const lines = contents ? readLinesAsPi(contents.records) : undefined;
    if (!lines?.isSession) throw new Error(`Cannot fork: source session file is empty or invalid: ${source}`);
    const entries = lines.values as unknown as FileEntry[];
    migrateEntries(entries, { inPlace: true, randomId: randomEntryId });
    const dir = sessionDir ? resolvePath(sessionDir) : getDefaultSessionDir(cwd);
    if (options?.id !== undefined) assertValidSessionId(options.id);
    const id = options?.id ?? createSessionId();
    const timestamp = now();
    const file = sessionFilePath(dir, timestamp, id);
    const header: SessionHeader = {
      type: "session",
      version: CURRENT_SESSION_VERSION,
      id,
      timestamp,
      cwd,
      parentSession: source,
    };
    const body = entries.filter((e) => e.type !== "session");
    createSessionFile(file, [header, ...body]);
    return new SessionManager(cwd, dir, file, true);
  }

  /** The file of session `id` in the session directory of `cwd` (or `sessionDir`). */
  static findById(cwd: string, id: string, sessionDir?: string): string | undefined {
    const dir = sessionDir ? resolvePath(sessionDir) : getDefaultSessionDir(cwd);
    const filterCwd = sessionDir !== undefined && dir !== defaultSessionDirPath(cwd);
    const resolvedCwd = resolvePath(cwd);
    let files: string[];
    try {
      files = readdirSync(dir).sort();
    } catch {
      return undefined; // unreadable directory: not found
    }
    for (const name of files) {
      if (!name.endsWith(".jsonl")) continue;
      const path = resolve(dir, name);
      const header = headerOrNull(path);
      if (header?.id !== id) continue;
      if (filterCwd && !cwdMatches(header.cwd, resolvedCwd)) continue;
      return path;
    }
    return undefined;
  }

  /** Sessions of `cwd`, newest first (a flat custom `sessionDir` is filtered by header cwd). */
  static async list(
    cwd: string,
    sessionDir?: string,
    onProgress?: SessionListProgress,
    signal?: AbortSignal,
  ): Promise<SessionInfo[]> {
    const dir = sessionDir ? resolvePath(sessionDir) : getDefaultSessionDir(cwd);
    return listSessions(resolvePath(cwd), { sessionDir: dir, ...listOptions(onProgress, signal) });
  }

  /** Every session (of `sessionDir`, or of all per-cwd directories), newest first. */
  static async listAll(onProgress?: SessionListProgress, signal?: AbortSignal): Promise<SessionInfo[]>;
  static async listAll(
    sessionDir?: string,
    onProgress?: SessionListProgress,
    signal?: AbortSignal,
  ): Promise<SessionInfo[]>;
  static async listAll(
    sessionDirOrOnProgress?: string | SessionListProgress,
    onProgressOrSignal?: SessionListProgress | AbortSignal,
    signal?: AbortSignal,
  ): Promise<SessionInfo[]> {
    const dir = typeof sessionDirOrOnProgress === "string" ? resolvePath(sessionDirOrOnProgress) : undefined;
    const progress =
      typeof sessionDirOrOnProgress === "function"
        ? sessionDirOrOnProgress
        : typeof onProgressOrSignal === "function"
          ? onProgressOrSignal
          : undefined;
    const abortSignal =
      typeof sessionDirOrOnProgress === "string" || typeof onProgressOrSignal === "function"
        ? signal
        : ((onProgressOrSignal as AbortSignal | undefined) ?? signal);
    abortSignal?.throwIfAborted();
    const options = listOptions(progress, abortSignal);
    if (dir) return listSessionDir(dir, options);
    // pi lists the per-cwd directories of the default root only.
    return listAllSessions(getDefaultSessionsRoot(), { ...options, layout: "per-cwd" });
  }
}

/** Set to `1` (or `true`) to list without the metadata cache (nothing read from or written to it). */
export const ENV_NO_CACHE = "PI_SESSION_NO_CACHE";

type ListOpts = { onProgress?: SessionListProgress; signal?: AbortSignal; cache?: false };

/** node-store listing options from pi's optional progress callback and signal (and the cache opt-out). */
function listOptions(onProgress: SessionListProgress | undefined, signal: AbortSignal | undefined): ListOpts {
  const options: ListOpts = {};
  if (onProgress) options.onProgress = onProgress;
  if (signal) options.signal = signal;
  const noCache = process.env[ENV_NO_CACHE];
  if (noCache === "1" || noCache === "true") options.cache = false;
  return options;
}

/** The read-only subset pi hands to extensions. */
export type ReadonlySessionManager = Pick<
  SessionManager,
  | "getCwd"
  | "getSessionDir"
  | "getSessionId"
  | "getSessionFile"
  | "getLeafId"
  | "getLeafEntry"
  | "getEntry"
  | "getLabel"
  | "getBranch"
  | "buildContextEntries"
  | "buildSessionProjection"
  | "getHeader"
  | "getEntries"
  | "getTree"
  | "getSessionName"
>;
