/**
 * Moving around the session: selecting an entry (from the tree, a branch switch or a search
 * step) shows its branch in the transcript and the tree; the view buttons and the filter
 * change what both show. Installs `select` as the page's `actions.select`.
 */
import type { TreeFilter } from "../src/filters.js";
import type { ViewKind } from "../src/model/shapes.js";
import { filterSelect, viewButtons } from "./elements.js";
import { runSearch } from "./search.js";
import { actions, entries, leafFor, ready, state } from "./state.js";
import { renderTranscript } from "./transcript.js";
import { computeTreeRows, renderTreeRows, scrollTreeTo } from "./tree-panel.js";

/**
 * Selects the entry at `pos`: its branch (the current one where it lies on it) is shown, in
 * the branch view unless `keepView` (the context view is left for the branch otherwise).
 */
export function select(pos: number, options: { keepView: boolean }): void {
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

/** The pressed view button, and the filter (which the context view does not use). */
export function refreshViewButtons(): void {
  for (const [view, button] of Object.entries(viewButtons))
    button.setAttribute("aria-pressed", String(view === state.view));
  // The context is what the model is sent: every message of it, whatever the filter.
  const context = state.view === "context";
  filterSelect.disabled = !ready || context;
  filterSelect.title = context
    ? "The context view shows every message sent to the model"
    : "pi's /tree filters";
}

/** The view buttons and the filter select; `actions.select` is `select` from now on. */
export function wireNavigation(): void {
  actions.select = select;
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
}
