// Written as a user of pi's SessionManager would write it; only the import line differs
// (upstream: `import { SessionManager } from "@earendil-works/pi-coding-agent";`).
import { SessionManager } from "@pi-session/sdk";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const sessionDir = mkdtempSync(join(tmpdir(), "pi-sdk-example-"));
const cwd = process.cwd();

const session = SessionManager.create(cwd, sessionDir);
session.appendModelChange("anthropic", "claude-sonnet-4-5");
session.appendThinkingLevelChange("medium");
const question = session.appendMessage({ role: "user", content: "What is 2 + 2?", timestamp: Date.now() });
session.appendMessage({
  role: "assistant",
  content: [{ type: "text", text: "4" }],
  api: "anthropic-messages",
  provider: "anthropic",
  model: "claude-sonnet-4-5",
  usage: {
    input: 12,
    output: 1,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 13,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  },
  stopReason: "stop",
  timestamp: Date.now(),
});
session.appendLabelChange(question, "arithmetic");
session.appendSessionInfo("Example session");

// Try another answer on a branch, then look at the tree.
session.branch(question);
session.appendMessage({ role: "user", content: "Actually, what is 3 + 3?", timestamp: Date.now() });

const context = session.buildSessionContext();
const reopened = SessionManager.open(session.getSessionFile());
const sessions = await SessionManager.list(cwd, sessionDir);

console.log(
  JSON.stringify({
    messages: context.messages.map((m) => m.role),
    model: context.model,
    thinkingLevel: context.thinkingLevel,
    label: session.getLabel(question),
    roots: session.getTree().length,
    reopenedEntries: reopened.getEntries().length,
    listed: sessions.map((s) => ({
      name: s.name,
      messageCount: s.messageCount,
      firstMessage: s.firstMessage,
    })),
  }),
);
