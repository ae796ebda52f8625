/**
 * The session view's tree panel: pi's /tree filters over every entry, drawn as virtualized
 * rows (only those in view are elements), each with the path marker, side-branch connector,
 * kind, preview, label and leaf badge; a click picks an entry. In its Compare mode a click marks
 * an entry instead (two at most: the branches ending there), and a link opens the two side by
 * side. Use `treePanel` once per session view; it reads the view's current session through
 * `source` whenever it draws.
 */
import type { AnyEntry } from "@pi-session/format";
import {
  collectToolCalls,
  entrySummary,
  type RenderSession,
  type ToolCallLookup,
  TREE_FILTERS,
  type TreeFilter,
  treeFilterPasses,
  type TreeLayout,
} from "@pi-session/render";
import { formatInt, h, shown } from "./dom.js";

/** Tree row height in px (must match `.tree-row` in the style). */
const ROW_HEIGHT = 26;

const FILTER_LABELS: Record<TreeFilter, string> = {
  default: "Default",
  "no-tools": "No tools",
  "user-only": "User only",
  "labeled-only": "Labeled only",
  all: "All",
};

/** What the panel draws: the session as the view holds it now. */
export interface TreeSource {
  entries: readonly AnyEntry[];
  session: RenderSession | undefined;
  layout: TreeLayout | undefined;
  /** Positions (-1: none) of the session's leaf, the leaf of the branch shown, the selection. */
  sessionLeaf: number;
  leaf: number;
  selected: number;
  indent: Int32Array;
  mainChild: Uint8Array;
}

export interface TreePanelOptions {
  source: () => TreeSource;
  /** An entry's row was clicked. */
  onPick(pos: number, id: string | undefined): void;
  /** The panel's "Close" (a narrow window's drawer). */
  onClose(): void;
  /** Where the compare of the branches ending at two entries is (the compare view's link). */
  compareHref(left: string, right: string): string;
}

export interface TreePanel {
  sidebar: HTMLElement;
  /** The positions shown, in tree order (the filter applied). */
  rows(): readonly number[];
  /** Applies the filter and the branch shown: which rows there are. */
  computeRows(): void;
  /** Draws the rows in view. */
  render(): void;
  /** Draws them at the next frame (once however often asked). */
  schedule(): void;
  /** Scrolls the row of `pos` into view, if it is shown. */
  scrollTo(pos: number): void;
}

export function treePanel(options: TreePanelOptions): TreePanel {
  let filter: TreeFilter = "default";
  let onPath = new Uint8Array(0);
  let treeRows: number[] = [];
  let frame = 0;
  let comparing = false;
  /** The entries marked in Compare mode, oldest first (two at most). */
  let marked: string[] = [];

  const filterSelect = h(
    "select",
    { class: "filter", title: "pi's /tree filters", attrs: { "aria-label": "Tree filter" } },
    TREE_FILTERS.map((f) => h("option", { text: FILTER_LABELS[f], attrs: { value: f } })),
  );
  const treeCount = h("span", { class: "tree-count" });
  const treeScroll = h("div", { class: "tree-scroll", attrs: { tabindex: "0" } });
  const treeSpace = h("div", { class: "tree-space" });
  treeScroll.append(treeSpace);
  const treeClose = h("button", {
    class: "tree-close",
    text: "Close",
    attrs: { type: "button" },
    onClick: () => options.onClose(),
  });
  const compareToggle = h("button", {
    class: "tree-compare",
    text: "Compare",
    title: "Pick two entries: the branches ending there, side by side",
    attrs: { type: "button", "aria-pressed": "false" },
    onClick: () => {
      comparing = !comparing;
      marked = [];
      updateCompare();
      render();
    },
  });
  const compareLink = h("a", { class: "tree-compare-go", text: "Show" });
  const compareHint = h("span", { class: "tree-compare-hint" });
  const compareBar = h("div", { class: "tree-compare-bar" }, [compareHint, compareLink]);
  const sidebar = h("nav", { class: "sidebar", attrs: { "aria-label": "Session tree" } }, [
    h("div", { class: "tree-head" }, [
      filterSelect,
      treeCount,
      h("span", { class: "spacer" }),
      compareToggle,
      treeClose,
    ]),
    compareBar,
    treeScroll,
  ]);

  function updateCompare(): void {
    compareToggle.setAttribute("aria-pressed", String(comparing));
    compareBar.hidden = !comparing;
    compareHint.textContent =
      marked.length === 2
        ? `${marked[0]} and ${marked[1]}`
        : `Pick ${2 - marked.length} more entr${marked.length === 1 ? "y" : "ies"}`;
    compareLink.hidden = marked.length !== 2;
    if (marked.length === 2)
      compareLink.setAttribute("href", options.compareHref(marked[0] as string, marked[1] as string));
  }
  updateCompare();

  const idAt = (entries: readonly AnyEntry[], pos: number): string | undefined =>
    pos >= 0 ? (entries[pos] as { id?: string } | undefined)?.id : undefined;

  function computeRows(): void {
    const { entries, session, layout, leaf } = options.source();
    if (!layout || !session) return;
    onPath = new Uint8Array(entries.length);
    if (leaf !== -1) for (let p = leaf; p !== -1; p = layout.parent[p] as number) onPath[p] = 1;
    const out: number[] = [];
    for (const pos of layout.order) {
      const id = idAt(entries, pos);
      if (
        treeFilterPasses(entries[pos] as AnyEntry, filter, {
          labelled: id !== undefined && session.index.getLabel(id) !== undefined,
          isLeaf: pos === leaf,
        })
      )
        out.push(pos);
    }
    treeRows = out;
    treeSpace.style.height = `${treeRows.length * ROW_HEIGHT}px`;
    treeCount.textContent = `${formatInt(treeRows.length)} of ${formatInt(entries.length)}`;
  }

  /** The session's calls, to name what each result answers (made once per session object). */
  const callsOf = new WeakMap<RenderSession, ToolCallLookup>();
  function toolCallsOf(session: RenderSession | undefined): ToolCallLookup | undefined {
    if (!session) return undefined;
    let calls = callsOf.get(session);
    if (!calls) {
      calls = collectToolCalls(session.index.entries);
      callsOf.set(session, calls);
    }
    return calls;
  }

  function rowEl(source: TreeSource, pos: number, row: number): HTMLElement {
    const { entries, session, layout } = source;
    const summary = entrySummary(entries[pos] as AnyEntry, 90, toolCallsOf(session));
    const id = idAt(entries, pos);
    const label = id !== undefined ? session?.index.getLabel(id) : undefined;
    const side = layout && layout.parent[pos] !== -1 && source.mainChild[pos] === 0;
    const el = h("div", { class: `tree-row kind-${summary.tone}` }, [
      h("span", { class: "path-marker", text: onPath[pos] ? "•" : "" }),
      h("span", { class: "connector", text: side ? "↳ " : "" }),
      h("span", { class: "row-kind", text: summary.label }),
      h("span", { class: "row-preview", text: summary.preview }),
      label !== undefined ? h("span", { class: "label-badge", text: shown(label) }) : null,
      pos === source.sessionLeaf ? h("span", { class: "leaf-badge", text: "leaf" }) : null,
    ]);
    el.dataset.pos = String(pos);
    if (id !== undefined) el.dataset.entryId = id;
    el.style.top = `${row * ROW_HEIGHT}px`;
    el.style.paddingLeft = `${4 + Math.min(source.indent[pos] as number, 12) * 14}px`;
    if (onPath[pos]) el.classList.add("on-path");
    if (pos === source.selected) el.classList.add("selected");
    if (comparing && id !== undefined && marked.includes(id)) el.classList.add("marked");
    el.title = `${id ?? "(no id)"} · ${summary.kind}`;
    return el;
  }

  function render(): void {
    frame = 0;
    const source = options.source();
    const top = treeScroll.scrollTop;
    const height = treeScroll.clientHeight || 600;
    const first = Math.max(0, Math.floor(top / ROW_HEIGHT) - 10);
    const last = Math.min(treeRows.length, Math.ceil((top + height) / ROW_HEIGHT) + 10);
    const frag = document.createDocumentFragment();
    for (let i = first; i < last; i++) frag.append(rowEl(source, treeRows[i] as number, i));
    treeSpace.replaceChildren(frag);
  }

  const schedule = () => {
    if (frame === 0) frame = requestAnimationFrame(render);
  };
  treeScroll.addEventListener("scroll", schedule, { passive: true });
  treeSpace.addEventListener("click", (event) => {
    const row = (event.target as HTMLElement).closest(".tree-row") as HTMLElement | null;
    if (!row) return;
    const id = row.dataset.entryId;
    if (comparing) {
      if (id === undefined) return;
      marked = marked.includes(id) ? marked.filter((m) => m !== id) : [...marked, id].slice(-2);
      updateCompare();
      render();
      return;
    }
    options.onPick(Number(row.dataset.pos), id);
  });
  filterSelect.addEventListener("change", () => {
    filter = filterSelect.value as TreeFilter;
    computeRows();
    render();
  });

  return {
    sidebar,
    rows: () => treeRows,
    computeRows,
    render,
    schedule,
    scrollTo(pos) {
      const i = treeRows.indexOf(pos);
      if (i === -1) return;
      const top = i * ROW_HEIGHT;
      if (top < treeScroll.scrollTop || top > treeScroll.scrollTop + treeScroll.clientHeight - ROW_HEIGHT)
        treeScroll.scrollTop = Math.max(0, top - treeScroll.clientHeight / 3);
    },
  };
}
