/**
 * The schema sets: every schema of one variant (open or strict, file version 1, 2 or 3) by
 * name, built once; {@link schemasFor} picks the set for a file, and the named `*Schema`
 * exports are the open v3 schemas (with the v2 `HookMessage` and a few v1 ones) for
 * `Static<typeof ...>` and JSON Schema export. Open sets are built at import; strict ones on
 * first request.
 */
import type { TObject, TSchema } from "typebox";
import { Type } from "./typebox.js";
import { type SchemaVersion, schemaBuilder } from "./builder.js";
import { contentSchemas } from "./content.js";
import { entrySchemas } from "./entries.js";
import { messageSchemas } from "./messages.js";

export interface ValidateOptions {
  /** Known types only, closed objects. Default false. */
  strict?: boolean;
  /** Format version of the file the value comes from (1, 2 or 3; above 3 counts as 3). Default 3. */
  version?: number;
}

/** Every schema of one variant (strict or open, file version 1, 2 or 3). */
export type SchemaName =
  | "TextContent"
  | "ThinkingContent"
  | "ImageContent"
  | "ToolCall"
  | "UnknownContent"
  | "UserContent"
  | "AssistantContent"
  | "Usage"
  | "UsageCost"
  | "UserMessage"
  | "AssistantMessage"
  | "ToolResultMessage"
  | "BashExecutionMessage"
  | "CustomMessage"
  | "HookMessage"
  | "BranchSummaryMessage"
  | "CompactionSummaryMessage"
  | "SystemMessage"
  | "UnknownMessage"
  | "Message"
  | "MessageEntry"
  | "ThinkingLevelChangeEntry"
  | "ModelChangeEntry"
  | "CompactionEntry"
  | "BranchSummaryEntry"
  | "CustomEntry"
  | "CustomMessageEntry"
  | "LabelEntry"
  | "SessionInfoEntry"
  | "UsageEntry"
  | "ContextEditEntry"
  | "UnknownEntry"
  | "Entry"
  | "Header";

/** The schemas of one variant, by name. */
export type SchemaSet = Record<SchemaName, TSchema> & { Header: TObject };

function buildSchemas(strict: boolean, version: SchemaVersion): SchemaSet {
  const build = schemaBuilder(strict, version);
  const content = contentSchemas(build);
  const messages = messageSchemas(build, content);
  const entries = entrySchemas(build, content, messages);
  return {
    TextContent: content.TextContent,
    ThinkingContent: content.ThinkingContent,
    ImageContent: content.ImageContent,
    ToolCall: content.ToolCall,
    UnknownContent: content.UnknownContent,
    UserContent: content.UserContent,
    AssistantContent: content.AssistantContent,
    Usage: content.Usage,
    UsageCost: content.UsageCost,
    ...messages,
    ...entries,
  };
}

const V3 = buildSchemas(false, 3);
const V2 = buildSchemas(false, 2);
const V1 = buildSchemas(false, 1);

/** The open v3 schemas (the default). */
export const schemasV3: SchemaSet = V3;
/** The open v2 schemas (v3 plus the legacy `hookMessage` role). */
export const schemasV2: SchemaSet = V2;
/** The open v1 schemas (no ids; compactions with `firstKeptEntryIndex`). */
export const schemasV1: SchemaSet = V1;

const strictSets = new Map<SchemaVersion, SchemaSet>();

/** The schema set for a version and mode (strict sets are built on first request). */
export function schemasFor(opts: ValidateOptions = {}): SchemaSet {
  const version = schemaVersion(opts.version);
  if (opts.strict !== true) return version === 3 ? V3 : version === 2 ? V2 : V1;
  let set = strictSets.get(version);
  if (set === undefined) {
    set = buildSchemas(true, version);
    strictSets.set(version, set);
  }
  return set;
}

/** The schema version of a file version: absent or above 3 is 3, below 2 is 1. */
function schemaVersion(version: number | undefined): SchemaVersion {
  if (version === undefined || version >= 3) return 3;
  return version <= 1 ? 1 : 2;
}

// Named exports of the open v3 schemas, for `Static<typeof ...>` and JSON Schema export.
export const TextContentSchema = V3.TextContent;
export const ThinkingContentSchema = V3.ThinkingContent;
export const ImageContentSchema = V3.ImageContent;
export const ToolCallSchema = V3.ToolCall;
export const UnknownContentSchema = V3.UnknownContent;
export const UsageSchema = V3.Usage;
export const UserMessageSchema = V3.UserMessage;
export const AssistantMessageSchema = V3.AssistantMessage;
export const ToolResultMessageSchema = V3.ToolResultMessage;
export const BashExecutionMessageSchema = V3.BashExecutionMessage;
export const CustomMessageSchema = V3.CustomMessage;
export const HookMessageSchema = V2.HookMessage;
export const BranchSummaryMessageSchema = V3.BranchSummaryMessage;
export const CompactionSummaryMessageSchema = V3.CompactionSummaryMessage;
export const SystemMessageSchema = V3.SystemMessage;
export const AgentMessageSchema = V3.Message;
export const MessageEntrySchema = V3.MessageEntry;
export const ThinkingLevelChangeEntrySchema = V3.ThinkingLevelChangeEntry;
export const ModelChangeEntrySchema = V3.ModelChangeEntry;
export const CompactionEntrySchema = V3.CompactionEntry;
export const BranchSummaryEntrySchema = V3.BranchSummaryEntry;
export const CustomEntrySchema = V3.CustomEntry;
export const CustomMessageEntrySchema = V3.CustomMessageEntry;
export const LabelEntrySchema = V3.LabelEntry;
export const SessionInfoEntrySchema = V3.SessionInfoEntry;
export const UsageEntrySchema = V3.UsageEntry;
export const ContextEditEntrySchema = V3.ContextEditEntry;
export const UnknownEntrySchema = V3.UnknownEntry;
/** Any v3 entry line (open: unknown types pass with the base shape). */
export const SessionEntrySchema = V3.Entry;
/** Any v2 entry line (v3 plus `hookMessage`). */
export const V2EntrySchema = V2.Entry;
/** Any v1 entry line (no ids; compactions may carry `firstKeptEntryIndex`). */
export const V1EntrySchema = V1.Entry;
export const V1CompactionEntrySchema = V1.CompactionEntry;
/** The header of any version (`version` optional: absent means v1). */
export const SessionHeaderSchema = V3.Header;
export const V1SessionHeaderSchema = V1.Header;

/** A header line written at `version` (a number for v2/v3, absent for v1). */
function fileHeader(set: SchemaSet, version: SchemaVersion): TSchema {
  if (version === 1) return set.Header;
  const closed = (set.Header as { additionalProperties?: unknown }).additionalProperties === false;
  return Type.Object(
    { ...set.Header.properties, version: Type.Literal(version) },
    closed ? { additionalProperties: false } : {},
  );
}

/** Any line of a v3 file: the header or an entry. */
export const SessionLineV3Schema = Type.Union([fileHeader(V3, 3), V3.Entry]);
/** Any line of a v2 file. */
export const SessionLineV2Schema = Type.Union([fileHeader(V2, 2), V2.Entry]);
/** Any line of a v1 file. */
export const SessionLineV1Schema = Type.Union([fileHeader(V1, 1), V1.Entry]);
