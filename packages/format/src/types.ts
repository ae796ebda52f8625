/**
 * The shapes of a pi session file, as TypeScript types.
 *
 * A session file is JSONL: line 1 is a {@link SessionHeader}, every later line is a
 * {@link SessionEntry} (v2/v3) or a {@link V1Entry} (v1, no ids). These types follow what pi
 * writes (0.58.3 to 1.6.0, see `docs/format.md` "Entry types"). pi adds fields and entry types
 * without bumping the version: {@link UnknownEntry} carries entry types this package does not
 * know, with any keys ({@link Open}).
 *
 * The header, the entries, messages, content blocks and usage are shaped as pi's own
 * (`@earendil-works/pi-coding-agent` 1.6.0, `@earendil-works/pi-ai` 1.6.0), so values pass
 * between this toolkit and pi's types in TypeScript: pi's `AssistantMessage` is our
 * `AssistantMessage`, pi's `SessionEntry` is ours. They carry no string index signature (pi's
 * interfaces have none, and an interface without one is not assignable to a type with one);
 * unknown fields still pass through at run time, untouched, as they always did. These are the
 * types of what files hold, so they are wider than pi's where old files differ: a header may
 * lack `cwd`, a compaction `firstKeptEntryId`, a branch summary `fromId`. `@pi-session/sdk`
 * serves the same entries under pi's narrower types (see its README).
 *
 * Use these types to read and write entries; use `./schema.ts` to check untrusted data.
 */

/** The session format version this toolkit writes. */
export const CURRENT_SESSION_VERSION = 3;

/** Extra keys pi (or an extension) may add; kept verbatim on read-modify-write. */
export type Open = { [key: string]: unknown };

/** A JSON value (pi-ai's `JsonValue`). */
export type JsonValue = null | boolean | number | string | readonly JsonValue[] | JsonObject;
/** A JSON object (pi-ai's `JsonObject`): tool call arguments, diagnostic details. */
export type JsonObject = { [key: string]: JsonValue };

// ---------------------------------------------------------------------------------------
// Content blocks

export interface TextContent {
  type: "text";
  text: string;
  textSignature?: string;
}

export interface ThinkingContent {
  type: "thinking";
  thinking: string;
  thinkingSignature?: string;
  redacted?: boolean;
}

export interface ImageContent {
  type: "image";
  /** Base64 data. */
  data: string;
  mimeType: string;
}

export interface ToolCall {
  type: "toolCall";
  id: string;
  name: string;
  arguments: JsonObject;
  thoughtSignature?: string;
  namespace?: string;
  argumentsError?: string;
}

/** A content block of a type this package does not know (e.g. `finalAnswer`); kept verbatim. */
export interface UnknownContent extends Open {
  type: string;
}

export type KnownContent = TextContent | ThinkingContent | ImageContent | ToolCall;
export type UserContent = string | (TextContent | ImageContent)[];
export type AssistantContent = (TextContent | ThinkingContent | ToolCall)[];

// ---------------------------------------------------------------------------------------
// Usage

export interface UsageCost {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  total: number;
  /** True when `total` is what the provider billed, not a catalog estimate. */
  totalFromProvider?: boolean;
}

export interface Usage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /**
   * Always written by current pi; absent in files from before late 2025 (see the
   * large-session fixture), so readers of old files should not rely on it.
   */
  totalTokens: number;
  cost: UsageCost;
  cacheWrite1h?: number;
  reasoning?: number;
}

export type StopReason = "stop" | "length" | "toolUse" | "error" | "aborted" | "pending" | "deferred";

/** The thinking levels pi-ai knows (its `ModelThinkingLevel`). */
export type ModelThinkingLevel = "off" | "minimal" | "low" | "medium" | "high" | "xhigh" | "max";

/** Something that went wrong while a response was made (pi-ai's `AssistantMessageDiagnostic`). */
export interface AssistantMessageDiagnostic {
  type: string;
  timestamp: number;
  error?: { name?: string; message: string; stack?: string; code?: string | number };
  details?: JsonObject;
}

/** Where a deferred response can be fetched later (pi-ai's `DeferredHandle`). */
export interface DeferredHandle {
  provider: string;
  modelId: string;
  api: string;
  id: string;
  expiresAt?: number;
  pollAfterMs?: number;
  data?: JsonValue;
}

/** A tool a system message adds (pi-ai's `Tool`): `parameters` is its arguments' JSON Schema. */
export interface Tool<TParameters extends object = object> {
  name: string;
  description: string;
  parameters: TParameters;
  constrainedSampling?:
    | false
    | { type: "json_schema"; strict: "prefer" | "require" }
    | { type: "grammar"; variants: { openai_lark?: string; openai_regex?: string } };
}

/** A tool a system message removes (pi-ai's `ToolReference`). */
export interface ToolReference {
  name: string;
}

/** The calls a tool made to other tools while it ran (pi-ai's `NestedToolCalls`). */
export interface NestedToolCalls {
  calls: {
    id: string;
    name: string;
    arguments?: JsonObject;
    argumentsBytes?: number;
    status: "ok" | "error" | "unfinished";
    durationMs?: number;
    error?: string;
  }[];
  complete: boolean;
}

// ---------------------------------------------------------------------------------------
// Messages (the `message` field of a `message` entry). Message timestamps are Unix ms.

export interface UserMessage {
  role: "user";
  content: UserContent;
  timestamp: number;
}

export interface AssistantMessage {
  role: "assistant";
  content: AssistantContent;
  /** pi-ai's `Api`: a known API name or any string. */
  api: string;
  /** pi-ai's `ProviderId`: a known provider or any string. */
  provider: string;
  model: string;
  usage: Usage;
  stopReason: StopReason;
  errorMessage?: string;
  timestamp: number;
  responseModel?: string;
  responseId?: string;
  providerThinkingLevel?: string;
  thinkingLevel?: ModelThinkingLevel;
  diagnostics?: AssistantMessageDiagnostic[];
  deferred?: DeferredHandle;
  rawStopReason?: string;
  endTurn?: boolean;
  durationMs?: number;
}

export interface ToolResultMessage {
  role: "toolResult";
  toolCallId: string;
  toolName: string;
  content: (TextContent | ImageContent)[];
  details?: JsonValue;
  isError: boolean;
  timestamp: number;
  usage?: Usage;
  nestedCalls?: NestedToolCalls;
  durationMs?: number;
}

export interface BashExecutionMessage {
  role: "bashExecution";
  command: string;
  output: string;
  exitCode: number | undefined;
  cancelled: boolean;
  truncated: boolean;
  fullOutputPath?: string;
  excludeFromContext?: boolean;
  timestamp: number;
}

export interface CustomMessage<T = unknown> {
  role: "custom";
  customType: string;
  content: UserContent;
  display: boolean;
  details?: T;
  timestamp: number;
}

/** Legacy (v1/v2) name of {@link CustomMessage}; renamed to `custom` by the v2 -> v3 migration. */
export interface HookMessage<T = unknown> extends Open {
  role: "hookMessage";
  customType: string;
  content: UserContent;
  display: boolean;
  details?: T;
  timestamp: number;
}

export interface BranchSummaryMessage {
  role: "branchSummary";
  summary: string;
  /** The entry the branch was left from; absent in early files (pi passes it on as it is). */
  fromId: string | null;
  timestamp: number;
}

export interface CompactionSummaryMessage {
  role: "compactionSummary";
  summary: string;
  tokensBefore: number;
  timestamp: number;
}

/** pi 1.6.0 system message (`developer` in an intermediate upstream snapshot). */
export interface SystemMessage {
  role: "system";
  content: string | TextContent[];
  sections?: Record<string, string | null>;
  toolsAdded?: Tool[];
  toolsRemoved?: ToolReference[];
  timestamp: number;
}

/** Every message role pi persists, v3 names. */
export type AgentMessage =
  | UserMessage
  | AssistantMessage
  | ToolResultMessage
  | BashExecutionMessage
  | CustomMessage
  | BranchSummaryMessage
  | CompactionSummaryMessage
  | SystemMessage;

/** What may be found in any file: v3 roles, legacy `hookMessage`, or an unknown role. */
export type StoredMessage = AgentMessage | HookMessage | (Open & { role: string });

export type MessageRole = AgentMessage["role"] | "hookMessage";

// ---------------------------------------------------------------------------------------
// Header

export interface SessionHeader {
  type: "session";
  /** Absent in v1 files. */
  version?: number;
  id: string;
  /** ISO-8601; also the file name prefix. */
  timestamp: string;
  /** May be missing in ancient files. */
  cwd?: string;
  /** Absolute path of the session this one was forked from. */
  parentSession?: string;
  /** Legacy name of `parentSession` (before Jan 2026); never migrated, kept as written. */
  branchedFrom?: string;
}

// ---------------------------------------------------------------------------------------
// Entries (v2/v3)

export interface SessionEntryBase {
  type: string;
  id: string;
  parentId: string | null;
  /** ISO-8601. */
  timestamp: string;
}

export interface MessageEntry extends SessionEntryBase {
  type: "message";
  message: AgentMessage;
}

export interface ThinkingLevelChangeEntry extends SessionEntryBase {
  type: "thinking_level_change";
  thinkingLevel: string;
}

export interface ModelChangeEntry extends SessionEntryBase {
  type: "model_change";
  provider: string;
  modelId: string;
}

export interface CompactionDetails extends Open {
  readFiles?: string[];
  modifiedFiles?: string[];
}

export interface CompactionEntry<T = unknown> extends SessionEntryBase {
  type: "compaction";
  summary: string;
  /** v2+; a 1.6.0 "retain-none" compaction stores its own id. */
  firstKeptEntryId?: string;
  tokensBefore: number;
  details?: T;
  fromHook?: boolean;
  usage?: Usage;
  /** pi 1.x: replaces `system` messages of the kept range. */
  systemMessage?: SystemMessage;
  /** Harness-style self-contained checkpoint: the messages kept verbatim. */
  retainedTail?: AgentMessage[];
}

export interface BranchSummaryEntry<T = unknown> extends SessionEntryBase {
  type: "branch_summary";
  /** Informational only; `"root"` is a sentinel. Absent in early files. */
  fromId?: string;
  summary: string;
  details?: T;
  fromHook?: boolean;
  usage?: Usage;
}

export interface CustomEntry<T = unknown> extends SessionEntryBase {
  type: "custom";
  customType: string;
  data?: T;
}

export interface CustomMessageEntry<T = unknown> extends SessionEntryBase {
  type: "custom_message";
  customType: string;
  content: UserContent;
  display: boolean;
  details?: T;
}

export interface LabelEntry extends SessionEntryBase {
  type: "label";
  targetId: string;
  /** Absent or empty clears the label. */
  label?: string;
}

export interface SessionInfoEntry extends SessionEntryBase {
  type: "session_info";
  /** Empty or blank clears the name (pi 1.x). */
  name?: string;
}

export interface UsageEntry extends SessionEntryBase {
  type: "usage";
  /** Readers must accept unknown kinds. */
  kind: string;
  provider: string;
  model: string;
  usage: Usage;
  note?: string;
}

export interface ContextEditReplacement {
  content: UserContent | AssistantContent | string;
}

export interface ContextEditEntry extends SessionEntryBase {
  type: "context_edit";
  targetId: string;
  /** `null` removes the target's messages from the context. */
  replacement: ContextEditReplacement | null;
}

/** An entry whose `type` this package does not know; passes through untouched. */
export interface UnknownEntry extends SessionEntryBase, Open {
  type: string;
}

export type KnownSessionEntry =
  | MessageEntry
  | ThinkingLevelChangeEntry
  | ModelChangeEntry
  | CompactionEntry
  | BranchSummaryEntry
  | CustomEntry
  | CustomMessageEntry
  | LabelEntry
  | SessionInfoEntry
  | UsageEntry
  | ContextEditEntry;

/** The v3 entry types; each has its row in `registry.ts` (`ENTRY_TYPE_INFO`, `ENTRY_TYPES`). */
export type SessionEntryType = KnownSessionEntry["type"];

/**
 * Any v2/v3 entry line. Narrow with `entry.type === "message"` etc.; an entry of an unknown
 * type is still an entry (it has an id and a parent) and must be kept.
 */
export type SessionEntry = KnownSessionEntry;

/** Any line after the header, known or not. */
export type AnyEntry = KnownSessionEntry | UnknownEntry;

/** A whole-file item: the header or an entry. (pi's `FileEntry`.) */
export type FileEntry = SessionHeader | SessionEntry;

// ---------------------------------------------------------------------------------------
// v1 (linear, no ids) and v2 shapes

/** A v1 entry: no `id`/`parentId`; compactions point at a header-inclusive line index. */
export interface V1Entry extends Open {
  type: string;
  timestamp?: string;
  id?: undefined;
  parentId?: undefined;
}

export interface V1CompactionEntry extends V1Entry {
  type: "compaction";
  summary: string;
  /** Header-inclusive index (the header is index 0) of the first kept entry. */
  firstKeptEntryIndex?: number;
  tokensBefore: number;
}

export interface V1MessageEntry extends V1Entry {
  type: "message";
  message: StoredMessage;
}

/** v2 is v3 with legacy `hookMessage` roles. */
export type V2SessionEntry = SessionEntry | (Omit<MessageEntry, "message"> & { message: HookMessage });

/** The thinking levels pi knows; files may contain others. */
export type ThinkingLevel = "off" | "minimal" | "low" | "medium" | "high" | "xhigh";

// ---------------------------------------------------------------------------------------
// Helpers

export function isSessionHeader(value: unknown): value is SessionHeader {
  return typeof value === "object" && value !== null && (value as { type?: unknown }).type === "session";
}

/** pi's rule for a usable header: `type:"session"` and a string `id`. */
export function isValidSessionHeader(value: unknown): value is SessionHeader {
  return isSessionHeader(value) && typeof (value as { id?: unknown }).id === "string";
}

/** The version of a header: `version` if it is a number, else 1 (v1 files have none). */
export function headerVersion(header: { version?: unknown }): number {
  return typeof header.version === "number" ? header.version : 1;
}
