/**
 * Runtime schemas for session lines (TypeBox 1.x, so each schema IS a JSON Schema object),
 * and validators built on them. Import from `@pi-session/format/schema`; the root entry
 * point stays free of TypeBox.
 *
 * Default mode is open, like pi itself: unknown keys pass everywhere, entries of unknown
 * `type`, messages of unknown `role` and content blocks of unknown `type` pass as long as
 * they have the base shape. Known types must match their schema. Strict mode (opt-in)
 * admits known types only and closes the objects whose fields are all known.
 *
 * Schemas are plain objects built at import; validators are compiled on first use only.
 *
 * TypeBox is an optional peer dependency of this package: only this entry loads it, so users
 * of the root entry never install it. Loading it here (top-level `await import`) lets a
 * missing `typebox` fail with a message that says what to install.
 */
import type { TObject, TSchema } from "typebox";
import type { Diagnostic, SessionRecord } from "./records.js";
import { ENTRY_TYPES, headerVersion } from "./types.js";

async function loadTypeBox<Module>(name: string, load: () => Promise<Module>): Promise<Module> {
  try {
    return await load();
  } catch (error) {
    throw new Error(
      `@pi-session/format/schema needs the package "typebox" (1.x), an optional peer dependency it does not install: npm install typebox@^1.4.3 (could not load "${name}")`,
      { cause: error },
    );
  }
}

const [{ Type }, { Compile }] = await Promise.all([
  loadTypeBox("typebox", () => import("typebox")),
  loadTypeBox("typebox/compile", () => import("typebox/compile")),
]);
/** A schema problem: where (a JSON pointer into the value) and what was expected. */
export interface ValidationIssue {
  /** JSON pointer, `""` for the value itself, e.g. `/message/content/0/text`. */
  path: string;
  /** What is wrong, e.g. `expected string, got number`. */
  message: string;
}

export interface ValidateOptions {
  /** Known types only, closed objects. Default false. */
  strict?: boolean;
  /** Format version of the file the value comes from (1, 2 or 3; above 3 counts as 3). Default 3. */
  version?: number;
}

type SchemaVersion = 1 | 2 | 3;

// ---------------------------------------------------------------------------------------
// Building blocks

const KNOWN_BLOCK_TYPES = ["text", "thinking", "image", "toolCall"];
const V3_ROLES = [
  "user",
  "assistant",
  "toolResult",
  "bashExecution",
  "custom",
  "branchSummary",
  "compactionSummary",
  "system",
];
const LEGACY_ROLES = [...V3_ROLES, "hookMessage"];
const KNOWN_ENTRY_TYPES: readonly string[] = ENTRY_TYPES;
const STOP_REASONS = ["stop", "length", "toolUse", "error", "aborted", "pending", "deferred"];

const Str = () => Type.String();
const Num = () => Type.Number();
const Bool = () => Type.Boolean();
const Opt = (t: TSchema): TSchema => Type.Optional(t);
/** A string that is none of `known`: the discriminator of a fallback branch. */
const OtherString = (known: string[]) => Type.Unsafe<string>({ type: "string", not: { enum: known } });

type Props = Record<string, TSchema>;

// Schemas are typed as plain `TSchema`: inferring the static type of every variant made the
// declaration file 300 kB. The TypeScript types of the format live in `types.ts`.
function objectBuilder(strict: boolean): (props: Props, description?: string) => TObject {
  return (props, description) =>
    Type.Object(props, {
      ...(strict ? { additionalProperties: false } : {}),
      ...(description ? { description } : {}),
    });
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

function buildSchemas(strict: boolean, version: SchemaVersion): SchemaSet {
  const Obj = objectBuilder(strict);
  const Open = objectBuilder(false);

  const TextContent = Obj({ type: Type.Literal("text"), text: Str(), textSignature: Opt(Str()) });
  const ThinkingContent = Obj({
    type: Type.Literal("thinking"),
    thinking: Str(),
    thinkingSignature: Opt(Str()),
    redacted: Opt(Bool()),
  });
  const ImageContent = Obj({ type: Type.Literal("image"), data: Str(), mimeType: Str() });
  const ToolCall = Obj({
    type: Type.Literal("toolCall"),
    id: Str(),
    name: Str(),
    // Any JSON object. Not `Type.Record(String, Unknown)`: same JSON Schema meaning, but its
    // compiled check walks `Object.entries` with a regex test per key for nothing.
    arguments: Type.Unsafe<Record<string, unknown>>({ type: "object" }),
    thoughtSignature: Opt(Str()),
    namespace: Opt(Str()),
    argumentsError: Opt(Str()),
  });
  const UnknownContent = Open(
    { type: OtherString(KNOWN_BLOCK_TYPES) },
    "A content block of a type this schema does not know; kept verbatim.",
  );
  const blocks = (...known: TSchema[]): TSchema => Type.Union(strict ? known : [...known, UnknownContent]);
  const UserContent = Type.Union([Str(), Type.Array(blocks(TextContent, ImageContent))]);
  const AssistantContent = Type.Array(blocks(TextContent, ThinkingContent, ToolCall));
  const ToolResultContent = Type.Array(blocks(TextContent, ImageContent));

  const UsageCost = Obj({
    input: Num(),
    output: Num(),
    cacheRead: Num(),
    cacheWrite: Num(),
    total: Num(),
    totalFromProvider: Opt(Num()),
  });
  const Usage = Obj({
    input: Num(),
    output: Num(),
    cacheRead: Num(),
    cacheWrite: Num(),
    // Files written before late 2025 lack it (see the large-session fixture); strict requires it.
    totalTokens: strict ? Num() : Opt(Num()),
    cost: UsageCost,
    cacheWrite1h: Opt(Num()),
    reasoning: Opt(Num()),
  });

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
  const SystemMessage = Obj({
    role: Type.Literal("system"),
    content: Type.Union([Str(), Type.Array(TextContent)]),
    sections: Opt(Type.Record(Type.String(), Type.Union([Str(), Type.Null()]))),
    toolsAdded: Opt(Type.Array(Str())),
    toolsRemoved: Opt(Type.Array(Str())),
    timestamp: ts,
  });
  const knownRoles = version === 3 ? V3_ROLES : LEGACY_ROLES;
  const UnknownMessage = Open(
    { role: OtherString(knownRoles) },
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
  const Message = Type.Union(strict ? knownMessages : [...knownMessages, UnknownMessage]);

  // Entries. v1 lines have no id/parentId; v2/v3 lines always do.
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
    replacement: Type.Union([
      Type.Null(),
      Open({
        content: Type.Union([
          Str(),
          Type.Array(blocks(TextContent, ImageContent, ThinkingContent, ToolCall)),
        ]),
      }),
    ]),
  });
  const UnknownEntry = Open(
    { type: OtherString([...KNOWN_ENTRY_TYPES, "session"]), ...base },
    "An entry of a type this schema does not know; kept verbatim.",
  );
  const knownEntries: TSchema[] = [
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
  ];
  const Entry = Type.Union(strict ? knownEntries : [...knownEntries, UnknownEntry]);

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
    TextContent,
    ThinkingContent,
    ImageContent,
    ToolCall,
    UnknownContent,
    UserContent,
    AssistantContent,
    Usage,
    UsageCost,
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
    Message,
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
    Entry,
    Header,
  };
}

/** The schemas of one variant, by name. */
export type SchemaSet = Record<SchemaName, TSchema> & { Header: TObject };

const V3 = buildSchemas(false, 3);
const V2 = buildSchemas(false, 2);
const V1 = buildSchemas(false, 1);

/** The open v3 schemas (the default). */
export const schemasV3: SchemaSet = V3;
/** The open v2 schemas (v3 plus the legacy `hookMessage` role). */
export const schemasV2: SchemaSet = V2;
/** The open v1 schemas (no ids; compactions with `firstKeptEntryIndex`). */
export const schemasV1: SchemaSet = V1;

const variantCache = new Map<string, SchemaSet>();

/** The schema set for a version and mode (strict sets are built on first request). */
export function schemasFor(opts: ValidateOptions = {}): SchemaSet {
  const version = normalizeVersion(opts.version);
  const strict = opts.strict === true;
  if (!strict) return version === 3 ? V3 : version === 2 ? V2 : V1;
  const key = `${version}:strict`;
  let set = variantCache.get(key);
  if (set === undefined) {
    set = buildSchemas(true, version);
    variantCache.set(key, set);
  }
  return set;
}

function normalizeVersion(v: number | undefined): SchemaVersion {
  if (v === undefined || v >= 3) return 3;
  return v <= 1 ? 1 : 2;
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
  return Type.Object(
    { ...set.Header.properties, version: Type.Literal(version) },
    (set.Header as { additionalProperties?: unknown }).additionalProperties === false
      ? { additionalProperties: false }
      : {},
  );
}

/** Any line of a v3 file: the header or an entry. */
export const SessionLineV3Schema = Type.Union([fileHeader(V3, 3), V3.Entry]);
/** Any line of a v2 file. */
export const SessionLineV2Schema = Type.Union([fileHeader(V2, 2), V2.Entry]);
/** Any line of a v1 file. */
export const SessionLineV1Schema = Type.Union([fileHeader(V1, 1), V1.Entry]);

// ---------------------------------------------------------------------------------------
// Validation

interface Checker {
  Check(value: unknown): boolean;
  Errors(value: unknown): { instancePath: string; message: string }[];
}

const compiled = new WeakMap<TSchema, Checker>();

/** The compiled validator of a schema, compiled on first use and cached. */
export function compiledValidator(schema: TSchema): Checker {
  let c = compiled.get(schema);
  if (c === undefined) {
    c = Compile(schema) as unknown as Checker;
    compiled.set(schema, c);
  }
  return c;
}

function validate(schema: TSchema, value: unknown): ValidationIssue[] {
  if (fastCheck(schema)(value)) return [];
  return explainFailure(schema, value);
}

const fastChecks = new WeakMap<TSchema, Check>();

/** The generated check of a schema (TypeBox's when the generator cannot), cached. */
function fastCheck(schema: TSchema): Check {
  let c = fastChecks.get(schema);
  if (c === undefined) {
    c = lazyCheck(schema);
    fastChecks.set(schema, c);
  }
  return c;
}

/** The issues of a value known to fail `schema`. */
function explainFailure(schema: TSchema, value: unknown): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  explain(schema as JsonSchema, value, "", issues);
  if (issues.length > 0) return issues;
  // The explainer covers the keywords these schemas use; if it ever disagrees with the
  // compiled validator, report the validator's own errors rather than nothing.
  return compiledValidator(schema)
    .Errors(value)
    .map((e) => ({ path: e.instancePath, message: e.message }));
}

// ---------------------------------------------------------------------------------------
// Fast entry checks. The Entry union is discriminated by `type` (and message entries by
// `message.role`), and every known branch pins its tag with a `const` while the fallback
// branch admits exactly the other tags. So a value passes the union iff it passes the one
// branch its tag selects: look that branch up and run only its (small) compiled validator,
// instead of trying branch after branch of one giant function. Small functions also reach
// the optimizing compiler sooner, which matters for short files.

type Check = (value: unknown) => boolean;

interface EntryDispatch {
  /** Entry type -> check; message entries are not in here (see `byRole`). */
  byType: Map<string, Check>;
  /** Message role -> check of a whole message entry with that role. */
  byRole: Map<string, Check>;
  /** Check for entry types not in `byType` (open mode), or undefined (strict: they fail). */
  otherType: Check | undefined;
  /** Check for message entries of other roles (open mode), or undefined. */
  otherRole: Check | undefined;
  /** Check for message entries whose `message` is not an object with a string role. */
  message: Check;
}

interface JsonBranch {
  properties?: Record<string, { const?: unknown; not?: unknown }>;
  anyOf?: JsonBranch[];
}

const dispatchCache = new WeakMap<TSchema, EntryDispatch>();

/** A lazily compiled check: the schema is compiled on its first call only. */
function lazyCheck(schema: TSchema): Check {
  let check: Check | undefined;
  return (value) => {
    if (check === undefined) {
      const fast = compileCheck(schema as JsonSchema);
      if (fast !== undefined) check = fast;
      else {
        const c = compiledValidator(schema);
        check = (v) => c.Check(v);
      }
    }
    return check(value);
  };
}

// ---------------------------------------------------------------------------------------
// A small code generator for the JSON Schema subset these schemas use. Why not only
// TypeBox's `Compile`: it inlines every sub-schema at every use and re-reads member chains
// (`value.message.usage.cost.input`) at each test, so one entry branch becomes one huge
// expression that runs slowly until the optimizing compiler gets to it, which for a file of
// a few thousand lines is never. Here every distinct sub-schema becomes one small function
// (Usage, a text block, ...) shared by all its uses, unions tagged by `type`/`role` become a
// `switch`, and property values are read once. Same accept/reject decisions as TypeBox (the
// tests compare them); anything outside the subset, or a runtime without `new Function`,
// falls back to TypeBox.

const SUPPORTED = new Set([
  "type",
  "required",
  "properties",
  "const",
  "enum",
  "not",
  "anyOf",
  "items",
  "patternProperties",
  "additionalProperties",
  "description",
  "title",
]);

class Unsupported extends Error {}

function literal(v: unknown): string {
  if (typeof v === "string" || typeof v === "boolean" || v === null) return JSON.stringify(v);
  if (typeof v === "number" && Number.isFinite(v)) return String(v);
  throw new Unsupported("non-primitive literal");
}

/** The tag key and branch per tag of a union discriminated by `type` or `role`, if it is one. */
function tagged(
  branches: JsonSchema[],
): { key: string; known: Map<string, JsonSchema>; other: JsonSchema | undefined } | undefined {
  for (const key of ["type", "role"]) {
    const known = new Map<string, JsonSchema>();
    let other: JsonSchema | undefined;
    let ok = true;
    for (const b of branches) {
      const p = b.properties?.[key];
      const isObj = b.type === "object" && b.required?.includes(key) === true;
      if (isObj && typeof p?.const === "string" && !known.has(p.const)) known.set(p.const, b);
      else if (isObj && p?.type === "string" && p.not?.enum !== undefined && other === undefined) {
        other = b;
        // The fallback must exclude every known tag, or a known tag could match it too.
        const excluded = p.not.enum;
        if (branches.some((x) => x !== b && !excluded.includes(x.properties?.[key]?.const))) ok = false;
      } else ok = false;
    }
    if (ok && known.size > 0) return { key, known, other };
  }
  return undefined;
}

function compileCheck(root: JsonSchema): Check | undefined {
  const names = new Map<JsonSchema, string>();
  const fns: string[] = [];
  let vars = 0;

  /** A JS boolean expression testing `x` when `s` is a plain type/const test, else undefined. */
  function simple(s: JsonSchema, x: string): string | undefined {
    for (const k of Object.keys(s))
      if (k !== "type" && k !== "const" && k !== "description") return undefined;
    const parts: string[] = [];
    if (s.type === "string" || s.type === "boolean") parts.push(`typeof ${x} === "${s.type}"`);
    else if (s.type === "number") parts.push(`Number.isFinite(${x})`);
    else if (s.type === "integer") parts.push(`Number.isInteger(${x})`);
    else if (s.type === "null") parts.push(`${x} === null`);
    else if (s.type !== undefined) return undefined;
    if (s.const !== undefined) parts.push(`${x} === ${literal(s.const)}`);
    return parts.length > 0 ? parts.join(" && ") : "true";
  }

  /** A JS boolean expression testing `x` against `s` (inline when simple, else a call). */
  function test(s: JsonSchema, x: string): string {
    return simple(s, x) ?? `${fn(s)}(${x})`;
  }

  function fn(s: JsonSchema): string {
    let name = names.get(s);
    if (name !== undefined) return name;
    name = `f${names.size}`;
    names.set(s, name);
    fns.push(`function ${name}(v) {\n${body(s)}\nreturn true;\n}`);
    return name;
  }

  function body(s: JsonSchema): string {
    for (const k of Object.keys(s)) if (!SUPPORTED.has(k)) throw new Unsupported(k);
    const out: string[] = [];
    const fail = (cond: string) => out.push(`if (${cond}) return false;`);
    const plain = simple({ type: s.type, const: s.const } as JsonSchema, "v");
    if (s.type === "object") fail(`typeof v !== "object" || v === null || Array.isArray(v)`);
    else if (s.type === "array") fail(`!Array.isArray(v)`);
    else if (plain !== undefined && plain !== "true") fail(`!(${plain})`);
    else if (s.type !== undefined || s.const !== undefined) throw new Unsupported("type");
    if (s.type === "object" && s.const !== undefined) throw new Unsupported("object const");
    if (s.enum !== undefined) fail(`!(${s.enum.map((e) => `v === ${literal(e)}`).join(" || ") || "false"})`);
    if (s.not !== undefined) {
      const ne = s.not.enum;
      if (ne === undefined || Object.keys(s.not).length !== 1) throw new Unsupported("not");
      if (ne.length > 0) fail(ne.map((e) => `v === ${literal(e)}`).join(" || "));
    }
    const objectOnly = s.properties ?? s.required ?? s.patternProperties ?? s.additionalProperties;
    if (objectOnly !== undefined && s.type !== "object") throw new Unsupported("object keywords");
    if (s.items !== undefined && s.type !== "array") throw new Unsupported("items");
    for (const k of s.required ?? []) fail(`!(${JSON.stringify(k)} in v)`);
    const required = new Set(s.required ?? []);
    for (const [k, sub] of Object.entries(s.properties ?? {})) {
      if (Object.keys(sub).every((x) => x === "description")) continue; // anything goes
      const x = `x${vars++}`;
      out.push(`const ${x} = v[${JSON.stringify(k)}];`);
      // A missing optional property reads as undefined (JSON has no undefined values).
      fail(required.has(k) ? `!(${test(sub, x)})` : `${x} !== undefined && !(${test(sub, x)})`);
    }
    const pattern = s.patternProperties;
    if (pattern !== undefined) {
      const keys = Object.keys(pattern);
      const any = pattern["^.*$"];
      if (keys.length !== 1 || any === undefined) throw new Unsupported("patternProperties");
      if (!Object.keys(any).every((x) => x === "description"))
        out.push(`for (const k of Object.keys(v)) if (!(${test(any, "v[k]")})) return false;`);
    } else if (s.additionalProperties === false) {
      const known = Object.keys(s.properties ?? {}).map((k) => `case ${JSON.stringify(k)}:`);
      out.push(
        `for (const k of Object.keys(v)) switch (k) { ${known.join(" ")} continue; default: return false; }`,
      );
    } else if (s.additionalProperties !== undefined && s.additionalProperties !== true) {
      throw new Unsupported("additionalProperties");
    }
    if (s.items !== undefined) {
      out.push(`for (let i = 0; i < v.length; i++) if (!(${test(s.items, "v[i]")})) return false;`);
    }
    if (s.anyOf !== undefined) {
      const t = tagged(s.anyOf);
      if (t !== undefined) {
        // Each branch checks the object shape itself; the switch only routes by tag.
        fail(`typeof v !== "object" || v === null`);
        const cases = [...t.known].map(([tag, b]) => `case ${literal(tag)}: return ${fn(b)}(v);`);
        const other = t.other !== undefined ? `return ${fn(t.other)}(v);` : "return false;";
        out.push(`switch (v[${JSON.stringify(t.key)}]) { ${cases.join(" ")} default: ${other} }`);
      } else {
        fail(`!(${s.anyOf.map((b) => test(b, "v")).join(" || ") || "false"})`);
      }
    }
    return out.join("\n");
  }

  try {
    const entry = fn(root);
    // Source generated from our own schemas only (TypeBox compiles the same way).
    const make = new Function(`"use strict";\n${fns.join("\n")}\nreturn ${entry};`) as () => Check;
    return make();
  } catch {
    return undefined;
  }
}

function splitByTag(
  branches: JsonBranch[],
  key: string,
  wrap: (branch: TSchema) => TSchema,
): { known: Map<string, Check>; other: Check | undefined } {
  const known = new Map<string, Check>();
  let other: Check | undefined;
  for (const b of branches) {
    const tag = b.properties?.[key]?.const;
    if (typeof tag === "string") known.set(tag, lazyCheck(wrap(b as TSchema)));
    else other = lazyCheck(wrap(b as TSchema));
  }
  return { known, other };
}

function entryDispatch(entrySchema: TSchema): EntryDispatch {
  let d = dispatchCache.get(entrySchema);
  if (d !== undefined) return d;
  const branches = ((entrySchema as JsonBranch).anyOf ?? [entrySchema as JsonBranch]) as JsonBranch[];
  const types = splitByTag(branches, "type", (b) => b);
  const messageEntry = branches.find((b) => b.properties?.type?.const === "message") as TObject | undefined;
  let byRole = new Map<string, Check>();
  let otherRole: Check | undefined;
  let message: Check = () => false;
  if (messageEntry !== undefined) {
    types.known.delete("message");
    const whole = messageEntry.properties.message as TSchema;
    const closed = (messageEntry as { additionalProperties?: unknown }).additionalProperties === false;
    // The message entry with its `message` narrowed to one role's schema.
    const withMessage = (m: TSchema): TSchema =>
      Type.Object({ ...messageEntry.properties, message: m }, closed ? { additionalProperties: false } : {});
    const roles = splitByTag(((whole as JsonBranch).anyOf ?? [whole]) as JsonBranch[], "role", withMessage);
    byRole = roles.known;
    otherRole = roles.other;
    message = lazyCheck(messageEntry);
  }
  d = { byType: types.known, byRole, otherType: types.other, otherRole, message };
  dispatchCache.set(entrySchema, d);
  return d;
}

/** Whether `value` passes `entrySchema` (a union of entry branches), via its tag. */
function checkEntry(entrySchema: TSchema, value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  const d = entryDispatch(entrySchema);
  const type = (value as { type?: unknown }).type;
  if (typeof type !== "string") return false;
  if (type === "message") {
    const m = (value as { message?: unknown }).message;
    const role = typeof m === "object" && m !== null ? (m as { role?: unknown }).role : undefined;
    if (typeof role !== "string") return d.message(value);
    const check = d.byRole.get(role) ?? d.otherRole;
    return check?.(value) === true;
  }
  const check = d.byType.get(type) ?? d.otherType;
  return check?.(value) === true;
}

/** Checks one entry line (not the header). Empty result = valid. */
export function validateEntry(value: unknown, opts: ValidateOptions = {}): ValidationIssue[] {
  const schema = schemasFor(opts).Entry;
  return checkEntry(schema, value) ? [] : explainFailure(schema, value);
}

/** Checks a header line. Empty result = valid. */
export function validateHeader(value: unknown, opts: ValidateOptions = {}): ValidationIssue[] {
  return validate(schemasFor(opts).Header, value);
}

/** Issues reported per record at most; the rest are summarised. */
const MAX_ISSUES_PER_RECORD = 5;

/**
 * Validates the JSON records of a file: `type:"session"` lines as headers, the rest as
 * entries of the file's version (from `opts.version`, else from the first header, else 3).
 * One `schema` diagnostic per issue, with the record's line and offset.
 */
export function validateRecords(records: readonly SessionRecord[], opts: ValidateOptions = {}): Diagnostic[] {
  let version = opts.version;
  if (version === undefined) {
    const header = records.find((r) => r.kind === "json" && r.value.type === "session");
    version = header?.kind === "json" ? headerVersion(header.value) : 3;
  }
  const set = schemasFor({ strict: opts.strict === true, version });
  const entrySchema = set.Entry;
  const header = fastCheck(set.Header);
  const out: Diagnostic[] = [];
  for (let i = 0; i < records.length; i++) {
    const rec = records[i] as SessionRecord;
    if (rec.kind !== "json") continue;
    const value = rec.value;
    const isHeader = value.type === "session";
    // Valid records (nearly all) cost one compiled check and allocate nothing.
    if (isHeader ? header(value) : checkEntry(entrySchema, value)) continue;
    const issues = explainFailure(isHeader ? set.Header : entrySchema, value);
    const what = isHeader ? "header" : `${describeType(value.type)} entry`;
    const shown = Math.min(issues.length, MAX_ISSUES_PER_RECORD);
    for (let k = 0; k < shown; k++) {
      const issue = issues[k] as ValidationIssue;
      const more =
        k === MAX_ISSUES_PER_RECORD - 1 && issues.length > MAX_ISSUES_PER_RECORD
          ? ` (and ${issues.length - MAX_ISSUES_PER_RECORD} more)`
          : "";
      out.push({
        code: "schema",
        severity: "error",
        line: rec.line,
        offset: rec.offset,
        reason: `${what}: ${issue.path || "/"}: ${issue.message}${more}`,
      });
    }
  }
  return out;
}

function describeType(t: unknown): string {
  return typeof t === "string" ? JSON.stringify(t) : "untyped";
}

// ---------------------------------------------------------------------------------------
// Explaining a failure. Unions are discriminated by `type`/`role`, so only the branch the
// value claims to be is reported, not every branch it fails.

interface JsonSchema {
  type?: string;
  const?: unknown;
  enum?: unknown[];
  not?: JsonSchema;
  anyOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean;
  patternProperties?: Record<string, JsonSchema>;
  items?: JsonSchema;
}

function jsonType(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v;
}

function typeMatches(expected: string, v: unknown): boolean {
  if (expected === "integer") return Number.isInteger(v);
  return expected === jsonType(v);
}

function pointer(path: string, key: string | number): string {
  return `${path}/${String(key).replace(/~/g, "~0").replace(/\//g, "~1")}`;
}

function short(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 40 ? `${s.slice(0, 40)}…` : s;
}

function explain(schema: JsonSchema, value: unknown, path: string, issues: ValidationIssue[]): void {
  if (schema.anyOf !== undefined) {
    explainUnion(schema.anyOf, value, path, issues);
    return;
  }
  if (schema.type !== undefined && !typeMatches(schema.type, value)) {
    issues.push({ path, message: `expected ${schema.type}, got ${jsonType(value)}` });
    return;
  }
  if (schema.const !== undefined && value !== schema.const) {
    issues.push({ path, message: `expected ${short(schema.const)}, got ${short(value)}` });
    return;
  }
  if (schema.enum !== undefined && !schema.enum.includes(value)) {
    issues.push({
      path,
      message: `expected one of ${schema.enum.map(short).join(", ")}, got ${short(value)}`,
    });
    return;
  }
  if (schema.not?.enum?.includes(value)) {
    issues.push({
      path,
      message: `${short(value)} is a known type here but the value does not match its schema`,
    });
    return;
  }
  if (schema.type === "object" && typeof value === "object" && value !== null) {
    const obj = value as Record<string, unknown>;
    for (const key of schema.required ?? []) {
      if (!Object.hasOwn(obj, key)) issues.push({ path, message: `missing required property "${key}"` });
    }
    for (const [key, sub] of Object.entries(schema.properties ?? {})) {
      if (Object.hasOwn(obj, key)) explain(sub, obj[key], pointer(path, key), issues);
    }
    const anyKey = schema.patternProperties?.["^.*$"];
    for (const key of Object.keys(obj)) {
      if (schema.properties?.[key] !== undefined) continue;
      if (anyKey !== undefined) explain(anyKey, obj[key], pointer(path, key), issues);
      else if (schema.additionalProperties === false) {
        issues.push({ path: pointer(path, key), message: `unexpected property "${key}" (strict mode)` });
      }
    }
  }
  if (schema.type === "array" && Array.isArray(value) && schema.items !== undefined) {
    const items = schema.items;
    value.forEach((item, i) => {
      explain(items, item, pointer(path, i), issues);
    });
  }
}

function discriminator(branches: JsonSchema[]): string | undefined {
  for (const key of ["type", "role"]) {
    if (branches.some((b) => b.properties?.[key]?.const !== undefined)) return key;
  }
  return undefined;
}

function explainUnion(branches: JsonSchema[], value: unknown, path: string, issues: ValidationIssue[]): void {
  const explainInto = (b: JsonSchema, into: ValidationIssue[]) => explain(b, value, path, into);
  const key = discriminator(branches);
  if (key !== undefined && typeof value === "object" && value !== null && !Array.isArray(value)) {
    // Report only the branch the value claims to be (or the fallback for unknown tags).
    const tag = (value as Record<string, unknown>)[key];
    const chosen =
      branches.find((b) => b.properties?.[key]?.const === tag) ??
      branches.find((b) => b.properties?.[key]?.not !== undefined);
    if (chosen !== undefined) {
      explainInto(chosen, issues);
      return;
    }
    const tags = branches.map((b) => b.properties?.[key]?.const).filter((t) => t !== undefined);
    issues.push({
      path: pointer(path, key),
      message: `expected one of ${tags.map(short).join(", ")}, got ${short(tag)}`,
    });
    return;
  }
  const candidates = branches.filter((b) => b.type === undefined || typeMatches(b.type, value));
  const only = candidates[0];
  if (candidates.length === 1 && only !== undefined) {
    explainInto(only, issues);
    return;
  }
  for (const b of candidates) {
    const sub: ValidationIssue[] = [];
    explainInto(b, sub);
    if (sub.length === 0) return;
  }
  const names = [
    ...new Set(branches.map((b) => (b.const !== undefined ? short(b.const) : (b.type ?? "value")))),
  ];
  issues.push({ path, message: `expected ${names.join(" or ")}, got ${short(value)}` });
}
