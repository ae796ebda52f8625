/**
 * Schemas of entry lines, one per entry type (keyed by the registry's types: a type without its
 * schema does not compile), the fallback for entry types the format does not know
 * (open mode), their union `Entry`, and the header line. v1 lines have no `id`/`parentId` and
 * compactions may carry `firstKeptEntryIndex`; v2 and v3 lines always have ids.
 */
import type { TObject, TSchema } from "typebox";
import { Type } from "./typebox.js";
import { ENTRY_TYPES } from "../registry.js";
import type { SessionEntryType } from "../types.js";
import { Bool, Num, Opt, OtherString, type Props, type SchemaBuilder, Str } from "./builder.js";
import type { ContentSchemas } from "./content.js";
import type { MessageSchemas } from "./messages.js";

export interface EntrySchemas {
  MessageEntry: TSchema;
  ThinkingLevelChangeEntry: TSchema;
  ModelChangeEntry: TSchema;
  CompactionEntry: TSchema;
  BranchSummaryEntry: TSchema;
  CustomEntry: TSchema;
  CustomMessageEntry: TSchema;
  LabelEntry: TSchema;
  SessionInfoEntry: TSchema;
  UsageEntry: TSchema;
  ContextEditEntry: TSchema;
  UnknownEntry: TSchema;
  /** Any entry line of this variant's version. */
  Entry: TSchema;
  Header: TObject;
}

export function entrySchemas(
  build: SchemaBuilder,
  content: ContentSchemas,
  messages: MessageSchemas,
): EntrySchemas {
  const { object: Obj, openObject: Open, strict, version } = build;
  const { UserContent, ReplacementContent, Usage } = content;
  const { Message, SystemMessage } = messages;
  const base: Props =
    version === 1
      ? { timestamp: Opt(Str()) }
      : { id: Str(), parentId: Type.Union([Str(), Type.Null()]), timestamp: Str() };
  const entry = (type: string, props: Props): TObject => Obj({ type: Type.Literal(type), ...base, ...props });

  const MessageEntry = entry("message", { message: Message });
  const ThinkingLevelChangeEntry = entry("thinking_level_change", { thinkingLevel: Str() });
  const ModelChangeEntry = entry("model_change", { provider: Str(), modelId: Str() });
  const CompactionEntry = entry("compaction", {
    summary: Str(),
    firstKeptEntryId: Opt(Str()),
    ...(version === 1 ? { firstKeptEntryIndex: Opt(Num()) } : {}),
    tokensBefore: Num(),
    details: Opt(Type.Unknown()),
    fromHook: Opt(Bool()),
    usage: Opt(Usage),
    systemMessage: Opt(SystemMessage),
    retainedTail: Opt(Type.Array(Message)),
  });
  const BranchSummaryEntry = entry("branch_summary", {
    fromId: Opt(Str()),
    summary: Str(),
    details: Opt(Type.Unknown()),
    fromHook: Opt(Bool()),
    usage: Opt(Usage),
  });
  const CustomEntry = entry("custom", { customType: Str(), data: Opt(Type.Unknown()) });
  const CustomMessageEntry = entry("custom_message", {
    customType: Str(),
    content: UserContent,
    display: Bool(),
    details: Opt(Type.Unknown()),
  });
  const LabelEntry = entry("label", { targetId: Str(), label: Opt(Str()) });
  const SessionInfoEntry = entry("session_info", { name: Opt(Str()) });
  const UsageEntry = entry("usage", {
    kind: Str(),
    provider: Str(),
    model: Str(),
    usage: Usage,
    note: Opt(Str()),
  });
  const ContextEditEntry = entry("context_edit", {
    targetId: Str(),
    replacement: Type.Union([Type.Null(), Open({ content: ReplacementContent })]),
  });
  const UnknownEntry = Open(
    { type: OtherString([...ENTRY_TYPES, "session"]), ...base },
    "An entry of a type this schema does not know; kept verbatim.",
  );
  const byType: Record<SessionEntryType, TObject> = {
    message: MessageEntry,
    thinking_level_change: ThinkingLevelChangeEntry,
    model_change: ModelChangeEntry,
    compaction: CompactionEntry,
    branch_summary: BranchSummaryEntry,
    custom: CustomEntry,
    custom_message: CustomMessageEntry,
    label: LabelEntry,
    session_info: SessionInfoEntry,
    usage: UsageEntry,
    context_edit: ContextEditEntry,
  };
  const knownEntries: TSchema[] = ENTRY_TYPES.map((type) => byType[type]);

  const Header = Obj({
    type: Type.Literal("session"),
    version: Opt(Num()),
    id: Str(),
    timestamp: Str(),
    cwd: Opt(Str()),
    parentSession: Opt(Str()),
    branchedFrom: Opt(Str()),
    // Seen in real v1 headers (late 2025); never read by pi.
    ...(version === 1 ? { provider: Opt(Str()), modelId: Opt(Str()), thinkingLevel: Opt(Str()) } : {}),
  });

  return {
    MessageEntry,
    ThinkingLevelChangeEntry,
    ModelChangeEntry,
    CompactionEntry,
    BranchSummaryEntry,
    CustomEntry,
    CustomMessageEntry,
    LabelEntry,
    SessionInfoEntry,
    UsageEntry,
    ContextEditEntry,
    UnknownEntry,
    Entry: Type.Union(strict ? knownEntries : [...knownEntries, UnknownEntry]),
    Header,
  };
}
