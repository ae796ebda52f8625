/**
 * The blocks of message content: text, images and unknown blocks of user-like content, the
 * output of a tool, and the token and cost details of a usage. Shared by the message and entry
 * items.
 */
import { isObject } from "@pi-session/format";
import { formatInt } from "../readable.js";
import { displayJson, stringOrEmpty } from "../values.js";
import type { Block, CodeBlock, ImageBlock, ItemDetail } from "./shapes.js";

type Obj = Record<string, unknown>;

/** Text, image and unknown blocks of user-like content (a string or an array of blocks). */
export function contentBlocks(content: unknown, markdown: boolean): Block[] {
  if (typeof content === "string") return content === "" ? [] : [{ type: "text", text: content, markdown }];
  if (!Array.isArray(content)) {
    if (content === undefined || content === null) return [];
    return [{ type: "code", language: "json", text: displayJson(content), caption: "content" }];
  }
  const out: Block[] = [];
  for (const block of content) {
    if (!isObject(block)) {
      out.push({ type: "code", language: "json", text: displayJson(block), caption: "content block" });
      continue;
    }
    if (block.type === "text") out.push({ type: "text", text: stringOrEmpty(block.text), markdown });
    else if (block.type === "image") out.push(imageBlock(block));
    else out.push(unknownBlock(block));
  }
  return out;
}

export function imageBlock(block: Obj): ImageBlock {
  return { type: "image", mimeType: stringOrEmpty(block.mimeType), data: stringOrEmpty(block.data) };
}

export function unknownBlock(block: Obj): CodeBlock {
  return {
    type: "code",
    language: "json",
    text: displayJson(block),
    caption: `${stringOrEmpty(block.type) || "untyped"} block`,
  };
}

/** The text of output content, text blocks joined by newlines; images and others apart. */
export function outputBlocks(content: unknown, language: string, isError: boolean): Block[] {
  if (typeof content === "string") return [{ type: "output", text: content, language, isError }];
  const out: Block[] = [];
  const texts: string[] = [];
  const others: Block[] = [];
  if (Array.isArray(content)) {
    for (const block of content) {
      if (isObject(block) && block.type === "text") texts.push(stringOrEmpty(block.text));
      else if (isObject(block) && block.type === "image") others.push(imageBlock(block));
      else if (isObject(block)) others.push(unknownBlock(block));
      else
        others.push({ type: "code", language: "json", text: displayJson(block), caption: "content block" });
    }
  } else if (content !== undefined && content !== null) {
    others.push({ type: "code", language: "json", text: displayJson(content), caption: "content" });
  }
  out.push({ type: "output", text: texts.join("\n"), language, isError });
  return out.concat(others);
}

export function usageDetail(usage: unknown): ItemDetail[] {
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
