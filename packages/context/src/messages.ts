/**
 * The coding agent's own message kinds and how they reach a model.
 *
 * pi 1.6.0 adds four roles on top of the provider roles (`bashExecution`, `custom`,
 * `branchSummary`, `compactionSummary`); `convertToLlm` turns them into `user` messages just
 * before a provider call. The prefix/suffix strings and the "Ran `cmd`" text are what the model
 * sees, so they are byte-identical to pi's (`core/messages.ts`).
 */
import type {
  AgentMessage,
  AssistantMessage,
  BashExecutionMessage,
  BranchSummaryMessage,
  CompactionSummaryMessage,
  CustomMessage,
  ImageContent,
  SystemMessage,
  TextContent,
  ToolResultMessage,
  UserMessage,
} from "@pi-session/format";

export const COMPACTION_SUMMARY_PREFIX = `The conversation history before this point was compacted into the following summary:

<summary>
`;

export const COMPACTION_SUMMARY_SUFFIX = `
</summary>`;

export const BRANCH_SUMMARY_PREFIX = `The following is a summary of a branch that this conversation came back from:

<summary>
`;

export const BRANCH_SUMMARY_SUFFIX = `</summary>`;

/** A message a provider understands: what `convertToLlm` returns (pi-ai `Message`, 1.x). */
export type LlmMessage = UserMessage | AssistantMessage | ToolResultMessage | SystemMessage;

/** The text a `!cmd` bash execution contributes to the model context (pi's wording). */
export function bashExecutionToText(msg: BashExecutionMessage): string {
  const fence = "```";
  let text = `Ran \`${msg.command}\`\n`;
  text += msg.output ? `${fence}\n${msg.output}\n${fence}` : "(no output)";
  if (msg.cancelled) {
    text += "\n\n(command cancelled)";
  } else if (msg.exitCode !== null && msg.exitCode !== undefined && msg.exitCode !== 0) {
    text += `\n\nCommand exited with code ${msg.exitCode}`;
  }
  if (msg.truncated && msg.fullOutputPath) {
    text += `\n\n[Output truncated. Full output: ${msg.fullOutputPath}]`;
  }
  return text;
}

// Synthetic messages take the entry's ISO timestamp as milliseconds; an invalid or missing
// timestamp gives NaN, exactly as pi's `new Date(timestamp).getTime()` does.
function isoToMs(timestamp: string): number {
  return new Date(timestamp).getTime();
}

/** The message a `branch_summary` entry contributes. */
export function createBranchSummaryMessage(
  summary: string,
  fromId: string,
  timestamp: string,
): BranchSummaryMessage {
  return { role: "branchSummary", summary, fromId, timestamp: isoToMs(timestamp) };
}

/** The message a `compaction` entry contributes. */
export function createCompactionSummaryMessage(
  summary: string,
  tokensBefore: number,
  timestamp: string,
): CompactionSummaryMessage {
  return { role: "compactionSummary", summary, tokensBefore, timestamp: isoToMs(timestamp) };
}

/** The message a `custom_message` entry contributes (pi's parameter order). */
export function createCustomMessage(
  customType: string,
  content: string | (TextContent | ImageContent)[],
  display: boolean,
  details: unknown | undefined,
  timestamp: string,
): CustomMessage {
  // `details: undefined` is kept as an own key, as pi does; JSON.stringify drops it later.
  return { role: "custom", customType, content, display, details, timestamp: isoToMs(timestamp) };
}

function textBlock(text: string): TextContent {
  return { type: "text", text };
}

/**
 * Maps context messages to provider messages, as pi 1.6.0's coding-agent `convertToLlm`:
 * bash executions become a user text (dropped when `excludeFromContext`), custom messages a
 * user message (string content becomes one text block), summaries a wrapped user text;
 * `system`, `user`, `assistant` and `toolResult` pass through unchanged (same object); any
 * other role is dropped.
 */
export function convertToLlm(messages: readonly AgentMessage[]): LlmMessage[] {
  const out: LlmMessage[] = [];
  for (const m of messages) {
    switch (m.role) {
      case "bashExecution":
        if (m.excludeFromContext) break;
        out.push({ role: "user", content: [textBlock(bashExecutionToText(m))], timestamp: m.timestamp });
        break;
      case "custom": {
        const content = typeof m.content === "string" ? [textBlock(m.content)] : m.content;
        out.push({ role: "user", content, timestamp: m.timestamp });
        break;
      }
      case "branchSummary":
        out.push({
          role: "user",
          content: [textBlock(BRANCH_SUMMARY_PREFIX + m.summary + BRANCH_SUMMARY_SUFFIX)],
          timestamp: m.timestamp,
        });
        break;
      case "compactionSummary":
        out.push({
          role: "user",
          content: [textBlock(COMPACTION_SUMMARY_PREFIX + m.summary + COMPACTION_SUMMARY_SUFFIX)],
          timestamp: m.timestamp,
        });
        break;
      case "system":
      case "user":
      case "assistant":
      case "toolResult":
        out.push(m);
        break;
      default:
        // Unknown roles (e.g. a legacy `hookMessage` that was never migrated) reach no provider.
        break;
    }
  }
  return out;
}
