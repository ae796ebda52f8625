/**
 * The public types of the SDK, under the names pi 1.6.0's `session-manager` exports them.
 * The shapes come from the layers (`format`, `context`, `tree`, `node-store`); this module
 * only gives them upstream's names and adds the manager's own option types.
 */
import type {
  ProjectedSessionEntry as ContextProjectedEntry,
  SessionProjection as ContextProjection,
} from "@pi-session/context";
import type {
  AssistantMessage,
  CustomMessage,
  MessageEntry,
  SessionEntry,
  ToolResultMessage,
  UserMessage,
} from "@pi-session/format";
import type { ListProgress } from "@pi-session/node-store";
import type { SessionTreeNode as TreeNode } from "@pi-session/tree";

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

/** A node of `getTree()`: the entry, its children sorted by timestamp, its label (with timestamp). */
export type SessionTreeNode = TreeNode<SessionEntry>;

/** One selected entry and the messages it contributes (`buildSessionProjection`). */
export type ProjectedSessionEntry = ContextProjectedEntry<SessionEntry>;

export type SessionProjection = ContextProjection<SessionEntry>;

export type { SessionContext } from "@pi-session/context";

/** pi's listing record; built by `@pi-session/node-store`'s listing. */
export type { SessionInfo } from "@pi-session/node-store";

/** Progress of `list`/`listAll`: files done, files in total, a sorted partial result now and then. */
export type SessionListProgress = ListProgress;

/** Entries another process appended to the file since this manager last wrote it. */
export type ForeignEntriesListener = (entries: SessionEntry[], file: string) => void;
