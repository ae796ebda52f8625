/**
 * Tool calls in the document model: the calls of a session by id with the details of their
 * results (so that a result is shown with its call and in its language, and an edit with the
 * diff pi wrote in its result), the block of one call with a readable form of pi's own tools'
 * arguments (a command, a path, an edit as a diff), and the one-line main argument a result
 * is headed with.
 */
import type { AnyEntry } from "@pi-session/format";
import { isObject } from "@pi-session/format";
import { displayJson, stringOrEmpty } from "../values.js";
import { editDiff } from "./diff.js";
import { languageOfPath } from "./languages.js";
import type { ToolCallBlock } from "./shapes.js";

type Obj = Record<string, unknown>;

/**
 * What a result needs of its call, made when the call is met: small, whatever the call's
 * arguments (a huge session's streamed export keeps every call of the session).
 */
export interface ToolCallInfo {
  name: string;
  /** What the call is about, on one line ({@link mainArgument}): its result's heading. */
  argument: string;
  /** The language its result is shown in: a read's file type, else `text`. */
  outputLanguage: string;
  /** The `details` of an edit's result, once a result answered it (pi's diff is there). */
  resultDetails?: unknown;
}

/** Tool call id -> name, arguments and result details, over the messages of a session. */
export type ToolCallLookup = ReadonlyMap<string, ToolCallInfo>;

/**
 * Adds one entry to `calls`: an assistant message's tool calls (a later call with the same id
 * wins), or the details of the result that answers the latest call with its id. Only an
 * edit's result details are kept (pi's diff is there; nothing else reads them), so a huge
 * session's streamed export holds its calls, not every result's details.
 */
export function addToolCalls(calls: Map<string, ToolCallInfo>, entry: AnyEntry): void {
  if (entry.type !== "message") return;
  const message = (entry as Obj).message;
  if (!isObject(message)) return;
  if (message.role === "toolResult" && typeof message.toolCallId === "string") {
    const call = calls.get(message.toolCallId);
    if (call !== undefined && call.name === "edit" && message.details !== undefined)
      call.resultDetails = message.details;
    return;
  }
  if (message.role !== "assistant" || !Array.isArray(message.content)) return;
  for (const block of message.content)
    if (isObject(block) && block.type === "toolCall" && typeof block.id === "string") {
      const name = stringOrEmpty(block.name);
      calls.set(block.id, {
        name,
        argument: mainArgument(name, block.arguments),
        outputLanguage: outputLanguage(name, block.arguments),
      });
    }
}

/**
 * Collects the tool calls of `entries`, and the details of the results that answer them, into
 * `into` (a new map by default; pass the same map to add entries as they come).
 */
export function collectToolCalls(
  entries: Iterable<AnyEntry>,
  into: Map<string, ToolCallInfo> = new Map(),
): Map<string, ToolCallInfo> {
  for (const entry of entries) addToolCalls(into, entry);
  return into;
}

/** The longest main argument a result's heading shows. */
const MAIN_ARGUMENT_CHARS = 160;
/** Arguments that say what a call is about, in the order they are looked for. */
const MAIN_KEYS = ["path", "file_path", "command", "pattern", "query", "url", "uri", "name", "id"];

/**
 * What a call is about, on one line: the path of a read, write, edit or ls; the command of a
 * bash run (its first line); a search's pattern and where; else the first of the usual
 * arguments (path, command, pattern, query, url, ...), else the first string argument; "" for
 * none. Cut to 160 characters.
 */
export function mainArgument(name: string, args: unknown): string {
  if (!isObject(args)) return "";
  const path = stringOrEmpty(args.path) || stringOrEmpty(args.file_path);
  let text: string;
  if ((name === "grep" || name === "find") && typeof args.pattern === "string")
    text = path ? `${args.pattern} in ${path}` : args.pattern;
  else {
    const key = MAIN_KEYS.find((k) => typeof args[k] === "string" && args[k] !== "");
    const value = key !== undefined ? args[key] : Object.values(args).find((v) => typeof v === "string");
    text = typeof value === "string" ? value : "";
  }
  const lines = text.trim().split("\n");
  const first = (lines[0] ?? "").replace(/\s+/g, " ");
  const flat = lines.length > 1 ? `${first} …` : first;
  return flat.length > MAIN_ARGUMENT_CHARS ? `${flat.slice(0, MAIN_ARGUMENT_CHARS - 1)}…` : flat;
}

/**
 * What to show for a call's arguments. pi's own tools get a readable form (a command, a
 * path, an edit as a diff); anything else shows its arguments as JSON.
 */
export function toolCallBlock(block: Obj, toolCalls?: ToolCallLookup): ToolCallBlock {
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
  const diff =
    a && name === "edit" && path ? editDiff(args, toolCalls?.get(out.id)?.resultDetails) : undefined;
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
  } else if (diff !== undefined) {
    out.summary = path;
    out.diff = diff;
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

/** The language a call's result is shown in: a read's file type, else `text`. */
export function outputLanguage(name: string, args: unknown): string {
  if (name !== "read" || !isObject(args)) return "text";
  const path = stringOrEmpty(args.path) || stringOrEmpty(args.file_path);
  return path ? languageOfPath(path) : "text";
}
