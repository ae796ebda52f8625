/**
 * Tiny builders for v3 entries and messages used by the context tests (the notation of
 * docs/format.md "Test vectors": `U(x)`, `A(x)`, `E(id, parent, ...)`).
 */
import type {
  AgentMessage,
  AnyEntry,
  AssistantMessage,
  CompactionEntry,
  SessionEntry,
  UserMessage,
} from "@pi-session/format";

export const TS = "2025-01-01T00:00:00.000Z";
export const TS_MS = Date.parse(TS);

export const zeroUsage = {
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 0,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};

export function U(text: string, timestamp = 1): UserMessage {
  return { role: "user", content: text, timestamp };
}

export function A(
  text: string,
  opts: { provider?: string; model?: string; stopReason?: AssistantMessage["stopReason"] } = {},
): AssistantMessage {
  return {
    role: "assistant",
    content: [{ type: "text", text }],
    api: "anthropic-messages",
    provider: opts.provider ?? "anthropic",
    model: opts.model ?? "claude-test",
    usage: zeroUsage,
    stopReason: opts.stopReason ?? "stop",
    timestamp: 1,
  };
}

export function msg(id: string, parentId: string | null, message: AgentMessage): SessionEntry {
  return { type: "message", id, parentId, timestamp: TS, message };
}

export function thinking(id: string, parentId: string | null, level: string): SessionEntry {
  return { type: "thinking_level_change", id, parentId, timestamp: TS, thinkingLevel: level };
}

export function modelChange(
  id: string,
  parentId: string | null,
  provider: string,
  modelId: string,
): SessionEntry {
  return { type: "model_change", id, parentId, timestamp: TS, provider, modelId };
}

export function compaction(
  id: string,
  parentId: string | null,
  summary: string,
  firstKeptEntryId: string | undefined,
  extra: Partial<CompactionEntry> = {},
): SessionEntry {
  const entry: CompactionEntry = {
    type: "compaction",
    id,
    parentId,
    timestamp: TS,
    summary,
    tokensBefore: 1000,
    ...extra,
  };
  if (firstKeptEntryId !== undefined) entry.firstKeptEntryId = firstKeptEntryId;
  return entry;
}

export function branchSummary(
  id: string,
  parentId: string | null,
  fromId: string,
  summary: string,
): SessionEntry {
  return { type: "branch_summary", id, parentId, timestamp: TS, fromId, summary };
}

export function customMessage(
  id: string,
  parentId: string | null,
  customType: string,
  content: string,
  display: boolean,
): SessionEntry {
  return { type: "custom_message", id, parentId, timestamp: TS, customType, content, display };
}

export function custom(id: string, parentId: string | null, customType: string, data: unknown): SessionEntry {
  return { type: "custom", id, parentId, timestamp: TS, customType, data };
}

export function label(id: string, parentId: string | null, targetId: string, text?: string): SessionEntry {
  const entry: SessionEntry = { type: "label", id, parentId, timestamp: TS, targetId };
  if (text !== undefined) entry.label = text;
  return entry;
}

export function sessionInfo(id: string, parentId: string | null, name: string): SessionEntry {
  return { type: "session_info", id, parentId, timestamp: TS, name };
}

export function usageEntry(id: string, parentId: string | null): SessionEntry {
  return {
    type: "usage",
    id,
    parentId,
    timestamp: TS,
    kind: "cache_warm",
    provider: "anthropic",
    model: "claude-test",
    usage: zeroUsage,
  };
}

export function contextEdit(
  id: string,
  parentId: string | null,
  targetId: string,
  replacement: { content: unknown } | null,
): SessionEntry {
  return {
    type: "context_edit",
    id,
    parentId,
    timestamp: TS,
    targetId,
    replacement: replacement as never,
  };
}

/** Roles of a message list. */
export function roles(messages: readonly { role: string }[]): string[] {
  return messages.map((m) => m.role);
}

/** The plain text of a message (string content or joined text blocks); "" for none. */
export function textOf(message: AgentMessage): string {
  const m = message as { content?: unknown; summary?: unknown };
  if (typeof m.summary === "string") return m.summary;
  if (typeof m.content === "string") return m.content;
  if (Array.isArray(m.content)) {
    return m.content
      .filter((b): b is { type: "text"; text: string } => (b as { type?: unknown }).type === "text")
      .map((b) => b.text)
      .join("");
  }
  return "";
}

/** Links `entries` into one chain in array order (each entry's parent is the previous one). */
export function chain(entries: AnyEntry[]): AnyEntry[] {
  let parent: string | null = null;
  return entries.map((e) => {
    const linked: AnyEntry = { ...e, parentId: parent };
    parent = e.id;
    return linked;
  });
}
