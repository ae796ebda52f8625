/**
 * @pi-session/format: the types of pi session files, the line codec and the serializer.
 *
 * The public face of the package (named re-exports only; a new public name is added here);
 * see the README for what each export is for. The schemas live in the
 * `@pi-session/format/schema` subpath so this entry stays free of TypeBox.
 */
export {
  type AgentMessage,
  type AnyEntry,
  type AssistantContent,
  type AssistantMessage,
  type AssistantMessageDiagnostic,
  type BashExecutionMessage,
  type BranchSummaryEntry,
  type BranchSummaryMessage,
  CURRENT_SESSION_VERSION,
  type CompactionDetails,
  type CompactionEntry,
  type CompactionSummaryMessage,
  type ContextEditEntry,
  type ContextEditReplacement,
  type CustomEntry,
  type CustomMessage,
  type CustomMessageEntry,
  type DeferredHandle,
  type FileEntry,
  type HookMessage,
  type ImageContent,
  type JsonObject,
  type JsonValue,
  type KnownContent,
  type KnownSessionEntry,
  type LabelEntry,
  type MessageEntry,
  type MessageRole,
  type ModelChangeEntry,
  type ModelThinkingLevel,
  type NestedToolCalls,
  type Open,
  type SessionEntry,
  type SessionEntryBase,
  type SessionEntryType,
  type SessionHeader,
  type SessionInfoEntry,
  type StopReason,
  type StoredMessage,
  type SystemMessage,
  type TextContent,
  type ThinkingContent,
  type ThinkingLevel,
  type ThinkingLevelChangeEntry,
  type ToolCall,
  type Tool,
  type ToolReference,
  type ToolResultMessage,
  type UnknownContent,
  type UnknownEntry,
  type Usage,
  type UsageCost,
  type UsageEntry,
  type UserContent,
  type UserMessage,
  type V1CompactionEntry,
  type V1Entry,
  type V1MessageEntry,
  type V2SessionEntry,
  headerVersion,
  isSessionHeader,
  isValidSessionHeader,
} from "./types.js";
export {
  type Diagnostic,
  type DiagnosticCode,
  type DiagnosticSeverity,
  type JsonRecord,
  type RawRecord,
  type RecordPosition,
  type SessionRecord,
  formatDiagnostic,
} from "./records.js";
export { idHash } from "./id-hash.js";
export { isObject } from "./object.js";
export { contentText } from "./content-text.js";
export { type EntryOfType, isEntryOfType } from "./entry-type.js";
export {
  type ContextRole,
  type ContextView,
  ENTRY_TYPE_INFO,
  ENTRY_TYPES,
  type EntryItemKind,
  type EntrySummarySpec,
  type EntryTypeInfo,
  type EntryTypeWithContext,
  type EntryTypeWithUsage,
  type IndexRole,
  MESSAGE_ROLE_INFO,
  MESSAGE_ROLES,
  type MessageRoleInfo,
  type RoleItemKind,
  type SummaryTone,
  type UsageRole,
  contextRoleOf,
  contextView,
  entryTypeInfo,
  indexRoleOf,
  isEntryType,
  isMessageRole,
  messageRoleInfo,
} from "./registry.js";
export { sessionInfoName } from "./session-name.js";
export { utf8 } from "./bytes.js";
export { type DecoderOptions, type TornTail, SessionLineDecoder } from "./codec/decoder.js";
export { type ParseResult, parseSessionBytes, parseSessionText } from "./codec/parse.js";
export { rawRecordValue } from "./codec/raw-records.js";
export { type JsonSyntaxError, isJsonText, jsonSyntaxError } from "./json-check.js";
export { objectShaped } from "./codec/line-shape.js";
export {
  type SerializeOptions,
  serializeEntries,
  serializeEntry,
  serializeLine,
  serializeRecords,
} from "./serialize.js";
export { type SessionView, detectVersion, splitSession } from "./session.js";
export { MAX_INDENTED_DEPTH, serializeJson, stringifyJson, writeJsonText } from "./json-text.js";
