/**
 * The transcript: the rows of the current view (a branch, every branch, or the context at the
 * leaf) under the current filter, rendered in a window that grows as the reader scrolls toward
 * either end, and the status line above them. The first screen is rendered from the embedded
 * items before the session is loaded.
 */
import type { AnyEntry } from "@pi-session/format";
import { transcriptFilterPasses } from "../src/filters.js";
import { callRoleOfEntry, callRoleOfItem, groupResults } from "../src/model/call-results.js";
import { buildDocument } from "../src/model/document.js";
import type { DocumentItem } from "../src/model/shapes.js";
import { FIRST_SCREEN_ITEMS, type PageFirstScreen } from "../src/page-data.js";
import { formatInt } from "../src/readable.js";
import type { BlockOptions } from "../src/dom/blocks.js";
import { ItemWindow } from "../src/dom/item-window.js";
import { first, settings } from "./data.js";
import {
  FILTER_LABELS,
  earlier,
  itemsEl,
  jumpEnd,
  later,
  showAll,
  statusLine,
  transcript,
  treeCount,
} from "./elements.js";
import { itemEl } from "./items.js";
import {
  NONE,
  branchPositions,
  entries,
  filterContext,
  idAt,
  itemAt,
  layout,
  positionOfId,
  ready,
  session,
  sessionLeaf,
  state,
} from "./state.js";

/** Items rendered at first, and per step when scrolling near either end. */
const FIRST_BATCH = FIRST_SCREEN_ITEMS;
const BATCH = 80;
/** Rows kept above an entry the transcript is rendered around. */
const ROWS_ABOVE_TARGET = 10;

export interface Row {
  /** Entry position, or NONE for a context message without an entry. */
  pos: number;
  item: () => DocumentItem;
  /** Tool results shown inside this row's calls (the row is an assistant message). */
  results: Row[];
}

/** Rows with the results that answer a row's calls grouped under it (the context view's by item). */
function grouped(flat: Row[], byItem: boolean): Row[] {
  return groupResults(flat, (row) =>
    byItem || row.pos < 0 ? callRoleOfItem(row.item()) : callRoleOfEntry(entries[row.pos] as AnyEntry),
  ).map((group) => ({ ...group.row, results: group.results }));
}

/** The index of the row that shows entry `pos`, itself or inside its call; -1 for none. */
function rowShowing(pos: number): number {
  return rows.findIndex((row) => row.pos === pos || row.results.some((result) => result.pos === pos));
}

let rows: Row[] = [];
/** The rows rendered: [win.start, win.end), grown a batch at a time. */
const win = new ItemWindow(
  itemsEl,
  transcript,
  { count: () => rows.length, render: appendRange, changed: updateMoreButtons },
  BATCH,
);
/** What the status line says of the context view. */
let contextInfo: PageFirstScreen["context"];

function computeRows(): Row[] {
  const filter = state.filter;
  if (state.view === "context") {
    const doc = buildDocument(session, {
      view: "context",
      leafId: state.leaf === NONE ? null : idAt(state.leaf),
    });
    contextInfo = doc.view.kind === "context" ? doc.view : undefined;
    const flat = doc.items.map((item) => ({
      pos: item.id !== undefined ? positionOfId(item.id) : NONE,
      item: () => item,
      results: [],
    }));
    return grouped(flat, true);
  }
  const positions: number[] = state.view === "all-branches" ? Array.from(layout.order) : branchPositions();
  const out: Row[] = [];
  for (const pos of positions) {
    if (!transcriptFilterPasses(entries[pos] as AnyEntry, filter, filterContext(pos))) continue;
    out.push({ pos, item: () => itemAt(pos), results: [] });
  }
  return grouped(out, false);
}

function renderOptions(): BlockOptions {
  // While searching, folded outputs are built at once so their matches can be marked.
  return { hideToolCalls: state.filter === "no-tools", eager: state.tokens.length > 0 };
}

function updateMoreButtons(): void {
  earlier.hidden = win.start === 0;
  earlier.textContent = `Show ${formatInt(Math.min(BATCH, win.start))} earlier (${formatInt(win.start)} above)`;
  const below = rows.length - win.end;
  later.hidden = below === 0;
  later.textContent = `Show ${formatInt(Math.min(BATCH, below))} more`;
  showAll.hidden = below === 0;
  showAll.textContent = `Show all ${formatInt(below)}`;
  jumpEnd.hidden = below <= BATCH;
  transcript.dataset.rendered = String(win.end - win.start);
  transcript.dataset.total = String(rows.length);
  transcript.dataset.complete = String(win.start === 0 && win.end === rows.length);
}

function updateStatus(): void {
  const shownCount = formatInt(rows.length);
  let text: string;
  if (state.view === "context") {
    const model = contextInfo?.model ? `${contextInfo.model.provider}/${contextInfo.model.modelId}` : "none";
    const leaf = state.leaf === NONE ? "an empty branch" : idAt(state.leaf);
    text = `Context at ${leaf}: ${formatInt(contextInfo?.messageCount ?? 0)} messages sent to the model · model ${model} · thinking ${contextInfo?.thinkingLevel ?? "off"}`;
  } else if (state.view === "all-branches") {
    text = `Every branch, depth first: ${shownCount} of ${formatInt(entries.length)} entries (filter: ${FILTER_LABELS[state.filter]})`;
  } else {
    const leaf = state.leaf === NONE ? "(none)" : idAt(state.leaf);
    const current = state.leaf === sessionLeaf ? " (the session's leaf)" : "";
    text = `Branch ending at ${leaf}${current}: ${shownCount} entries shown (filter: ${FILTER_LABELS[state.filter]})`;
  }
  statusLine.textContent = text;
  transcript.dataset.view = state.view;
  transcript.dataset.leaf = state.leaf === NONE ? "" : idAt(state.leaf);
  transcript.dataset.filter = state.filter;
}

function appendRange(from: number, to: number, where: "start" | "end"): void {
  const options = renderOptions();
  const frag = document.createDocumentFragment();
  for (let i = from; i < to; i++) {
    const row = rows[i] as Row;
    frag.append(itemEl(row, options));
  }
  if (where === "end") itemsEl.append(frag);
  else itemsEl.prepend(frag);
}

/** Re-renders the transcript; with `target`, around that entry, scrolled to it. */
export function renderTranscript(target = NONE): void {
  rows = computeRows();
  let at = -1;
  if (target !== NONE) {
    at = rowShowing(target);
    // A filtered-out target: the next row after it on the branch.
    if (at === -1) {
      const order = state.view === "all-branches" ? Array.from(layout.order) : branchPositions();
      const targetIndex = order.indexOf(target);
      if (targetIndex !== -1) {
        const after = new Set(order.slice(targetIndex));
        at = rows.findIndex((row) => after.has(row.pos));
      }
    }
  }
  if (at === -1) {
    win.start = 0;
    win.end = Math.min(rows.length, FIRST_BATCH);
  } else {
    win.start = Math.max(0, at - ROWS_ABOVE_TARGET);
    win.end = Math.min(rows.length, at + BATCH);
  }
  itemsEl.replaceChildren();
  appendRange(win.start, win.end, "end");
  updateMoreButtons();
  updateStatus();
  if (at !== -1) {
    // The entry itself: a result sits inside its call's row.
    const el =
      itemsEl.querySelector(`[data-pos="${target}"]`) ??
      itemsEl.querySelector(`[data-pos="${(rows[at] as Row).pos}"]`);
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

/** The "more" buttons, and loading more as either end comes near the screen. */
export function wireTranscript(): void {
  earlier.addEventListener("click", () => win.earlier());
  later.addEventListener("click", () => win.later());
  showAll.addEventListener("click", () => win.later(rows.length));
  jumpEnd.addEventListener("click", () => win.showLast());
  const nearEnd = new IntersectionObserver(
    (seen) => {
      if (!ready) return;
      for (const entry of seen) {
        if (!entry.isIntersecting) continue;
        if (entry.target === later) win.later();
        else if (entry.target === earlier) win.earlier();
      }
    },
    { root: transcript, rootMargin: "600px 0px" },
  );
  nearEnd.observe(later);
  nearEnd.observe(earlier);
}

/** The first screen, from the embedded items: shown before the session is loaded. */
export function renderFirstScreen(): void {
  rows = grouped(
    first.items.map((item) => ({ pos: NONE, item: () => item, results: [] })),
    true,
  );
  win.start = 0;
  win.end = rows.length;
  appendRange(0, rows.length, "end");
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
export function readingPlace(): { pos: number; offset: number } | undefined {
  if (transcript.scrollTop === 0) return undefined;
  const top = transcript.getBoundingClientRect().top;
  for (const el of itemsEl.children) {
    const rect = el.getBoundingClientRect();
    if (rect.bottom <= top) continue;
    const id = (el as HTMLElement).dataset.entryId;
    const pos = id === undefined ? NONE : positionOfId(id);
    return pos === NONE ? undefined : { pos, offset: rect.top - top };
  }
  return undefined;
}

/** The "later" button waits for the session while the first screen shows. */
export function enableLater(): void {
  later.disabled = false;
}
