/**
 * fast-check arbitraries for the pieces of a pi session file: content blocks, usage,
 * messages of every role, entries of every type and headers. Everything produced is a
 * plain JSON value shaped the way pi writes it (optional keys absent rather than
 * `undefined`, no `-0`, ISO entry timestamps, millisecond message timestamps, 8-hex ids),
 * so `JSON.parse(JSON.stringify(x))` deep-equals `x`.
 *
 * Entry arbitraries produce drafts without `id`/`parentId`; the session builders in
 * `sessions.ts` assign those and point label/compaction/context-edit targets at real ids.
 */
import fc from "fast-check";
import type {
  AgentMessage,
  AssistantMessage,
  BashExecutionMessage,
  BranchSummaryMessage,
  CompactionSummaryMessage,
  CustomMessage,
  HookMessage,
  ImageContent,
  MessageRole,
  SessionEntryType,
  SessionHeader,
  StoredMessage,
  SystemMessage,
  TextContent,
  ThinkingContent,
  ToolCall,
  ToolResultMessage,
  UnknownContent,
  Usage,
  UserMessage,
} from "@pi-session/format";

/** A JSON value. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
type Json = JsonValue;
type Obj = Record<string, unknown>;

// ---------------------------------------------------------------------------------------
// Small building blocks

/** fc.record that never yields null-prototype objects (JSON.parse never does either). */
function rec<T extends Obj>(
  model: { [K in keyof T]: fc.Arbitrary<T[K]> },
  requiredKeys?: (keyof T)[],
): fc.Arbitrary<T> {
  const opts =
    requiredKeys === undefined ? { noNullPrototype: true } : { requiredKeys, noNullPrototype: true };
  return fc.record(model, opts as { noNullPrototype: true }) as unknown as fc.Arbitrary<T>;
}

/** Drops keys whose value is `undefined`, as `JSON.stringify` would. */
export function compact<T extends Obj>(obj: T): T {
  const out: Obj = {};
  for (const [k, v] of Object.entries(obj)) if (v !== undefined) out[k] = v;
  return out as T;
}

/** `arb` in about one case out of `n`, otherwise `undefined` (an absent key). */
export function sometimes<T>(arb: fc.Arbitrary<T>, n: number): fc.Arbitrary<T | undefined> {
  return fc.oneof({ arbitrary: fc.constant(undefined), weight: n - 1 }, { arbitrary: arb, weight: 1 });
}

/** An 8-hex entry id, as pi's `randomUUID().slice(0, 8)`. */
export const arbEntryId: fc.Arbitrary<string> = fc
  .integer({ min: 0, max: 0xffffffff })
  .map((n) => n.toString(16).padStart(8, "0"));

/** A session id: a v4 or v7 UUID. */
export const arbSessionId: fc.Arbitrary<string> = fc.uuid({ version: [4, 7] });

const WORDS = [
  "read",
  "the",
  "file",
  "refactor",
  "session",
  "tree",
  "compaction",
  "branch",
  "fix",
  "test",
  "please",
  "ok",
  "src/main.ts",
  "npm",
  "error",
  "done",
  "why",
  "label",
];

/** Ordinary prose: a few words. */
export const arbWords: fc.Arbitrary<string> = fc
  .array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 8 })
  .map((w) => w.join(" "));

/** Strings that break naive line handling or encoders. */
export const TRICKY_STRINGS: readonly string[] = [
  "",
  "line\nbreak",
  "cr\rlf\r\n",
  "sep\u2028para\u2029",
  "astral 😀 𝄞",
  "nul\u0000byte",
  'quote " backslash \\',
  "\ufeffbom-like",
  "}{",
  '{"type":"session"}',
  "é combining e\u0301",
  "\t tab",
];

/** Text: usually ordinary words, sometimes any code points (U+2028, `\r`, astral...). */
export const arbText: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: arbWords, weight: 6 },
  { arbitrary: fc.string({ unit: "binary", maxLength: 24 }), weight: 2 },
  { arbitrary: fc.constantFrom(...TRICKY_STRINGS), weight: 2 },
);

/** A non-empty short label/name-like string. */
const arbName: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom("checkpoint", "first", "second", "my session", "wip", "x"),
  fc.string({ unit: "binary", minLength: 1, maxLength: 12 }),
);

/** Message timestamp: Unix milliseconds in a plausible range (2025-2026). */
export const arbMs: fc.Arbitrary<number> = fc.integer({ min: 1_735_689_600_000, max: 1_798_761_600_000 });

/** Entry/header timestamp: ISO-8601 as `Date.prototype.toISOString()` writes it. */
export const arbIsoTimestamp: fc.Arbitrary<string> = arbMs.map((ms) => new Date(ms).toISOString());

/** A token count. */
export const arbSmallNat: fc.Arbitrary<number> = fc.nat({ max: 200_000 });
const arbSmallInt = arbSmallNat;
/** A non-negative cost with at most 6 decimals (never `-0`). */
const arbCost = fc.nat({ max: 5_000_000 }).map((n) => n / 1_000_000);

/** A JSON object key that is safe to assign (not `__proto__`). */
function keyFilter(k: string): boolean {
  return k !== "__proto__";
}
const arbKey: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom("path", "command", "x", "foo", "n", "items"),
  fc.string({ maxLength: 8 }).filter(keyFilter),
);

/** A small JSON value (for `details`, `data`, tool arguments); no `-0`, no `__proto__` keys. */
export const arbJsonValue: fc.Arbitrary<Json> = fc.letrec<{ value: Json }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer({ min: -1000, max: 1000 }).map((n) => (n === 0 ? 0 : n)),
    arbText,
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(arbKey, tie("value"), { maxKeys: 3, noNullPrototype: true }),
  ),
})).value;

/**
 * Unknown extra keys a newer pi or an extension might add. Names never collide with known
 * fields (they start with `x` plus an upper-case letter or contain a dash).
 */
export const arbExtraKeys: fc.Arbitrary<Obj> = fc.dictionary(
  fc.constantFrom("xFuture", "xMeta", "x-ext", "xVendorData", "xFlag"),
  arbJsonValue,
  { minKeys: 1, maxKeys: 2, noNullPrototype: true },
);

/** Sometimes (1 in 8) adds unknown extra keys to the generated objects. */
export function withExtraKeys<T extends Obj>(arb: fc.Arbitrary<T>): fc.Arbitrary<T> {
  return fc
    .tuple(arb, sometimes(arbExtraKeys, 8))
    .map(([value, extra]) => (extra === undefined ? value : { ...value, ...extra }));
}

// ---------------------------------------------------------------------------------------
// Content blocks

export const arbTextContent: fc.Arbitrary<TextContent> = rec<TextContent>(
  { type: fc.constant("text"), text: arbText, textSignature: fc.base64String({ maxLength: 16 }) },
  ["type", "text"],
);

export const arbThinkingContent: fc.Arbitrary<ThinkingContent> = rec<ThinkingContent>(
  {
    type: fc.constant("thinking"),
    thinking: arbText,
    thinkingSignature: fc.base64String({ maxLength: 16 }),
    redacted: fc.boolean(),
  },
  ["type", "thinking"],
);

export const arbImageContent: fc.Arbitrary<ImageContent> = rec<ImageContent>({
  type: fc.constant("image"),
  data: fc.base64String({ maxLength: 24 }),
  mimeType: fc.constantFrom("image/png", "image/jpeg", "image/gif", "image/webp"),
});

const TOOL_NAMES = ["read", "bash", "edit", "write", "grep", "find", "ls"];

export const arbToolCallId: fc.Arbitrary<string> = fc.oneof(
  fc.stringMatching(/^toolu_[0-9A-Za-z]{12}$/),
  fc.stringMatching(/^call_[0-9a-z]{10}$/),
);

export const arbToolCall: fc.Arbitrary<ToolCall> = rec<ToolCall>(
  {
    type: fc.constant("toolCall"),
    id: arbToolCallId,
    name: fc.constantFrom(...TOOL_NAMES),
    arguments: fc.dictionary(arbKey, arbJsonValue, { maxKeys: 3, noNullPrototype: true }),
    thoughtSignature: fc.base64String({ maxLength: 12 }),
    namespace: fc.constantFrom("default", "mcp"),
    argumentsError: arbWords,
  },
  ["type", "id", "name", "arguments"],
);

/** A block of a type no reader knows (e.g. `finalAnswer`); readers must keep it verbatim. */
export const arbUnknownContent: fc.Arbitrary<UnknownContent> = fc
  .tuple(fc.constantFrom("finalAnswer", "citation", "redacted_thinking", "x-future"), arbJsonValue, arbText)
  .map(([type, payload, text]) => ({ type, text, payload }));

// ---------------------------------------------------------------------------------------
// Usage

export const arbUsage: fc.Arbitrary<Usage> = fc
  .record(
    {
      input: arbSmallInt,
      output: arbSmallInt,
      cacheRead: arbSmallInt,
      cacheWrite: arbSmallInt,
      cost: fc.record(
        {
          input: arbCost,
          output: arbCost,
          cacheRead: arbCost,
          cacheWrite: arbCost,
          totalFromProvider: sometimes(arbCost, 3),
        },
        { noNullPrototype: true },
      ),
      cacheWrite1h: sometimes(arbSmallInt, 3),
      reasoning: sometimes(arbSmallInt, 3),
    },
    { noNullPrototype: true },
  )
  .map((u) => {
    const c = u.cost;
    const cost = compact({
      input: c.input,
      output: c.output,
      cacheRead: c.cacheRead,
      cacheWrite: c.cacheWrite,
      total: Math.round((c.input + c.output + c.cacheRead + c.cacheWrite) * 1e6) / 1e6,
      totalFromProvider: c.totalFromProvider,
    });
    return compact({
      input: u.input,
      output: u.output,
      cacheRead: u.cacheRead,
      cacheWrite: u.cacheWrite,
      totalTokens: u.input + u.output + u.cacheRead + u.cacheWrite,
      cost,
      cacheWrite1h: u.cacheWrite1h,
      reasoning: u.reasoning,
    }) as Usage;
  });

// ---------------------------------------------------------------------------------------
// Messages

/** Provider/model pairs, so model tests see repeats. */
export const MODEL_POOL: readonly { provider: string; model: string; api: string }[] = [
  { provider: "anthropic", model: "claude-test", api: "anthropic-messages" },
  { provider: "anthropic", model: "claude-opus-4-5", api: "anthropic-messages" },
  { provider: "openai", model: "gpt-4", api: "openai-responses" },
  { provider: "openai", model: "gpt-5", api: "openai-responses" },
  { provider: "google", model: "gemini-2.5-pro", api: "google-generative-ai" },
];
export const arbModelRef = fc.constantFrom(...MODEL_POOL);

export const THINKING_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh"] as const;
/** A thinking level; rarely one pi does not know. */
export const arbThinkingLevel: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...THINKING_LEVELS), weight: 9 },
  { arbitrary: fc.constant("ultra"), weight: 1 },
);

/** Persistable stop reasons (`pending` is streaming-only and never written). */
export const STOP_REASONS = ["stop", "length", "toolUse", "error", "aborted", "deferred"] as const;

const arbUserContent = fc.oneof(
  arbText,
  fc.array(fc.oneof({ arbitrary: arbTextContent, weight: 4 }, { arbitrary: arbImageContent, weight: 1 }), {
    minLength: 1,
    maxLength: 3,
  }),
);

export const arbUserMessage: fc.Arbitrary<UserMessage> = withExtraKeys(
  rec<UserMessage>({ role: fc.constant("user"), content: arbUserContent, timestamp: arbMs }),
);

export const arbAssistantMessage: fc.Arbitrary<AssistantMessage> = withExtraKeys(
  fc
    .record(
      {
        content: fc.array(
          fc.oneof(
            { arbitrary: arbTextContent as fc.Arbitrary<Obj>, weight: 5 },
            { arbitrary: arbThinkingContent as fc.Arbitrary<Obj>, weight: 2 },
            { arbitrary: arbToolCall as fc.Arbitrary<Obj>, weight: 3 },
            { arbitrary: arbUnknownContent as fc.Arbitrary<Obj>, weight: 1 },
          ),
          { maxLength: 4 },
        ),
        model: arbModelRef,
        withApi: fc.boolean(),
        usage: arbUsage,
        stopReason: fc.constantFrom(...STOP_REASONS),
        errorMessage: arbWords,
        timestamp: arbMs,
        extra: sometimes(
          rec(
            {
              responseModel: fc.constantFrom("claude-test-20250101", "gpt-5-2025"),
              responseId: fc.stringMatching(/^msg_[0-9a-z]{8}$/),
              thinkingLevel: arbThinkingLevel,
              rawStopReason: fc.constantFrom("end_turn", "max_tokens", "tool_use"),
              endTurn: fc.boolean(),
              durationMs: fc.nat({ max: 120_000 }),
            },
            [],
          ),
          4,
        ),
      },
      { noNullPrototype: true },
    )
    .map(
      (r) =>
        compact({
          role: "assistant",
          content: r.content,
          api: r.withApi ? r.model.api : undefined,
          provider: r.model.provider,
          model: r.model.model,
          usage: r.usage,
          stopReason: r.stopReason,
          errorMessage: r.stopReason === "error" || r.stopReason === "aborted" ? r.errorMessage : undefined,
          timestamp: r.timestamp,
          ...(r.extra ?? {}),
        }) as AssistantMessage,
    ),
);

export const arbToolResultMessage: fc.Arbitrary<ToolResultMessage> = withExtraKeys(
  rec<ToolResultMessage>(
    {
      role: fc.constant("toolResult"),
      toolCallId: arbToolCallId,
      toolName: fc.constantFrom(...TOOL_NAMES),
      content: fc.array(
        fc.oneof({ arbitrary: arbTextContent, weight: 4 }, { arbitrary: arbImageContent, weight: 1 }),
        { maxLength: 3 },
      ) as fc.Arbitrary<(TextContent | ImageContent)[]>,
      details: arbJsonValue,
      isError: fc.boolean(),
      timestamp: arbMs,
      durationMs: fc.nat({ max: 60_000 }),
    },
    ["role", "toolCallId", "toolName", "content", "isError", "timestamp"],
  ),
);

export const arbBashExecutionMessage: fc.Arbitrary<BashExecutionMessage> = withExtraKeys(
  rec<BashExecutionMessage>(
    {
      role: fc.constant("bashExecution"),
      command: fc.oneof(fc.constantFrom("ls", "git status", "npm test", "echo 'hi'"), arbText),
      output: arbText,
      // Absent when the process was killed (pi writes `undefined`, which JSON drops).
      exitCode: fc.integer({ min: 0, max: 255 }),
      cancelled: fc.boolean(),
      truncated: fc.boolean(),
      fullOutputPath: fc.constant("/tmp/pi-bash-0123456789abcdef.log"),
      excludeFromContext: fc.boolean(),
      timestamp: arbMs,
    },
    ["role", "command", "output", "cancelled", "truncated", "timestamp"],
  ),
);

const CUSTOM_TYPES = ["pi-inline-skill-snapshot", "my_data", "note", "ext:reminder"];

function arbCustomLike<R extends "custom" | "hookMessage">(role: R) {
  return withExtraKeys(
    rec(
      {
        role: fc.constant(role),
        customType: fc.constantFrom(...CUSTOM_TYPES),
        content: arbUserContent,
        display: fc.boolean(),
        details: arbJsonValue,
        timestamp: arbMs,
      },
      ["role", "customType", "content", "display", "timestamp"],
    ),
  );
}

export const arbCustomMessage: fc.Arbitrary<CustomMessage> = arbCustomLike(
  "custom",
) as fc.Arbitrary<CustomMessage>;

/** Legacy (v1/v2) spelling of a custom message. */
export const arbHookMessage: fc.Arbitrary<HookMessage> = arbCustomLike(
  "hookMessage",
) as fc.Arbitrary<HookMessage>;

export const arbBranchSummaryMessage: fc.Arbitrary<BranchSummaryMessage> = rec<BranchSummaryMessage>({
  role: fc.constant("branchSummary"),
  summary: arbText,
  fromId: fc.oneof(arbEntryId, fc.constant("root")),
  timestamp: arbMs,
});

export const arbCompactionSummaryMessage: fc.Arbitrary<CompactionSummaryMessage> =
  rec<CompactionSummaryMessage>({
    role: fc.constant("compactionSummary"),
    summary: arbText,
    tokensBefore: arbSmallInt,
    timestamp: arbMs,
  });

export const arbSystemMessage: fc.Arbitrary<SystemMessage> = rec<SystemMessage>(
  {
    role: fc.constant("system"),
    content: fc.oneof(arbText, fc.array(arbTextContent, { minLength: 1, maxLength: 2 })),
    sections: fc.dictionary(
      fc.constantFrom("tools", "agents", "skills", "env"),
      fc.oneof(arbText, fc.constant(null)),
      { maxKeys: 3, noNullPrototype: true },
    ),
    toolsAdded: fc.array(fc.constantFrom(...TOOL_NAMES), { maxLength: 2 }),
    toolsRemoved: fc.array(fc.constantFrom(...TOOL_NAMES), { maxLength: 2 }),
    timestamp: arbMs,
  },
  ["role", "content", "timestamp"],
);

const MESSAGE_ARBS: Record<MessageRole, fc.Arbitrary<StoredMessage>> = {
  user: arbUserMessage,
  assistant: arbAssistantMessage,
  toolResult: arbToolResultMessage,
  bashExecution: arbBashExecutionMessage,
  custom: arbCustomMessage,
  branchSummary: arbBranchSummaryMessage,
  compactionSummary: arbCompactionSummaryMessage,
  system: arbSystemMessage,
  hookMessage: arbHookMessage,
};

/** Every role this kit can generate. */
export const MESSAGE_ROLES = Object.keys(MESSAGE_ARBS) as MessageRole[];

/**
 * A message of the given role; without a role, any v3 role (weighted towards
 * user/assistant/toolResult as in real sessions; never the legacy `hookMessage`).
 */
export function arbMessage(role?: MessageRole): fc.Arbitrary<StoredMessage> {
  if (role !== undefined) return MESSAGE_ARBS[role];
  return fc.oneof(
    { arbitrary: arbUserMessage, weight: 4 },
    { arbitrary: arbAssistantMessage, weight: 5 },
    { arbitrary: arbToolResultMessage, weight: 3 },
    { arbitrary: arbBashExecutionMessage, weight: 1 },
    { arbitrary: arbCustomMessage, weight: 1 },
    { arbitrary: arbBranchSummaryMessage, weight: 1 },
    { arbitrary: arbCompactionSummaryMessage, weight: 1 },
    { arbitrary: arbSystemMessage, weight: 1 },
  );
}

// ---------------------------------------------------------------------------------------
// Entries (drafts: no id/parentId yet)

/**
 * An entry without `id`/`parentId`. Fields that point at other entries (`targetId`,
 * `firstKeptEntryId`, `fromId`) hold random 8-hex placeholders until a session builder
 * points them at real entries.
 */
export type EntryDraft = Obj & { type: string; timestamp: string };

/** Entry types this kit generates; `unknown` stands for a type no reader knows. */
export type DraftType = SessionEntryType | "unknown";

/** Builds `{type, timestamp, ...payload}` in pi's key order. */
function draft(type: string, payload: fc.Arbitrary<Obj>): fc.Arbitrary<EntryDraft> {
  return withExtraKeys(
    fc.tuple(arbIsoTimestamp, payload).map(([timestamp, p]) => ({ type, timestamp, ...compact(p) })),
  ) as fc.Arbitrary<EntryDraft>;
}

export const arbMessageEntry = (role?: MessageRole): fc.Arbitrary<EntryDraft> =>
  draft(
    "message",
    arbMessage(role).map((message) => ({ message })),
  );

export const arbThinkingLevelChangeEntry = draft(
  "thinking_level_change",
  arbThinkingLevel.map((thinkingLevel) => ({ thinkingLevel })),
);

export const arbModelChangeEntry = draft(
  "model_change",
  arbModelRef.map((m) => ({ provider: m.provider, modelId: m.model })),
);

export const arbCompactionEntry = draft(
  "compaction",
  rec(
    {
      summary: arbText,
      firstKeptEntryId: arbEntryId,
      tokensBefore: arbSmallInt,
      details: fc.oneof(
        rec({
          readFiles: fc.array(fc.constantFrom("a.ts", "b.ts", "README.md"), { maxLength: 2 }),
          modifiedFiles: fc.array(fc.constantFrom("a.ts", "c.ts"), { maxLength: 2 }),
        }),
        arbJsonValue,
      ),
      fromHook: fc.boolean(),
      usage: arbUsage,
      systemMessage: arbSystemMessage,
      retainedTail: fc.array(
        fc.oneof(
          arbUserMessage as fc.Arbitrary<AgentMessage>,
          arbAssistantMessage as fc.Arbitrary<AgentMessage>,
        ),
        { maxLength: 2 },
      ),
    },
    ["summary", "firstKeptEntryId", "tokensBefore"],
  ),
);

export const arbBranchSummaryEntry = draft(
  "branch_summary",
  rec(
    {
      fromId: fc.oneof(arbEntryId, fc.constant("root")),
      summary: fc.oneof({ arbitrary: arbText, weight: 5 }, { arbitrary: fc.constant(""), weight: 1 }),
      details: arbJsonValue,
      fromHook: fc.boolean(),
      usage: arbUsage,
    },
    ["fromId", "summary"],
  ),
);

export const arbCustomEntry = draft(
  "custom",
  rec({ customType: fc.constantFrom(...CUSTOM_TYPES), data: arbJsonValue }, ["customType"]),
);

export const arbCustomMessageEntry = draft(
  "custom_message",
  rec(
    {
      customType: fc.constantFrom(...CUSTOM_TYPES),
      content: arbUserContent,
      display: fc.boolean(),
      details: arbJsonValue,
    },
    ["customType", "content", "display"],
  ),
);

/** A label, sometimes without `label` (clears it) or with an empty one. */
export const arbLabelEntry = draft(
  "label",
  fc
    .tuple(arbEntryId, fc.oneof({ arbitrary: arbName, weight: 4 }, fc.constant(""), fc.constant(undefined)))
    .map(([targetId, label]) => ({ targetId, label })),
);

/** Session name: set, empty (clears in 1.x), blank, or absent. */
export const arbSessionInfoEntry = draft(
  "session_info",
  fc
    .oneof({ arbitrary: arbName, weight: 4 }, fc.constant(""), fc.constant("   "), fc.constant(undefined))
    .map((name) => ({ name })),
);

export const arbUsageEntry = draft(
  "usage",
  rec(
    {
      kind: fc.constantFrom("compaction", "branch_summary", "title", "x-unknown-kind"),
      model: arbModelRef,
      usage: arbUsage,
      note: arbWords,
    },
    ["kind", "model", "usage"],
  ).map(({ model, ...rest }) => ({
    kind: rest.kind,
    provider: model.provider,
    model: model.model,
    usage: rest.usage,
    note: rest.note,
  })),
);

/** Context edit: replacement `null` (remove), a string, or content blocks. */
export const arbContextEditEntry = draft(
  "context_edit",
  fc
    .tuple(
      arbEntryId,
      fc.oneof(
        fc.constant(null),
        arbText.map((content) => ({ content })),
        fc.array(arbTextContent, { minLength: 1, maxLength: 2 }).map((content) => ({ content })),
      ),
    )
    .map(([targetId, replacement]) => ({ targetId, replacement })),
);

/** An entry of a type no reader knows (e.g. `active_tools_change`, `leaf`, a future type). */
export const arbUnknownEntry = draft(
  "unknown",
  fc
    .tuple(fc.constantFrom("active_tools_change", "x_future_type", "leaf"), arbJsonValue)
    .map(([t, v]) =>
      t === "active_tools_change"
        ? { __type: t, activeToolNames: ["read", "bash"] }
        : t === "leaf"
          ? { __type: t, targetId: null }
          : { __type: t, payload: v },
    ),
).map(({ __type, ...rest }) => ({ ...rest, type: String(__type) }) as EntryDraft);

const ENTRY_ARBS: Record<DraftType, fc.Arbitrary<EntryDraft>> = {
  message: arbMessageEntry(),
  thinking_level_change: arbThinkingLevelChangeEntry,
  model_change: arbModelChangeEntry,
  compaction: arbCompactionEntry,
  branch_summary: arbBranchSummaryEntry,
  custom: arbCustomEntry,
  custom_message: arbCustomMessageEntry,
  label: arbLabelEntry,
  session_info: arbSessionInfoEntry,
  usage: arbUsageEntry,
  context_edit: arbContextEditEntry,
  unknown: arbUnknownEntry,
};

/** Every draft type, including `unknown`. */
export const DRAFT_TYPES = Object.keys(ENTRY_ARBS) as DraftType[];

/** Relative frequency of each type in generated sessions (messages dominate, as in real files). */
export const ENTRY_WEIGHTS: Record<DraftType, number> = {
  message: 30,
  thinking_level_change: 2,
  model_change: 2,
  compaction: 3,
  branch_summary: 2,
  custom: 2,
  custom_message: 2,
  label: 3,
  session_info: 2,
  usage: 1,
  context_edit: 2,
  unknown: 1,
};

/** An entry draft of the given type, or of any type with {@link ENTRY_WEIGHTS}. */
export function arbEntry(type?: DraftType): fc.Arbitrary<EntryDraft> {
  if (type !== undefined) return ENTRY_ARBS[type];
  return fc.oneof(...DRAFT_TYPES.map((t) => ({ arbitrary: ENTRY_ARBS[t], weight: ENTRY_WEIGHTS[t] })));
}

// ---------------------------------------------------------------------------------------
// Header

/**
 * A header of the given version. v1 has no `version`, sometimes no `cwd`, and sometimes
 * carries `provider`/`modelId`/`thinkingLevel` or `branchedFrom`; v2/v3 sometimes carry
 * `parentSession` (or the legacy `branchedFrom`).
 */
export function arbHeader(version: 1 | 2 | 3): fc.Arbitrary<SessionHeader> {
  return withExtraKeys(
    fc
      .record(
        {
          id: arbSessionId,
          timestamp: arbIsoTimestamp,
          cwd: fc.oneof(
            {
              arbitrary: fc.constantFrom("/home/user/project", "/Users/me/work/pi-mono", "C:\\src\\app"),
              weight: 9,
            },
            { arbitrary: fc.constant(undefined), weight: version === 1 ? 2 : 0 },
          ),
          parent: sometimes(fc.constantFrom("parentSession", "branchedFrom"), 4),
          model: sometimes(fc.tuple(arbModelRef, arbThinkingLevel), 3),
        },
        { noNullPrototype: true },
      )
      .map((r) => {
        const parentKey = version === 1 && r.parent !== undefined ? "branchedFrom" : r.parent;
        const header: Obj = { type: "session" };
        if (version !== 1) header.version = version;
        header.id = r.id;
        header.timestamp = r.timestamp;
        if (r.cwd !== undefined) header.cwd = r.cwd;
        if (version === 1 && r.model !== undefined) {
          header.provider = r.model[0].provider;
          header.modelId = r.model[0].model;
          header.thinkingLevel = r.model[1];
        }
        if (parentKey !== undefined) {
          header[parentKey] =
            "/home/user/.pi/agent/sessions/--home-user-project--/2025-01-01T00-00-00-000Z_x.jsonl";
        }
        return header as SessionHeader;
      }),
  );
}
