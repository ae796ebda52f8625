/**
 * The item of one entry, whatever its type: a message entry's message item, a readable item for
 * every other known type, and the JSON of an entry type this package does not know.
 */
import type { AnyEntry } from "@pi-session/format";
import { isObject } from "@pi-session/format";
import { formatInt } from "../readable.js";
import { displayJson, stringOrEmpty } from "../values.js";
import { contentBlocks, usageDetail } from "./content.js";
import { type ItemHeading, type ItemOptions, itemBase, messageItem } from "./message-item.js";
import type { Block, DocumentItem, ItemDetail, ItemOrigin } from "./shapes.js";

type Obj = Record<string, unknown>;

/** The fields of an entry beyond the common ones, as JSON (for unknown and opaque entries). */
function entryBody(entry: Obj): string {
  const { type: _t, id: _i, parentId: _p, timestamp: _ts, ...rest } = entry;
  return displayJson(rest);
}

/** The item of one entry, whatever its type. */
export function entryItem(entry: AnyEntry, options: ItemOptions & { label?: string } = {}): DocumentItem {
  const e = entry as Obj;
  const origin: ItemOrigin = { entryType: stringOrEmpty(e.type) };
  if (typeof e.id === "string") origin.id = e.id;
  if (typeof e.parentId === "string" || e.parentId === null) origin.parentId = e.parentId as string | null;
  if (typeof e.timestamp === "string") origin.timestamp = e.timestamp;
  if (options.label !== undefined) origin.label = options.label;
  const item = (heading: ItemHeading, details: ItemDetail[], blocks: Block[]) => ({
    ...itemBase(origin, heading),
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
      const blocks: Block[] = [{ type: "text", text: stringOrEmpty(e.summary), markdown: true }];
      const d = isObject(e.details) ? e.details : undefined;
      const files = (key: string) => (d && Array.isArray(d[key]) ? (d[key] as unknown[]).map(String) : []);
      const read = files("readFiles");
      const modified = files("modifiedFiles");
      if (read.length > 0) blocks.push({ type: "note", text: `read: ${read.join(", ")}` });
      if (modified.length > 0) blocks.push({ type: "note", text: `modified: ${modified.join(", ")}` });
      return item({ kind: "compaction", title: "compaction", conversational: true }, details, blocks);
    }
    case "branch_summary": {
      const details: ItemDetail[] = [];
      if (typeof e.fromId === "string") details.push({ name: "from", value: e.fromId });
      if (e.fromHook === true) details.push({ name: "by", value: "extension" });
      const blocks: Block[] = [{ type: "text", text: stringOrEmpty(e.summary), markdown: true }];
      return item(
        { kind: "branchSummaryEntry", title: "branch summary", conversational: true },
        details,
        blocks,
      );
    }
    case "custom_message": {
      const blocks = contentBlocks(e.content, true);
      if (e.display === false) blocks.push({ type: "note", text: "not displayed by pi; sent to the model" });
      if (e.details !== undefined)
        blocks.push({ type: "code", language: "json", text: displayJson(e.details), caption: "details" });
      return item(
        { kind: "customMessage", title: `[${stringOrEmpty(e.customType)}]`, conversational: true },
        [],
        blocks,
      );
    }
    case "model_change":
      return item(
        { kind: "modelChange", title: "model", conversational: false },
        [{ name: "model", value: `${stringOrEmpty(e.provider)}/${stringOrEmpty(e.modelId)}` }],
        [],
      );
    case "thinking_level_change":
      return item(
        { kind: "thinkingLevelChange", title: "thinking level", conversational: false },
        [{ name: "level", value: stringOrEmpty(e.thinkingLevel) }],
        [],
      );
    case "label": {
      const label = typeof e.label === "string" && e.label !== "" ? e.label : undefined;
      return item(
        { kind: "label", title: "label", conversational: false },
        [{ name: "target", value: stringOrEmpty(e.targetId) }],
        [
          {
            type: "note",
            text:
              label === undefined
                ? `label of ${stringOrEmpty(e.targetId)} cleared`
                : `${stringOrEmpty(e.targetId)} labelled "${label}"`,
          },
        ],
      );
    }
    case "session_info": {
      const name = typeof e.name === "string" ? e.name.trim() : "";
      return item(
        { kind: "sessionInfo", title: "session name", conversational: false },
        [],
        [{ type: "note", text: name ? `named "${name}"` : "name cleared" }],
      );
    }
    case "custom": {
      const blocks: Block[] =
        e.data === undefined
          ? []
          : [{ type: "code", language: "json", text: displayJson(e.data), caption: "data" }];
      blocks.push({ type: "note", text: "extension state; not sent to the model" });
      return item(
        { kind: "customEntry", title: `[${stringOrEmpty(e.customType)}] data`, conversational: false },
        [],
        blocks,
      );
    }
    case "usage": {
      const details: ItemDetail[] = [{ name: "kind", value: stringOrEmpty(e.kind) }];
      const model = [stringOrEmpty(e.provider), stringOrEmpty(e.model)].filter(Boolean).join("/");
      if (model) details.push({ name: "model", value: model });
      details.push(...usageDetail(e.usage));
      const blocks: Block[] = stringOrEmpty(e.note) ? [{ type: "note", text: stringOrEmpty(e.note) }] : [];
      return item({ kind: "usage", title: "usage", conversational: false }, details, blocks);
    }
    case "context_edit": {
      const details: ItemDetail[] = [{ name: "target", value: stringOrEmpty(e.targetId) }];
      const replacement = e.replacement;
      let blocks: Block[];
      if (replacement === null) blocks = [{ type: "note", text: "removes the target from the context" }];
      else if (isObject(replacement)) {
        blocks = [{ type: "note", text: "replaces the target's content in the context with:" }];
        blocks.push(...contentBlocks(replacement.content, true));
      } else
        blocks = [
          {
            type: "code",
            language: "json",
            text: displayJson(replacement),
            caption: "malformed replacement",
          },
        ];
      return item({ kind: "contextEdit", title: "context edit", conversational: true }, details, blocks);
    }
    default:
      return item(
        { kind: "unknownEntry", title: stringOrEmpty(e.type) || "entry", conversational: true },
        [],
        [
          {
            type: "code",
            language: "json",
            text: entryBody(e),
            caption: `entry of type ${JSON.stringify(stringOrEmpty(e.type))}`,
          },
        ],
      );
  }
}
