/**
 * `SessionManager`: pi 1.6.0's session API (same methods, results and thrown messages), over
 * a safer disk layer. Opening never writes (except a header into an empty file, as pi); a
 * legacy file is migrated in memory and replaced atomically, with a backup and its malformed
 * lines in place, at the first append; appends are one write each under a cross-process lock,
 * absorbing what other processes appended; cycles and duplicate ids never hang a method.
 */
import { existsSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
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
  type LabelEntry,
  type ModelChangeEntry,
  type SessionEntry,
  type SessionHeader,
  type SessionInfoEntry,
  type TextContent,
  type ThinkingLevelChangeEntry,
  type Usage,
  type UsageEntry,
} from "@pi-session/format";
import {
  appendBytes,
  backupPath,
  createExclusive,
  entriesOf,
  fileSize,
  type LineRecord,
  linesToBytes,
  publishExclusive,
  readLinesFrom,
  readSessionHeader,
  replaceAtomically,
  serialize,
  withFileLock,
} from "./internal/file-io.js";
import { assertValidSessionId, createSessionId, generateId } from "./internal/ids.js";
import {
  cwdMatches,
  findMostRecentSession,
  listAllSessions,
  listSessionsFromDir,
  sortSessionInfos,
} from "./internal/listing.js";
import { migrateToCurrentVersion } from "./internal/migration.js";
import {
  getDefaultSessionDir,
  getDefaultSessionDirPath,
  getSessionsDir,
  resolvePath,
  sessionFileName,
} from "./internal/paths.js";
import {
  buildContextEntries,
  buildSessionProjection,
  getCurrentSystemMessage,
  walkToRoot,
} from "./internal/projection.js";
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

/** What a file looked like when it was opened, for the first write after it. */
interface OpenedFile {
  lines: LineRecord[];
  /** Bytes this process knows the file to hold; growth beyond it is a foreign append. */
  size: number;
  endsWithNewline: boolean;
  /** The version migrated from in memory, still to be written out. */
  migratedFrom?: number;
}

/** Options of {@link SessionManager.setWriteOptions}. */
export interface WriteOptions {
  /** fsync after every append (durable at the cost of speed). Default false, as pi. */
  fsync?: boolean;
}

const isConversation = (entry: FileEntry): boolean =>
  entry.type === "message" && (entry.message.role === "user" || entry.message.role === "assistant");

function now(): string {
  return new Date().toISOString();
}

export class SessionManager {
  private sessionId = "";
  private sessionFile: string | undefined;
  private readonly sessionDir: string;
  private cwd: string;
  private readonly persist: boolean;
  private readonly readOnly: boolean;
  private flushed = false;
  private fileEntries: FileEntry[] = [];
  private byId = new Map<string, SessionEntry>();
  private labelsById = new Map<string, string>();
  private labelTimestampsById = new Map<string, string>();
  private leafId: string | null = null;
  private opened: OpenedFile | undefined;
  private foreignListeners = new Set<ForeignEntriesListener>();
  private syncWrites = false;

  private constructor(
    cwd: string,
    sessionDir: string,
    sessionFile: string | undefined,
    persist: boolean,
    options?: NewSessionOptions,
    preloaded?: FileEntry[] | OpenedFile,
    readOnly = false,
  ) {
    this.cwd = resolvePath(cwd);
    this.sessionDir = sessionDir ? resolvePath(sessionDir) : "";
    this.persist = persist;
    this.readOnly = readOnly;
    if (persist && !readOnly && this.sessionDir && !existsSync(this.sessionDir)) {
      mkdirSync(this.sessionDir, { recursive: true });
    }
    if (sessionFile) this._setSessionFile(sessionFile, preloaded as OpenedFile | undefined);
    else if (Array.isArray(preloaded) && preloaded.length) this._loadEntries(preloaded.slice(), options);
    else this._newSession(options);
  }

  // ---------------------------------------------------------------------------------------
  // Session lifecycle

  /** Switch to a different session file (used for resume and branching). */
  setSessionFile(sessionFile: string): void {
    this._setSessionFile(sessionFile);
  }

  private _setSessionFile(sessionFile: string, preread?: OpenedFile): void {
    const path = resolvePath(sessionFile);
    this.sessionFile = path;
    if (!existsSync(path)) {
      this._newSession();
      this.sessionFile = path; // keep the explicit path; the file is created at the first flush
      return;
    }
    const read = preread ?? readFile(path);
    const entries = entriesOf(read.lines) as unknown as FileEntry[];
    if (entries.length === 0) {
      if (statSync(path).size > 0) throw new Error(`Session file is not a valid pi session: ${path}`);
      this._newSession();
      this.sessionFile = path;
      if (!this.readOnly) {
        // As pi: an empty file gets its header at once.
        const bytes = Buffer.from(serialize(this.fileEntries[0]));
        replaceAtomically(path, bytes);
        this.opened = { lines: [], size: bytes.length, endsWithNewline: true };
        this.flushed = true;
      }
      return;
    }
    this.opened = read;
    this._loadEntries(entries);
    this.flushed = true;
  }

  newSession(options?: NewSessionOptions): string | undefined {
    this.assertWritable();
    return this._newSession(options);
  }

  private _newSession(options?: NewSessionOptions): string | undefined {
    if (options?.id !== undefined) assertValidSessionId(options.id);
    this.sessionId = options?.id ?? createSessionId();
    const timestamp = now();
    const header: SessionHeader = {
      type: "session",
      version: CURRENT_SESSION_VERSION,
      id: this.sessionId,
      timestamp,
      cwd: this.cwd,
      parentSession: options?.parentSession,
    };
    this.fileEntries = [header];
    this.byId.clear();
    this.labelsById.clear();
    this.labelTimestampsById.clear();
    this.leafId = null;
    this.flushed = false;
    this.opened = undefined;
    if (this.persist)
      this.sessionFile = join(this.getSessionDir(), sessionFileName(timestamp, this.sessionId));
    return this.sessionFile;
  }

  private _loadEntries(entries: FileEntry[], options?: NewSessionOptions): void {
    const header = entries.find((e) => e.type === "session") as SessionHeader | undefined;
    if (header) {
      this.fileEntries = entries;
      this.sessionId = header.id;
      const from = migrateToCurrentVersion(this.fileEntries);
      if (from !== undefined && this.opened) this.opened.migratedFrom = from;
    } else {
      this._newSession(options);
      this.fileEntries = this.fileEntries.concat(entries);
      migrateToCurrentVersion(this.fileEntries);
    }
    this._buildIndex();
  }

  private _buildIndex(): void {
    this.byId.clear();
    this.labelsById.clear();
    this.labelTimestampsById.clear();
    this.leafId = null;
    for (const entry of this.fileEntries) this._indexEntry(entry, true);
  }

  private _indexEntry(entry: FileEntry, moveLeaf: boolean): void {
    if (entry.type === "session" || typeof entry.id !== "string") return;
    this.byId.set(entry.id, entry);
    if (moveLeaf) this.leafId = entry.id;
    if (entry.type === "label") {
      if (entry.label) {
        this.labelsById.set(entry.targetId, entry.label);
        this.labelTimestampsById.set(entry.targetId, entry.timestamp);
      } else {
        this.labelsById.delete(entry.targetId);
        this.labelTimestampsById.delete(entry.targetId);
      }
    }
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
    return this.sessionDir === getDefaultSessionDirPath(this.cwd);
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

  /** Not in pi: write options (fsync after each append). */
  setWriteOptions(options: WriteOptions): void {
    this.syncWrites = options.fsync ?? false;
  }

  // ---------------------------------------------------------------------------------------
  // Persistence

  private assertWritable(): void {
    if (this.readOnly) throw new Error(`Session is read-only: ${this.sessionFile ?? "(in memory)"}`);
  }

  /** Writes `entry` (and, at the first flush, everything buffered). Memory is untouched on failure. */
  private _persist(entry: SessionEntry): void {
    if (!this.persist || !this.sessionFile) return;
    const path = this.sessionFile;
    if (!this.flushed) {
      if (!this.fileEntries.some(isConversation) && !isConversation(entry)) return;
      const bytes = Buffer.from([...this.fileEntries, entry].map(serialize).join(""));
      createExclusive(path, bytes, this.syncWrites);
      this.opened = { lines: [], size: bytes.length, endsWithNewline: true };
      this.flushed = true;
      return;
    }
    withFileLock(path, () => {
      const opened = this.opened ?? { lines: [], size: 0, endsWithNewline: true };
      this.opened = opened;
      const size = fileSize(path);
      if (size === undefined) {
        // Deleted under us (pi would recreate it without a header): write it back whole.
        const bytes = Buffer.from([...this.fileEntries, entry].map(serialize).join(""));
        createExclusive(path, bytes, this.syncWrites);
        opened.size = bytes.length;
        opened.endsWithNewline = true;
        opened.migratedFrom = undefined;
        return;
      }
      if (size > opened.size) this._absorbForeign(path, opened, entry);
      if (opened.migratedFrom !== undefined) {
        // First write after opening a legacy file: the v3 form replaces it, old bytes kept aside.
        const bytes = Buffer.concat([linesToBytes(opened.lines), Buffer.from(serialize(entry))]);
        replaceAtomically(path, bytes, backupPath(path, `v${opened.migratedFrom}`));
        opened.migratedFrom = undefined;
        opened.lines = []; // only needed for that one rewrite
        opened.size = bytes.length;
        opened.endsWithNewline = true;
        return;
      }
      // A torn last line stays where it is (kept, skipped on read); our line starts fresh.
      const prefix = opened.endsWithNewline ? "" : "\n";
      opened.size = appendBytes(path, Buffer.from(prefix + serialize(entry)), this.syncWrites);
      opened.endsWithNewline = true;
    });
  }

  /** Takes in lines other processes appended since our last write. */
  private _absorbForeign(path: string, opened: OpenedFile, entry: SessionEntry): void {
    const tail = readLinesFrom(path, opened.size);
    const foreign: SessionEntry[] = [];
    for (const line of tail.lines) {
      if (opened.migratedFrom !== undefined) opened.lines.push(line);
      if (line.kind !== "json" || line.value.type === "session") continue;
      const absorbed = line.value as unknown as SessionEntry;
      this.fileEntries.push(absorbed);
      this._indexEntry(absorbed, false);
      foreign.push(absorbed);
    }
    opened.size = tail.size;
    opened.endsWithNewline = tail.endsWithNewline;
    if (this.byId.has(entry.id)) {
      const previous = entry.id;
      entry.id = generateId(this.byId);
      if (entry.type === "compaction" && entry.firstKeptEntryId === previous)
        entry.firstKeptEntryId = entry.id;
    }
    if (foreign.length) for (const listener of this.foreignListeners) listener(foreign, path);
  }

  private _appendEntry(entry: SessionEntry): void {
    this.assertWritable();
    this._persist(entry);
    this.fileEntries.push(entry);
    this.byId.set(entry.id, entry);
    this.leafId = entry.id;
  }

  // ---------------------------------------------------------------------------------------
  // Appending

  /** Append a message as child of the current leaf, then advance the leaf. Returns the entry id. */
  appendMessage(message: AgentMessage): string {
    const entry = {
      type: "message",
      id: generateId(this.byId),
      parentId: this.leafId,
      timestamp: now(),
      message,
    } as SessionEntry;
    this._appendEntry(entry);
    return entry.id;
  }

  appendThinkingLevelChange(thinkingLevel: string): string {
    const entry: ThinkingLevelChangeEntry = {
      type: "thinking_level_change",
      id: generateId(this.byId),
      parentId: this.leafId,
      timestamp: now(),
      thinkingLevel,
    };
    this._appendEntry(entry);
    return entry.id;
  }

  appendModelChange(provider: string, modelId: string): string {
    const entry: ModelChangeEntry = {
      type: "model_change",
      id: generateId(this.byId),
      parentId: this.leafId,
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
      id: generateId(this.byId),
      parentId: this.leafId,
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
    const id = generateId(this.byId);
    const entry: CompactionEntry<T> = {
      type: "compaction",
      id,
      parentId: this.leafId,
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
      id: generateId(this.byId),
      parentId: this.leafId,
      timestamp: now(),
    };
    this._appendEntry(entry);
    return entry.id;
  }

  appendSessionInfo(name: string): string {
    const entry: SessionInfoEntry = {
      type: "session_info",
      id: generateId(this.byId),
      parentId: this.leafId,
      timestamp: now(),
      name: name.replace(/[\r\n]+/g, " ").trim(),
    };
    this._appendEntry(entry);
    return entry.id;
  }

  /** The name from the latest `session_info` entry (an empty name clears it). */
  getSessionName(): string | undefined {
    for (let i = this.fileEntries.length - 1; i >= 0; i--) {
      const entry = this.fileEntries[i];
      if (entry?.type === "session_info") return entry.name?.trim() || undefined;
    }
    return undefined;
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
      id: generateId(this.byId),
      parentId: this.leafId,
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
    const target = this.byId.get(targetId);
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
      id: generateId(this.byId),
      parentId: this.leafId,
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
    return this.leafId;
  }

  getLeafEntry(): SessionEntry | undefined {
    return this.leafId ? this.byId.get(this.leafId) : undefined;
  }

  getEntry(id: string): SessionEntry | undefined {
    return this.byId.get(id);
  }

  getChildren(parentId: string): SessionEntry[] {
    const children: SessionEntry[] = [];
    for (const entry of this.byId.values()) if (entry.parentId === parentId) children.push(entry);
    return children;
  }

  getLabel(id: string): string | undefined {
    return this.labelsById.get(id);
  }

  /** Set (or, with `undefined`/empty, clear) a label. Unknown targets throw `Entry <id> not found`. */
  appendLabelChange(targetId: string, label: string | undefined): string {
    if (!this.byId.has(targetId)) throw new Error(`Entry ${targetId} not found`);
    const entry: LabelEntry = {
      type: "label",
      id: generateId(this.byId),
      parentId: this.leafId,
      timestamp: now(),
      targetId,
      label,
    };
    this._appendEntry(entry);
    if (label) {
      this.labelsById.set(targetId, label);
      this.labelTimestampsById.set(targetId, entry.timestamp);
    } else {
      this.labelsById.delete(targetId);
      this.labelTimestampsById.delete(targetId);
    }
    return entry.id;
  }

  /** Root-to-entry path (default: the leaf). Stops at a cycle instead of looping. */
  getBranch(fromId?: string): SessionEntry[] {
    const startId = fromId ?? this.leafId;
    return walkToRoot(startId ? this.byId.get(startId) : undefined, this.byId);
  }

  buildContextEntries(): SessionEntry[] {
    return buildContextEntries(this.getEntries(), this.leafId, this.byId);
  }

  buildSessionProjection(): SessionProjection {
    return buildSessionProjection(this.getEntries(), this.leafId, this.byId);
  }

  buildSessionContext(): SessionContext {
    const { messages, thinkingLevel, model } = this.buildSessionProjection();
    return { messages, thinkingLevel, model };
  }

  getHeader(): SessionHeader | null {
    const header = this.fileEntries.find((e) => e.type === "session");
    return header ? (header as SessionHeader) : null;
  }

  getEntryCount(): number {
    return this.byId.size;
  }

  /** All entries except the header, in file order (a shallow copy). */
  getEntries(): SessionEntry[] {
    return this.fileEntries.filter((e): e is SessionEntry => e.type !== "session");
  }

  /**
   * The session as a forest; children sorted by timestamp. Orphans are roots. Unlike pi,
   * each line is its own node and an entry is never its own descendant, so duplicate ids or
   * cycles cannot make the result infinite; entries caught in a cycle become roots.
   */
  getTree(): SessionTreeNode[] {
    const entries = this.getEntries();
    const nodes = entries.map(
      (entry): SessionTreeNode => ({
        entry,
        children: [],
        label: this.labelsById.get(entry.id),
        labelTimestamp: this.labelTimestampsById.get(entry.id),
      }),
    );
    const nodeById = new Map<string, SessionTreeNode>();
    for (const node of nodes) nodeById.set(node.entry.id, node);
    const roots: SessionTreeNode[] = [];
    const parentOf = new Map<SessionTreeNode, SessionTreeNode>();
    for (const node of nodes) {
      const parentId = node.entry.parentId;
      const parent = parentId === null || parentId === node.entry.id ? undefined : nodeById.get(parentId);
      if (!parent || parent === node) roots.push(node);
      else parentOf.set(node, parent);
    }
    // Attach children unless that closes a loop (then the node becomes a root).
    for (const node of nodes) {
      const parent = parentOf.get(node);
      if (!parent) continue;
      let cursor: SessionTreeNode | undefined = parent;
      const seen = new Set<SessionTreeNode>();
      let loops = false;
      while (cursor && !seen.has(cursor)) {
        if (cursor === node) {
          loops = true;
          break;
        }
        seen.add(cursor);
        cursor = parentOf.get(cursor);
      }
      if (loops) {
        parentOf.delete(node);
        roots.push(node);
      } else parent.children.push(node);
    }
    const time = (node: SessionTreeNode) => new Date(node.entry.timestamp).getTime();
    const stack = [...roots];
    while (stack.length > 0) {
      const node = stack.pop() as SessionTreeNode;
      node.children.sort((a, b) => time(a) - time(b));
      stack.push(...node.children);
    }
    return roots;
  }

  // ---------------------------------------------------------------------------------------
  // Branching

  /** Move the leaf (in memory only, as pi). */
  branch(branchFromId: string): void {
    if (!this.byId.has(branchFromId)) throw new Error(`Entry ${branchFromId} not found`);
    this.leafId = branchFromId;
  }

  /** The next append becomes a new root. */
  resetLeaf(): void {
    this.leafId = null;
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
    if (branchFromId !== null && !this.byId.has(branchFromId))
      throw new Error(`Entry ${branchFromId} not found`);
    const fromId = this.leafId ?? "root";
    const previousLeaf = this.leafId;
    this.leafId = branchFromId;
    const entry: BranchSummaryEntry = {
      type: "branch_summary",
      id: generateId(this.byId),
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
      this.leafId = previousLeaf;
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
    const newSessionFile = join(this.getSessionDir(), sessionFileName(timestamp, newSessionId));
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
    for (const [targetId, label] of this.labelsById) {
      if (!keptIds.has(targetId)) continue;
      const labelEntry: LabelEntry = {
        type: "label",
        id: generateId(keptIds),
        parentId: labelParent,
        timestamp: this.labelTimestampsById.get(targetId) as string,
        targetId,
        label,
      };
      keptIds.add(labelEntry.id);
      labels.push(labelEntry);
      labelParent = labelEntry.id;
    }
    this.fileEntries = [header, ...kept, ...labels];
    this.sessionId = newSessionId;
    this._buildIndex();
    if (!this.persist) return undefined;
    this.sessionFile = newSessionFile;
    this.opened = undefined;
    if (this.fileEntries.some(isConversation)) {
      const bytes = Buffer.from(this.fileEntries.map(serialize).join(""));
      publishExclusive(newSessionFile, bytes);
      this.opened = { lines: [], size: bytes.length, endsWithNewline: true };
      this.flushed = true;
    } else this.flushed = false;
    return newSessionFile;
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
    const read = existsSync(resolved) ? readFile(resolved) : undefined;
    const first = read ? (entriesOf(read.lines)[0] as SessionHeader | undefined) : undefined;
    const headerCwd = typeof first?.cwd === "string" ? first.cwd : undefined;
    const cwd = cwdOverride ?? headerCwd ?? process.cwd();
    const dir = sessionDir ? resolvePath(sessionDir) : resolve(resolved, "..");
    return new SessionManager(cwd, dir, resolved, true, undefined, read);
  }

  /**
   * Not in pi: open a file for reading only. Nothing is ever written (not even a header into
   * an empty file); every mutating method throws `Session is read-only: <path>`.
   */
  static openReadonly(path: string, cwdOverride?: string): ReadonlySessionManager & SessionManager {
    const resolved = resolvePath(path);
    if (!existsSync(resolved)) throw new Error(`Session file not found: ${resolved}`);
    const read = readFile(resolved);
    const first = entriesOf(read.lines)[0] as SessionHeader | undefined;
    const cwd = cwdOverride ?? (typeof first?.cwd === "string" ? first.cwd : undefined) ?? process.cwd();
    return new SessionManager(cwd, resolve(resolved, ".."), resolved, true, undefined, read, true);
  }

  /** The most recent session of `cwd`, or a new one. */
  static continueRecent(cwd: string, sessionDir?: string): SessionManager {
    const dir = sessionDir ? resolvePath(sessionDir) : getDefaultSessionDir(cwd);
    const filterCwd = sessionDir !== undefined && dir !== getDefaultSessionDirPath(cwd);
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
    const entries = existsSync(source) ? (entriesOf(readFile(source).lines) as unknown as FileEntry[]) : [];
    if (entries.length === 0)
      throw new Error(`Cannot fork: source session file is empty or invalid: ${source}`);
    if (!entries.some((e) => e.type === "session")) {
      throw new Error(`Cannot fork: source session has no header: ${source}`);
    }
    migrateToCurrentVersion(entries);
    const dir = sessionDir ? resolvePath(sessionDir) : getDefaultSessionDir(cwd);
    if (!existsSync(dir)) mkdirSync(dir, { recursive: true });
    if (options?.id !== undefined) assertValidSessionId(options.id);
    const id = options?.id ?? createSessionId();
    const timestamp = now();
    const file = join(dir, sessionFileName(timestamp, id));
    const header: SessionHeader = {
      type: "session",
      version: CURRENT_SESSION_VERSION,
      id,
      timestamp,
      cwd,
      parentSession: source,
    };
    const body = entries.filter((e) => e.type !== "session");
    publishExclusive(file, Buffer.from([header, ...body].map(serialize).join("")));
    return new SessionManager(cwd, dir, file, true);
  }

  /** The file of session `id` in the session directory of `cwd` (or `sessionDir`). */
  static findById(cwd: string, id: string, sessionDir?: string): string | undefined {
    const dir = sessionDir ? resolvePath(sessionDir) : getDefaultSessionDir(cwd);
    const filterCwd = sessionDir !== undefined && dir !== getDefaultSessionDirPath(cwd);
    const resolvedCwd = resolvePath(cwd);
    try {
      for (const file of readdirSync(dir).sort()) {
        if (!file.endsWith(".jsonl")) continue;
        const path = join(dir, file);
        let header: Record<string, unknown> | null;
        try {
          header = readSessionHeader(path);
        } catch {
          header = null;
        }
        if (header?.id !== id) continue;
        if (filterCwd && !cwdMatches(header.cwd, resolvedCwd)) continue;
        return path;
      }
    } catch {
      // unreadable directory: not found
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
    const filterCwd = sessionDir !== undefined && dir !== getDefaultSessionDirPath(cwd);
    const resolvedCwd = resolvePath(cwd);
    const include = (info: SessionInfo) => !filterCwd || cwdMatches(info.cwd, resolvedCwd);
    const progress: SessionListProgress | undefined = onProgress
      ? (loaded, total, partial) => onProgress(loaded, total, partial?.filter(include))
      : undefined;
    return sortSessionInfos((await listSessionsFromDir(dir, progress, signal)).filter(include));
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
    if (dir) return sortSessionInfos(await listSessionsFromDir(dir, progress, abortSignal));
    return listAllSessions(getSessionsDir(), progress, abortSignal);
  }
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

function readFile(path: string): OpenedFile {
  const { lines, size, endsWithNewline } = readLinesFrom(path);
  return { lines, size, endsWithNewline };
}
