/**
 * The page's state: the session (loaded at boot), what is shown (view, branch, filter, search,
 * selection) and the questions every panel asks of them (the entry at a position, its label,
 * the positions of the shown branch, the item of an entry). Positions are file positions in
 * the tree layout; -1 means none.
 */
import type { AnyEntry } from "@pi-session/format";
import { TREE_FILTERS } from "../src/filters.js";
import { treeItem } from "../src/model/document.js";
import type { DocumentItem } from "../src/model/shapes.js";
import { type ToolCallLookup, collectToolCalls } from "../src/model/tool-calls.js";
import type { PageEntries } from "../src/page-data.js";
import { type RenderSession, createRenderSession } from "../src/source.js";
import { layoutTree, type TreeLayout } from "../src/tree-layout.js";
import { settings } from "./data.js";

/** No position: no entry, no leaf, nothing selected. */
export const NONE = -1;

// Assigned when the whole page has been parsed (loadSession); the first screen needs none of them.
export let ready = false;
export let session: RenderSession;
export let index: RenderSession["index"];
export let entries: readonly AnyEntry[] = [];
export let layout: TreeLayout;
export let toolCalls: ToolCallLookup;
export let sessionLeaf = NONE;

/** Builds the index and the tree layout of the embedded entries (the page is then ready, see markReady). */
export function loadSession(data: PageEntries): void {
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
}

export function markReady(): void {
  ready = true;
}

/** What is shown. */
export const state = {
  view: settings.initial.view,
  /** Position of the leaf of the shown branch, NONE for none (set at boot). */
  leaf: NONE,
  filter: (TREE_FILTERS as readonly string[]).includes(settings.initial.filter)
    ? settings.initial.filter
    : "default",
  tokens: [] as string[],
  /** Positions matching the search, in tree order. */
  matches: [] as number[],
  matchCursor: NONE,
  /** The entry last selected (highlighted in tree and transcript). */
  selected: NONE,
  /** The entry at the top of the transcript as it scrolls (marked in the tree, which follows it). */
  inView: NONE,
};

/**
 * Selecting an entry: what a branch switch in an item and a search step do. Set by
 * navigation.ts (which needs the panels that need this), so no module imports it in a circle.
 */
export const actions = {
  select: (_pos: number, _options: { keepView: boolean }): void => {},
};

export function positionOfId(id: string | null | undefined): number {
  if (id === null || id === undefined) return NONE;
  const entry = index.get(id);
  return entry === undefined ? NONE : (layout.positionOf(entry) ?? NONE);
}

export function idAt(pos: number): string {
  return (entries[pos] as AnyEntry).id;
}

export function labelAt(pos: number): string | undefined {
  return index.getLabel(idAt(pos));
}

/** What pi's filters ask of an entry beyond the entry itself. */
export function filterContext(pos: number): { labelled: boolean } {
  return { labelled: labelAt(pos) !== undefined };
}

const itemCache = new Map<number, DocumentItem>();

/** The item of the entry at `pos`, as the tree-aware views show it (made once). */
export function itemAt(pos: number): DocumentItem {
  let item = itemCache.get(pos);
  if (item === undefined) {
    item = treeItem(session, layout, pos, toolCalls);
    itemCache.set(pos, item);
  }
  return item;
}

/** Is `ancestor` on the path from the root to `pos` (itself included)? */
function isAncestor(ancestor: number, pos: number): boolean {
  for (let at = pos; at !== NONE; at = layout.parent[at] as number) if (at === ancestor) return true;
  return false;
}

/** The leaf shown when `pos` is selected: the current branch's, the session's, or the newest below. */
export function leafFor(pos: number): number {
  if (state.leaf !== NONE && isAncestor(pos, state.leaf)) return state.leaf;
  if (sessionLeaf !== NONE && isAncestor(pos, sessionLeaf)) return sessionLeaf;
  let current = pos;
  for (;;) {
    const children = layout.children[current] as readonly number[];
    if (children.length === 0) return current;
    current = children[children.length - 1] as number;
  }
}

/** Positions root..leaf of the shown branch (pi's path: duplicates and cycles handled by the index). */
export function branchPositions(): number[] {
  if (state.leaf === NONE) return [];
  const path = index.pathTo(idAt(state.leaf));
  const out: number[] = [];
  for (const entry of path) {
    const pos = layout.positionOf(entry);
    if (pos !== undefined) out.push(pos);
  }
  return out;
}
