/**
 * The item of one message: a `message` entry's message, or a message of the context. Every
 * role has its item; a role this package does not know shows its JSON.
 */
import { isObject } from "@pi-session/format";
import { formatInt } from "../readable.js";
import { displayJson, msToIso, stringOrEmpty } from "../values.js";
import { contentBlocks, imageBlock, outputBlocks, unknownBlock, usageDetail } from "./content.js";
import type { Block, DocumentItem, ItemDetail, ItemKind, ItemOrigin } from "./shapes.js";
import { type ToolCallLookup, toolCallBlock } from "./tool-calls.js";

export interface ItemOptions {
  /**
   * Tool calls of the session with their results' details: a result is headed with its call's
   * main argument and shown in its language, an edit with the diff its result holds.
   */
  toolCalls?: ToolCallLookup;
}

/** What an item is and how it is headed. */
export interface ItemHeading {
  kind: ItemKind;
  title: string;
  /** Part of the conversation a reader follows (false for settings and bookkeeping entries). */
  conversational: boolean;
}

/** The fields every item has: its heading and where it comes from. */
export function itemBase(origin: ItemOrigin, heading: ItemHeading): Omit<DocumentItem, "blocks" | "details"> {
  const item: Omit<DocumentItem, "blocks" | "details"> = {
    kind: heading.kind,
    entryType: origin.entryType,
    title: heading.title,
    conversational: heading.conversational,
  };
  if (origin.id !== undefined) item.id = origin.id;
  if (origin.parentId !== undefined) item.parentId = origin.parentId;
  if (origin.timestamp !== undefined) item.timestamp = origin.timestamp;
  if (origin.label !== undefined) item.label = origin.label;
  return item;
}

/** A tool a system message adds or removes (pi-ai's `Tool` or `ToolReference`) by its name; anything else as text. */
function toolNameOf(tool: unknown): string {
  if (isObject(tool) && typeof tool.name === "string") return tool.name;
  return typeof tool === "string" ? tool : displayJson(tool);
}

/** The item of one message (a `message` entry's message, or a context message). */
export function messageItem(message: unknown, origin: ItemOrigin, options: ItemOptions = {}): DocumentItem {
  if (!isObject(message)) {
    return {
      ...itemBase(origin, { kind: "unknownRole", title: "message", conversational: true }),
      details: [],
      blocks: [
        { type: "code", language: "json", text: displayJson(message), caption: "not a message object" },
      ],
    };
  }
  const role = stringOrEmpty(message.role);
  const withTime: ItemOrigin =
    origin.timestamp === undefined ? { ...origin, timestamp: msToIso(message.timestamp) } : origin;
  const at = (kind: ItemKind, title: string) => ({
    ...itemBase(withTime, { kind, title, conversational: true }),
    role,
  });
  switch (role) {
    case "user":
      return { ...at("user", "user"), details: [], blocks: contentBlocks(message.content, true) };
    case "assistant": {
      const details: ItemDetail[] = [];
      const model = [stringOrEmpty(message.provider), stringOrEmpty(message.model)].filter(Boolean).join("/");
      if (model) details.push({ name: "model", value: model });
      const stop = stringOrEmpty(message.stopReason);
      if (stop && stop !== "stop" && stop !== "toolUse") details.push({ name: "stop", value: stop });
      details.push(...usageDetail(message.usage));
      const blocks: Block[] = [];
      for (const block of Array.isArray(message.content) ? message.content : []) {
        if (!isObject(block))
          blocks.push({ type: "code", language: "json", text: displayJson(block), caption: "content block" });
        else if (block.type === "text")
          blocks.push({ type: "text", text: stringOrEmpty(block.text), markdown: true });
        else if (block.type === "thinking")
          blocks.push({
            type: "thinking",
            text: stringOrEmpty(block.thinking),
            redacted: block.redacted === true,
          });
        else if (block.type === "toolCall") blocks.push(toolCallBlock(block, options.toolCalls));
        else if (block.type === "image") blocks.push(imageBlock(block));
        else blocks.push(unknownBlock(block));
      }
      if (!Array.isArray(message.content) && message.content !== undefined && message.content !== null)
        blocks.push({
          type: "code",
          language: "json",
          text: displayJson(message.content),
          caption: "content",
        });
      const error = stringOrEmpty(message.errorMessage);
      if (error) blocks.push({ type: "note", text: `error: ${error}` });
      const item: DocumentItem = { ...at("assistant", "assistant"), details, blocks };
      if (stop === "error" || stop === "aborted" || error) item.isError = true;
      return item;
    }
    case "toolResult": {
      const toolName = stringOrEmpty(message.toolName);
      const toolCallId = stringOrEmpty(message.toolCallId);
      const isError = message.isError === true;
      const call = options.toolCalls?.get(toolCallId);
      const item: DocumentItem = {
        ...at("toolResult", `tool result${toolName ? ` ${toolName}` : ""}`),
        details: isError ? [{ name: "status", value: "error" }] : [],
        blocks: outputBlocks(message.content, call?.outputLanguage ?? "text", isError),
        toolCallId,
        toolName,
      };
      const argument = call?.argument ?? "";
      if (argument !== "") item.callArgument = argument;
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
      blocks.push({ type: "output", text: stringOrEmpty(message.output), language: "text", isError: failed });
      if (message.truncated === true)
        blocks.push({
          type: "note",
          text: `output truncated by pi${typeof message.fullOutputPath === "string" ? `; full output: ${message.fullOutputPath}` : ""}`,
        });
      if (message.excludeFromContext === true)
        blocks.push({ type: "note", text: "not sent to the model (!! run)" });
      const item: DocumentItem = {
        ...at("bashExecution", `$ ${stringOrEmpty(message.command)}`),
        details,
        blocks,
      };
      if (failed) item.isError = true;
      return item;
    }
    case "custom":
    case "hookMessage": {
      const blocks = contentBlocks(message.content, true);
      if (message.display === false)
        blocks.push({ type: "note", text: "not displayed by pi; sent to the model" });
      if (message.details !== undefined)
        blocks.push({
          type: "code",
          language: "json",
          text: displayJson(message.details),
          caption: "details",
        });
      return { ...at("custom", `[${stringOrEmpty(message.customType)}]`), details: [], blocks };
    }
    case "branchSummary":
      return {
        ...at("branchSummary", "branch summary"),
        details: stringOrEmpty(message.fromId)
          ? [{ name: "from", value: stringOrEmpty(message.fromId) }]
          : [],
        blocks: [{ type: "text", text: stringOrEmpty(message.summary), markdown: true }],
      };
    case "compactionSummary":
      return {
        ...at("compactionSummary", "compaction summary"),
        details:
          typeof message.tokensBefore === "number"
            ? [{ name: "tokens before", value: formatInt(message.tokensBefore) }]
            : [],
        blocks: [{ type: "text", text: stringOrEmpty(message.summary), markdown: true }],
      };
    case "system": {
      const blocks = contentBlocks(message.content, false);
      const details: ItemDetail[] = [];
      if (Array.isArray(message.toolsAdded) && message.toolsAdded.length > 0)
        details.push({ name: "tools added", value: message.toolsAdded.map(toolNameOf).join(", ") });
      if (Array.isArray(message.toolsRemoved) && message.toolsRemoved.length > 0)
        details.push({ name: "tools removed", value: message.toolsRemoved.map(toolNameOf).join(", ") });
      if (isObject(message.sections))
        blocks.push({
          type: "code",
          language: "json",
          text: displayJson(message.sections),
          caption: "sections",
        });
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
            text: displayJson(message),
            caption: `message with role ${JSON.stringify(role)}`,
          },
        ],
      };
      return item;
    }
  }
}
