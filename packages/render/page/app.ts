/**
 * The exported page's viewer, its entry point (bundled into `src/page-assets.ts`). It reads
 * the session embedded in the page (a JSON script element), builds the tree index with the
 * same code the package uses in Node, and shows: the tree (virtualized rows, pi's filters,
 * labels, the leaf), the transcript of the selected branch, every branch, or the context the
 * model is sent, rendered incrementally around what is on screen; search within the page;
 * light and dark. This module starts it: the first screen now, the rest once the page is parsed.
 *
 * Nothing from the session is parsed as HTML: elements are made with createElement and text
 * is set as text (dom.ts). The page's Content-Security-Policy allows this script by hash
 * only, no network and Trusted Types for none, so innerHTML would throw anyway.
 *
 * The modules, in the order the page needs them: data.ts (the embedded JSON), state.ts (the
 * session and what is shown), elements.ts (the fixed elements), indentation.ts,
 * blocks.ts and items.ts (one item's elements), transcript.ts, tree-panel.ts, search.ts,
 * navigation.ts (selecting, views, filters).
 */
import { setUpTheme } from "../src/dom/theme.js";
import { ENTRIES_ID, type PageEntries } from "../src/page-data.js";
import { readJson, settings } from "./data.js";
import {
  filterSelect,
  nextMatch,
  prevMatch,
  searchInput,
  themeButton,
  transcript,
  viewButtons,
} from "./elements.js";
import { computeIndent } from "./indentation.js";
import { refreshViewButtons, select, wireNavigation } from "./navigation.js";
import { wireSearch } from "./search.js";
import { NONE, loadSession, markReady, positionOfId, ready, sessionLeaf, state } from "./state.js";

const isReady = () => ready;
import {
  enableLater,
  readingPlace,
  renderFirstScreen,
  renderTranscript,
  wireTranscript,
} from "./transcript.js";
import { computeTreeRows, followInTree, renderTreeRows, scrollTreeTo, wireTree } from "./tree-panel.js";

/** The entry `#<id>` names, or NONE. */
function hashTarget(): number {
  const id = location.hash.slice(1);
  if (id === "") return NONE;
  try {
    return positionOfId(decodeURIComponent(id));
  } catch {
    return NONE;
  }
}

/** `#<id>` shows that entry (its branch, scrolled to it): when the page opens, and when the hash changes. */
function followHash(): void {
  const target = hashTarget();
  if (target !== NONE) select(target, { keepView: false });
}

/** As the transcript scrolls, the tree marks (and scrolls to) the entry at its top. */
function wireTreeFollowing(): void {
  let frame = 0;
  transcript.addEventListener(
    "scroll",
    () => {
      if (frame !== 0 || !isReady()) return;
      frame = requestAnimationFrame(() => {
        frame = 0;
        const place = readingPlace();
        if (place) followInTree(place.pos);
      });
    },
    { passive: true },
  );
}

/** What is disabled until the session is loaded. */
const controls: (HTMLButtonElement | HTMLSelectElement | HTMLInputElement)[] = [
  ...Object.values(viewButtons),
  filterSelect,
  searchInput,
  prevMatch,
  nextMatch,
];

/** Reads the entries, builds the index, and renders the tree and the transcript in full. */
function boot(): void {
  const data = readJson<PageEntries>(ENTRIES_ID);
  performance.mark("pi-session:parsed");
  loadSession(data);
  const initialLeaf = settings.initial.leafId;
  state.leaf = initialLeaf === null ? NONE : positionOfId(initialLeaf);
  if (state.leaf === NONE && initialLeaf !== null) state.leaf = sessionLeaf;
  computeIndent();
  performance.mark("pi-session:indexed");
  markReady();
  for (const control of controls) control.disabled = false;
  enableLater();
  refreshViewButtons();
  // Where the reader scrolled the first screen to, kept.
  const place = readingPlace();
  renderTranscript(place?.pos ?? NONE);
  if (place) transcript.scrollTop -= place.offset;
  computeTreeRows();
  renderTreeRows();
  scrollTreeTo(state.leaf);
  followHash();
  window.addEventListener("hashchange", followHash);
  document.documentElement.dataset.ready = "true";
  performance.mark("pi-session:rendered");
}

setUpTheme(themeButton);
wireTranscript();
wireTree();
wireNavigation();
wireSearch();
wireTreeFollowing();

for (const control of controls) control.disabled = true;
renderFirstScreen();
refreshViewButtons();
performance.mark("pi-session:first-screen");
if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot, { once: true });
else boot();
