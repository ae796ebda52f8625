/**
 * Schemas of the messages of `message` entries, one per role, the fallback for roles the
 * format does not know (open mode), and their union `Message`. v1 and v2 files also know the
 * legacy `hookMessage` role (migration renames it to `custom`).
 */
import type { TObject, TSchema } from "typebox";
import { Type } from "./typebox.js";
import { Bool, Num, Opt, OtherString, type SchemaBuilder, Str } from "./builder.js";
import { MESSAGE_ROLE_INFO, MESSAGE_ROLES } from "../registry.js";
import type { ContentSchemas } from "./content.js";

const V3_ROLES: readonly string[] = MESSAGE_ROLES;
const LEGACY_ROLES = Object.keys(MESSAGE_ROLE_INFO);
const STOP_REASONS = ["stop", "length", "toolUse", "error", "aborted", "pending", "deferred"];

export interface MessageSchemas {
  UserMessage: TSchema;
  AssistantMessage: TSchema;
  ToolResultMessage: TSchema;
  BashExecutionMessage: TSchema;
  CustomMessage: TSchema;
  HookMessage: TSchema;
  BranchSummaryMessage: TSchema;
  CompactionSummaryMessage: TSchema;
  SystemMessage: TSchema;
  UnknownMessage: TSchema;
  /** Any message of this variant's version. */
  Message: TSchema;
}

export function messageSchemas(build: SchemaBuilder, content: ContentSchemas): MessageSchemas {
  const { object: Obj, openObject: Open, strict, version } = build;
  const { UserContent, AssistantContent, ToolResultContent, TextContent, Usage } = content;
  const ts = Num();
  const UserMessage = Obj({ role: Type.Literal("user"), content: UserContent, timestamp: ts });
  const AssistantMessage = Obj({
    role: Type.Literal("assistant"),
    content: AssistantContent,
    api: Opt(Str()),
    provider: Str(),
    model: Str(),
    usage: Usage,
    stopReason: strict ? Type.Union(STOP_REASONS.map((s) => Type.Literal(s))) : Str(),
    errorMessage: Opt(Str()),
    timestamp: ts,
    responseModel: Opt(Str()),
    responseId: Opt(Str()),
    providerThinkingLevel: Opt(Str()),
    thinkingLevel: Opt(Str()),
    diagnostics: Opt(Type.Unknown()),
    deferred: Opt(Type.Unknown()),
    rawStopReason: Opt(Str()),
    endTurn: Opt(Bool()),
    durationMs: Opt(Num()),
  });
  const ToolResultMessage = Obj({
    role: Type.Literal("toolResult"),
    toolCallId: Str(),
    toolName: Str(),
    content: ToolResultContent,
    details: Opt(Type.Unknown()),
    isError: Bool(),
    timestamp: ts,
    usage: Opt(Usage),
    nestedCalls: Opt(Type.Unknown()),
    durationMs: Opt(Num()),
  });
  const BashExecutionMessage = Obj({
    role: Type.Literal("bashExecution"),
    command: Str(),
    output: Str(),
    exitCode: Opt(Type.Union([Num(), Type.Null()])),
    cancelled: Bool(),
    truncated: Bool(),
    fullOutputPath: Opt(Str()),
    excludeFromContext: Opt(Bool()),
    timestamp: ts,
  });
  const customLike = (role: string): TObject =>
    Obj({
      role: Type.Literal(role),
      customType: Str(),
      content: UserContent,
      display: Bool(),
      details: Opt(Type.Unknown()),
      timestamp: ts,
    });
  const CustomMessage = customLike("custom");
  const HookMessage = customLike("hookMessage");
  const BranchSummaryMessage = Obj({
    role: Type.Literal("branchSummary"),
    summary: Str(),
    fromId: Str(),
    timestamp: ts,
  });
  const CompactionSummaryMessage = Obj({
    role: Type.Literal("compactionSummary"),
    summary: Str(),
    tokensBefore: Num(),
    timestamp: ts,
  });
  // pi-ai's Tool (its parameters are a JSON Schema object) and ToolReference. Open mode asks
  // only for the name, what readers use.
  const Tool = Obj({
    name: Str(),
    description: strict ? Str() : Opt(Str()),
    parameters: strict ? Type.Unsafe<object>({ type: "object" }) : Opt(Type.Unsafe<object>({ type: "object" })),
    constrainedSampling: Opt(Type.Unknown()),
  });
  const ToolReference = Obj({ name: Str() });
  const SystemMessage = Obj({
    role: Type.Literal("system"),
    content: Type.Union([Str(), Type.Array(TextContent)]),
    sections: Opt(Type.Record(Type.String(), Type.Union([Str(), Type.Null()]))),
    toolsAdded: Opt(Type.Array(Tool)),
    toolsRemoved: Opt(Type.Array(ToolReference)),
    timestamp: ts,
  });
  const UnknownMessage = Open(
    { role: OtherString(version === 3 ? V3_ROLES : LEGACY_ROLES) },
    "A message of a role this schema does not know; kept verbatim.",
  );
  const v3Messages: TSchema[] = [
    UserMessage,
    AssistantMessage,
    ToolResultMessage,
    BashExecutionMessage,
    CustomMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    SystemMessage,
  ];
  const knownMessages = version === 3 ? v3Messages : [...v3Messages, HookMessage];
  return {
    UserMessage,
    AssistantMessage,
    ToolResultMessage,
    BashExecutionMessage,
    CustomMessage,
    HookMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    SystemMessage,
    UnknownMessage,
    Message: Type.Union(strict ? knownMessages : [...knownMessages, UnknownMessage]),
  };
}
