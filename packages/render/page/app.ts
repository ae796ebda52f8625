/**
 * The exported page's viewer. It reads the session embedded in the page (a JSON script
 * element), builds the tree index with the same code the package uses in Node, and shows:
 * the tree (virtualized rows, pi's filters, labels, the leaf), the transcript of the selected
 * branch, every branch, or the context the model is sent, rendered incrementally around what
 * is on screen; search within the page; light and dark.
 *
 * Nothing from the session is parsed as HTML: elements are made with createElement and text
 * is set as text (dom.ts). The page's Content-Security-Policy allows this script by hash
 * only, no network and Trusted Types for none, so innerHTML would throw anyway.
 */
import type { AnyEntry, SessionHeader } from "@pi-session/format";
import {
  ENTRIES_ID,
  FIRST_SCREEN_ID,
  FIRST_SCREEN_ITEMS,
  type PageEntries,
  type PageFirstScreen,
} from "../src/page-data.js";
import {
  isToolOnlyAssistant,
  type TreeFilter,
  TREE_FILTERS,
  searchText,
  searchTokens,
  transcriptFilterPasses,
  treeFilterPasses,
} from "../src/filters.js";
import { imageDataUrl, imageProblem, decodedSize } from "../src/images.js";
import { buildDocument, treeItem } from "../src/model/document.js";
import type { Block, DocumentItem, ViewKind } from "../src/model/shapes.js";
import { collectToolCalls } from "../src/model/tool-calls.js";
import { createRenderSession, type RenderSession } from "../src/source.js";
import { entrySummary } from "../src/summary.js";
import { layoutTree, siblingsOf, type TreeLayout } from "../src/tree-layout.js";
import { formatInt, formatSize, localTime } from "../src/readable.js";
import { type Child, h, shown } from "./dom.js";
import { codeBlock, markdown } from "./markdown.js";

/** Items rendered at first, and per step when scrolling near either end. */
const FIRST_BATCH = FIRST_SCREEN_ITEMS;
const BATCH = 80;
/** Tree row height in px (must match `--row-height` in the page's style). */
const ROW_HEIGHT = 24;
/** Output lines shown before "show all". */
const OUTPUT_PREVIEW_LINES = 400;
/** Outputs with at most this many lines start open. */
const OPEN_OUTPUT_LINES = 12;

// ---------------------------------------------------------------------------------------
// Data

function readJson<T>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`no ${id} element in this page`);
  const value = JSON.parse(el.textContent ?? "null") as T;
  // The text node can be hundreds of megabytes; the parsed value is all the page needs.
  el.remove();
  return value;
}

performance.mark("pi-session:start");
const first = readJson<PageFirstScreen>(FIRST_SCREEN_ID);
const settings = first.settings;

// Assigned when the whole page has been parsed (boot); the first screen needs none of them.
let ready = false;
let session: RenderSession;
let index: RenderSession["index"];
let entries: readonly AnyEntry[] = [];
let layout: TreeLayout;
let toolCalls: ReturnType<typeof collectToolCalls>;
let sessionLeaf = -1;

function positionOfId(id: string | null | undefined): number {
  if (id === null || id === undefined) return -1;
  const entry = index.get(id);
  return entry === undefined ? -1 : (layout.positionOf(entry) ?? -1);
}

function idAt(pos: number): string {
  return (entries[pos] as AnyEntry).id;
}

function labelAt(pos: number): string | undefined {
  return index.getLabel(idAt(pos));
}

// ---------------------------------------------------------------------------------------
// State

const state = {
  view: settings.initial.view,
  /** Position of the leaf of the shown branch, -1 for none (set at boot). */
  leaf: -1,
  filter: (TREE_FILTERS as readonly string[]).includes(settings.initial.filter)
    ? settings.initial.filter
    : "default",
  tokens: [] as string[],
  /** Positions matching the search, in tree order. */
  matches: [] as number[],
  matchCursor: -1,
  /** The entry last selected (highlighted in tree and transcript). */
  selected: -1,
};

// ---------------------------------------------------------------------------------------
// Items

const itemCache = new Map<number, DocumentItem>();

function itemAt(pos: number): DocumentItem {
  let item = itemCache.get(pos);
  if (item === undefined) {
    item = treeItem(session, layout, pos, toolCalls);
    itemCache.set(pos, item);
  }
  return item;
}

/** Is `ancestor` on the path from the root to `pos` (itself included)? */
function isAncestor(ancestor: number, pos: number): boolean {
  for (let p = pos; p !== -1; p = layout.parent[p] as number) if (p === ancestor) return true;
  return false;
}

/** The leaf shown when `pos` is selected: the current branch's, the session's, or the newest below. */
function leafFor(pos: number): number {
  if (state.leaf !== -1 && isAncestor(pos, state.leaf)) return state.leaf;
  if (sessionLeaf !== -1 && isAncestor(pos, sessionLeaf)) return sessionLeaf;
  let cur = pos;
  for (;;) {
    const kids = layout.children[cur] as readonly number[];
    if (kids.length === 0) return cur;
    cur = kids[kids.length - 1] as number;
  }
}

/** Positions root..leaf of the shown branch (pi's path: duplicates and cycles handled by the index). */
function branchPositions(): number[] {
  if (state.leaf === -1) return [];
  const path = index.pathTo(idAt(state.leaf));
  const out: number[] = [];
  for (const entry of path) {
    const pos = layout.positionOf(entry);
    if (pos !== undefined) out.push(pos);
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Layout

const app = document.getElementById("app") as HTMLElement;
const header = settings.header as (SessionHeader & Record<string, unknown>) | null;

const viewButtons: Record<ViewKind, HTMLButtonElement> = {
  branch: h("button", { class: "seg", text: "Branch", attrs: { type: "button", "data-view": "branch" } }),
  "all-branches": h("button", {
    class: "seg",
    text: "All branches",
    attrs: { type: "button", "data-view": "all-branches" },
  }),
  context: h("button", { class: "seg", text: "Context", attrs: { type: "button", "data-view": "context" } }),
};
const FILTER_LABELS: Record<TreeFilter, string> = {
  default: "Default",
  "no-tools": "No tools",
  "user-only": "User only",
  "labeled-only": "Labeled only",
  all: "All",
};
const filterSelect = h(
  "select",
  { class: "filter", title: "pi's /tree filters", attrs: { "aria-label": "Filter" } },
  TREE_FILTERS.map((f) => h("option", { text: FILTER_LABELS[f], attrs: { value: f } })),
);
filterSelect.value = state.filter;
const searchInput = h("input", {
  class: "search",
  attrs: {
    type: "search",
    placeholder: "Search (/)",
    "aria-label": "Search",
    autocomplete: "off",
    spellcheck: "false",
  },
});
const searchCount = h("span", { class: "search-count", attrs: { "aria-live": "polite" } });
const prevMatch = h("button", {
  class: "icon",
  text: "↑",
  title: "Previous match (Shift+Enter)",
  attrs: { type: "button" },
});
const nextMatch = h("button", {
  class: "icon",
  text: "↓",
  title: "Next match (Enter)",
  attrs: { type: "button" },
});
const themeButton = h("button", { class: "theme", attrs: { type: "button" } });
const treeToggle = h("button", {
  class: "tree-toggle",
  text: "Tree",
  attrs: { type: "button", "aria-expanded": "false" },
});

const titleText = settings.title;
const facts: string[] = [];
if (header?.id) facts.push(String(header.id));
if (typeof header?.cwd === "string" && header.cwd) facts.push(header.cwd);
if (typeof header?.timestamp === "string") facts.push(`created ${localTime(header.timestamp)}`);
facts.push(`${formatInt(settings.entryCount)} entries`);
if (settings.formatVersion !== 3) facts.push(`v${settings.formatVersion} file, shown as v3`);

const redaction = settings.redaction;
const redactionNote = redaction
  ? h("p", {
      class: "redaction",
      text:
        redaction.total === 0
          ? "Redacted for sharing: nothing found to remove."
          : `Redacted for sharing: ${Object.entries(redaction.counts)
              .map(([kind, n]) => `${kind} ${formatInt(n)}`)
              .join(", ")}.`,
    })
  : null;

const topbar = h("header", { class: "topbar" }, [
  h("div", { class: "heading" }, [
    h("h1", { text: shown(titleText) }),
    h("p", { class: "facts", text: shown(facts.join(" · ")) }),
    redactionNote,
  ]),
  h("div", { class: "controls" }, [
    treeToggle,
    h(
      "div",
      { class: "segmented", attrs: { role: "group", "aria-label": "View" } },
      Object.values(viewButtons),
    ),
    filterSelect,
    h("div", { class: "search-box" }, [searchInput, searchCount, prevMatch, nextMatch]),
    themeButton,
  ]),
]);

const treeScroll = h("div", { class: "tree-scroll", attrs: { tabindex: "0" } });
const treeSpace = h("div", { class: "tree-space" });
treeScroll.append(treeSpace);
const treeCount = h("span", { class: "tree-count" });
const treeClose = h("button", { class: "tree-close", text: "Close", attrs: { type: "button" } });
const treeHead = h("div", { class: "tree-head" }, [treeCount, treeClose]);
const sidebar = h("nav", { class: "sidebar", attrs: { "aria-label": "Session tree" } }, [
  treeHead,
  treeScroll,
]);

const statusLine = h("div", { class: "status" });
const earlier = h("button", { class: "more earlier", attrs: { type: "button" } });
const later = h("button", { class: "more later", attrs: { type: "button" } });
const showAll = h("button", { class: "more all", attrs: { type: "button" } });
const jumpEnd = h("button", { class: "more jump", text: "Jump to the end", attrs: { type: "button" } });
const itemsEl = h("div", { class: "items" });
const transcript = h("main", { class: "transcript", attrs: { id: "transcript" } }, [
  statusLine,
  earlier,
  itemsEl,
  h("div", { class: "more-row" }, [later, showAll, jumpEnd]),
]);

app.append(topbar, h("div", { class: "body" }, [sidebar, transcript]));

// ---------------------------------------------------------------------------------------
// Theme

const THEMES = ["auto", "light", "dark"] as const;
type Theme = (typeof THEMES)[number];

function readTheme(): Theme {
  try {
    const saved = localStorage.getItem("pi-session-theme");
    if (saved === "light" || saved === "dark") return saved;
  } catch {
    // Storage can be unavailable (file:// in some browsers); the theme is then per visit.
  }
  return "auto";
}

const THEME_LABELS: Record<Theme, string> = { auto: "◐ Auto", light: "☀ Light", dark: "☾ Dark" };

function applyTheme(theme: Theme): void {
  if (theme === "auto") delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
  themeButton.textContent = THEME_LABELS[theme];
  themeButton.title =
    theme === "auto" ? "Theme: the system's (click for light)" : `Theme: ${theme} (click to change)`;
  themeButton.dataset.theme = theme;
  try {
    if (theme === "auto") localStorage.removeItem("pi-session-theme");
    else localStorage.setItem("pi-session-theme", theme);
  } catch {
    // See readTheme.
  }
}

let theme = readTheme();
applyTheme(theme);
themeButton.addEventListener("click", () => {
  theme = THEMES[(THEMES.indexOf(theme) + 1) % THEMES.length] as Theme;
  applyTheme(theme);
});

// ---------------------------------------------------------------------------------------
// Blocks

interface RenderOptions {
  hideToolCalls: boolean;
}

function lineCount(text: string): number {
  let n = 1;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n++;
  return text.endsWith("\n") ? n - 1 : n;
}

function firstLines(text: string, lines: number): string {
  let at = -1;
  for (let k = 0; k < lines; k++) {
    at = text.indexOf("\n", at + 1);
    if (at === -1) return text;
  }
  return text.slice(0, at);
}

function details(className: string, summary: Child[], body: Child[], open: boolean): HTMLDetailsElement {
  const el = h("details", { class: className }, [h("summary", {}, summary), ...body]);
  el.open = open;
  return el;
}

function outputEl(text: string, language: string, isError: boolean, title: string): HTMLElement {
  const clean = shown(text);
  if (clean === "") return h("p", { class: "note", text: "(no output)" });
  const lines = lineCount(clean);
  const summary = [
    h("span", { class: "summary-title", text: title }),
    h("span", {
      class: "summary-meta",
      text: `${formatInt(lines)} line${lines === 1 ? "" : "s"} · ${formatSize(clean.length)}`,
    }),
  ];
  const pre = h("pre", { class: "code output-text" });
  const body: Child[] = [pre];
  if (lines > OUTPUT_PREVIEW_LINES) {
    pre.append(codeBlockInner(firstLines(clean, OUTPUT_PREVIEW_LINES), language));
    const more = h("button", {
      class: "more inline",
      text: `Show all ${formatInt(lines)} lines`,
      attrs: { type: "button" },
    });
    more.addEventListener("click", () => {
      pre.replaceChildren(codeBlockInner(clean, language));
      more.remove();
    });
    body.push(more);
  } else pre.append(codeBlockInner(clean, language));
  return details(`output${isError ? " error" : ""}`, summary, body, lines <= OPEN_OUTPUT_LINES);
}

function codeBlockInner(text: string, language: string): Node {
  return (codeBlock(text, language).firstChild as Node) ?? document.createTextNode(text);
}

function imageEl(block: Extract<Block, { type: "image" }>): HTMLElement {
  const problem = imageProblem(block);
  const url = problem === undefined ? imageDataUrl(block) : undefined;
  if (url === undefined) return h("p", { class: "note", text: `(image not shown: ${problem ?? "unknown"})` });
  const img = h("img", {
    class: "image",
    attrs: { alt: `image (${block.mimeType}, ${formatSize(decodedSize(block.data))})` },
  });
  img.loading = "lazy";
  img.decoding = "async";
  img.src = url;
  img.addEventListener("click", () => img.classList.toggle("zoomed"));
  return img;
}

function blockEl(block: Block, item: DocumentItem, options: RenderOptions): HTMLElement | null {
  switch (block.type) {
    case "text":
      if (block.text.trim() === "") return null;
      return block.markdown
        ? markdown(block.text)
        : h("pre", { class: "plain-text", text: shown(block.text) });
    case "thinking": {
      if (block.redacted) return h("p", { class: "note", text: "(redacted thinking)" });
      if (block.text.trim() === "") return null;
      const lines = lineCount(block.text);
      return details(
        "thinking",
        [
          h("span", { class: "summary-title", text: "Thinking" }),
          h("span", { class: "summary-meta", text: `${formatInt(lines)} line${lines === 1 ? "" : "s"}` }),
        ],
        [markdown(block.text)],
        false,
      );
    }
    case "toolCall": {
      if (options.hideToolCalls) return null;
      const head = h("div", { class: "call-head" }, [
        h("span", { class: "call-name", text: `→ ${shown(block.name || "tool")}` }),
        block.summary ? h("code", { class: "call-summary", text: shown(block.summary) }) : null,
      ]);
      const el = h("div", { class: "tool-call" }, [head]);
      if (block.code) {
        const text = shown(block.code.text);
        const lines = lineCount(text);
        if (lines > 20)
          el.append(
            details(
              "call-code",
              [h("span", { class: "summary-meta", text: `${formatInt(lines)} lines` })],
              [codeBlock(text, block.code.language)],
              false,
            ),
          );
        else el.append(codeBlock(text, block.code.language));
      }
      return el;
    }
    case "output":
      return outputEl(
        block.text,
        block.language,
        block.isError,
        item.kind === "bashExecution" ? "output" : block.isError ? "error output" : "output",
      );
    case "image":
      return imageEl(block);
    case "code": {
      const text = shown(block.text);
      const lines = lineCount(text);
      return details(
        "code-details",
        [
          h("span", { class: "summary-title", text: shown(block.caption ?? block.language) }),
          h("span", { class: "summary-meta", text: `${formatInt(lines)} lines` }),
        ],
        [codeBlock(text, block.language)],
        lines <= 6,
      );
    }
    case "note":
      return h("p", {
        class: block.text.startsWith("error:") ? "note error" : "note",
        text: shown(block.text),
      });
  }
}

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
  const k = layout.siblingIndex[pos] as number;
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
  prev.disabled = k === 0;
  next.disabled = k === siblings.length - 1;
  prev.addEventListener("click", () => select(siblings[k - 1] as number, { keepView: true }));
  next.addEventListener("click", () => select(siblings[k + 1] as number, { keepView: true }));
  return h("span", { class: "branch-switch", title: "This is where the conversation branches" }, [
    prev,
    h("span", { class: "branch-pos", text: `branch ${item.branch.index}/${item.branch.count}` }),
    next,
  ]);
}

function itemEl(item: DocumentItem, pos: number, options: RenderOptions): HTMLElement {
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

// ---------------------------------------------------------------------------------------
// Search marks

function markMatches(root: HTMLElement, tokens: readonly string[]): void {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const texts: Text[] = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) texts.push(node as Text);
  for (const node of texts) {
    const value = node.data;
    const lower = value.toLowerCase();
    const ranges: [number, number][] = [];
    for (const token of tokens) {
      for (let at = lower.indexOf(token); at !== -1; at = lower.indexOf(token, at + token.length)) {
        ranges.push([at, at + token.length]);
      }
    }
    if (ranges.length === 0) continue;
    ranges.sort((a, b) => a[0] - b[0]);
    const frag = document.createDocumentFragment();
    let cursor = 0;
    for (const [start, end] of ranges) {
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
    for (let p = mark.parentElement; p && p !== root; p = p.parentElement)
      if (p instanceof HTMLDetailsElement) p.open = true;
  }
}

// ---------------------------------------------------------------------------------------
// Transcript

interface Row {
  /** Entry position, or -1 for a context message without an entry. */
  pos: number;
  item: () => DocumentItem;
}

let rows: Row[] = [];
let windowStart = 0;
let windowEnd = 0;

function filterContext(pos: number) {
  return { labelled: labelAt(pos) !== undefined };
}

function computeRows(): Row[] {
  const filter = state.filter;
  if (state.view === "context") {
    const doc = buildDocument(session, {
      view: "context",
      leafId: state.leaf === -1 ? null : idAt(state.leaf),
    });
    contextInfo = doc.view.kind === "context" ? doc.view : undefined;
    return doc.items.map((item) => ({
      pos: item.id !== undefined ? positionOfId(item.id) : -1,
      item: () => item,
    }));
  }
  const positions: number[] = state.view === "all-branches" ? Array.from(layout.order) : branchPositions();
  const out: Row[] = [];
  for (const pos of positions) {
    if (!transcriptFilterPasses(entries[pos] as AnyEntry, filter, filterContext(pos))) continue;
    out.push({ pos, item: () => itemAt(pos) });
  }
  return out;
}

let contextInfo:
  | { model: { provider: string; modelId: string } | null; thinkingLevel: string; messageCount: number }
  | undefined;

function renderOptions(): RenderOptions {
  return { hideToolCalls: state.filter === "no-tools" };
}

function updateMoreButtons(): void {
  earlier.hidden = windowStart === 0;
  earlier.textContent = `Show ${formatInt(Math.min(BATCH, windowStart))} earlier (${formatInt(windowStart)} above)`;
  const below = rows.length - windowEnd;
  later.hidden = below === 0;
  later.textContent = `Show ${formatInt(Math.min(BATCH, below))} more`;
  showAll.hidden = below === 0;
  showAll.textContent = `Show all ${formatInt(below)}`;
  jumpEnd.hidden = below <= BATCH;
  transcript.dataset.rendered = String(windowEnd - windowStart);
  transcript.dataset.total = String(rows.length);
  transcript.dataset.complete = String(windowStart === 0 && windowEnd === rows.length);
}

function updateStatus(): void {
  const shownCount = formatInt(rows.length);
  let text: string;
  if (state.view === "context") {
    const model = contextInfo?.model ? `${contextInfo.model.provider}/${contextInfo.model.modelId}` : "none";
    const leaf = state.leaf === -1 ? "an empty branch" : idAt(state.leaf);
    text = `Context at ${leaf}: ${formatInt(contextInfo?.messageCount ?? 0)} messages sent to the model · model ${model} · thinking ${contextInfo?.thinkingLevel ?? "off"}`;
  } else if (state.view === "all-branches") {
    text = `Every branch, depth first: ${shownCount} of ${formatInt(entries.length)} entries (filter: ${FILTER_LABELS[state.filter]})`;
  } else {
    const leaf = state.leaf === -1 ? "(none)" : idAt(state.leaf);
    const current = state.leaf === sessionLeaf ? " (the session's leaf)" : "";
    text = `Branch ending at ${leaf}${current}: ${shownCount} entries shown (filter: ${FILTER_LABELS[state.filter]})`;
  }
  statusLine.textContent = text;
  transcript.dataset.view = state.view;
  transcript.dataset.leaf = state.leaf === -1 ? "" : idAt(state.leaf);
  transcript.dataset.filter = state.filter;
}

function appendRange(from: number, to: number, where: "start" | "end"): void {
  const options = renderOptions();
  const frag = document.createDocumentFragment();
  for (let i = from; i < to; i++) {
    const row = rows[i] as Row;
    frag.append(itemEl(row.item(), row.pos, options));
  }
  if (where === "end") itemsEl.append(frag);
  else itemsEl.prepend(frag);
}

/** Re-renders the transcript; with `target`, around that entry, scrolled to it. */
function renderTranscript(target = -1): void {
  rows = computeRows();
  let at = -1;
  if (target !== -1) {
    at = rows.findIndex((row) => row.pos === target);
    // A filtered-out target: the next row after it on the branch.
    if (at === -1) {
      const order = state.view === "all-branches" ? Array.from(layout.order) : branchPositions();
      const k = order.indexOf(target);
      if (k !== -1) {
        const after = new Set(order.slice(k));
        at = rows.findIndex((row) => after.has(row.pos));
      }
    }
  }
  if (at === -1) {
    windowStart = 0;
    windowEnd = Math.min(rows.length, FIRST_BATCH);
  } else {
    windowStart = Math.max(0, at - 10);
    windowEnd = Math.min(rows.length, at + BATCH);
  }
  itemsEl.replaceChildren();
  appendRange(windowStart, windowEnd, "end");
  updateMoreButtons();
  updateStatus();
  if (at !== -1) {
    const el = itemsEl.querySelector(`[data-pos="${(rows[at] as Row).pos}"]`);
    if (el instanceof HTMLElement) scrollToItem(el);
  } else transcript.scrollTop = 0;
}

let settling = 0;

/**
 * Scrolls an item to the top of the transcript and keeps it there while the items above it
 * are laid out for real (they start at an estimated height: content-visibility), a few frames.
 */
function scrollToItem(el: HTMLElement): void {
  const run = ++settling;
  el.scrollIntoView({ block: "start" });
  const offsetNow = () => el.getBoundingClientRect().top - transcript.getBoundingClientRect().top;
  // Where it sits right after scrolling (its scroll margin below the top).
  const wanted = offsetNow();
  let frames = 0;
  const settle = () => {
    if (run !== settling || frames++ > 12) return;
    if (Math.abs(offsetNow() - wanted) > 1) el.scrollIntoView({ block: "start" });
    requestAnimationFrame(settle);
  };
  requestAnimationFrame(settle);
  // A reader who scrolls meanwhile takes over.
  transcript.addEventListener("wheel", () => settling++, { once: true, passive: true });
}

function loadLater(count = BATCH): void {
  if (windowEnd >= rows.length) return;
  const to = Math.min(rows.length, windowEnd + count);
  appendRange(windowEnd, to, "end");
  windowEnd = to;
  updateMoreButtons();
}

function loadEarlier(): void {
  if (windowStart === 0) return;
  const from = Math.max(0, windowStart - BATCH);
  // Keep what is on screen where it is while items are added above it.
  const anchor = itemsEl.firstElementChild as HTMLElement | null;
  const before = anchor ? anchor.getBoundingClientRect().top : 0;
  appendRange(from, windowStart, "start");
  windowStart = from;
  if (anchor) transcript.scrollTop += anchor.getBoundingClientRect().top - before;
  updateMoreButtons();
}

earlier.addEventListener("click", loadEarlier);
later.addEventListener("click", () => loadLater());
showAll.addEventListener("click", () => loadLater(rows.length));
jumpEnd.addEventListener("click", () => {
  windowStart = Math.max(0, rows.length - BATCH);
  windowEnd = rows.length;
  itemsEl.replaceChildren();
  appendRange(windowStart, windowEnd, "end");
  updateMoreButtons();
  transcript.scrollTop = transcript.scrollHeight;
});

// Load more as either end comes near the screen.
const nearEnd = new IntersectionObserver(
  (seen) => {
    if (!ready) return;
    for (const entry of seen) {
      if (!entry.isIntersecting) continue;
      if (entry.target === later) loadLater();
      else if (entry.target === earlier) loadEarlier();
    }
  },
  { root: transcript, rootMargin: "600px 0px" },
);
nearEnd.observe(later);
nearEnd.observe(earlier);

// ---------------------------------------------------------------------------------------
// Tree

/** Indentation per entry: one step more below a branch point, as pi's tree draws it. */
let indent = new Int32Array(0);

/**
 * Indentation per entry. Where the conversation branches, the child the session went on with
 * (the one holding the session's leaf, else the newest) stays in line with its parent and
 * every other child steps in by one: a long session's main line never drifts right, and each
 * side branch nests where it starts.
 */
function computeIndent(): void {
  indent = new Int32Array(entries.length);
  mainChild = new Uint8Array(entries.length);
  const onLeafPath = new Uint8Array(entries.length);
  for (let p = sessionLeaf; p !== -1; p = layout.parent[p] as number) onLeafPath[p] = 1;
  for (let pos = 0; pos < entries.length; pos++) {
    const kids = layout.children[pos] as readonly number[];
    if (kids.length === 0) continue;
    const main = kids.find((kid) => onLeafPath[kid] === 1) ?? (kids[kids.length - 1] as number);
    mainChild[main] = 1;
  }
  for (const pos of layout.order) {
    const parent = layout.parent[pos] as number;
    if (parent === -1) continue;
    indent[pos] = (indent[parent] as number) + (mainChild[pos] ? 0 : 1);
  }
}

let mainChild = new Uint8Array(0);

/** Whether the entry starts a side branch (a child of a branch point the session did not go on with). */
function startsSideBranch(pos: number): boolean {
  return layout.parent[pos] !== -1 && mainChild[pos] === 0;
}

let treeRows: number[] = [];
let onPath = new Uint8Array(0);

function computeTreeRows(): void {
  onPath = new Uint8Array(entries.length);
  if (state.leaf !== -1) for (const pos of branchPositions()) onPath[pos] = 1;
  const out: number[] = [];
  if (state.tokens.length > 0) {
    for (const pos of state.matches) out.push(pos);
  } else {
    for (const pos of layout.order) {
      const entry = entries[pos] as AnyEntry;
      if (
        treeFilterPasses(entry, state.filter, {
          labelled: labelAt(pos) !== undefined,
          isLeaf: pos === state.leaf,
        })
      )
        out.push(pos);
    }
  }
  treeRows = out;
  treeSpace.style.height = `${treeRows.length * ROW_HEIGHT}px`;
  treeCount.textContent =
    state.tokens.length > 0
      ? `${formatInt(treeRows.length)} matching entries`
      : `${formatInt(treeRows.length)} of ${formatInt(entries.length)} entries · ${FILTER_LABELS[state.filter]}`;
}

const KIND_CLASS: Record<string, string> = {
  user: "user",
  assistant: "assistant",
  toolResult: "tool",
  bash: "tool",
  compaction: "summary",
  "branch summary": "summary",
  branchSummary: "summary",
  compactionSummary: "summary",
  custom: "custom",
  "custom message": "custom",
  hookMessage: "custom",
};

const ROW_KIND_LABEL: Record<string, string> = {
  toolResult: "tool",
  branchSummary: "branch summary",
  compactionSummary: "compaction summary",
  hookMessage: "custom",
};

function treeRowEl(pos: number, rowIndex: number): HTMLElement {
  const entry = entries[pos] as AnyEntry;
  const summary = entrySummary(entry, 90);
  const connector = startsSideBranch(pos) ? "↳ " : "";
  const row = h("div", { class: `row kind-${KIND_CLASS[summary.kind] ?? "meta"}` }, [
    h("span", { class: "path-marker", text: onPath[pos] ? "•" : "" }),
    h("span", { class: "connector", text: connector }),
    h("span", { class: "row-kind", text: ROW_KIND_LABEL[summary.kind] ?? summary.kind }),
    h("span", { class: "row-preview", text: summary.preview }),
    labelAt(pos) !== undefined
      ? h("span", { class: "label-badge", text: shown(labelAt(pos) as string) })
      : null,
    pos === sessionLeaf ? h("span", { class: "leaf-badge", text: "leaf" }) : null,
  ]);
  row.dataset.pos = String(pos);
  row.dataset.entryId = entry.id;
  row.style.top = `${rowIndex * ROW_HEIGHT}px`;
  row.style.paddingLeft = `${4 + Math.min(indent[pos] as number, 12) * 14}px`;
  if (onPath[pos]) row.classList.add("on-path");
  if (pos === state.selected) row.classList.add("selected");
  if (isToolOnlyAssistant(entry)) row.classList.add("tool-only");
  row.title = `${entry.id} · ${summary.kind}`;
  return row;
}

let treeFrame = 0;
function renderTreeRows(): void {
  treeFrame = 0;
  const top = treeScroll.scrollTop;
  const height = treeScroll.clientHeight || 600;
  const first = Math.max(0, Math.floor(top / ROW_HEIGHT) - 10);
  const last = Math.min(treeRows.length, Math.ceil((top + height) / ROW_HEIGHT) + 10);
  const frag = document.createDocumentFragment();
  for (let i = first; i < last; i++) frag.append(treeRowEl(treeRows[i] as number, i));
  treeSpace.replaceChildren(frag);
}

function scheduleTree(): void {
  if (ready && treeFrame === 0) treeFrame = requestAnimationFrame(renderTreeRows);
}

treeScroll.addEventListener("scroll", scheduleTree, { passive: true });
window.addEventListener("resize", scheduleTree);
treeSpace.addEventListener("click", (event) => {
  if (!ready) return;
  const row = (event.target as HTMLElement).closest(".row") as HTMLElement | null;
  if (!row) return;
  select(Number(row.dataset.pos), { keepView: true });
  if (document.body.classList.contains("show-tree")) toggleTree(false);
});

function scrollTreeTo(pos: number): void {
  const i = treeRows.indexOf(pos);
  if (i === -1) return;
  const top = i * ROW_HEIGHT;
  if (top < treeScroll.scrollTop || top > treeScroll.scrollTop + treeScroll.clientHeight - ROW_HEIGHT)
    treeScroll.scrollTop = Math.max(0, top - treeScroll.clientHeight / 3);
}

// ---------------------------------------------------------------------------------------
// Selection, views, filters

function select(pos: number, options: { keepView: boolean }): void {
  if (pos < 0 || pos >= entries.length) return;
  state.selected = pos;
  state.leaf = leafFor(pos);
  if (!options.keepView && state.view === "context") state.view = "branch";
  refreshViewButtons();
  computeTreeRows();
  renderTranscript(pos);
  scrollTreeTo(pos);
  renderTreeRows();
}

function refreshViewButtons(): void {
  for (const [view, button] of Object.entries(viewButtons))
    button.setAttribute("aria-pressed", String(view === state.view));
  // The context is what the model is sent: every message of it, whatever the filter.
  const context = state.view === "context";
  filterSelect.disabled = !ready || context;
  filterSelect.title = context
    ? "The context view shows every message sent to the model"
    : "pi's /tree filters";
}

for (const [view, button] of Object.entries(viewButtons)) {
  button.addEventListener("click", () => {
    state.view = view as ViewKind;
    refreshViewButtons();
    renderTranscript(state.selected);
  });
}

filterSelect.addEventListener("change", () => {
  state.filter = filterSelect.value as TreeFilter;
  if (state.tokens.length > 0) runSearch();
  computeTreeRows();
  renderTreeRows();
  renderTranscript(state.selected);
});

function toggleTree(open: boolean): void {
  document.body.classList.toggle("show-tree", open);
  treeToggle.setAttribute("aria-expanded", String(open));
  if (open) scheduleTree();
}
treeToggle.addEventListener("click", () => toggleTree(!document.body.classList.contains("show-tree")));
treeClose.addEventListener("click", () => toggleTree(false));
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && document.body.classList.contains("show-tree")) toggleTree(false);
});

// ---------------------------------------------------------------------------------------
// Search

let searchTexts: (string | undefined)[] | undefined;

function textAt(pos: number): string {
  searchTexts ??= new Array(entries.length);
  let text = searchTexts[pos];
  if (text === undefined) {
    text = searchText(entries[pos] as AnyEntry, labelAt(pos));
    searchTexts[pos] = text;
  }
  return text;
}

function runSearch(): void {
  state.tokens = searchTokens(searchInput.value);
  state.matches = [];
  state.matchCursor = -1;
  if (state.tokens.length > 0) {
    for (const pos of layout.order) {
      if (!transcriptFilterPasses(entries[pos] as AnyEntry, state.filter, filterContext(pos))) continue;
      const text = textAt(pos);
      if (state.tokens.every((token) => text.includes(token))) state.matches.push(pos);
    }
  }
  updateSearchCount();
}

function updateSearchCount(): void {
  if (state.tokens.length === 0) searchCount.textContent = "";
  else if (state.matches.length === 0) searchCount.textContent = "no matches";
  else
    searchCount.textContent =
      state.matchCursor === -1
        ? `${formatInt(state.matches.length)} matches`
        : `${formatInt(state.matchCursor + 1)} of ${formatInt(state.matches.length)}`;
  searchCount.dataset.matches = String(state.matches.length);
}

function stepMatch(delta: number): void {
  if (state.matches.length === 0) return;
  const n = state.matches.length;
  state.matchCursor =
    state.matchCursor === -1 ? (delta > 0 ? 0 : n - 1) : (state.matchCursor + delta + n) % n;
  updateSearchCount();
  select(state.matches[state.matchCursor] as number, { keepView: false });
}

let searchTimer = 0;
searchInput.addEventListener("input", () => {
  clearTimeout(searchTimer);
  searchTimer = window.setTimeout(() => {
    runSearch();
    computeTreeRows();
    treeScroll.scrollTop = 0;
    renderTreeRows();
    renderTranscript(state.selected);
  }, 150);
});
searchInput.addEventListener("keydown", (event) => {
  if (event.key === "Enter") {
    event.preventDefault();
    clearTimeout(searchTimer);
    const wanted = searchTokens(searchInput.value).join(" ");
    if (wanted !== state.tokens.join(" ")) {
      runSearch();
      computeTreeRows();
      renderTreeRows();
    }
    stepMatch(event.shiftKey ? -1 : 1);
  } else if (event.key === "Escape") {
    searchInput.value = "";
    runSearch();
    computeTreeRows();
    renderTreeRows();
    renderTranscript(state.selected);
  }
});
prevMatch.addEventListener("click", () => stepMatch(-1));
nextMatch.addEventListener("click", () => stepMatch(1));
document.addEventListener("keydown", (event) => {
  if (ready && event.key === "/" && document.activeElement !== searchInput) {
    event.preventDefault();
    searchInput.focus();
  }
});

// ---------------------------------------------------------------------------------------
// Start: the first screen now, everything else once the page is parsed

const controls: (HTMLButtonElement | HTMLSelectElement | HTMLInputElement)[] = [
  ...Object.values(viewButtons),
  filterSelect,
  searchInput,
  prevMatch,
  nextMatch,
];

function renderFirstScreen(): void {
  for (const control of controls) control.disabled = true;
  rows = first.items.map((item) => ({ pos: -1, item: () => item }));
  windowStart = 0;
  windowEnd = rows.length;
  appendRange(0, rows.length, "end");
  refreshViewButtons();
  if (first.context) contextInfo = first.context;
  statusLine.textContent = `Loading ${formatInt(settings.entryCount)} entries…`;
  treeCount.textContent = `Loading ${formatInt(settings.entryCount)} entries…`;
  earlier.hidden = true;
  later.hidden = first.rows <= rows.length;
  later.textContent = `${formatInt(first.rows - rows.length)} more after loading`;
  later.disabled = true;
  showAll.hidden = true;
  jumpEnd.hidden = true;
}

/** The entry of the first item on screen and how far below the top it starts. */
function readingPlace(): { pos: number; offset: number } | undefined {
  if (transcript.scrollTop === 0) return undefined;
  const top = transcript.getBoundingClientRect().top;
  for (const el of itemsEl.children) {
    const rect = el.getBoundingClientRect();
    if (rect.bottom <= top) continue;
    const id = (el as HTMLElement).dataset.entryId;
    const pos = id === undefined ? -1 : positionOfId(id);
    return pos === -1 ? undefined : { pos, offset: rect.top - top };
  }
  return undefined;
}

function boot(): void {
  const data = readJson<PageEntries>(ENTRIES_ID);
  performance.mark("pi-session:parsed");
  session = createRenderSession({
    header: settings.header ?? undefined,
    entries: data.entries,
    formatVersion: settings.formatVersion,
  });
  index = session.index;
  entries = index.entries;
  layout = layoutTree(index);
  toolCalls = collectToolCalls(entries);
  sessionLeaf = entries.length - 1;
  const initialLeaf = settings.initial.leafId;
  state.leaf = initialLeaf === null ? -1 : positionOfId(initialLeaf);
  if (state.leaf === -1 && initialLeaf !== null) state.leaf = sessionLeaf;
  computeIndent();
  performance.mark("pi-session:indexed");
  ready = true;
  for (const control of controls) control.disabled = false;
  later.disabled = false;
  refreshViewButtons();
  const place = readingPlace();
  renderTranscript(place?.pos ?? -1);
  if (place) transcript.scrollTop -= place.offset;
  computeTreeRows();
  renderTreeRows();
  scrollTreeTo(state.leaf);
  document.documentElement.dataset.ready = "true";
  performance.mark("pi-session:rendered");
}

renderFirstScreen();
performance.mark("pi-session:first-screen");
if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot, { once: true });
else boot();
