/**
 * The public types of the SDK, under the names pi 1.6.0's `session-manager` exports them, and
 * with pi's shapes, so that values pass between this SDK and pi's own types both ways.
 *
 * The entries and the header are `@pi-session/format`'s, narrowed where pi's types are narrower
 * than what files hold: a header has a `cwd`, a compaction a `firstKeptEntryId`, a branch summary
 * a `fromId`, and a label entry a `label` key. The manager serves its entries under these types
 * as pi does: migrated to v3, and otherwise as the file has them (a v1 file written before pi
 * stored one of these fields still lacks it at run time). Code that must handle such files reads
 * them with `@pi-session/format`'s wider types. The manager's option types are its own.
 */
import type {
  ProjectedSessionEntry as ContextProjectedEntry,
  SessionProjection as ContextProjection,
} from "@pi-session/context";
import type * as raw from "@pi-session/format";
import type {
  AssistantMessage,
  ContextEditEntry,
  CustomEntry,
  CustomMessage,
  CustomMessageEntry,
  MessageEntry,
  ModelChangeEntry,
  SessionInfoEntry,
  ThinkingLevelChangeEntry,
  ToolResultMessage,
  UsageEntry,
  UserMessage,
} from "@pi-session/format";
import type { ListProgress } from "@pi-session/node-store";
import type { SessionTreeNode as TreeNode } from "@pi-session/tree";

export type {
  AgentMessage,
  AssistantMessage,
  BashExecutionMessage,
  BranchSummaryMessage,
  CompactionSummaryMessage,
  ContextEditEntry,
  CustomEntry,
  CustomMessage,
  CustomMessageEntry,
  ImageContent,
  ModelChangeEntry,
  SessionEntryBase,
  SessionInfoEntry,
  SystemMessage,
  TextContent,
  ThinkingLevelChangeEntry,
  ToolResultMessage,
  Usage,
  UsageEntry,
  UserMessage,
} from "@pi-session/format";

/** pi's header: the session's `cwd` is always there (v1 files from before it was stored lack it). */
export interface SessionHeader extends raw.SessionHeader {
  cwd: string;
}

/** pi's compaction: `firstKeptEntryId` is always there (a v1 compaction may lack it). */
export interface CompactionEntry<T = unknown> extends raw.CompactionEntry<T> {
  firstKeptEntryId: string;
}

/** pi's branch summary: `fromId` is always there (early files lack it). */
export interface BranchSummaryEntry<T = unknown> extends raw.BranchSummaryEntry<T> {
  fromId: string;
}

/** pi's label entry: `label` is a key, `undefined` when the label is cleared. */
export interface LabelEntry extends raw.LabelEntry {
  label: string | undefined;
}

/** An entry of a session (after the header), as pi 1.6.0 types it. */
export type SessionEntry =
  | MessageEntry
  | ThinkingLevelChangeEntry
  | ModelChangeEntry
  | UsageEntry
  | CompactionEntry
  | BranchSummaryEntry
  | CustomEntry
  | CustomMessageEntry
  | ContextEditEntry
  | LabelEntry
  | SessionInfoEntry;

/** A line of a session file: the header or an entry. */
export type FileEntry = SessionHeader | SessionEntry;

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
