/**
 * `SessionManager`: pi 1.6.0's session API (same methods, results and thrown messages), composed
 * from the layers. Use it as pi's `SessionManager`. This module holds what changes a session
 * (new sessions, appends, branching) and pi's rules for it (argument checks, when the file is
 * written); the read side is `session-view.ts`, the parts are in `internal/` (listed in
 * docs/architecture.md).
 */
import type {
  AgentMessage,
  ImageContent,
  SessionRecord,
  TextContent,
  Usage,
  UsageEntry,
} from "@pi-session/format";
import { migrateEntries } from "@pi-session/migrate";
import {
  assertValidSessionId,
  ensureSessionDir,
  resolvePiPath,
  type SessionFileContents,
  sessionFilePath,
} from "@pi-session/node-store";
import { branchedSessionEntries } from "./internal/branched-session.js";
import {
  branchSummaryEntry,
  checkContextEditReplacement,
  checkContextEditTarget,
  compactionEntry,
  contextEditEntry,
  customEntry,
  customMessageEntry,
  type EntryPlace,
  labelEntry,
  messageEntry,
  modelChangeEntry,
  sessionHeader,
  sessionInfoEntry,
  thinkingLevelChangeEntry,
  usageEntry,
} from "./internal/entries.js";
import { createSessionId, generateId, randomEntryId } from "./internal/ids.js";
import { listAllAsPi, listSessionsOf } from "./internal/listing.js";
import {
  continueRecentInit,
  createInit,
  forkInit,
  inMemoryInit,
  type ManagerInit,
  openInit,
  openReadonlyInit,
} from "./internal/manager-init.js";
import { type LazySession, openLazy } from "./internal/lazy-session.js";
import { openedFile, readForOpen } from "./internal/open-file.js";
import { cwdFilterOf, findSessionById, sessionDirOf } from "./internal/session-dirs.js";
import { SessionEntries } from "./internal/session-entries.js";
import { SessionFile } from "./internal/session-file.js";
import { getCurrentSystemMessage } from "./internal/system-message.js";
import { type ReadonlySessionManager, SessionView } from "./session-view.js";
import type {
  ContextEditableContent,
  FileEntry,
  ForeignEntriesListener,
  NewSessionOptions,
  SessionEntry,
  SessionHeader,
  SessionInfo,
  SessionListProgress,
} from "./types.js";

export { ENV_NO_CACHE } from "./internal/listing.js";
export type { ReadonlySessionManager } from "./session-view.js";

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

const isHeader = (entry: FileEntry): entry is SessionHeader => entry.type === "session";
const isSessionEntry = (entry: FileEntry): entry is SessionEntry => entry.type !== "session";

const isConversation = (entry: FileEntry): boolean =>
  entry.type === "message" && (entry.message.role === "user" || entry.message.role === "assistant");

/** The last timestamp made and its millisecond: appends within one millisecond share it. */
let lastMs = Number.NaN;
let lastIso = "";

/** `new Date().toISOString()`, as pi stamps entries; made once per millisecond (decision 132). */
function now(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
}

export class SessionManager extends SessionView {
  /** The file being written; undefined in memory. */
  private file: SessionFile | undefined;
  private foreignListeners = new Set<ForeignEntriesListener>();
  private syncWrites = false;
  private lockTimeoutMs: number | undefined;
  /** The entry `_persist` is writing, and the foreign entries its append took in. */
  private persisting: SessionEntry | undefined;
  private foreignTaken: SessionEntry[] | undefined;
  /** `_persist`'s callbacks, made once, not per append (decision 132). */
  private readonly takeForeign = (records: SessionRecord[]): void => {
    // Called on every append, mostly with nothing: a lazy session must not turn eager for that.
    if (records.length === 0) return;
    const taken = this.session.absorbForeign(records, this.persisting as SessionEntry);
    if (taken.length) this.foreignTaken = this.foreignTaken ? [...this.foreignTaken, ...taken] : taken;
  };
  private readonly wholeSession = (): object[] => [this.header, ...this.entries];
  /** The ids in use, for `generateId` (a lazily opened session answers from its slot index). */
  private readonly takenIds = { has: (id: string): boolean => this.hasEntry(id) };

  private constructor(init: ManagerInit) {
    super(init);
    if (this.persist && !this.readOnly && this.sessionDir) ensureSessionDir(this.sessionDir);
    if (init.file) this._setSessionFile(init.file.path, init.file.contents, init.file.lazy ?? null);
    else if (init.entries?.length) this._loadEntries(init.entries.slice(), init.newSession);
    else this._newSession(init.newSession);
  }

  // ---------------------------------------------------------------------------------------
  // Session lifecycle

  /** Switch to a different session file (used for resume and branching). */
  setSessionFile(sessionFile: string): void {
    this._setSessionFile(sessionFile);
  }

  /** `lazy`: the file opened lazily already; null: read it eagerly; undefined: try the lazy open. */
  private _setSessionFile(
    sessionFile: string,
    preread?: SessionFileContents,
    lazy?: LazySession | null,
  ): void {
    const path = resolvePiPath(sessionFile);
    const opening = lazy === undefined && !preread ? openLazy(path) : (lazy ?? undefined);
    if (opening) {
      // Decision 101: nothing parsed beyond what the index needs; the writer starts from the scan.
      this.header = opening.header;
      this.sessionId = opening.header.id;
      this.session = new SessionEntries();
      this.lazy = opening;
      const { size, lines, ino } = opening.file;
      this._useFile(path).adopt({ size, lines, ino, tornTail: undefined });
      return;
    }
    const opened = openedFile(path, preread ?? readForOpen(path));
    if (opened.kind === "missing") {
      this._newSession();
      this._useFile(path); // keep the explicit path; the file is created at the first flush
      return;
    }
    if (opened.kind === "empty") {
      this._newSession();
      const file = this._useFile(path);
      // As pi: an empty file gets its header at once (never through a read-only view).
      if (!this.readOnly) file.initEmpty(this.header);
      return;
    }
    this._adopt(opened.entries);
    // A torn fragment (a crashed writer's last line) is moved to a `.torn-*` sidecar by the
    // first append, unless it grows meanwhile: then it was an append in flight.
    this._useFile(path).adopt(opened.contents, opened.pending);
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
    this.header = sessionHeader({
      id: this.sessionId,
      timestamp,
      cwd: this.cwd,
      parentSession: options?.parentSession,
    });
    this.session = new SessionEntries();
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
    this._setEntries(entries.filter(isSessionEntry));
  }

  /** Takes over migrated file entries: the first header is the session's, other headers are ignored (as pi). */
  private _adopt(fileEntries: FileEntry[]): void {
    const header = fileEntries.find(isHeader);
    // Callers adopt only entries pi reads as a session, so the header is there.
    if (!header) throw new Error("internal: a session without its header");
    this.header = header;
    this.sessionId = header.id;
    this._setEntries(fileEntries.filter(isSessionEntry));
  }

  private _setEntries(entries: SessionEntry[]): void {
    this.session = new SessionEntries(entries);
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
    this.lazy?.close();
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
    this.persisting = entry;
    this.foreignTaken = undefined;
    try {
      file.append(entry, this.takeForeign, this.wholeSession);
    } finally {
      const foreign = this.foreignTaken;
      this.persisting = undefined;
      this.foreignTaken = undefined;
      if (foreign) for (const listener of this.foreignListeners) listener(foreign, file.path);
    }
  }

  /** Where the next entry goes: a fresh id, under `parentId` (default: the leaf), now. */
  private _place(parentId: string | null = this.getLeafId()): EntryPlace {
    return { id: generateId(this.takenIds), parentId, timestamp: now() };
  }

  private _appendEntry(entry: SessionEntry): void {
    this.assertWritable();
    this._persist(entry);
    // After `_persist`: absorbing another process's entries turns a lazy session eager.
    this.appendToSession(entry);
  }

  // ---------------------------------------------------------------------------------------
  // Appending

  /** Append a message as child of the current leaf, then advance the leaf. Returns the entry id. */
  appendMessage(message: AgentMessage): string {
    const entry = messageEntry(this._place(), message);
    this._appendEntry(entry);
    return entry.id;
  }

  appendThinkingLevelChange(thinkingLevel: string): string {
    const entry = thinkingLevelChangeEntry(this._place(), thinkingLevel);
    this._appendEntry(entry);
    return entry.id;
  }

  appendModelChange(provider: string, modelId: string): string {
    const entry = modelChangeEntry(this._place(), provider, modelId);
    this._appendEntry(entry);
    return entry.id;
  }

  /** Append usage outside the LLM context. Returns the appended entry (not only its id), as pi. */
  appendUsage(kind: string, provider: string, model: string, usage: Usage, note?: string): UsageEntry {
    const entry = usageEntry(this._place(), { kind, provider, model, usage, note });
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
    const systemMessage = getCurrentSystemMessage(this.buildSessionProjection().messages);
    const fields = { summary, firstKeptEntryId, tokensBefore, details, fromHook, usage, systemMessage };
    const entry = compactionEntry<T>(this._place(), fields);
    this._appendEntry(entry);
    return entry.id;
  }

  appendCustomEntry(customType: string, data?: unknown): string {
    const entry = customEntry(this._place(), customType, data);
    this._appendEntry(entry);
    return entry.id;
  }

  appendSessionInfo(name: string): string {
    const entry = sessionInfoEntry(this._place(), name);
    this._appendEntry(entry);
    return entry.id;
  }

  appendCustomMessageEntry<T = unknown>(
    customType: string,
    content: string | (TextContent | ImageContent)[],
    display: boolean,
    details?: T,
  ): string {
    const entry = customMessageEntry<T>(this._place(), { customType, content, display, details });
    this._appendEntry(entry);
    return entry.id;
  }

  /** Append a branch-local edit of an earlier model-visible entry. Messages are pi's. */
  appendContextEdit(targetId: string, replacement: { content: ContextEditableContent } | null): string {
    checkContextEditReplacement(replacement);
    const target = this.getEntry(targetId);
    if (!target) throw new Error(`Entry ${targetId} not found`);
    if (!this.getBranch().some((entry) => entry.id === targetId)) {
      throw new Error(`Entry ${targetId} is not on the active branch`);
    }
    checkContextEditTarget(target);
    const entry = contextEditEntry(this._place(), target, replacement);
    this._appendEntry(entry);
    return entry.id;
  }

  /** Set (or, with `undefined`/empty, clear) a label. Unknown targets throw `Entry <id> not found`. */
  appendLabelChange(targetId: string, label: string | undefined): string {
    if (!this.hasEntry(targetId)) throw new Error(`Entry ${targetId} not found`);
    const entry = labelEntry(this._place(), targetId, label);
    this._appendEntry(entry);
    return entry.id;
  }

  // ---------------------------------------------------------------------------------------
  // Branching

  /** Move the leaf (in memory only, as pi). */
  branch(branchFromId: string): void {
    this.setLeaf(branchFromId);
  }

  /** The next append becomes a new root. */
  resetLeaf(): void {
    this.setLeaf(null);
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
    const previousLeaf = this.getLeafId();
    const fromId = previousLeaf ?? "root";
    this.setLeaf(branchFromId);
    const entry = branchSummaryEntry(this._place(branchFromId), {
      fromId,
      summary,
      details,
      usage,
      fromHook,
    });
    try {
      this._appendEntry(entry);
    } catch (error) {
      this.setLeaf(previousLeaf);
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
    const entries = branchedSessionEntries(path, {
      labels: this.index.labels,
      timestampOf: (targetId) => this.index.getLabelTimestamp(targetId),
    });
    const newSessionId = createSessionId();
    const timestamp = now();
    const header = sessionHeader({
      id: newSessionId,
      timestamp,
      cwd: this.cwd,
      parentSession: this.persist ? previousSessionFile : undefined,
    });
    this.header = header;
    this.sessionId = newSessionId;
    this._setEntries(entries);
    if (!this.persist) return undefined;
    const file = this._useFile(sessionFilePath(this.getSessionDir(), timestamp, newSessionId));
    if (this.entries.some(isConversation)) file.create([header, ...this.entries]);
    return file.path;
  }

  // ---------------------------------------------------------------------------------------
  // Factories

  /** A new persisted session in `sessionDir` (default: the per-cwd directory). */
  static create(cwd: string, sessionDir?: string, options?: NewSessionOptions): SessionManager {
    return new SessionManager(createInit(cwd, sessionDir, options));
  }

  /** Open a session file (created at the first flush if missing). Never writes, except a header into an empty file. */
  static open(path: string, sessionDir?: string, cwdOverride?: string): SessionManager {
    return new SessionManager(openInit(path, sessionDir, cwdOverride));
  }

  /**
   * Not in pi: open a file for reading only. Nothing is ever written (not even a header into
   * an empty file); every mutating method throws `Session is read-only: <path>`.
   */
  static openReadonly(path: string, cwdOverride?: string): ReadonlySessionManager & SessionManager {
    return new SessionManager(openReadonlyInit(path, cwdOverride));
  }

  /** The most recent session of `cwd`, or a new one. */
  static continueRecent(cwd: string, sessionDir?: string): SessionManager {
    return new SessionManager(continueRecentInit(cwd, sessionDir));
  }

  /** A session that never touches the disk, optionally from entries (with or without a header). */
  static inMemory(
    cwd: string = process.cwd(),
    options?: NewSessionOptions,
    entries?: FileEntry[],
  ): SessionManager {
    return new SessionManager(inMemoryInit(cwd, options, entries));
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
    return new SessionManager(forkInit(sourcePath, targetCwd, sessionDir, options));
  }

  /** The file of session `id` in the session directory of `cwd` (or `sessionDir`). */
  static findById(cwd: string, id: string, sessionDir?: string): string | undefined {
    const dir = sessionDirOf(cwd, sessionDir);
    return findSessionById(dir, id, cwdFilterOf(cwd, sessionDir, dir));
  }

  /** Sessions of `cwd`, newest first (a flat custom `sessionDir` is filtered by header cwd). */
  static async list(
    cwd: string,
    sessionDir?: string,
    onProgress?: SessionListProgress,
    signal?: AbortSignal,
  ): Promise<SessionInfo[]> {
    return listSessionsOf(cwd, sessionDirOf(cwd, sessionDir), onProgress, signal);
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
    return listAllAsPi(sessionDirOrOnProgress, onProgressOrSignal, signal);
  }
}
