/**
 * Messages of every role pi stores (user, assistant, tool result, bash execution, custom and
 * the legacy hook message, branch and compaction summaries, system), with the models and
 * thinking levels they name.
 */
import fc from "fast-check";
import type {
  AssistantMessage,
  BashExecutionMessage,
  BranchSummaryMessage,
  CompactionSummaryMessage,
  CustomMessage,
  HookMessage,
  ImageContent,
  MessageRole,
  StoredMessage,
  SystemMessage,
  TextContent,
  ToolResultMessage,
  UserMessage,
} from "@pi-session/format";
import {
  TOOL_NAMES,
  arbImageContent,
  arbTextContent,
  arbThinkingContent,
  arbToolCall,
  arbToolCallId,
  arbUnknownContent,
  arbUsage,
} from "./content.js";
import { type Obj, rec } from "./records.js";
import {
  arbEntryId,
  arbJsonValue,
  arbMs,
  arbSmallInt,
  arbText,
  arbWords,
  compact,
  sometimes,
  withExtraKeys,
} from "./values.js";

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

export const arbUserContent = fc.oneof(
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
            { arbitrary: arbTextContent as unknown as fc.Arbitrary<Obj>, weight: 5 },
            { arbitrary: arbThinkingContent as unknown as fc.Arbitrary<Obj>, weight: 2 },
            { arbitrary: arbToolCall as unknown as fc.Arbitrary<Obj>, weight: 3 },
            { arbitrary: arbUnknownContent as unknown as fc.Arbitrary<Obj>, weight: 1 },
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
        }) as unknown as AssistantMessage,
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

export const CUSTOM_TYPES = ["pi-inline-skill-snapshot", "my_data", "note", "ext:reminder"];

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
    // pi-ai's Tool and ToolReference, as pi 1.6.0 persists them.
    toolsAdded: fc.array(
      fc.constantFrom(...TOOL_NAMES).map((name) => ({
        name,
        description: `The ${name} tool.`,
        parameters: { type: "object", properties: {} },
      })),
      { maxLength: 2 },
    ),
    toolsRemoved: fc.array(
      fc.constantFrom(...TOOL_NAMES).map((name) => ({ name })),
      { maxLength: 2 },
    ),
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
