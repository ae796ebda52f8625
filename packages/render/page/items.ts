/**
 * The element of one item of the transcript: its heading (kind, title, details, label, leaf,
 * branch switch, time, id) and its blocks, with the search's matches marked.
 */
import type { DocumentItem } from "../src/model/shapes.js";
import { localTime } from "../src/readable.js";
import { siblingsOf } from "../src/tree-layout.js";
import { type RenderOptions, blockEl } from "./blocks.js";
import { settings } from "./data.js";
import { h, shown } from "./dom.js";
import { indent } from "./indentation.js";
import { actions, layout, state } from "./state.js";

const KIND_LABEL: Record<string, string> = {
  user: "user",
  assistant: "assistant",
  toolResult: "tool result",
  bashExecution: "bash",
  custom: "custom",
  customMessage: "custom message",
  branchSummary: "branch summary",
  branchSummaryEntry: "branch summary",
  compactionSummary: "compaction summary",
  compaction: "compaction",
  system: "system",
  modelChange: "model",
  thinkingLevelChange: "thinking level",
  label: "label",
  sessionInfo: "name",
  customEntry: "extension data",
  usage: "usage",
  contextEdit: "context edit",
  unknownRole: "message",
  unknownEntry: "entry",
};

/** A detail as shown in a heading: bare for model, tokens and cost, else `name value`. */
function detailText(detail: { name: string; value: string }): string {
  return detail.name === "model" ||
    detail.name === "tokens" ||
    detail.name === "cost" ||
    detail.name === "level"
    ? detail.value
    : `${detail.name} ${detail.value}`;
}

function titleOf(item: DocumentItem): string {
  switch (item.kind) {
    case "toolResult":
      return `← ${item.toolName || "tool"}`;
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

function branchSwitch(pos: number, item: DocumentItem): HTMLElement | null {
  if (!item.branch || pos < 0) return null;
  const siblings = siblingsOf(layout, pos);
  const siblingIndex = layout.siblingIndex[pos] as number;
  const prev = h("button", {
    class: "icon",
    text: "◀",
    title: "Previous branch",
    attrs: { type: "button", "data-branch": "prev" },
  });
  const next = h("button", {
    class: "icon",
    text: "▶",
    title: "Next branch",
    attrs: { type: "button", "data-branch": "next" },
  });
  prev.disabled = siblingIndex === 0;
  next.disabled = siblingIndex === siblings.length - 1;
  prev.addEventListener("click", () =>
    actions.select(siblings[siblingIndex - 1] as number, { keepView: true }),
  );
  next.addEventListener("click", () =>
    actions.select(siblings[siblingIndex + 1] as number, { keepView: true }),
  );
  return h("span", { class: "branch-switch", title: "This is where the conversation branches" }, [
    prev,
    h("span", { class: "branch-pos", text: `branch ${item.branch.index}/${item.branch.count}` }),
    next,
  ]);
}

export function itemEl(item: DocumentItem, pos: number, options: RenderOptions): HTMLElement {
  const el = h("article", {
    class: `item kind-${item.kind}${item.isError ? " is-error" : ""}${item.conversational ? "" : " bookkeeping"}`,
  });
  el.dataset.kind = item.kind;
  if (item.id !== undefined) el.dataset.entryId = item.id;
  if (pos >= 0) el.dataset.pos = String(pos);
  if (pos === state.selected) el.classList.add("selected");
  const nesting = state.view === "all-branches" && pos >= 0 ? (indent[pos] ?? 0) : 0;
  if (nesting > 0) {
    el.classList.add("nested");
    el.style.marginLeft = `${Math.min(nesting, 12) * 16}px`;
  }
  const head = h("div", { class: "item-head" }, [
    h("span", { class: "kind", text: KIND_LABEL[item.kind] ?? item.kind }),
    titleOf(item) ? h("span", { class: "title", text: shown(titleOf(item)) }) : null,
    item.details.length > 0
      ? h("span", { class: "details", text: shown(item.details.map(detailText).join(" · ")) })
      : null,
    item.label !== undefined
      ? h("span", { class: "label-badge", title: "label", text: shown(item.label) })
      : null,
    item.id !== undefined && item.id === settings.leafId && state.view !== "context"
      ? h("span", { class: "leaf-badge", text: "leaf" })
      : null,
    h("span", { class: "spacer" }),
    state.view !== "context" ? branchSwitch(pos, item) : null,
    item.timestamp !== undefined
      ? h("time", { text: localTime(item.timestamp), attrs: { datetime: item.timestamp } })
      : null,
    item.id !== undefined ? h("span", { class: "entry-id", text: shown(item.id) }) : null,
  ]);
  el.append(head);
  const body = h("div", { class: "item-body" });
  for (const block of item.blocks) {
    const child = blockEl(block, item, options);
    if (child) body.append(child);
  }
  if (body.childNodes.length > 0) el.append(body);
  if (state.tokens.length > 0) markMatches(el, state.tokens);
  return el;
}

/** Marks each match of the search tokens in the text of `root`, and opens what hides one. */
function markMatches(root: HTMLElement, tokens: readonly string[]): void {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const texts: Text[] = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) texts.push(node as Text);
  for (const node of texts) {
    const value = node.data;
    const lower = value.toLowerCase();
    const ranges: { start: number; end: number }[] = [];
    for (const token of tokens) {
      for (let at = lower.indexOf(token); at !== -1; at = lower.indexOf(token, at + token.length)) {
        ranges.push({ start: at, end: at + token.length });
      }
    }
    if (ranges.length === 0) continue;
    ranges.sort((a, b) => a.start - b.start);
    const frag = document.createDocumentFragment();
    let cursor = 0;
    for (const { start, end } of ranges) {
      if (start < cursor) continue;
      if (start > cursor) frag.append(value.slice(cursor, start));
      frag.append(h("mark", { text: value.slice(start, end) }));
      cursor = end;
    }
    if (cursor < value.length) frag.append(value.slice(cursor));
    node.replaceWith(frag);
  }
  // Open what hides a match.
  for (const mark of root.querySelectorAll("mark")) {
    for (let parent = mark.parentElement; parent && parent !== root; parent = parent.parentElement)
      if (parent instanceof HTMLDetailsElement) parent.open = true;
  }
}
