/**
 * Tool calls in the document model: the calls of a session by id (so that a result is shown in
 * the language of its call) and the block of one call, with a readable form of pi's own tools'
 * arguments (a command, a path, an edit as a diff).
 */
import type { AnyEntry } from "@pi-session/format";
import { isObject } from "@pi-session/format";
import { displayJson, stringOrEmpty } from "../values.js";
import { languageOfPath } from "./languages.js";
import type { ToolCallBlock } from "./shapes.js";

type Obj = Record<string, unknown>;

interface ToolCallInfo {
  name: string;
  arguments: unknown;
}

/**
 * Tool call id -> what a result needs of its call (see {@link outputLanguage}), over every
 * assistant message of the session (the last call of an id wins).
 */
export type ToolCallLookup = ReadonlyMap<string, ToolCallInfo>;

/**
 * Adds the tool calls of one entry to `calls`. Only a `read` call changes how its result is
 * shown, so only those are kept, with only their path: a session's calls cost a few bytes
 * each, whatever their arguments (a huge session's export keeps them all).
 */
export function addToolCalls(calls: Map<string, ToolCallInfo>, entry: AnyEntry): void {
  if (entry.type !== "message") return;
  const message = (entry as Obj).message;
  if (!isObject(message) || message.role !== "assistant" || !Array.isArray(message.content)) return;
  for (const block of message.content) {
    if (!isObject(block) || block.type !== "toolCall" || typeof block.id !== "string") continue;
    const args = block.arguments;
    if (block.name === "read" && isObject(args))
      calls.set(block.id, { name: "read", arguments: { path: args.path, file_path: args.file_path } });
    else calls.delete(block.id);
  }
}

/** Collects the tool calls of `entries` (so a result can be shown in the language of its call). */
export function collectToolCalls(entries: Iterable<AnyEntry>): Map<string, ToolCallInfo> {
  const calls = new Map<string, ToolCallInfo>();
  for (const entry of entries) addToolCalls(calls, entry);
  return calls;
}

function diffOf(oldText: string, newText: string): string {
  const minus = oldText === "" ? [] : oldText.split("\n").map((l) => `-${l}`);
  const plus = newText === "" ? [] : newText.split("\n").map((l) => `+${l}`);
  return [...minus, ...plus].join("\n");
}

/**
 * What to show for a call's arguments. pi's own tools get a readable form (a command, a
 * path, an edit as a diff); anything else shows its arguments as JSON.
 */
export function toolCallBlock(block: Obj): ToolCallBlock {
  const name = stringOrEmpty(block.name);
  const args = block.arguments;
  const out: ToolCallBlock = {
    type: "toolCall",
    id: stringOrEmpty(block.id),
    name,
    arguments: args,
    summary: "",
  };
  const a = isObject(args) ? args : undefined;
  const path = a ? stringOrEmpty(a.path) || stringOrEmpty(a.file_path) : "";
  if (a && (name === "bash" || name === "shell") && typeof a.command === "string") {
    out.code = { language: "sh", text: a.command };
    if (typeof a.timeout === "number") out.summary = `timeout ${a.timeout}s`;
  } else if (a && name === "read" && path) {
    const range: string[] = [];
    if (typeof a.offset === "number") range.push(`from line ${a.offset}`);
    if (typeof a.limit === "number") range.push(`${a.limit} lines`);
    out.summary = range.length > 0 ? `${path} (${range.join(", ")})` : path;
  } else if (a && name === "write" && path && typeof a.content === "string") {
    out.summary = path;
    out.code = { language: languageOfPath(path), text: a.content };
  } else if (a && name === "edit" && path && typeof a.oldText === "string" && typeof a.newText === "string") {
    out.summary = path;
    out.code = { language: "diff", text: diffOf(a.oldText, a.newText) };
  } else if (a && name === "edit" && path && Array.isArray(a.edits)) {
    out.summary = path;
    const parts = a.edits
      .filter(isObject)
      .map((e) => diffOf(stringOrEmpty(e.oldText), stringOrEmpty(e.newText)))
      .join("\n@@\n");
    out.code = { language: "diff", text: parts };
  } else if (a && (name === "grep" || name === "find" || name === "ls") && Object.keys(a).length > 0) {
    out.summary =
      [stringOrEmpty(a.pattern), path].filter(Boolean).join(" in ") || displayJson(a).replace(/\s+/g, " ");
  } else {
    const text = displayJson(args ?? {});
    if (text !== "{}") out.code = { language: "json", text };
  }
  if (typeof block.argumentsError === "string" && block.argumentsError) {
    out.summary = `${out.summary}${out.summary ? " · " : ""}arguments error: ${block.argumentsError}`;
  }
  return out;
}

export function outputLanguage(call: ToolCallInfo | undefined): string {
  if (!call || !isObject(call.arguments)) return "text";
  if (call.name === "read") {
    const path = stringOrEmpty(call.arguments.path) || stringOrEmpty(call.arguments.file_path);
    return path ? languageOfPath(path) : "text";
  }
  return "text";
}
