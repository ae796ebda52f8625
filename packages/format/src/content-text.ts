/**
 * `contentText`: the text of a message's `content` (a string, or an array of blocks whose text
 * blocks are joined). Use it wherever an entry's words are wanted (previews, search documents):
 * images, tool calls, thinking and unknown blocks are left out.
 */
import { isObject } from "./object.js";

/** The text blocks of a content value (a string, or an array of blocks), joined by `separator`. */
export function contentText(content: unknown, separator = "\n"): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const block of content) {
    if (isObject(block) && block.type === "text" && typeof block.text === "string") parts.push(block.text);
  }
  return parts.join(separator);
}
