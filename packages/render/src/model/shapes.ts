/**
 * The shapes of the document model: a {@link RenderDocument} is one view of a session in plain
 * JSON (no classes, no functions), its items and their blocks. Renderers read these; the
 * builders are `document.ts`, `entry-item.ts` and `message-item.ts`.
 */
import type { EntryItemKind, RoleItemKind } from "@pi-session/format";
import type { EditDiff } from "./diff.js";

export const DOCUMENT_FORMAT = "pi-session-document";
export const DOCUMENT_VERSION = 1;

/** One view of a session, ready to render. JSON-serializable. */
export interface RenderDocument {
  format: typeof DOCUMENT_FORMAT;
  version: typeof DOCUMENT_VERSION;
  session: DocumentSession;
  view: DocumentView;
  items: DocumentItem[];
}

/** What the header and index say about the session. */
export interface DocumentSession {
  id: string;
  /** What to call it: the name, else the first user message (one line, cut), else the id. */
  title: string;
  /** The latest `session_info` name, if any. */
  name?: string;
  cwd?: string;
  /** The header's ISO timestamp (when the session was created). */
  createdAt?: string;
  /** The version the file is written in (1, 2 or 3); entries are always shown as v3. */
  formatVersion: number;
  /** The session this one was forked from (`parentSession`, or the legacy `branchedFrom`). */
  parentSession?: string;
  /** The session's leaf: the last entry in file order. */
  leafId: string | null;
  /** Entries in the file, every branch. */
  entryCount: number;
  /** Current labels, entry id -> label. */
  labels: Record<string, string>;
}

export type DocumentView =
  | { kind: "branch"; leafId: string | null }
  | { kind: "all-branches" }
  | {
      kind: "context";
      leafId: string | null;
      model: { provider: string; modelId: string } | null;
      thinkingLevel: string;
      /** Messages sent to the model (items whose `contextMessage` is true). */
      messageCount: number;
      /** The messages as a provider is sent them (`convertToLlm`). */
      llm?: true;
    };

export type ViewKind = DocumentView["kind"];

/**
 * What an item is, as format's registry names it. Message roles keep their names (`user`,
 * `assistant`, `toolResult`, `bashExecution`, `custom`, `branchSummary`, `compactionSummary`,
 * `system`); other entry types are named after the type (`compaction`, `branch_summary` ->
 * `branchSummaryEntry`, ...); `unknownRole` and `unknownEntry` carry what this package does not
 * know.
 */
export type ItemKind = RoleItemKind | EntryItemKind | "unknownRole" | "unknownEntry";

/** One entry (or, in the context view, one message) as shown. */
export interface DocumentItem {
  kind: ItemKind;
  /** The entry this item comes from. */
  id?: string;
  parentId?: string | null;
  /** The entry's `type` as written in the file. */
  entryType: string;
  /** The message role, for message items. */
  role?: string;
  /** ISO time: the entry's timestamp, or the message's (context items without an entry). */
  timestamp?: string;
  /** The entry's current label. */
  label?: string;
  /** A short heading: `user`, `assistant`, `tool result read`, `$ npm test`, `model`... */
  title: string;
  /** Facts shown beside the heading, in order (model, stop reason, exit code, tokens...). */
  details: ItemDetail[];
  blocks: Block[];
  /** Tool results: the call they answer. */
  toolCallId?: string;
  toolName?: string;
  /** Tool results: what the call they answer is about (its main argument: a path, a command), when the call is known. */
  callArgument?: string;
  /** Tool results and bash runs that failed; assistant messages that ended in an error. */
  isError?: boolean;
  /** Part of the conversation a reader follows (false for settings and bookkeeping entries). */
  conversational: boolean;
  /** Context view: the item is a message sent to the model. */
  contextMessage?: boolean;
  /** Where the path branches at this item: it is child `index` (1-based) of `count`. */
  branch?: { index: number; count: number; parentId: string | null };
  /** All-branches view: depth in the tree (roots are 0). */
  depth?: number;
}

export interface ItemDetail {
  name: string;
  value: string;
}

export type Block =
  | TextBlock
  | ThinkingBlock
  | ToolCallBlock
  | OutputBlock
  | ImageBlock
  | CodeBlock
  | NoteBlock;

/** Prose; `markdown` when the author wrote Markdown (assistant text, user text, summaries). */
export interface TextBlock {
  type: "text";
  text: string;
  markdown: boolean;
}

export interface ThinkingBlock {
  type: "thinking";
  text: string;
  /** The provider redacted it; `text` is empty or opaque. */
  redacted: boolean;
}

/** A tool call: its raw arguments, and what to show for them. */
export interface ToolCallBlock {
  type: "toolCall";
  id: string;
  name: string;
  arguments: unknown;
  /** One line shown after the name (a path, a pattern), or "". */
  summary: string;
  /** The interesting argument as code (a command, a file's content). */
  code?: { language: string; text: string };
  /** An edit as a diff with line numbers (pi's from its result, else computed from the arguments). */
  diff?: EditDiff;
}

/** Output of a tool or a command; `language` names its syntax ("text" when unknown). */
export interface OutputBlock {
  type: "output";
  text: string;
  language: string;
  isError: boolean;
}

/** An image as stored: base64 data and its declared MIME type (renderers check both). */
export interface ImageBlock {
  type: "image";
  mimeType: string;
  data: string;
}

/** Structured data shown as code (extension data, unknown blocks and entries as JSON). */
export interface CodeBlock {
  type: "code";
  language: string;
  text: string;
  caption?: string;
}

/** A remark by the renderer, not session content ("not sent to the model"). */
export interface NoteBlock {
  type: "note";
  text: string;
}

/** Where an item comes from: the entry fields every item carries. */
export interface ItemOrigin {
  id?: string;
  parentId?: string | null;
  entryType: string;
  timestamp?: string;
  label?: string;
}
