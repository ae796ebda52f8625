/**
 * The entries `SessionManager`'s `append*` methods write, built as pi 1.6.0 builds them: the
 * same keys in the same order (a line's bytes follow the object's key order), the same
 * argument checks and messages. Use these to make an entry; the manager decides where it
 * goes (its {@link EntryPlace}) and when it is written.
 */
import {
  type AgentMessage,
  type ContextEditEntry,
  CURRENT_SESSION_VERSION,
  type CustomEntry,
  type CustomMessageEntry,
  type ImageContent,
  type MessageEntry,
  type ModelChangeEntry,
  type SessionInfoEntry,
  type SystemMessage,
  type TextContent,
  type ThinkingLevelChangeEntry,
  type Usage,
  type UsageEntry,
} from "@pi-session/format";
import type {
  BranchSummaryEntry,
  CompactionEntry,
  ContextEditableContent,
  LabelEntry,
  SessionEntry,
  SessionHeader,
} from "../types.js";

/** Where a new entry goes: its fresh id, its parent (the leaf, or null for a root), its time. */
export interface EntryPlace {
  id: string;
  parentId: string | null;
  /** ISO-8601. */
  timestamp: string;
}

/** The header of a new session file, keys in pi's order. */
export function sessionHeader(fields: {
  id: string;
  timestamp: string;
  cwd: string;
  parentSession: string | undefined;
}): SessionHeader {
  const { id, timestamp, cwd, parentSession } = fields;
  return { type: "session", version: CURRENT_SESSION_VERSION, id, timestamp, cwd, parentSession };
}

export function messageEntry(place: EntryPlace, message: AgentMessage): MessageEntry {
  return { type: "message", ...place, message };
}

export function thinkingLevelChangeEntry(place: EntryPlace, thinkingLevel: string): ThinkingLevelChangeEntry {
  return { type: "thinking_level_change", ...place, thinkingLevel };
}

export function modelChangeEntry(place: EntryPlace, provider: string, modelId: string): ModelChangeEntry {
  return { type: "model_change", ...place, provider, modelId };
}

export function usageEntry(
  place: EntryPlace,
  fields: { kind: string; provider: string; model: string; usage: Usage; note: string | undefined },
): UsageEntry {
  const { kind, provider, model, usage, note } = fields;
  return { type: "usage", ...place, kind, provider, model, usage, ...(note ? { note } : {}) };
}

/** `firstKeptEntryId === null` keeps nothing before the compaction: it stores its own id. */
export function compactionEntry<T>(
  place: EntryPlace,
  fields: {
    summary: string;
    firstKeptEntryId: string | null;
    tokensBefore: number;
    details: T | undefined;
    fromHook: boolean | undefined;
    usage: Usage | undefined;
    /** The context's system message, stored with the compaction's time (pi-ai's replay). */
    systemMessage: SystemMessage | undefined;
  },
): CompactionEntry<T> {
  const { summary, firstKeptEntryId, tokensBefore, details, fromHook, usage, systemMessage } = fields;
  return {
    type: "compaction",
    ...place,
    summary,
    firstKeptEntryId: firstKeptEntryId ?? place.id,
    tokensBefore,
    details,
    usage,
    fromHook,
    ...(systemMessage
      ? { systemMessage: { ...systemMessage, timestamp: new Date(place.timestamp).getTime() } }
      : {}),
  };
}

export function branchSummaryEntry<T>(
  place: EntryPlace,
  fields: {
    fromId: string;
    summary: string;
    details: T | undefined;
    usage: Usage | undefined;
    fromHook: boolean | undefined;
  },
): BranchSummaryEntry<T> {
  const { fromId, summary, details, usage, fromHook } = fields;
  return { type: "branch_summary", ...place, fromId, summary, details, usage, fromHook };
}

/** pi puts `customType` and `data` before the id. */
export function customEntry(place: EntryPlace, customType: string, data: unknown): CustomEntry {
  return { type: "custom", customType, data, ...place };
}

/** The name is stored on one line, trimmed (an empty name clears it). */
export function sessionInfoEntry(place: EntryPlace, name: string): SessionInfoEntry {
  return { type: "session_info", ...place, name: name.replace(/[\r\n]+/g, " ").trim() };
}

/** pi puts the message fields before the id. */
export function customMessageEntry<T>(
  place: EntryPlace,
  fields: {
    customType: string;
    content: string | (TextContent | ImageContent)[];
    display: boolean;
    details: T | undefined;
  },
): CustomMessageEntry<T> {
  const { customType, content, display, details } = fields;
  return { type: "custom_message", customType, content, display, details, ...place };
}

export function labelEntry(place: EntryPlace, targetId: string, label: string | undefined): LabelEntry {
  return { type: "label", ...place, targetId, label };
}

/** A replacement `appendContextEdit` accepts: null (hide) or an object with string or array content. */
export function checkContextEditReplacement(replacement: unknown): void {
  const valid =
    replacement === null ||
    (typeof replacement === "object" &&
      "content" in replacement &&
      (typeof replacement.content === "string" || Array.isArray(replacement.content)));
  if (!valid) throw new Error("Context edit replacement must be null or contain string/array content");
}

/**
 * The entry types and roles a context edit may target (they contribute editable model
 * content); throws pi's message for any other.
 */
export function checkContextEditTarget(target: SessionEntry): void {
  const role = target.type === "message" ? target.message.role : undefined;
  const editable =
    target.type === "custom_message" || role === "user" || role === "assistant" || role === "toolResult";
  if (!editable) throw new Error(`Entry ${target.id} does not contribute editable model content`);
}

/** As pi: a string replacing an assistant's or tool result's content becomes one text block. */
export function contextEditEntry(
  place: EntryPlace,
  target: SessionEntry,
  replacement: { content: ContextEditableContent } | null,
): ContextEditEntry {
  const role = target.type === "message" ? target.message.role : undefined;
  const normalized =
    replacement !== null &&
    (role === "assistant" || role === "toolResult") &&
    typeof replacement.content === "string"
      ? { content: [{ type: "text" as const, text: replacement.content }] }
      : replacement;
  return { type: "context_edit", ...place, targetId: target.id, replacement: normalized };
}
