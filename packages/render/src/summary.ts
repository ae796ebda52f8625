/**
 * One-line summaries of entries: a short kind (`user`, `assistant`, `toolResult`, `bash`,
 * `compaction`, `model`...) and a preview of the text, for trees and lists where an entry
 * gets one row. The preview is flattened to one line, its controls made visible, and cut.
 */
import { type AnyEntry, contentText, isObject } from "@pi-session/format";
import { jsonText } from "./json.js";
import { lineEndsAsLf, visibleControls } from "./sanitize.js";
import { stringOrEmpty } from "./values.js";

type Obj = Record<string, unknown>;

/** The fields of `value` but `omit` as compact JSON ("" when there are none or they cannot be shown). */
function restJson(value: Obj, omit: readonly string[]): string {
  const rest: Obj = {};
  for (const key of Object.keys(value)) if (!omit.includes(key)) rest[key] = value[key];
  if (Object.keys(rest).length === 0) return "";
  try {
    return jsonText(rest).slice(0, 400);
  } catch {
    return "";
  }
}

/** Whitespace collapsed, controls visible, cut to `max` characters with an ellipsis. */
export function oneLine(text: string, max: number): string {
  // Only the start matters: do not flatten megabytes of output for a 70-character preview.
  const head = text.length > max * 4 + 64 ? text.slice(0, max * 4 + 64) : text;
  const flat = visibleControls(lineEndsAsLf(head)).replace(/\s+/g, " ").trim();
  return flat.length > max || head.length < text.length
    ? `${flat.slice(0, Math.max(0, Math.min(flat.length, max - 1)))}…`
    : flat;
}

export interface EntrySummary {
  kind: string;
  preview: string;
}

/** A short label of an entry: its kind and a one-line preview of at most `width` characters. */
export function entrySummary(entry: AnyEntry, width = 70): EntrySummary {
  const e = entry as Obj;
  const type = stringOrEmpty(e.type);
  switch (type) {
    case "message": {
      const message = isObject(e.message) ? e.message : {};
      const role = stringOrEmpty(message.role) || "?";
      if (role === "assistant") {
        const content = Array.isArray(message.content) ? message.content : [];
        const text = contentText(content, " ");
        const calls = content
          .filter((b): b is Obj => isObject(b) && b.type === "toolCall")
          .map((b) => oneLine(stringOrEmpty(b.name), 40))
          .join(", ");
        const preview = text ? oneLine(text, width) : "";
        if (!calls && !preview) {
          // No text and no calls: thinking only, or a failed turn; say which.
          const stop = stringOrEmpty(message.stopReason);
          const error = stringOrEmpty(message.errorMessage);
          const why = error ? `error: ${error}` : stop && stop !== "stop" ? `(${stop})` : "(no text)";
          return { kind: "assistant", preview: oneLine(why, width) };
        }
        return { kind: "assistant", preview: calls ? `${preview}${preview ? " " : ""}→ ${calls}` : preview };
      }
      if (role === "toolResult")
        return {
          kind: "toolResult",
          preview: `${oneLine(stringOrEmpty(message.toolName), 40)}${message.isError === true ? " (error)" : ""}`,
        };
      if (role === "bashExecution")
        return { kind: "bash", preview: oneLine(`$ ${stringOrEmpty(message.command)}`, width) };
      if (role === "custom" || role === "hookMessage")
        return {
          kind: role,
          preview: oneLine(
            `[${stringOrEmpty(message.customType)}] ${contentText(message.content, " ")}`,
            width,
          ),
        };
      if (role === "branchSummary" || role === "compactionSummary")
        return { kind: role, preview: oneLine(stringOrEmpty(message.summary), width) };
      const text = contentText(message.content, " ");
      return {
        kind: oneLine(role, 30),
        preview: oneLine(text || restJson(message, ["role", "timestamp"]), width),
      };
    }
    case "compaction":
      return { kind: "compaction", preview: oneLine(stringOrEmpty(e.summary), width) };
    case "branch_summary":
      return { kind: "branch summary", preview: oneLine(stringOrEmpty(e.summary), width) };
    case "model_change":
      return {
        kind: "model",
        preview: oneLine(`${stringOrEmpty(e.provider)}/${stringOrEmpty(e.modelId)}`, width),
      };
    case "thinking_level_change":
      return { kind: "thinking", preview: oneLine(stringOrEmpty(e.thinkingLevel), width) };
    case "label":
      return {
        kind: "label",
        preview: oneLine(
          `${stringOrEmpty(e.targetId)} = ${e.label === undefined ? "(cleared)" : jsonText(e.label)}`,
          width,
        ),
      };
    case "session_info":
      return {
        kind: "name",
        preview: typeof e.name === "string" ? oneLine(JSON.stringify(e.name), width) : "(cleared)",
      };
    case "custom":
      return { kind: "custom", preview: oneLine(stringOrEmpty(e.customType), width) };
    case "custom_message":
      return {
        kind: "custom message",
        preview: oneLine(`[${stringOrEmpty(e.customType)}] ${contentText(e.content, " ")}`, width),
      };
    case "usage":
      return {
        kind: "usage",
        preview: oneLine(
          `${stringOrEmpty(e.kind)} ${stringOrEmpty(e.provider)}/${stringOrEmpty(e.model)}`,
          width,
        ),
      };
    case "context_edit":
      return {
        kind: "context edit",
        preview: oneLine(`${stringOrEmpty(e.targetId)}${e.replacement === null ? " (removed)" : ""}`, width),
      };
    default:
      return {
        kind: oneLine(type, 30) || "?",
        preview: oneLine(restJson(e, ["type", "id", "parentId", "timestamp"]), width),
      };
  }
}
