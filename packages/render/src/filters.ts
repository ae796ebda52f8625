/**
 * The filters of pi's `/tree` (default, no-tools, user-only, labeled-only, all), as predicates
 * over entries, for the tree and for a transcript. Use them wherever a session's entries are
 * listed for people, so the page, the CLI and pi agree on what "default" hides.
 *
 * pi's rules (interactive `tree-selector.ts`): default hides settings and bookkeeping entries
 * (labels, extension `custom` entries, model and thinking-level changes); no-tools also hides
 * tool results; user-only keeps user messages; labeled-only keeps labelled entries; all keeps
 * everything. In the tree, an assistant message without text (only tool calls) is hidden too,
 * unless it ended in an error or is the current leaf. A transcript keeps those messages
 * (their tool calls are the content), except under no-tools.
 */
import { type AnyEntry, entryTypeInfo, isObject } from "@pi-session/format";
import { jsonText } from "./json.js";

export const TREE_FILTERS = ["default", "no-tools", "user-only", "labeled-only", "all"] as const;
export type TreeFilter = (typeof TREE_FILTERS)[number];

type Obj = Record<string, unknown>;

function role(entry: AnyEntry): string | undefined {
  if (entry.type !== "message") return undefined;
  const message = (entry as Obj).message;
  return isObject(message) && typeof message.role === "string" ? message.role : undefined;
}

/**
 * Entries default views hide: the settings and bookkeeping types of format's registry (labels,
 * extension state, model and thinking-level changes), but an extension's `skills_reload` entry.
 */
export function isSettingsEntry(entry: AnyEntry): boolean {
  if (entryTypeInfo(entry.type)?.settings !== true) return false;
  return !(entry.type === "custom" && (entry as Obj).customType === "skills_reload");
}

/** An assistant message with no text (only tool calls or thinking) that did not fail. */
export function isToolOnlyAssistant(entry: AnyEntry): boolean {
  if (role(entry) !== "assistant") return false;
  const message = (entry as Obj).message as Obj;
  const stop = message.stopReason;
  if (typeof stop === "string" && stop !== "stop" && stop !== "toolUse") return false;
  const content = message.content;
  if (typeof content === "string") return content.trim() === "";
  if (!Array.isArray(content)) return true;
  return !content.some(
    (b) => isObject(b) && b.type === "text" && typeof b.text === "string" && b.text.trim() !== "",
  );
}

export interface FilterContext {
  /** The entry has a label. */
  labelled: boolean;
  /** The entry is the leaf being shown (the tree always shows it). */
  isLeaf?: boolean;
}

function modePasses(entry: AnyEntry, filter: TreeFilter, context: FilterContext): boolean {
  switch (filter) {
    case "user-only":
      return role(entry) === "user";
    case "no-tools":
      return !isSettingsEntry(entry) && role(entry) !== "toolResult";
    case "labeled-only":
      return context.labelled;
    case "all":
      return true;
    default:
      return !isSettingsEntry(entry);
  }
}

/** Whether pi's `/tree` lists the entry under `filter`. */
export function treeFilterPasses(entry: AnyEntry, filter: TreeFilter, context: FilterContext): boolean {
  if (context.isLeaf !== true && isToolOnlyAssistant(entry)) return false;
  return modePasses(entry, filter, context);
}

/** Whether a transcript under `filter` shows the entry (tool-only assistant messages stay, but under no-tools). */
export function transcriptFilterPasses(entry: AnyEntry, filter: TreeFilter, context: FilterContext): boolean {
  if (filter === "no-tools" && isToolOnlyAssistant(entry)) return false;
  return modePasses(entry, filter, context);
}

/**
 * The lowercase text pi's `/tree` search matches against: label, then a message's role and
 * content, another entry's kind and preview (what its row shows), an unknown entry's type.
 */
export function searchText(entry: AnyEntry, label: string | undefined): string {
  const parts: string[] = [];
  if (label) parts.push(label);
  const e = entry as Obj;
  const push = (value: unknown) => {
    if (typeof value === "string") parts.push(value);
  };
  const content = (value: unknown) => {
    if (typeof value === "string") parts.push(value);
    else if (Array.isArray(value)) {
      for (const block of value) {
        if (!isObject(block)) continue;
        if (block.type === "text") push(block.text);
        else if (block.type === "thinking") push(block.thinking);
        else if (block.type === "toolCall") {
          push(block.name);
          try {
            parts.push(jsonText(block.arguments));
          } catch {
            // Arguments that cannot be serialized (not from a parsed file) are not searchable.
          }
        }
      }
    }
  };
  const info = entryTypeInfo(e.type);
  if (info?.summary === "role") {
    const m = isObject(e.message) ? e.message : {};
    push(m.role);
    content(m.content);
    push(m.command);
    push(m.output);
    push(m.summary);
    push(m.toolName);
    push(m.customType);
  } else if (info !== undefined) {
    // What its row shows: the kind and the preview's text (format's registry).
    parts.push(info.summary.kind, info.summary.preview(e));
  } else push(e.type);
  return parts.join(" ").toLowerCase();
}

/** pi's search tokens: the query in lower case, split on whitespace. */
export function searchTokens(query: string): string[] {
  return query.toLowerCase().split(/\s+/).filter(Boolean);
}
