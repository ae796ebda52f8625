/**
 * What of an entry is searchable: one plain-data document per entry, with its texts split by
 * kind (conversation text, thinking, tool calls, tool output) and the facts filters need
 * (role, time, model, tools, files touched, errors). Format logic, pure: the session database,
 * the web app and any other backend build their rows from these documents.
 *
 * Use {@link entryDocument} on v3 entries (migrate older files first, in memory).
 */
import {
  contentText,
  contextRoleOf,
  entryTypeInfo,
  isObject,
  MESSAGE_ROLE_INFO,
  messageRoleInfo,
} from "@pi-session/format";

import { toolCallPaths } from "./file-touches.js";

type Obj = Record<string, unknown>;

function str(value: unknown): string {
  return typeof value === "string" ? value : "";
}

/** The searchable text fields, one full-text column each. */
export const TEXT_FIELDS = ["body", "thinking", "tool", "output"] as const;
export type TextField = (typeof TEXT_FIELDS)[number];

/** The role filter's values: `tool` is a tool result or a bash execution. */
export type RoleFilter = "user" | "assistant" | "tool";

/** One entry as a search document. */
export interface EntryDocument {
  /** Entry id (null for an entry without a string id). */
  id: string | null;
  parentId: string | null;
  type: string;
  /** `message.role` for messages, else null. */
  role: string | null;
  /** Entry time in epoch ms (the ISO `timestamp`, else the message's ms), or null. */
  time: number | null;
  /** `provider/model` of an assistant message or a model change, else null. */
  model: string | null;
  /** Tool names called (assistant) or answered (tool result); `bash` for a bash execution. */
  tools: string[];
  /** File paths in tool call arguments (`toolCallPaths`: `path`, `file_path`, `paths`, ...). */
  files: string[];
  /** A tool result with `isError`, or a bash execution with a non-zero exit code. */
  errored: boolean;
  /** User and assistant text, custom messages, summaries, names, labels. */
  body: string;
  /** Assistant thinking (searched only when asked). */
  thinking: string;
  /** Tool call names and arguments, bash commands. */
  tool: string;
  /** Tool results and bash output. */
  output: string;
}

/** Entry time in ms: the ISO entry timestamp, else the message's ms timestamp, else NaN. */
export function entryTime(entry: Obj): number {
  if (typeof entry.timestamp === "string") {
    const t = Date.parse(entry.timestamp);
    if (!Number.isNaN(t)) return t;
  }
  const message = isObject(entry.message) ? entry.message : undefined;
  const t = message?.timestamp;
  // A number a Date can hold (±8.64e15 ms); anything else is no time (a calendar cannot place it).
  return typeof t === "number" && Math.abs(t) <= 8.64e15 ? t : Number.NaN;
}

/** Argument values as searchable text: strings as they are, anything else as JSON. */
function argumentsText(args: unknown): string {
  if (!isObject(args)) return typeof args === "string" ? args : "";
  const parts: string[] = [];
  for (const value of Object.values(args)) {
    if (typeof value === "string") parts.push(value);
    else if (value !== undefined && value !== null) {
      try {
        parts.push(JSON.stringify(value));
      } catch {
        // Nested beyond the stack (a hostile file): its strings are not searchable.
      }
    }
  }
  return parts.join("\n");
}

function modelOf(provider: unknown, model: unknown): string | null {
  const m = str(model);
  if (m === "") return null;
  const p = str(provider);
  return p ? `${p}/${m}` : m;
}

function blank(entry: Obj): EntryDocument {
  const time = entryTime(entry);
  return {
    id: typeof entry.id === "string" ? entry.id : null,
    parentId: typeof entry.parentId === "string" ? entry.parentId : null,
    type: str(entry.type),
    role: null,
    time: Number.isNaN(time) ? null : time,
    model: null,
    tools: [],
    files: [],
    errored: false,
    body: "",
    thinking: "",
    tool: "",
    output: "",
  };
}

function messageDocument(doc: EntryDocument, message: Obj): void {
  const role = str(message.role);
  doc.role = role || null;
  switch (role) {
    case "user":
      doc.body = contentText(message.content);
      return;
    case "assistant": {
      doc.model = modelOf(message.provider, message.model);
      const text: string[] = [];
      const thinking: string[] = [];
      const calls: string[] = [];
      for (const block of Array.isArray(message.content) ? message.content : []) {
        if (!isObject(block)) continue;
        if (block.type === "text") text.push(str(block.text));
        else if (block.type === "thinking") thinking.push(str(block.thinking));
        else if (block.type === "toolCall") {
          const name = str(block.name);
          if (name) doc.tools.push(name);
          for (const p of toolCallPaths(block.arguments)) doc.files.push(p);
          calls.push(`${name}\n${argumentsText(block.arguments)}`);
        }
      }
      if (typeof message.errorMessage === "string") text.push(message.errorMessage);
      doc.body = text.join("\n");
      doc.thinking = thinking.join("\n");
      doc.tool = calls.join("\n");
      return;
    }
    case "toolResult": {
      const name = str(message.toolName);
      if (name) doc.tools.push(name);
      doc.errored = message.isError === true;
      doc.output = contentText(message.content);
      return;
    }
    case "bashExecution": {
      doc.tools.push("bash");
      const code = message.exitCode;
      doc.errored = typeof code === "number" && code !== 0;
      doc.tool = str(message.command);
      doc.output = str(message.output);
      return;
    }
    case "branchSummary":
    case "compactionSummary":
      doc.body = str(message.summary);
      return;
    default:
      // custom, hookMessage, system and unknown roles: their text content.
      doc.body = contentText(message.content);
  }
}

/**
 * The search document of one v3 entry (see {@link EntryDocument}): a message's by its role;
 * another known entry's text is what format's registry says it is, and an entry that sets the
 * model gives its model.
 */
export function entryDocument(entry: Obj): EntryDocument {
  const doc = blank(entry);
  if (doc.type === "message") {
    if (isObject(entry.message)) messageDocument(doc, entry.message);
    return doc;
  }
  doc.body = entryTypeInfo(doc.type)?.text?.(entry) ?? "";
  if (contextRoleOf(doc.type) === "model") doc.model = modelOf(entry.provider, entry.modelId);
  return doc;
}

/** Whether a document has any text in the given fields. */
export function hasText(doc: EntryDocument, fields: readonly TextField[] = TEXT_FIELDS): boolean {
  for (const f of fields) if (doc[f] !== "") return true;
  return false;
}

/** The role filter a document answers to, if any (format's registry). */
export function roleClass(role: string | null): RoleFilter | null {
  const filter = messageRoleInfo(role)?.search;
  return filter === undefined || filter === "none" ? null : filter;
}

/** The message roles a role filter stands for (`tool`: `toolResult`, `bashExecution`). */
export function rolesOfFilter(filter: RoleFilter): string[] {
  return Object.entries(MESSAGE_ROLE_INFO)
    .filter(([, info]) => info.search === filter)
    .map(([role]) => role);
}
