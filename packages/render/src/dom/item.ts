/// <reference lib="dom" preserve="true" />
/**
 * The element of one document item: its heading (kind, title, details, label, leaf, an extra
 * element such as a branch switch, time, id) and its blocks. Use `itemEl` for every item a
 * page shows; the page adds what is its own (position, selection, nesting, search marks).
 */
import { ENTRY_TYPE_INFO, MESSAGE_ROLE_INFO } from "@pi-session/format";
import type { DocumentItem, ItemKind } from "../model/shapes.js";
import { type BlockOptions, blockEl } from "./blocks.js";
import { copyButton } from "./copy.js";
import { h, shown } from "./elements.js";

/** What a heading calls each item kind: format's registry's headings. */
const KIND_LABEL = new Map<ItemKind, string>([
  ...Object.values(MESSAGE_ROLE_INFO).map((role) => [role.item, role.heading] as const),
  ...Object.values(ENTRY_TYPE_INFO).flatMap((type) =>
    type.summary === "role" ? [] : [[type.summary.item, type.summary.heading] as const],
  ),
  ["unknownRole", "message"],
  ["unknownEntry", "entry"],
]);

/** Details shown bare (their value says what they are); others as `name value`. */
const BARE_DETAILS = new Set(["model", "tokens", "cost", "level"]);

function detailText(detail: { name: string; value: string }): string {
  return BARE_DETAILS.has(detail.name) ? detail.value : `${detail.name} ${detail.value}`;
}

function titleOf(item: DocumentItem): string {
  switch (item.kind) {
    case "toolResult":
      return `← ${item.toolName || "tool"}${item.callArgument ? ` ${item.callArgument}` : ""}`;
    case "bashExecution":
    case "custom":
    case "customMessage":
    case "unknownRole":
    case "unknownEntry":
      return item.title;
    case "customEntry":
      return item.title.replace(/ data$/, "");
    default:
      return "";
  }
}

/** What "copy" copies of an item: its text (as written, Markdown included), else its output or code. */
export function copyableText(item: DocumentItem): string {
  const texts: string[] = [];
  for (const block of item.blocks) if (block.type === "text") texts.push(block.text);
  if (texts.length === 0)
    for (const block of item.blocks) {
      if (block.type === "output") texts.push(shown(block.text));
      else if (block.type === "code" || block.type === "note") texts.push(shown(block.text));
      else if (block.type === "toolCall" && block.code) texts.push(shown(block.code.text));
    }
  return texts.join("\n\n");
}

export interface ItemElOptions extends BlockOptions {
  /** Mark the item "leaf" (it is the leaf of the branch shown). */
  isLeaf: boolean;
  /** Put in the heading before the time (a branch switch), if any. */
  extra?: HTMLElement | null;
  /** An ISO time as shown. */
  time(iso: string): string;
  /** The element that shows the item's id (plain text, or a link to the entry). */
  idEl(id: string): HTMLElement;
}

/** `<article class="item kind-…">` with its heading and blocks (`data-kind`, `data-entry-id`). */
export function itemEl(item: DocumentItem, options: ItemElOptions): HTMLElement {
  const el = h("article", {
    class: `item kind-${item.kind}${item.isError ? " is-error" : ""}${item.conversational ? "" : " bookkeeping"}`,
  });
  el.dataset.kind = item.kind;
  if (item.id !== undefined) el.dataset.entryId = item.id;
  const title = titleOf(item);
  el.append(
    h("div", { class: "item-head" }, [
      h("span", { class: "kind", text: KIND_LABEL.get(item.kind) ?? item.kind }),
      title ? h("span", { class: "title", text: shown(title) }) : null,
      item.details.length > 0
        ? h("span", { class: "details", text: shown(item.details.map(detailText).join(" · ")) })
        : null,
      item.label !== undefined
        ? h("span", { class: "label-badge", title: "label", text: shown(item.label) })
        : null,
      options.isLeaf ? h("span", { class: "leaf-badge", text: "leaf" }) : null,
      h("span", { class: "spacer" }),
      options.extra ?? null,
      item.timestamp !== undefined
        ? h("time", { text: options.time(item.timestamp), attrs: { datetime: item.timestamp } })
        : null,
      item.id !== undefined ? options.idEl(item.id) : null,
      item.conversational && copyableText(item) !== ""
        ? copyButton("Copy", "Copy this message", () => copyableText(item))
        : null,
    ]),
  );
  const body = h("div", { class: "item-body" });
  for (const block of item.blocks) {
    const child = blockEl(block, item, options);
    if (child) body.append(child);
  }
  if (body.childNodes.length > 0) el.append(body);
  return el;
}
