/**
 * @pi-session/format/schema: runtime schemas of session lines (TypeBox 1.x, so each schema IS
 * a JSON Schema object) and the validators built on them. The root entry point stays free of
 * TypeBox; import this subpath to check untrusted data.
 *
 * Default mode is open, like pi itself: unknown keys pass everywhere, entries of unknown
 * `type`, messages of unknown `role` and content blocks of unknown `type` pass as long as
 * they have the base shape. Known types must match their schema. Strict mode (opt-in)
 * admits known types only and closes the objects whose fields are all known.
 *
 * Schemas are plain objects built at import; validators are compiled on first use only.
 * TypeBox is an optional peer dependency: only this entry loads it (`schema/typebox.ts`), with
 * a clear error when it is missing. The public face of the subpath: the modules in `schema/` hold the definitions (`content.ts`,
 * `messages.ts`, `entries.ts`), the sets (`sets.ts`), the checks (`compile.ts`, `checks.ts`,
 * `dispatch.ts`), the explainer (`explain.ts`) and the validators (`validate.ts`).
 */
export type { ValidationIssue } from "./schema/explain.js";
export {
  AgentMessageSchema,
  AssistantMessageSchema,
  BashExecutionMessageSchema,
  BranchSummaryEntrySchema,
  BranchSummaryMessageSchema,
  CompactionEntrySchema,
  CompactionSummaryMessageSchema,
  ContextEditEntrySchema,
  CustomEntrySchema,
  CustomMessageEntrySchema,
  CustomMessageSchema,
  HookMessageSchema,
  ImageContentSchema,
  LabelEntrySchema,
  MessageEntrySchema,
  ModelChangeEntrySchema,
  type SchemaName,
  type SchemaSet,
  SessionEntrySchema,
  SessionHeaderSchema,
  SessionInfoEntrySchema,
  SessionLineV1Schema,
  SessionLineV2Schema,
  SessionLineV3Schema,
  SystemMessageSchema,
  TextContentSchema,
  ThinkingContentSchema,
  ThinkingLevelChangeEntrySchema,
  ToolCallSchema,
  ToolResultMessageSchema,
  UnknownContentSchema,
  UnknownEntrySchema,
  UsageEntrySchema,
  UsageSchema,
  UserMessageSchema,
  V1CompactionEntrySchema,
  V1EntrySchema,
  V1SessionHeaderSchema,
  V2EntrySchema,
  type ValidateOptions,
  schemasFor,
  schemasV1,
  schemasV2,
  schemasV3,
} from "./schema/sets.js";
export { validateEntry, validateHeader, validateRecords } from "./schema/validate.js";
