/**
 * The element of one item of the transcript: the shared item element (`src/dom/item.ts`) with
 * the page's own parts: its branch switch, position, selection, nesting and the search's
 * matches marked.
 */
import type { DocumentItem } from "../src/model/shapes.js";
import { localTime } from "../src/readable.js";
import { siblingsOf } from "../src/tree-layout.js";
import type { BlockOptions } from "../src/dom/blocks.js";
import { h, shown } from "../src/dom/elements.js";
import { itemEl as sharedItemEl } from "../src/dom/item.js";
import { settings } from "./data.js";
import { indent } from "./indentation.js";
import { actions, layout, state } from "./state.js";

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

export function itemEl(item: DocumentItem, pos: number, options: BlockOptions): HTMLElement {
  const el = sharedItemEl(item, {
    ...options,
    isLeaf: item.id !== undefined && item.id === settings.leafId && state.view !== "context",
    extra: state.view !== "context" ? branchSwitch(pos, item) : null,
    time: localTime,
    idEl: (id) => h("span", { class: "entry-id", text: shown(id) }),
  });
  if (pos >= 0) el.dataset.pos = String(pos);
  if (pos === state.selected) el.classList.add("selected");
  const nesting = state.view === "all-branches" && pos >= 0 ? (indent[pos] ?? 0) : 0;
  if (nesting > 0) {
    el.classList.add("nested");
    el.style.marginLeft = `${Math.min(nesting, 12) * 16}px`;
  }
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
