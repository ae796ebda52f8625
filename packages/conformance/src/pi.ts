/**
 * Loads pi 1.6.0's own session code (`@earendil-works/pi-coding-agent`, a devDependency) by
 * file path, because the package's `exports` hide `dist/core/*`, and types the parts the
 * differential tests use. The types are deliberately loose (plain JSON objects): the tests
 * only ever deep-compare pi's results with ours.
 */
import { readFileSync } from "node:fs";

/** A parsed JSON line of a session file (header or entry), as pi handles it: unvalidated. */
export type Json = Record<string, unknown>;

export interface PiSessionContext {
  messages: Json[];
  thinkingLevel: string;
  model: { provider: string; modelId: string } | null;
}

export interface PiSessionProjection extends PiSessionContext {
  entries: { sourceEntry: Json; messages: Json[] }[];
}

export interface PiTreeNode {
  entry: Json;
  children: PiTreeNode[];
  label?: string;
  labelTimestamp?: string;
}

export interface PiSessionInfo {
  path: string;
  id: string;
  cwd: string;
  name?: string;
  parentSessionPath?: string;
  created: Date;
  modified: Date;
  messageCount: number;
  firstMessage: string;
  allMessagesText: string;
}

type Lookup = { get(id: string): Json | undefined };

/** The instance API of pi's `SessionManager` that the tests drive. */
export interface PiSessionManager {
  isPersisted(): boolean;
  getCwd(): string;
  getSessionDir(): string;
  getSessionId(): string;
  getSessionFile(): string | undefined;
  appendMessage(message: Json): string;
  appendThinkingLevelChange(thinkingLevel: string): string;
  appendModelChange(provider: string, modelId: string): string;
  appendUsage(kind: string, provider: string, model: string, usage: Json, note?: string): Json;
  appendCompaction(
    summary: string,
    firstKeptEntryId: string | null,
    tokensBefore: number,
    details?: unknown,
    fromHook?: boolean,
    usage?: Json,
  ): string;
  appendCustomEntry(customType: string, data?: unknown): string;
  appendSessionInfo(name: string): string;
  getSessionName(): string | undefined;
  appendCustomMessageEntry(customType: string, content: unknown, display: boolean, details?: unknown): string;
  appendContextEdit(targetId: string, replacement: { content: unknown } | null): string;
  getLeafId(): string | null;
  getLeafEntry(): Json | undefined;
  getEntry(id: string): Json | undefined;
  getChildren(parentId: string): Json[];
  getLabel(id: string): string | undefined;
  appendLabelChange(targetId: string, label: string | undefined): string;
  getBranch(fromId?: string): Json[];
  buildContextEntries(): Json[];
  buildSessionProjection(): PiSessionProjection;
  buildSessionContext(): PiSessionContext;
  getHeader(): Json | null;
  getEntryCount(): number;
  getEntries(): Json[];
  getTree(): PiTreeNode[];
  branch(branchFromId: string): void;
  resetLeaf(): void;
  branchWithSummary(
    branchFromId: string | null,
    summary: string,
    details?: unknown,
    fromHook?: boolean,
    usage?: Json,
  ): string;
  createBranchedSession(leafId: string): string | undefined;
}

export interface PiSessionManagerStatic {
  create(
    cwd: string,
    sessionDir?: string,
    options?: { id?: string; parentSession?: string },
  ): PiSessionManager;
  open(path: string, sessionDir?: string, cwdOverride?: string): PiSessionManager;
  inMemory(
    cwd?: string,
    options?: { id?: string; parentSession?: string },
    entries?: Json[],
  ): PiSessionManager;
  list(cwd: string, sessionDir?: string): Promise<PiSessionInfo[]>;
  listAll(sessionDir?: string): Promise<PiSessionInfo[]>;
}

/** `dist/core/session-manager.js`: the free functions and the class. */
export interface PiSessionModule {
  CURRENT_SESSION_VERSION: number;
  SessionManager: PiSessionManagerStatic;
  buildSessionContext(entries: Json[], leafId?: string | null, byId?: Lookup): PiSessionContext;
  buildContextEntries(entries: Json[], leafId?: string | null, byId?: Lookup): Json[];
  buildSessionProjection(entries: Json[], leafId?: string | null, byId?: Lookup): PiSessionProjection;
  projectContextEntry(entry: Json, edit?: Json): Json[];
  sessionEntryToContextMessages(entry: Json): Json[];
  getLatestCompactionEntry(entries: Json[]): Json | null;
  /** Mutates `entries` (header included) in place. */
  migrateSessionEntries(entries: Json[]): void;
  parseSessionEntries(content: string): Json[];
  loadEntriesFromFile(filePath: string): Json[];
  findMostRecentSession(sessionDir: string, cwd?: string): string | null;
  assertValidSessionId(id: string): void;
}

/** `dist/core/messages.js`: message constructors, prefixes and the provider conversion. */
export interface PiMessagesModule {
  COMPACTION_SUMMARY_PREFIX: string;
  COMPACTION_SUMMARY_SUFFIX: string;
  BRANCH_SUMMARY_PREFIX: string;
  BRANCH_SUMMARY_SUFFIX: string;
  bashExecutionToText(message: Json): string;
  convertToLlm(messages: Json[]): Json[];
  createBranchSummaryMessage(summary: string, fromId: string, timestamp: string): Json;
  createCompactionSummaryMessage(summary: string, tokensBefore: number, timestamp: string): Json;
  createCustomMessage(
    customType: string,
    content: unknown,
    display: boolean,
    details: unknown,
    timestamp: string,
  ): Json;
}

const core = new URL("../node_modules/@earendil-works/pi-coding-agent/dist/core/", import.meta.url);

/** pi 1.6.0's `core/session-manager.js`. */
export const pi = (await import(new URL("session-manager.js", core).href)) as PiSessionModule;

/** pi 1.6.0's `core/messages.js`. */
export const piMessages = (await import(new URL("messages.js", core).href)) as PiMessagesModule;

/** The installed version, read from the package's own package.json. */
export const piVersion: string = (
  JSON.parse(readFileSync(new URL("../../package.json", core), "utf8")) as { version: string }
).version;
