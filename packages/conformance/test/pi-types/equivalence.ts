/**
 * Each message, content block and usage type of @pi-session/format is assignable to pi's and
 * pi's to it (pi-ai 1.6.0; pi-coding-agent 1.6.0 for the custom messages): the pi-types test
 * compiles this file, and a wrong pair is a compile error.
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type * as ai from "@earendil-works/pi-ai";
// pi-coding-agent adds its custom messages (bashExecution, custom, ...) to pi's AgentMessage.
import type {} from "@earendil-works/pi-coding-agent";
import type { LlmMessage } from "@pi-session/context";
import type * as ours from "@pi-session/format";

type Both<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
function both<_Check extends true>(): void {}
type Pi<Role> = Extract<AgentMessage, { role: Role }>;

both<Both<ai.TextContent, ours.TextContent>>();
both<Both<ai.ThinkingContent, ours.ThinkingContent>>();
both<Both<ai.ImageContent, ours.ImageContent>>();
both<Both<ai.ToolCall, ours.ToolCall>>();
both<Both<ai.Usage, ours.Usage>>();
both<Both<ai.StopReason, ours.StopReason>>();
both<Both<ai.JsonValue, ours.JsonValue>>();
both<Both<ai.UserMessage, ours.UserMessage>>();
both<Both<ai.AssistantMessage, ours.AssistantMessage>>();
both<Both<ai.ToolResultMessage, ours.ToolResultMessage>>();
both<Both<ai.SystemMessage, ours.SystemMessage>>();
both<Both<ai.Message, LlmMessage>>();
both<Both<Pi<"bashExecution">, ours.BashExecutionMessage>>();
both<Both<Pi<"custom">, ours.CustomMessage>>();
both<Both<Pi<"branchSummary">, ours.BranchSummaryMessage>>();
both<Both<Pi<"compactionSummary">, ours.CompactionSummaryMessage>>();
both<Both<AgentMessage, ours.AgentMessage>>();

// Unknown fields still pass: a message carrying fields neither pi nor we declare is a message
// of ours and of pi's (structural typing; the values keep them at run time).
const withExtras = { role: "user", content: "hi", timestamp: 1, vendorTrace: { id: 7 } } as const;
export const ourMessage: ours.AgentMessage = withExtras;
export const piMessage: AgentMessage = withExtras;
