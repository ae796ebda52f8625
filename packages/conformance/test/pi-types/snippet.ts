/**
 * Code written for pi 1.6.0, typed with pi's own message types (pi-ai, pi-agent-core). The
 * pi-types test compiles it as it is and again with each import marked `// pi:` switched to
 * pi-coding-agent, so it is pi code that typechecks with ours by changing only those lines.
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { AssistantMessage, Message, ToolResultMessage, UserMessage } from "@earendil-works/pi-ai";
import { buildSessionContext } from "@pi-session/context"; // pi: @earendil-works/pi-coding-agent
import { SessionManager, convertToLlm } from "@pi-session/sdk"; // pi: @earendil-works/pi-coding-agent

export function conversation(
  question: UserMessage,
  assistantReply: AssistantMessage,
  result: ToolResultMessage,
): Message[] {
  const session = SessionManager.inMemory("/home/dev/project");
  // pi's messages go in...
  session.appendMessage(question);
  session.appendMessage(assistantReply);
  session.appendMessage(result);

  // ...and what comes out is pi's types.
  const context = session.buildSessionContext();
  const agentMessages: AgentMessage[] = context.messages;
  const rebuilt: AgentMessage[] = buildSessionContext(session.getEntries()).messages;
  const last = session.getBranch().at(-1);
  if (last?.type === "message") agentMessages.push(last.message);
  const forProvider: Message[] = convertToLlm(rebuilt);

  // A reply read back from the session goes into pi's APIs and back into a session.
  const reply = forProvider.find((m): m is AssistantMessage => m.role === "assistant");
  if (reply) {
    const call = reply.content.find((block) => block.type === "toolCall");
    const args: Record<string, unknown> | undefined = call?.arguments;
    session.appendMessage({
      ...reply,
      content: [...reply.content],
      timestamp: reply.timestamp + (args ? 1 : 0),
    });
  }
  return forProvider;
}
