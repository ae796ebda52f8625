/**
 * Search within the page: the entries whose text (and label) holds the phrase typed (its words
 * in that order, any whitespace between them; not each word anywhere), under the current
 * filter, in tree order. The tree then lists only the matches, Enter and the arrows step
 * through them (selecting each), and the transcript marks the phrase (items.ts).
 */
import type { AnyEntry } from "@pi-session/format";
import { searchText, searchTokens, transcriptFilterPasses } from "../src/filters.js";
import { formatInt } from "../src/readable.js";
import { nextMatch, prevMatch, searchCount, searchInput, treeScroll } from "./elements.js";
import { phrasePattern } from "./search-pattern.js";
import { renderTranscript } from "./transcript.js";
import { computeTreeRows, renderTreeRows } from "./tree-panel.js";
import { NONE, actions, entries, filterContext, labelAt, layout, ready, state } from "./state.js";

/** Typing waits this long for the next key before searching, in ms. */
const TYPING_PAUSE_MS = 150;

/** Each entry's search text, made when first searched. */
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

/** Searches for what the search box holds now (no words: no search). */
export function runSearch(): void {
  state.tokens = searchTokens(searchInput.value);
  state.matches = [];
  state.matchCursor = NONE;
  if (state.tokens.length > 0) {
    const phrase = phrasePattern(state.tokens);
    for (const pos of layout.order) {
      if (!transcriptFilterPasses(entries[pos] as AnyEntry, state.filter, filterContext(pos))) continue;
      phrase.lastIndex = 0;
      if (phrase.test(textAt(pos))) state.matches.push(pos);
    }
  }
  updateSearchCount();
}

function updateSearchCount(): void {
  if (state.tokens.length === 0) searchCount.textContent = "";
  else if (state.matches.length === 0) searchCount.textContent = "no matches";
  else
    searchCount.textContent =
      state.matchCursor === NONE
        ? `${formatInt(state.matches.length)} matches`
        : `${formatInt(state.matchCursor + 1)} of ${formatInt(state.matches.length)}`;
  searchCount.dataset.matches = String(state.matches.length);
}

function stepMatch(delta: number): void {
  if (state.matches.length === 0) return;
  const n = state.matches.length;
  state.matchCursor =
    state.matchCursor === NONE ? (delta > 0 ? 0 : n - 1) : (state.matchCursor + delta + n) % n;
  updateSearchCount();
  actions.select(state.matches[state.matchCursor] as number, { keepView: false });
}

/** Typing searches (after a pause), Enter and the arrows step, Escape clears, `/` focuses the box. */
export function wireSearch(): void {
  let searchTimer = 0;
  searchInput.addEventListener("input", () => {
    clearTimeout(searchTimer);
    searchTimer = window.setTimeout(() => {
      runSearch();
      computeTreeRows();
      treeScroll.scrollTop = 0;
      renderTreeRows();
      renderTranscript(state.selected);
    }, TYPING_PAUSE_MS);
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
}
