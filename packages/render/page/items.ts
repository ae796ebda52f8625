/**
 * The element of one item of the transcript: the shared item element (`src/dom/item.ts`) with
 * the page's own parts: its branch switch, position, selection, nesting, its id as a link to
 * itself (`#<id>`) with a button that copies that link, the results that answer its calls
 * inside them, and the search's matches marked.
 */
import type { DocumentItem } from "../src/model/shapes.js";
import { localTime } from "../src/readable.js";
import { siblingsOf } from "../src/tree-layout.js";
import type { BlockOptions } from "../src/dom/blocks.js";
import { copyButton } from "../src/dom/copy.js";
import { h, shown } from "../src/dom/elements.js";
import { itemEl as sharedItemEl } from "../src/dom/item.js";
import { settings } from "./data.js";
import { indent } from "./indentation.js";
import { phrasePattern } from "./search-pattern.js";
import { actions, layout, state } from "./state.js";

/** A row of the transcript: an entry's position (or -1), its item, and the results inside its calls. */
export interface ItemRow {
  pos: number;
  item: () => DocumentItem;
  results: ItemRow[];
}

/** The link to an entry of this page: the page's address with `#<id>`. */
export function entryLink(id: string): string {
  return `${location.href.split("#")[0]}#${encodeURIComponent(id)}`;
}

/** An entry's id as a link to itself, and a button that copies the link. */
function idEl(id: string): HTMLElement {
  return h("span", { class: "entry-ref" }, [
    h("a", {
      class: "entry-id",
      text: shown(id),
      title: "Link to this entry",
      attrs: { href: `#${encodeURIComponent(id)}` },
    }),
    copyButton("Link", "Copy a link to this entry", () => entryLink(id)),
  ]);
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

export function itemEl(row: ItemRow, options: BlockOptions): HTMLElement {
  const el = rowEl(row, options);
  if (state.tokens.length > 0) markMatches(el, state.tokens);
  return el;
}

function rowEl(row: ItemRow, options: BlockOptions): HTMLElement {
  const { pos } = row;
  const item = row.item();
  const el = sharedItemEl(item, {
    ...options,
    isLeaf: item.id !== undefined && item.id === settings.leafId && state.view !== "context",
    extra: state.view !== "context" ? branchSwitch(pos, item) : null,
    time: localTime,
    idEl,
    resultsOf: (callId) =>
      row.results
        .filter((result) => result.item().toolCallId === callId)
        .map((result) => {
          const nested = rowEl(result, options);
          nested.classList.add("call-result");
          return nested;
        }),
  });
  if (pos >= 0) el.dataset.pos = String(pos);
  if (pos === state.selected) el.classList.add("selected");
  const nesting = state.view === "all-branches" && pos >= 0 ? (indent[pos] ?? 0) : 0;
  if (nesting > 0) {
    el.classList.add("nested");
    el.style.marginLeft = `${Math.min(nesting, 12) * 16}px`;
  }
  return el;
}

/** Marks each match of the search phrase in the text of `root`, and opens what hides one. */
function markMatches(root: HTMLElement, tokens: readonly string[]): void {
  const pattern = phrasePattern(tokens);
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const texts: Text[] = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) texts.push(node as Text);
  for (const node of texts) {
    const value = node.data;
    pattern.lastIndex = 0;
    let match = pattern.exec(value);
    if (match === null) continue;
    const frag = document.createDocumentFragment();
    let cursor = 0;
    for (; match !== null; match = pattern.exec(value)) {
      if (match[0] === "") break;
      if (match.index > cursor) frag.append(value.slice(cursor, match.index));
      frag.append(h("mark", { text: match[0] }));
      cursor = match.index + match[0].length;
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
