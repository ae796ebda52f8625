/**
 * The public types of the SDK, under the names pi 1.6.0's `session-manager` exports them.
 * The shapes come from `@pi-session/format`; this module only gives them upstream's names and
 * adds the manager-level types (options, projection, listing info, tree nodes).
 */
import type {
  AgentMessage,
  AssistantMessage,
  CustomMessage,
  MessageEntry,
  SessionEntry,
  ToolResultMessage,
  UserMessage,
} from "@pi-session/format";

export type {
  AgentMessage,
  AssistantMessage,
  BashExecutionMessage,
  BranchSummaryEntry,
  BranchSummaryMessage,
  CompactionEntry,
  CompactionSummaryMessage,
  ContextEditEntry,
  CustomEntry,
  CustomMessage,
  CustomMessageEntry,
  FileEntry,
  ImageContent,
  LabelEntry,
  ModelChangeEntry,
  SessionEntry,
  SessionEntryBase,
  SessionHeader,
  SessionInfoEntry,
  SystemMessage,
  TextContent,
  ThinkingLevelChangeEntry,
  ToolResultMessage,
  Usage,
  UsageEntry,
  UserMessage,
} from "@pi-session/format";

/** pi's name for a `message` entry. */
export type SessionMessageEntry = MessageEntry;

/** Options of `newSession`, `create`, `inMemory` and `forkFrom`. */
export interface NewSessionOptions {
  id?: string;
  parentSession?: string;
}

/** What a `context_edit` may put in place of a message's content. */
export type ContextEditableContent =
  | UserMessage["content"]
  | AssistantMessage["content"]
  | ToolResultMessage["content"]
  | CustomMessage["content"];

export interface SessionTreeNode {
  entry: SessionEntry;
  children: SessionTreeNode[];
  label?: string;
  labelTimestamp?: string;
}

export interface ProjectedSessionEntry {
  sourceEntry: SessionEntry;
  messages: AgentMessage[];
}

export interface SessionProjection {
  entries: ProjectedSessionEntry[];
  messages: AgentMessage[];
  thinkingLevel: string;
  model: { provider: string; modelId: string } | null;
}

export interface SessionContext {
  messages: AgentMessage[];
  thinkingLevel: string;
  model: { provider: string; modelId: string } | null;
}

export interface SessionInfo {
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

/** Progress of `list`/`listAll`: files done, files in total, a sorted partial result now and then. */
export type SessionListProgress = (loaded: number, total: number, partialSessions?: SessionInfo[]) => void;

/** Entries another process appended to the file since this manager last wrote it. */
export type ForeignEntriesListener = (entries: SessionEntry[], file: string) => void;
