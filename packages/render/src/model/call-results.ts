/**
 * Tool results under the calls they answer: in a list of rows (a transcript's entries or
 * items), the results that follow an assistant message and answer its calls, by `toolCallId`,
 * are grouped with it (parallel calls: several calls in one message, their results after it
 * in any order). A result that does not follow its call stays a row of its own. Use
 * {@link groupResults} where a page shows a result inside its call; the text views head a
 * result with its call instead (`callArgument`).
 */
import { type AnyEntry, isObject } from "@pi-session/format";
import type { DocumentItem } from "./shapes.js";

/** What grouping needs of a row: the calls it makes (an assistant message) or the call it answers. */
export interface CallRole {
  calls?: readonly string[];
  answers?: string;
}

/** A row with the results grouped under it (none for most rows). */
export interface RowGroup<Row> {
  row: Row;
  results: Row[];
}

/**
 * Groups `rows`: each run of results right after an assistant row that answer its calls (each
 * call once) goes under that row; everything else stays in order as rows of their own.
 */
export function groupResults<Row>(rows: readonly Row[], roleOf: (row: Row) => CallRole): RowGroup<Row>[] {
  const groups: RowGroup<Row>[] = [];
  let open: { group: RowGroup<Row>; waiting: Set<string> } | undefined;
  for (const row of rows) {
    const role = roleOf(row);
    if (open !== undefined && role.answers !== undefined && open.waiting.has(role.answers)) {
      open.waiting.delete(role.answers);
      open.group.results.push(row);
      continue;
    }
    const group: RowGroup<Row> = { row, results: [] };
    groups.push(group);
    open =
      role.calls !== undefined && role.calls.length > 0 ? { group, waiting: new Set(role.calls) } : undefined;
  }
  return groups;
}

/** The call role of an entry: an assistant message's call ids, or the call a tool result answers. */
export function callRoleOfEntry(entry: AnyEntry): CallRole {
  if (entry.type !== "message") return {};
  const message = (entry as { message?: unknown }).message;
  if (!isObject(message)) return {};
  if (message.role === "toolResult")
    return typeof message.toolCallId === "string" ? { answers: message.toolCallId } : {};
  if (message.role !== "assistant" || !Array.isArray(message.content)) return {};
  const calls: string[] = [];
  for (const block of message.content)
    if (isObject(block) && block.type === "toolCall" && typeof block.id === "string" && block.id !== "")
      calls.push(block.id);
  return { calls };
}

/** The call role of a document item. */
export function callRoleOfItem(item: DocumentItem): CallRole {
  if (item.kind === "toolResult") return item.toolCallId ? { answers: item.toolCallId } : {};
  if (item.kind !== "assistant") return {};
  const calls: string[] = [];
  for (const block of item.blocks) if (block.type === "toolCall" && block.id !== "") calls.push(block.id);
  return { calls };
}
