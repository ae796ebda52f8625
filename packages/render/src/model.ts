/**
 * The document model: a session as a reader sees it, in plain JSON (no classes, no
 * functions, nothing a renderer must interpret beyond its documented shape).
 *
 * A {@link RenderDocument} is one view of a session: the transcript of one branch, every
 * branch (depth first, with branch points marked), or the context the model is sent at a leaf
 * (`buildSessionContext`, compaction and branch summaries included). Its items are made of a
 * small set of blocks (text, thinking, tool call, output, image, code, note) that the
 * Markdown, text and HTML renderers turn into their own form. Every entry type and message
 * role has an item; an entry type or role this package does not know becomes an item that
 * shows its JSON, never nothing.
 *
 * Use `buildDocument` for a whole view, `entryItem` / `messageItem` for one entry.
 */
import { buildSessionProjection } from "@pi-session/context";
import type { AnyEntry, SessionHeader } from "@pi-session/format";
import { jsonText } from "./json.js";
import type { RenderSession } from "./source.js";
import { layoutTree, siblingsOf, type TreeLayout } from "./tree-layout.js";

export const DOCUMENT_FORMAT = "pi-session-document";
export const DOCUMENT_VERSION = 1;

// ---------------------------------------------------------------------------------------
// Shapes

/** One view of a session, ready to render. JSON-serializable. */
export interface RenderDocument {
  format: typeof DOCUMENT_FORMAT;
  version: typeof DOCUMENT_VERSION;
  session: DocumentSession;
  view: DocumentView;
  items: DocumentItem[];
}

/** What the header and index say about the session. */
export interface DocumentSession {
  id: string;
  /** What to call it: the name, else the first user message (one line, cut), else the id. */
  title: string;
  /** The latest `session_info` name, if any. */
  name?: string;
  cwd?: string;
  /** The header's ISO timestamp (when the session was created). */
  createdAt?: string;
  /** The version the file is written in (1, 2 or 3); entries are always shown as v3. */
  formatVersion: number;
  /** The session this one was forked from (`parentSession`, or the legacy `branchedFrom`). */
  parentSession?: string;
  /** The session's leaf: the last entry in file order. */
  leafId: string | null;
  /** Entries in the file, every branch. */
  entryCount: number;
  /** Current labels, entry id -> label. */
  labels: Record<string, string>;
}

export type DocumentView =
  | { kind: "branch"; leafId: string | null }
  | { kind: "all-branches" }
  | {
      kind: "context";
      leafId: string | null;
      model: { provider: string; modelId: string } | null;
      thinkingLevel: string;
      /** Messages sent to the model (items whose `contextMessage` is true). */
      messageCount: number;
    };

export type ViewKind = DocumentView["kind"];

/**
 * What an item is. Message roles keep their names (`user`, `assistant`, `toolResult`,
 * `bashExecution`, `custom`, `branchSummary`, `compactionSummary`, `system`); other entry
 * types are named after the type (`compaction`, `branch_summary` -> `branchSummaryEntry`, ...);
 * `unknownRole` and `unknownEntry` carry what this package does not know.
 */
export type ItemKind =
  | "user"
  | "assistant"
  | "toolResult"
  | "bashExecution"
  | "custom"
  | "branchSummary"
  | "compactionSummary"
  | "system"
  | "unknownRole"
  | "compaction"
  | "branchSummaryEntry"
  | "customMessage"
  | "modelChange"
  | "thinkingLevelChange"
  | "label"
  | "sessionInfo"
  | "customEntry"
  | "usage"
  | "contextEdit"
  | "unknownEntry";

/** One entry (or, in the context view, one message) as shown. */
export interface DocumentItem {
  kind: ItemKind;
  /** The entry this item comes from. */
  id?: string;
  parentId?: string | null;
  /** The entry's `type` as written in the file. */
  entryType: string;
  /** The message role, for message items. */
  role?: string;
  /** ISO time: the entry's timestamp, or the message's (context items without an entry). */
  timestamp?: string;
  /** The entry's current label. */
  label?: string;
  /** A short heading: `user`, `assistant`, `tool result read`, `$ npm test`, `model`... */
  title: string;
  /** Facts shown beside the heading, in order (model, stop reason, exit code, tokens...). */
  details: ItemDetail[];
  blocks: Block[];
  /** Tool results: the call they answer. */
  toolCallId?: string;
  toolName?: string;
  /** Tool results and bash runs that failed; assistant messages that ended in an error. */
  isError?: boolean;
  /** Part of the conversation a reader follows (false for settings and bookkeeping entries). */
  conversational: boolean;
  /** Context view: the item is a message sent to the model. */
  contextMessage?: boolean;
  /** Where the path branches at this item: it is child `index` (1-based) of `count`. */
  branch?: { index: number; count: number; parentId: string | null };
  /** All-branches view: depth in the tree (roots are 0). */
  depth?: number;
}

export interface ItemDetail {
  name: string;
  value: string;
}

export type Block =
  | TextBlock
  | ThinkingBlock
  | ToolCallBlock
  | OutputBlock
  | ImageBlock
  | CodeBlock
  | NoteBlock;

/** Prose; `markdown` when the author wrote Markdown (assistant text, user text, summaries). */
export interface TextBlock {
  type: "text";
  text: string;
  markdown: boolean;
}

export interface ThinkingBlock {
  type: "thinking";
  text: string;
  /** The provider redacted it; `text` is empty or opaque. */
  redacted: boolean;
}

/** A tool call: its raw arguments, and what to show for them. */
export interface ToolCallBlock {
  type: "toolCall";
  id: string;
  name: string;
  arguments: unknown;
  /** One line shown after the name (a path, a pattern), or "". */
  summary: string;
  /** The interesting argument as code (a command, a file's content, an edit as a diff). */
  code?: { language: string; text: string };
}

/** Output of a tool or a command; `language` names its syntax ("text" when unknown). */
export interface OutputBlock {
  type: "output";
  text: string;
  language: string;
  isError: boolean;
}

/** An image as stored: base64 data and its declared MIME type (renderers check both). */
export interface ImageBlock {
  type: "image";
  mimeType: string;
  data: string;
}

/** Structured data shown as code (extension data, unknown blocks and entries as JSON). */
export interface CodeBlock {
  type: "code";
  language: string;
  text: string;
  caption?: string;
}

/** A remark by the renderer, not session content ("not sent to the model"). */
export interface NoteBlock {
  type: "note";
  text: string;
}

// ---------------------------------------------------------------------------------------
// Reading untrusted JSON (files are read without validation)

type Obj = Record<string, unknown>;

function isObject(value: unknown): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function str(value: unknown): string {
  return typeof value === "string" ? value : "";
}

/** Pretty JSON of a session value, at any depth. */
function json(value: unknown): string {
  try {
    return jsonText(value, 2) || String(value);
  } catch {
    // A getter that throws, a BigInt: not what a parsed file holds; show what can be shown.
    return String(value);
  }
}

const intFormat = new Intl.NumberFormat("en-US");

function formatInt(n: number): string {
  return intFormat.format(Math.round(n));
}

/** Milliseconds (a message timestamp) to ISO, or undefined. */
function msToIso(ms: unknown): string | undefined {
  if (typeof ms !== "number" || !Number.isFinite(ms)) return undefined;
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

// ---------------------------------------------------------------------------------------
// Languages

const LANGUAGE_BY_EXTENSION: Record<string, string> = {
  ts: "ts",
  tsx: "tsx",
  mts: "ts",
  cts: "ts",
  js: "js",
  jsx: "jsx",
  mjs: "js",
  cjs: "js",
  json: "json",
  jsonl: "json",
  md: "markdown",
  py: "python",
  rs: "rust",
  go: "go",
  java: "java",
  kt: "kotlin",
  c: "c",
  h: "c",
  cc: "cpp",
  cpp: "cpp",
  hpp: "cpp",
  cs: "csharp",
  rb: "ruby",
  php: "php",
  swift: "swift",
  sh: "sh",
  bash: "sh",
  zsh: "sh",
  yml: "yaml",
  yaml: "yaml",
  toml: "toml",
  html: "html",
  htm: "html",
  xml: "xml",
  svg: "xml",
  css: "css",
  scss: "scss",
  sql: "sql",
  diff: "diff",
  patch: "diff",
  lua: "lua",
};

/** The fence language for a file path, from its extension ("text" when unknown). */
export function languageOfPath(path: string): string {
  const name = path.split(/[\\/]/).pop() ?? "";
  if (/^dockerfile$/i.test(name)) return "dockerfile";
  if (/^makefile$/i.test(name)) return "makefile";
  const dot = name.lastIndexOf(".");
  if (dot <= 0) return "text";
  return LANGUAGE_BY_EXTENSION[name.slice(dot + 1).toLowerCase()] ?? "text";
}

// ---------------------------------------------------------------------------------------
// Tool calls

interface ToolCallInfo {
  name: string;
  arguments: unknown;
}

/** Tool call id -> name and arguments, over every assistant message of the session. */
export type ToolCallLookup = ReadonlyMap<string, ToolCallInfo>;

/** Collects the tool calls of `entries` (so a result can be shown in the language of its call). */
export function collectToolCalls(entries: readonly AnyEntry[]): Map<string, ToolCallInfo> {
  const calls = new Map<string, ToolCallInfo>();
  for (const entry of entries) {
    if (entry.type !== "message") continue;
    const message = (entry as Obj).message;
    if (!isObject(message) || message.role !== "assistant" || !Array.isArray(message.content)) continue;
    for (const block of message.content) {
      if (isObject(block) && block.type === "toolCall" && typeof block.id === "string") {
        calls.set(block.id, { name: str(block.name), arguments: block.arguments });
      }
    }
  }
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
function toolCallBlock(block: Obj): ToolCallBlock {
  const name = str(block.name);
  const args = block.arguments;
  const out: ToolCallBlock = { type: "toolCall", id: str(block.id), name, arguments: args, summary: "" };
  const a = isObject(args) ? args : undefined;
  const path = a ? str(a.path) || str(a.file_path) : "";
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
      .map((e) => diffOf(str(e.oldText), str(e.newText)))
      .join("\n@@\n");
    out.code = { language: "diff", text: parts };
  } else if (a && (name === "grep" || name === "find" || name === "ls") && Object.keys(a).length > 0) {
    out.summary = [str(a.pattern), path].filter(Boolean).join(" in ") || json(a).replace(/\s+/g, " ");
  } else {
    const text = json(args ?? {});
    if (text !== "{}") out.code = { language: "json", text };
  }
  if (typeof block.argumentsError === "string" && block.argumentsError) {
    out.summary = `${out.summary}${out.summary ? " · " : ""}arguments error: ${block.argumentsError}`;
  }
  return out;
}

function outputLanguage(call: ToolCallInfo | undefined): string {
  if (!call || !isObject(call.arguments)) return "text";
  if (call.name === "read") {
    const path = str(call.arguments.path) || str(call.arguments.file_path);
    return path ? languageOfPath(path) : "text";
  }
  return "text";
}

// ---------------------------------------------------------------------------------------
// Content

/** Text, image and unknown blocks of user-like content (a string or an array of blocks). */
function contentBlocks(content: unknown, markdown: boolean): Block[] {
  if (typeof content === "string") return content === "" ? [] : [{ type: "text", text: content, markdown }];
  if (!Array.isArray(content)) {
    if (content === undefined || content === null) return [];
    return [{ type: "code", language: "json", text: json(content), caption: "content" }];
  }
  const out: Block[] = [];
  for (const block of content) {
    if (!isObject(block)) {
      out.push({ type: "code", language: "json", text: json(block), caption: "content block" });
      continue;
    }
    if (block.type === "text") out.push({ type: "text", text: str(block.text), markdown });
    else if (block.type === "image") out.push(imageBlock(block));
    else out.push(unknownBlock(block));
  }
  return out;
}

function imageBlock(block: Obj): ImageBlock {
  return { type: "image", mimeType: str(block.mimeType), data: str(block.data) };
}

function unknownBlock(block: Obj): CodeBlock {
  return {
    type: "code",
    language: "json",
    text: json(block),
    caption: `${str(block.type) || "untyped"} block`,
  };
}

/** The text of output content, text blocks joined by newlines; images and others apart. */
function outputBlocks(content: unknown, language: string, isError: boolean): Block[] {
  if (typeof content === "string") return [{ type: "output", text: content, language, isError }];
  const out: Block[] = [];
  const texts: string[] = [];
  const others: Block[] = [];
  if (Array.isArray(content)) {
    for (const block of content) {
      if (isObject(block) && block.type === "text") texts.push(str(block.text));
      else if (isObject(block) && block.type === "image") others.push(imageBlock(block));
      else if (isObject(block)) others.push(unknownBlock(block));
      else others.push({ type: "code", language: "json", text: json(block), caption: "content block" });
    }
  } else if (content !== undefined && content !== null) {
    others.push({ type: "code", language: "json", text: json(content), caption: "content" });
  }
  out.push({ type: "output", text: texts.join("\n"), language, isError });
  return out.concat(others);
}

function usageDetail(usage: unknown): ItemDetail[] {
  if (!isObject(usage)) return [];
  const input = typeof usage.input === "number" ? usage.input : 0;
  const output = typeof usage.output === "number" ? usage.output : 0;
  const cacheRead = typeof usage.cacheRead === "number" ? usage.cacheRead : 0;
  const out: ItemDetail[] = [];
  if (input || output || cacheRead) {
    const parts = [`${formatInt(input)} in`, `${formatInt(output)} out`];
    if (cacheRead) parts.push(`${formatInt(cacheRead)} cached`);
    out.push({ name: "tokens", value: parts.join(" · ") });
  }
  const cost = isObject(usage.cost) && typeof usage.cost.total === "number" ? usage.cost.total : 0;
  if (cost > 0) out.push({ name: "cost", value: `$${cost.toFixed(cost < 0.01 ? 4 : 2)}` });
  return out;
}

// ---------------------------------------------------------------------------------------
// Items

/** Where an item comes from: the entry fields every item carries. */
export interface ItemOrigin {
  id?: string;
  parentId?: string | null;
  entryType: string;
  timestamp?: string;
  label?: string;
}

export interface ItemOptions {
  /** Tool calls of the session, to give a result the language of its call. */
  toolCalls?: ToolCallLookup;
}

function base(
  origin: ItemOrigin,
  kind: ItemKind,
  title: string,
  conversational: boolean,
): Omit<DocumentItem, "blocks" | "details"> {
  const item: Omit<DocumentItem, "blocks" | "details"> = {
    kind,
    entryType: origin.entryType,
    title,
    conversational,
  };
  if (origin.id !== undefined) item.id = origin.id;
  if (origin.parentId !== undefined) item.parentId = origin.parentId;
  if (origin.timestamp !== undefined) item.timestamp = origin.timestamp;
  if (origin.label !== undefined) item.label = origin.label;
  return item;
}

/** The item of one message (a `message` entry's message, or a context message). */
export function messageItem(message: unknown, origin: ItemOrigin, options: ItemOptions = {}): DocumentItem {
  if (!isObject(message)) {
    return {
      ...base(origin, "unknownRole", "message", true),
      details: [],
      blocks: [{ type: "code", language: "json", text: json(message), caption: "not a message object" }],
    };
  }
  const role = str(message.role);
  const withTime: ItemOrigin =
    origin.timestamp === undefined ? { ...origin, timestamp: msToIso(message.timestamp) } : origin;
  const at = (kind: ItemKind, title: string) => ({ ...base(withTime, kind, title, true), role });
  switch (role) {
    case "user":
      return { ...at("user", "user"), details: [], blocks: contentBlocks(message.content, true) };
    case "assistant": {
      const details: ItemDetail[] = [];
      const model = [str(message.provider), str(message.model)].filter(Boolean).join("/");
      if (model) details.push({ name: "model", value: model });
      const stop = str(message.stopReason);
      if (stop && stop !== "stop" && stop !== "toolUse") details.push({ name: "stop", value: stop });
      details.push(...usageDetail(message.usage));
      const blocks: Block[] = [];
      for (const block of Array.isArray(message.content) ? message.content : []) {
        if (!isObject(block))
          blocks.push({ type: "code", language: "json", text: json(block), caption: "content block" });
        else if (block.type === "text") blocks.push({ type: "text", text: str(block.text), markdown: true });
        else if (block.type === "thinking")
          blocks.push({ type: "thinking", text: str(block.thinking), redacted: block.redacted === true });
        else if (block.type === "toolCall") blocks.push(toolCallBlock(block));
        else if (block.type === "image") blocks.push(imageBlock(block));
        else blocks.push(unknownBlock(block));
      }
      if (!Array.isArray(message.content) && message.content !== undefined && message.content !== null)
        blocks.push({ type: "code", language: "json", text: json(message.content), caption: "content" });
      const error = str(message.errorMessage);
      if (error) blocks.push({ type: "note", text: `error: ${error}` });
      const item: DocumentItem = { ...at("assistant", "assistant"), details, blocks };
      if (stop === "error" || stop === "aborted" || error) item.isError = true;
      return item;
    }
    case "toolResult": {
      const toolName = str(message.toolName);
      const toolCallId = str(message.toolCallId);
      const isError = message.isError === true;
      const language = outputLanguage(options.toolCalls?.get(toolCallId));
      const item: DocumentItem = {
        ...at("toolResult", `tool result${toolName ? ` ${toolName}` : ""}`),
        details: isError ? [{ name: "status", value: "error" }] : [],
        blocks: outputBlocks(message.content, language, isError),
        toolCallId,
        toolName,
      };
      if (isError) item.isError = true;
      return item;
    }
    case "bashExecution": {
      const details: ItemDetail[] = [];
      const code = message.exitCode;
      if (typeof code === "number") details.push({ name: "exit", value: String(code) });
      if (message.cancelled === true) details.push({ name: "status", value: "cancelled" });
      const blocks: Block[] = [];
      const failed = message.cancelled === true || (typeof code === "number" && code !== 0);
      blocks.push({ type: "output", text: str(message.output), language: "text", isError: failed });
      if (message.truncated === true)
        blocks.push({
          type: "note",
          text: `output truncated by pi${typeof message.fullOutputPath === "string" ? `; full output: ${message.fullOutputPath}` : ""}`,
        });
      if (message.excludeFromContext === true)
        blocks.push({ type: "note", text: "not sent to the model (!! run)" });
      const item: DocumentItem = { ...at("bashExecution", `$ ${str(message.command)}`), details, blocks };
      if (failed) item.isError = true;
      return item;
    }
    case "custom":
    case "hookMessage": {
      const blocks = contentBlocks(message.content, true);
      if (message.display === false)
        blocks.push({ type: "note", text: "not displayed by pi; sent to the model" });
      if (message.details !== undefined)
        blocks.push({ type: "code", language: "json", text: json(message.details), caption: "details" });
      return { ...at("custom", `[${str(message.customType)}]`), details: [], blocks };
    }
    case "branchSummary":
      return {
        ...at("branchSummary", "branch summary"),
        details: str(message.fromId) ? [{ name: "from", value: str(message.fromId) }] : [],
        blocks: [{ type: "text", text: str(message.summary), markdown: true }],
      };
    case "compactionSummary":
      return {
        ...at("compactionSummary", "compaction summary"),
        details:
          typeof message.tokensBefore === "number"
            ? [{ name: "tokens before", value: formatInt(message.tokensBefore) }]
            : [],
        blocks: [{ type: "text", text: str(message.summary), markdown: true }],
      };
    case "system": {
      const blocks = contentBlocks(message.content, false);
      const details: ItemDetail[] = [];
      if (Array.isArray(message.toolsAdded) && message.toolsAdded.length > 0)
        details.push({ name: "tools added", value: message.toolsAdded.map(String).join(", ") });
      if (Array.isArray(message.toolsRemoved) && message.toolsRemoved.length > 0)
        details.push({ name: "tools removed", value: message.toolsRemoved.map(String).join(", ") });
      if (isObject(message.sections))
        blocks.push({ type: "code", language: "json", text: json(message.sections), caption: "sections" });
      return { ...at("system", "system"), details, blocks };
    }
    default: {
      const item: DocumentItem = {
        ...at("unknownRole", role || "message"),
        details: [],
        blocks: [
          {
            type: "code",
            language: "json",
            text: json(message),
            caption: `message with role ${JSON.stringify(role)}`,
          },
        ],
      };
      return item;
    }
  }
}

/** The fields of an entry beyond the common ones, as JSON (for unknown and opaque entries). */
function entryBody(entry: Obj): string {
  const { type: _t, id: _i, parentId: _p, timestamp: _ts, ...rest } = entry;
  return json(rest);
}

/** The item of one entry, whatever its type. */
export function entryItem(entry: AnyEntry, options: ItemOptions & { label?: string } = {}): DocumentItem {
  const e = entry as Obj;
  const origin: ItemOrigin = { entryType: str(e.type) };
  if (typeof e.id === "string") origin.id = e.id;
  if (typeof e.parentId === "string" || e.parentId === null) origin.parentId = e.parentId as string | null;
  if (typeof e.timestamp === "string") origin.timestamp = e.timestamp;
  if (options.label !== undefined) origin.label = options.label;
  const item = (
    kind: ItemKind,
    title: string,
    conversational: boolean,
    details: ItemDetail[],
    blocks: Block[],
  ) => ({
    ...base(origin, kind, title, conversational),
    details,
    blocks,
  });
  switch (e.type) {
    case "message":
      return messageItem(e.message, origin, options);
    case "compaction": {
      const details: ItemDetail[] = [];
      if (typeof e.tokensBefore === "number")
        details.push({ name: "tokens before", value: formatInt(e.tokensBefore) });
      if (typeof e.firstKeptEntryId === "string")
        details.push({ name: "kept from", value: e.firstKeptEntryId });
      if (Array.isArray(e.retainedTail))
        details.push({ name: "retained", value: `${e.retainedTail.length} messages` });
      if (e.fromHook === true) details.push({ name: "by", value: "extension" });
      const blocks: Block[] = [{ type: "text", text: str(e.summary), markdown: true }];
      const d = isObject(e.details) ? e.details : undefined;
      const files = (key: string) => (d && Array.isArray(d[key]) ? (d[key] as unknown[]).map(String) : []);
      const read = files("readFiles");
      const modified = files("modifiedFiles");
      if (read.length > 0) blocks.push({ type: "note", text: `read: ${read.join(", ")}` });
      if (modified.length > 0) blocks.push({ type: "note", text: `modified: ${modified.join(", ")}` });
      return item("compaction", "compaction", true, details, blocks);
    }
    case "branch_summary": {
      const details: ItemDetail[] = [];
      if (typeof e.fromId === "string") details.push({ name: "from", value: e.fromId });
      if (e.fromHook === true) details.push({ name: "by", value: "extension" });
      const blocks: Block[] = [{ type: "text", text: str(e.summary), markdown: true }];
      return item("branchSummaryEntry", "branch summary", true, details, blocks);
    }
    case "custom_message": {
      const blocks = contentBlocks(e.content, true);
      if (e.display === false) blocks.push({ type: "note", text: "not displayed by pi; sent to the model" });
      if (e.details !== undefined)
        blocks.push({ type: "code", language: "json", text: json(e.details), caption: "details" });
      return item("customMessage", `[${str(e.customType)}]`, true, [], blocks);
    }
    case "model_change":
      return item(
        "modelChange",
        "model",
        false,
        [{ name: "model", value: `${str(e.provider)}/${str(e.modelId)}` }],
        [],
      );
    case "thinking_level_change":
      return item(
        "thinkingLevelChange",
        "thinking level",
        false,
        [{ name: "level", value: str(e.thinkingLevel) }],
        [],
      );
    case "label": {
      const label = typeof e.label === "string" && e.label !== "" ? e.label : undefined;
      return item(
        "label",
        "label",
        false,
        [{ name: "target", value: str(e.targetId) }],
        [
          {
            type: "note",
            text:
              label === undefined
                ? `label of ${str(e.targetId)} cleared`
                : `${str(e.targetId)} labelled "${label}"`,
          },
        ],
      );
    }
    case "session_info": {
      const name = typeof e.name === "string" ? e.name.trim() : "";
      return item(
        "sessionInfo",
        "session name",
        false,
        [],
        [{ type: "note", text: name ? `named "${name}"` : "name cleared" }],
      );
    }
    case "custom": {
      const blocks: Block[] =
        e.data === undefined ? [] : [{ type: "code", language: "json", text: json(e.data), caption: "data" }];
      blocks.push({ type: "note", text: "extension state; not sent to the model" });
      return item("customEntry", `[${str(e.customType)}] data`, false, [], blocks);
    }
    case "usage": {
      const details: ItemDetail[] = [{ name: "kind", value: str(e.kind) }];
      const model = [str(e.provider), str(e.model)].filter(Boolean).join("/");
      if (model) details.push({ name: "model", value: model });
      details.push(...usageDetail(e.usage));
      const blocks: Block[] = str(e.note) ? [{ type: "note", text: str(e.note) }] : [];
      return item("usage", "usage", false, details, blocks);
    }
    case "context_edit": {
      const details: ItemDetail[] = [{ name: "target", value: str(e.targetId) }];
      const replacement = e.replacement;
      let blocks: Block[];
      if (replacement === null) blocks = [{ type: "note", text: "removes the target from the context" }];
      else if (isObject(replacement)) {
        blocks = [{ type: "note", text: "replaces the target's content in the context with:" }];
        blocks.push(...contentBlocks(replacement.content, true));
      } else
        blocks = [
          { type: "code", language: "json", text: json(replacement), caption: "malformed replacement" },
        ];
      return item("contextEdit", "context edit", true, details, blocks);
    }
    default:
      return item(
        "unknownEntry",
        str(e.type) || "entry",
        true,
        [],
        [
          {
            type: "code",
            language: "json",
            text: entryBody(e),
            caption: `entry of type ${JSON.stringify(str(e.type))}`,
          },
        ],
      );
  }
}

// ---------------------------------------------------------------------------------------
// Documents

export interface DocumentOptions {
  /** Which view (default `branch`). */
  view?: ViewKind;
  /**
   * The leaf of the branch (`branch`, `context`); default the session's leaf. An unknown id
   * falls back to the last entry, as pi does; `null` is an empty branch.
   */
  leafId?: string | null;
}

/**
 * What to call a session: its name, else its first user message (as pi's session list shows
 * it: the first in file order, text blocks joined by spaces, on one line), else its id.
 */
export function sessionTitle(session: RenderSession): string {
  const name = session.index.sessionName;
  if (name !== undefined) return name;
  for (const entry of session.index.entries) {
    if (entry.type !== "message") continue;
    const message = (entry as Obj).message;
    if (!isObject(message) || message.role !== "user") continue;
    const content = message.content;
    const text =
      typeof content === "string"
        ? content
        : Array.isArray(content)
          ? content
              .filter((b): b is Obj => isObject(b) && b.type === "text" && typeof b.text === "string")
              .map((b) => b.text as string)
              .join(" ")
          : "";
    const flat = text.slice(0, 400).replace(/\s+/g, " ").trim();
    if (flat !== "") return flat.length > 80 ? `${flat.slice(0, 79)}…` : flat;
  }
  const id = str((session.header as Obj | undefined)?.id);
  return id ? `pi session ${id.slice(0, 8)}` : "pi session";
}

function documentSession(session: RenderSession): DocumentSession {
  const header = session.header as (SessionHeader & Obj) | undefined;
  const { index } = session;
  const out: DocumentSession = {
    id: str(header?.id),
    title: sessionTitle(session),
    formatVersion: session.formatVersion,
    leafId: index.leafId,
    entryCount: session.entries.length,
    labels: Object.fromEntries(index.labels),
  };
  const name = index.sessionName;
  if (name !== undefined) out.name = name;
  if (typeof header?.cwd === "string") out.cwd = header.cwd;
  if (typeof header?.timestamp === "string") out.createdAt = header.timestamp;
  const parent = str(header?.parentSession) || str(header?.branchedFrom);
  if (parent) out.parentSession = parent;
  return out;
}

/**
 * Builds one view of a session: the items of a branch (root to leaf), of every branch
 * (depth first), or of the context at a leaf.
 */
export function buildDocument(session: RenderSession, options: DocumentOptions = {}): RenderDocument {
  const view = options.view ?? "branch";
  const { index } = session;
  const toolCalls = collectToolCalls(session.entries);
  const layout = layoutTree(index);
  const leafId = options.leafId === undefined ? index.leafId : options.leafId;
  const doc = (v: DocumentView, items: DocumentItem[]): RenderDocument => ({
    format: DOCUMENT_FORMAT,
    version: DOCUMENT_VERSION,
    session: documentSession(session),
    view: v,
    items,
  });
  const labelled = (entry: AnyEntry) => {
    const id = (entry as Obj).id;
    return typeof id === "string" ? index.getLabel(id) : undefined;
  };
  if (view === "all-branches") {
    const items: DocumentItem[] = [];
    for (const at of layout.order) items.push(treeItem(session, layout, at, toolCalls));
    // Entries without an id are not in the tree; they are still shown, after it.
    for (const entry of session.entries) {
      if (typeof (entry as Obj).id === "string") continue;
      const item = entryItem(entry, { toolCalls });
      item.blocks.push({ type: "note", text: "not in the tree: this entry has no id" });
      items.push(item);
    }
    return doc({ kind: "all-branches" }, items);
  }
  if (view === "context") {
    const projection = buildSessionProjection(index.entries, leafId, index);
    const items: DocumentItem[] = [];
    for (const { sourceEntry, messages } of projection.entries) {
      const e = sourceEntry as Obj;
      const origin: ItemOrigin = { entryType: str(e.type) };
      if (typeof e.id === "string") origin.id = e.id;
      const label = labelled(sourceEntry);
      if (label !== undefined) origin.label = label;
      for (const message of messages) {
        const item = messageItem(message, origin, { toolCalls });
        item.contextMessage = true;
        items.push(item);
      }
    }
    const path = index.activePath(leafId);
    return doc(
      {
        kind: "context",
        leafId: path.length > 0 ? ((path[path.length - 1] as AnyEntry).id ?? null) : null,
        model: projection.model,
        thinkingLevel: projection.thinkingLevel,
        messageCount: projection.messages.length,
      },
      items,
    );
  }
  const path = index.activePath(leafId);
  const items: DocumentItem[] = [];
  for (const entry of path) {
    const at = layout.positionOf(entry);
    items.push(
      at === undefined
        ? entryItem(entry, { toolCalls, label: labelled(entry) })
        : treeItem(session, layout, at, toolCalls),
    );
  }
  const last = path[path.length - 1];
  return doc({ kind: "branch", leafId: last?.id ?? null }, items);
}

/**
 * The item of the entry at file position `at`, as every tree-aware view shows it: its label,
 * its branch mark (when its parent has other children) and its depth in the tree.
 */
export function treeItem(
  session: RenderSession,
  layout: TreeLayout,
  at: number,
  toolCalls: ToolCallLookup,
): DocumentItem {
  const entry = session.index.entries[at] as AnyEntry;
  const item = entryItem(entry, { toolCalls, label: session.index.getLabel(entry.id) });
  markBranch(item, layout, at, session.index.entries);
  item.depth = layout.depth[at] as number;
  return item;
}

function markBranch(item: DocumentItem, layout: TreeLayout, at: number, entries: readonly AnyEntry[]): void {
  const siblings = siblingsOf(layout, at);
  if (siblings.length < 2) return;
  const parent = layout.parent[at] as number;
  item.branch = {
    index: (layout.siblingIndex[at] as number) + 1,
    count: siblings.length,
    parentId: parent === -1 ? null : ((entries[parent] as AnyEntry).id ?? null),
  };
}
