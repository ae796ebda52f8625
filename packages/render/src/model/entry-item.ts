/**
 * The item of one entry, whatever its type: a message entry's message item, a readable item for
 * every other known type (one builder per type of format's registry), and the JSON of an entry
 * type this package does not know.
 */
import {
  type AnyEntry,
  ENTRY_TYPE_INFO,
  isEntryType,
  isObject,
  type SessionEntryType,
} from "@pi-session/format";
import { formatInt } from "../readable.js";
import { displayJson, stringOrEmpty } from "../values.js";
import { contentBlocks, usageDetail } from "./content.js";
import { type ItemOptions, itemBase, messageItem } from "./message-item.js";
import type { Block, DocumentItem, ItemDetail, ItemOrigin } from "./shapes.js";

type Obj = Record<string, unknown>;

/** The fields of an entry beyond the common ones, as JSON (for unknown and opaque entries). */
function entryBody(entry: Obj): string {
  const { type: _t, id: _i, parentId: _p, timestamp: _ts, ...rest } = entry;
  return displayJson(rest);
}

/** Builds the details and blocks of one known entry type's item, and its title when not the heading. */
type ItemBody = (e: Obj) => { details: ItemDetail[]; blocks: Block[]; title?: string };

/**
 * The item of each entry type but `message` (a message entry is its message's item): one
 * builder per type, keyed by format's registry, so a new entry type does not compile until it
 * says how it is shown. Kind, heading and whether it is conversation are the registry's.
 */
const ENTRY_ITEMS: { readonly [T in Exclude<SessionEntryType, "message">]: ItemBody } = {
  compaction: (e) => {
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
    return { details, blocks };
  },
  branch_summary: (e) => {
    const details: ItemDetail[] = [];
    if (typeof e.fromId === "string") details.push({ name: "from", value: e.fromId });
    if (e.fromHook === true) details.push({ name: "by", value: "extension" });
    return { details, blocks: [{ type: "text", text: stringOrEmpty(e.summary), markdown: true }] };
  },
  custom_message: (e) => {
    const blocks = contentBlocks(e.content, true);
    if (e.display === false) blocks.push({ type: "note", text: "not displayed by pi; sent to the model" });
    if (e.details !== undefined)
      blocks.push({ type: "code", language: "json", text: displayJson(e.details), caption: "details" });
    return { details: [], blocks, title: `[${stringOrEmpty(e.customType)}]` };
  },
  model_change: (e) => ({
    details: [{ name: "model", value: `${stringOrEmpty(e.provider)}/${stringOrEmpty(e.modelId)}` }],
    blocks: [],
  }),
  thinking_level_change: (e) => ({
    details: [{ name: "level", value: stringOrEmpty(e.thinkingLevel) }],
    blocks: [],
  }),
  label: (e) => {
    const label = typeof e.label === "string" && e.label !== "" ? e.label : undefined;
    const target = stringOrEmpty(e.targetId);
    const text = label === undefined ? `label of ${target} cleared` : `${target} labelled "${label}"`;
    return { details: [{ name: "target", value: target }], blocks: [{ type: "note", text }] };
  },
  session_info: (e) => {
    const name = typeof e.name === "string" ? e.name.trim() : "";
    return {
      details: [],
      blocks: [{ type: "note", text: name ? `named "${name}"` : "name cleared" }],
      title: "session name",
    };
  },
  custom: (e) => {
    const blocks: Block[] =
      e.data === undefined
        ? []
        : [{ type: "code", language: "json", text: displayJson(e.data), caption: "data" }];
    blocks.push({ type: "note", text: "extension state; not sent to the model" });
    return { details: [], blocks, title: `[${stringOrEmpty(e.customType)}] data` };
  },
  usage: (e) => {
    const details: ItemDetail[] = [{ name: "kind", value: stringOrEmpty(e.kind) }];
    const model = [stringOrEmpty(e.provider), stringOrEmpty(e.model)].filter(Boolean).join("/");
    if (model) details.push({ name: "model", value: model });
    details.push(...usageDetail(e.usage));
    const blocks: Block[] = stringOrEmpty(e.note) ? [{ type: "note", text: stringOrEmpty(e.note) }] : [];
    return { details, blocks };
  },
  context_edit: (e) => {
    const details: ItemDetail[] = [{ name: "target", value: stringOrEmpty(e.targetId) }];
    const replacement = e.replacement;
    if (replacement === null)
      return { details, blocks: [{ type: "note", text: "removes the target from the context" }] };
    if (isObject(replacement))
      return {
        details,
        blocks: [
          { type: "note", text: "replaces the target's content in the context with:" },
          ...contentBlocks(replacement.content, true),
        ],
      };
    return {
      details,
      blocks: [
        { type: "code", language: "json", text: displayJson(replacement), caption: "malformed replacement" },
      ],
    };
  },
};

/** The item of one entry, whatever its type. */
export function entryItem(entry: AnyEntry, options: ItemOptions & { label?: string } = {}): DocumentItem {
  const e = entry as Obj;
  const origin: ItemOrigin = { entryType: stringOrEmpty(e.type) };
  if (typeof e.id === "string") origin.id = e.id;
  if (typeof e.parentId === "string" || e.parentId === null) origin.parentId = e.parentId as string | null;
  if (typeof e.timestamp === "string") origin.timestamp = e.timestamp;
  if (options.label !== undefined) origin.label = options.label;
  const type = e.type;
  if (!isEntryType(type))
    return {
      ...itemBase(origin, {
        kind: "unknownEntry",
        title: stringOrEmpty(e.type) || "entry",
        conversational: true,
      }),
      details: [],
      blocks: [
        {
          type: "code",
          language: "json",
          text: entryBody(e),
          caption: `entry of type ${JSON.stringify(stringOrEmpty(e.type))}`,
        },
      ],
    };
  if (type === "message") return messageItem(e.message, origin, options);
  const { details, blocks, title } = ENTRY_ITEMS[type](e);
  const { summary, conversational } = ENTRY_TYPE_INFO[type];
  return {
    ...itemBase(origin, { kind: summary.item, title: title ?? summary.heading, conversational }),
    details,
    blocks,
  };
}
