/**
 * Context rebuild with pi 1.6.0's rules: path from the leaf, latest compaction with its kept
 * range, context edits (last one per target wins), model and thinking level over the whole
 * path. Pure. Unlike upstream, walking the path stops at a cycle instead of looping forever.
 *
 * This is the SDK's own adapter; `@pi-session/context` is meant to hold the same rules.
 */
import type {
  AgentMessage,
  CompactionEntry,
  ContextEditEntry,
  SessionEntry,
  SystemMessage,
  TextContent,
} from "@pi-session/format";
import type { ProjectedSessionEntry, SessionContext, SessionProjection } from "../types.js";

type Index = Map<string, SessionEntry>;

function ms(isoTimestamp: string): number {
  return new Date(isoTimestamp).getTime();
}

export function getLatestCompactionEntry(entries: SessionEntry[]): CompactionEntry | null {
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i];
    if (entry?.type === "compaction") return entry;
  }
  return null;
}

function indexOf(entries: SessionEntry[], byId?: Index): Index {
  if (byId) return byId;
  const index: Index = new Map();
  for (const entry of entries) index.set(entry.id, entry);
  return index;
}

/** Root-to-leaf path. `null` leaf: empty; unknown or undefined leaf: the last entry. */
export function buildSessionPath(
  entries: SessionEntry[],
  leafId?: string | null,
  byId?: Index,
): SessionEntry[] {
  if (leafId === null) return [];
  const index = indexOf(entries, byId);
  let leaf = leafId ? index.get(leafId) : undefined;
  leaf ??= entries[entries.length - 1];
  return walkToRoot(leaf, index);
}

/** Walks parent links from `start`; a missing parent or an already-seen entry ends the walk. */
export function walkToRoot(start: SessionEntry | undefined, index: Index): SessionEntry[] {
  const path: SessionEntry[] = [];
  const seen = new Set<SessionEntry>();
  let current = start;
  while (current && !seen.has(current)) {
    seen.add(current);
    path.push(current);
    current = current.parentId ? index.get(current.parentId) : undefined;
  }
  return path.reverse();
}

function settingsOf(path: SessionEntry[]): Pick<SessionContext, "thinkingLevel" | "model"> {
  let thinkingLevel = "off";
  let model: SessionContext["model"] = null;
  for (const entry of path) {
    if (entry.type === "thinking_level_change") thinkingLevel = entry.thinkingLevel;
    else if (entry.type === "model_change") model = { provider: entry.provider, modelId: entry.modelId };
    else if (entry.type === "message" && entry.message.role === "assistant") {
      model = { provider: entry.message.provider, modelId: entry.message.model };
    }
  }
  return { thinkingLevel, model };
}

/** The messages one entry contributes to the context (before edits). */
export function sessionEntryToContextMessages(entry: SessionEntry): AgentMessage[] {
  switch (entry.type) {
    case "message": {
      const message = entry.message;
      if (message.role === "system" && message.content == null) return [{ ...message, content: "" }];
      if (
        (message.role === "user" || message.role === "assistant" || message.role === "toolResult") &&
        message.content == null
      ) {
        return [{ ...message, content: [] } as AgentMessage];
      }
      return [message];
    }
    case "custom_message":
      return [
        {
          role: "custom",
          customType: entry.customType,
          content: entry.content ?? [],
          display: entry.display,
          details: entry.details,
          timestamp: ms(entry.timestamp),
        },
      ];
    case "branch_summary":
      if (!entry.summary) return [];
      return [
        {
          role: "branchSummary",
          summary: entry.summary,
          fromId: entry.fromId as string,
          timestamp: ms(entry.timestamp),
        },
      ];
    case "compaction": {
      const summary: AgentMessage = {
        role: "compactionSummary",
        summary: entry.summary,
        tokensBefore: entry.tokensBefore,
        timestamp: ms(entry.timestamp),
      };
      return entry.systemMessage ? [entry.systemMessage, summary] : [summary];
    }
    default:
      return [];
  }
}

/** The selected entries: latest compaction, its kept range (without system messages), then the rest. */
export function buildContextEntries(
  entries: SessionEntry[],
  leafId?: string | null,
  byId?: Index,
): SessionEntry[] {
  const path = buildSessionPath(entries, leafId, byId);
  let compactionIdx = -1;
  for (let i = 0; i < path.length; i++) if (path[i]?.type === "compaction") compactionIdx = i;
  if (compactionIdx < 0) return path;
  const compaction = path[compactionIdx] as CompactionEntry;
  const selected: SessionEntry[] = [compaction];
  let kept = false;
  for (let i = 0; i < compactionIdx; i++) {
    const entry = path[i] as SessionEntry;
    if (entry.id === compaction.firstKeptEntryId) kept = true;
    if (kept && !(entry.type === "message" && entry.message.role === "system")) selected.push(entry);
  }
  for (let i = compactionIdx + 1; i < path.length; i++) selected.push(path[i] as SessionEntry);
  return selected;
}

/** One entry's messages with a context edit applied (null removes; content replaced on editable roles). */
export function projectContextEntry(entry: SessionEntry, edit?: ContextEditEntry): AgentMessage[] {
  const messages = sessionEntryToContextMessages(entry);
  if (!edit) return messages;
  const replacement = edit.replacement;
  if (replacement === null) return [];
  return messages.map((message) => {
    const role = message.role;
    if (role !== "user" && role !== "assistant" && role !== "toolResult" && role !== "custom") return message;
    const content =
      (role === "assistant" || role === "toolResult") && typeof replacement.content === "string"
        ? [{ type: "text", text: replacement.content } as TextContent]
        : replacement.content;
    return { ...message, content } as AgentMessage;
  });
}

export function buildSessionProjection(
  entries: SessionEntry[],
  leafId?: string | null,
  byId?: Index,
): SessionProjection {
  const index = indexOf(entries, byId);
  const { thinkingLevel, model } = settingsOf(buildSessionPath(entries, leafId, index));
  const selected = buildContextEntries(entries, leafId, index);
  const edits = new Map<string, ContextEditEntry>();
  for (const entry of selected) if (entry.type === "context_edit") edits.set(entry.targetId, entry);
  // Only the leading compaction speaks; an older one inside the kept range contributes nothing.
  const projected: ProjectedSessionEntry[] = selected.map((sourceEntry, i) => ({
    sourceEntry,
    messages:
      sourceEntry.type === "compaction" && i > 0
        ? []
        : projectContextEntry(sourceEntry, edits.get(sourceEntry.id)),
  }));
  return { entries: projected, messages: projected.flatMap((p) => p.messages), thinkingLevel, model };
}

export function buildSessionContext(
  entries: SessionEntry[],
  leafId?: string | null,
  byId?: Index,
): SessionContext {
  const { messages, thinkingLevel, model } = buildSessionProjection(entries, leafId, byId);
  return { messages, thinkingLevel, model };
}

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((block): block is TextContent => (block as { type?: unknown })?.type === "text")
    .map((block) => block.text)
    .join("\n");
}

interface ToolLike {
  name: string;
}

/**
 * pi-ai's replay of every system message into one (content appended, sections patched,
 * tools resolved); `appendCompaction` stores it so the compaction can replace them.
 */
export function getCurrentSystemMessage(messages: AgentMessage[]): SystemMessage | undefined {
  const content: string[] = [];
  const sections = new Map<string, string>();
  const tools = new Map<string, unknown>();
  let timestamp: number | undefined;
  for (const message of messages) {
    if (message.role !== "system") continue;
    timestamp ??= message.timestamp;
    const text = contentText(message.content);
    if (text.length > 0) content.push(text);
    for (const [name, value] of Object.entries(message.sections ?? {})) {
      if (value === null) sections.delete(name);
      else sections.set(name, value);
    }
    for (const tool of (message.toolsRemoved ?? []) as unknown as ToolLike[]) tools.delete(tool.name);
    for (const tool of (message.toolsAdded ?? []) as unknown as ToolLike[]) tools.set(tool.name, tool);
  }
  if (timestamp === undefined && tools.size === 0) return undefined;
  return {
    role: "system",
    content: content.join("\n\n"),
    ...(sections.size > 0 ? { sections: Object.fromEntries(sections) } : {}),
    ...(tools.size > 0 ? { toolsAdded: [...tools.values()] as unknown as string[] } : {}),
    timestamp: timestamp ?? 0,
  };
}
