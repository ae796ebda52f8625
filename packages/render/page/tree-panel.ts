/**
 * The tree panel: one row per entry that passes pi's /tree filter (or matches the search), in
 * tree order, virtualized (only the rows on screen exist), with the shown branch marked, the
 * selection, labels and the leaf. A click on a row selects its entry.
 */
import type { AnyEntry } from "@pi-session/format";
import { isToolOnlyAssistant, treeFilterPasses } from "../src/filters.js";
import { formatInt } from "../src/readable.js";
import { entrySummary } from "../src/summary.js";
import { h, shown } from "../src/dom/elements.js";
import { FILTER_LABELS, treeClose, treeCount, treeScroll, treeSpace, treeToggle } from "./elements.js";
import { indent, startsSideBranch } from "./indentation.js";
import {
  NONE,
  actions,
  branchPositions,
  entries,
  labelAt,
  layout,
  ready,
  sessionLeaf,
  state,
  toolCalls,
} from "./state.js";

/** Tree row height in px (must match `--row-height` in the page's style). */
const ROW_HEIGHT = 24;
/** Rows rendered beyond each edge of the screen. */
const ROWS_BEYOND_SCREEN = 10;
/** Characters of an entry's preview in its row. */
const PREVIEW_CHARS = 90;

/** Positions of the rows, in order. */
let treeRows: number[] = [];
/** Per position: 1 on the shown branch. */
let onPath = new Uint8Array(0);

export function computeTreeRows(): void {
  onPath = new Uint8Array(entries.length);
  if (state.leaf !== NONE) for (const pos of branchPositions()) onPath[pos] = 1;
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

function treeRowEl(pos: number, rowIndex: number): HTMLElement {
  const entry = entries[pos] as AnyEntry;
  const summary = entrySummary(entry, PREVIEW_CHARS, toolCalls);
  const connector = startsSideBranch(pos) ? "↳ " : "";
  const row = h("div", { class: `tree-row kind-${summary.tone}` }, [
    h("span", { class: "path-marker", text: onPath[pos] ? "•" : "" }),
    h("span", { class: "connector", text: connector }),
    h("span", { class: "row-kind", text: summary.label }),
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
  if (pos === state.inView) row.classList.add("in-view");
  if (isToolOnlyAssistant(entry)) row.classList.add("tool-only");
  row.title = `${entry.id} · ${summary.kind}`;
  return row;
}

let treeFrame = 0;
export function renderTreeRows(): void {
  treeFrame = 0;
  const top = treeScroll.scrollTop;
  const height = treeScroll.clientHeight || 600;
  const first = Math.max(0, Math.floor(top / ROW_HEIGHT) - ROWS_BEYOND_SCREEN);
  const last = Math.min(treeRows.length, Math.ceil((top + height) / ROW_HEIGHT) + ROWS_BEYOND_SCREEN);
  const frag = document.createDocumentFragment();
  for (let i = first; i < last; i++) frag.append(treeRowEl(treeRows[i] as number, i));
  treeSpace.replaceChildren(frag);
}

function scheduleTree(): void {
  if (ready && treeFrame === 0) treeFrame = requestAnimationFrame(renderTreeRows);
}

/** Scrolling and resizing re-render the rows; a click on a row selects its entry. */
export function wireTree(): void {
  treeScroll.addEventListener("scroll", scheduleTree, { passive: true });
  window.addEventListener("resize", scheduleTree);
  treeSpace.addEventListener("click", (event) => {
    if (!ready) return;
    const row = (event.target as HTMLElement).closest(".tree-row") as HTMLElement | null;
    if (!row) return;
    actions.select(Number(row.dataset.pos), { keepView: true });
    if (document.body.classList.contains("show-tree")) toggleTree(false);
  });
  treeToggle.addEventListener("click", () => toggleTree(!document.body.classList.contains("show-tree")));
  treeClose.addEventListener("click", () => toggleTree(false));
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && document.body.classList.contains("show-tree")) toggleTree(false);
  });
}

/** Opens or closes the tree drawer (narrow screens). */
function toggleTree(open: boolean): void {
  document.body.classList.toggle("show-tree", open);
  treeToggle.setAttribute("aria-expanded", String(open));
  if (open) scheduleTree();
}

/** Marks the entry at the top of the transcript in the tree, scrolled into view if it is not. */
export function followInTree(pos: number): void {
  if (pos === state.inView) return;
  state.inView = pos;
  for (const row of treeSpace.querySelectorAll<HTMLElement>(".tree-row"))
    row.classList.toggle("in-view", Number(row.dataset.pos) === pos);
  scrollTreeTo(pos);
}

export function scrollTreeTo(pos: number): void {
  const i = treeRows.indexOf(pos);
  if (i === -1) return;
  const top = i * ROW_HEIGHT;
  if (top < treeScroll.scrollTop || top > treeScroll.scrollTop + treeScroll.clientHeight - ROW_HEIGHT)
    treeScroll.scrollTop = Math.max(0, top - treeScroll.clientHeight / 3);
}
