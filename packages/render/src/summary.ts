/**
 * One-line summaries of entries: a short kind (`user`, `assistant`, `toolResult`, `bash`,
 * `compaction`, `model`...), a preview of the text, and the row's label and tone, for trees and
 * lists where an entry gets one row: the kind, label, tone and (but for messages) the preview's
 * text are format's registry's. The preview is flattened to one line, its controls made
 * visible, and cut.
 */
import {
  type AnyEntry,
  contentText,
  entryTypeInfo,
  isObject,
  messageRoleInfo,
  type SummaryTone,
} from "@pi-session/format";
import type { ToolCallLookup } from "./model/tool-calls.js";
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
  /** The kind a row starts with: the message's role (`assistant`, `bash`) or the entry's (`model`). */
  kind: string;
  preview: string;
  /** What a page's tree row calls it (`tool` for a tool result). */
  label: string;
  /** Its colour family (format's registry): the `kind-<tone>` class of a row. */
  tone: SummaryTone;
}

/**
 * A short label of an entry: its kind and a one-line preview of at most `width` characters; with
 * the session's `toolCalls`, a tool result's preview names what its call was about
 * (`read src/a.ts`).
 */
export function entrySummary(entry: AnyEntry, width = 70, toolCalls?: ToolCallLookup): EntrySummary {
  const e = entry as Obj;
  const type = stringOrEmpty(e.type);
  const info = entryTypeInfo(type);
  if (info === undefined)
    return {
      kind: oneLine(type, 30) || "?",
      preview: oneLine(restJson(e, ["type", "id", "parentId", "timestamp"]), width),
      label: oneLine(type, 30) || "?",
      tone: "meta",
    };
  if (info.summary === "role") return messageSummary(isObject(e.message) ? e.message : {}, width, toolCalls);
  const { kind, tone, preview } = info.summary;
  return { kind, preview: oneLine(preview(e), width), label: kind, tone };
}

/** The summary of a message entry, by its message's role (format's registry). */
function messageSummary(message: Obj, width: number, toolCalls?: ToolCallLookup): EntrySummary {
  const role = stringOrEmpty(message.role) || "?";
  const info = messageRoleInfo(role);
  const summary = (preview: string): EntrySummary =>
    info === undefined
      ? { kind: oneLine(role, 30), preview, label: oneLine(role, 30), tone: "meta" }
      : { kind: info.kind, preview, label: info.label, tone: info.tone };
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
      return summary(oneLine(why, width));
    }
    return summary(calls ? `${preview}${preview ? " " : ""}→ ${calls}` : preview);
  }
  if (role === "toolResult") {
    // With the session's calls, the result names what its call was about (`read src/a.ts`).
    const call = toolCalls?.get(stringOrEmpty(message.toolCallId));
    const argument = call?.argument ?? "";
    const name = oneLine(stringOrEmpty(message.toolName), 40);
    return summary(
      `${argument ? oneLine(`${name} ${argument}`, width) : name}${message.isError === true ? " (error)" : ""}`,
    );
  }
  if (role === "bashExecution") return summary(oneLine(`$ ${stringOrEmpty(message.command)}`, width));
  // pi's system prompt message keeps its text in sections: a row names it, as pi's tree does.
  if (role === "system") return summary(oneLine(contentText(message.content, " ") || "system prompt", width));
  if (role === "custom" || role === "hookMessage")
    return summary(
      oneLine(`[${stringOrEmpty(message.customType)}] ${contentText(message.content, " ")}`, width),
    );
  if (role === "branchSummary" || role === "compactionSummary")
    return summary(oneLine(stringOrEmpty(message.summary), width));
  const text = contentText(message.content, " ");
  return summary(oneLine(text || restJson(message, ["role", "timestamp"]), width));
}
