/**
 * A session: the transcript of a branch, every branch, or the context the model is sent
 * (the render layer's document model, built here from the v3 entries the server sends), with
 * the tree beside it (virtualized rows, pi's /tree filters, labels, the leaf, the path shown)
 * to switch branches, a switch at every branch point, deep links to entries
 * (`#/s/<key>?entry=<id>`), export downloads, and live updates: when the file grows, only the
 * new entries are fetched, and "Follow" keeps the newest in view.
 */
import type { AnyEntry, SessionHeader } from "@pi-session/format";
import {
  type DocumentItem,
  type RenderSession,
  TREE_FILTERS,
  type TreeFilter,
  type TreeLayout,
  type ViewKind,
  buildDocument,
  createRenderSession,
  entrySummary,
  layoutTree,
  localTime,
  newestLeafBelow,
  sessionTitle,
  siblingsOf,
  treeFilterPasses,
} from "@pi-session/render";
import { itemEl } from "@pi-session/render/dom";
import { getJson, onChange } from "./api.js";
import { formatInt, h, oneLine, projectName, shown } from "./dom.js";
import { type View, replaceHash } from "./view.js";

/** Tree row height in px (must match `.tree-row` in the style). */
const ROW_HEIGHT = 26;
/** Items rendered at a time, and added per step at either end. */
const WINDOW = 120;

interface SessionPayload {
  key: string;
  path: string;
  version: string;
  formatVersion: number;
  header: SessionHeader | null;
  from: number;
  entryCount: number;
  entries: AnyEntry[];
  diagnostics: { line: number; offset: number; reason: string }[];
  diagnosticCount: number;
}

const FILTER_LABELS: Record<TreeFilter, string> = {
  default: "Default",
  "no-tools": "No tools",
  "user-only": "User only",
  "labeled-only": "Labeled only",
  all: "All",
};

/** Tree row kinds as the exported page names them. */
const ROW_KIND_LABEL: Record<string, string> = {
  toolResult: "tool",
  branchSummary: "branch summary",
  compactionSummary: "compaction summary",
  hookMessage: "custom",
};

const VIEW_LABELS: Record<ViewKind, string> = {
  branch: "Branch",
  "all-branches": "All branches",
  context: "Context",
};

export function sessionView(key: string, params: URLSearchParams, back: () => void): View {
  const href = (p: Record<string, string | undefined>) => {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(p)) if (v !== undefined && v !== "") q.set(k, v);
    const s = q.toString();
    return `#/s/${encodeURIComponent(key)}${s ? `?${s}` : ""}`;
  };

  // --- state
  let entries: AnyEntry[] = [];
  let session: RenderSession | undefined;
  let layout: TreeLayout | undefined;
  let sessionLeaf = -1;
  let indent = new Int32Array(0);
  let mainChild = new Uint8Array(0);
  let onPath = new Uint8Array(0);
  let treeRows: number[] = [];
  let items: DocumentItem[] = [];
  let windowStart = 0;
  let windowEnd = 0;
  let version = "";
  const state = {
    view: (params.get("view") as ViewKind | null) ?? "branch",
    leaf: -1,
    selected: -1,
    filter: "default" as TreeFilter,
    follow: params.get("follow") === "1",
  };
  if (!(state.view in VIEW_LABELS)) state.view = "branch";

  // --- elements
  const backButton = h(
    "button",
    { class: "back", title: "Back (Esc)", attrs: { type: "button", "aria-label": "Back" }, onClick: back },
    ["←", h("span", { class: "back-label", text: " Back" })],
  );
  const title = h("h1", { class: "session-title", text: "Loading…" });
  const facts = h("p", { class: "facts" });
  const viewButtons = Object.fromEntries(
    (Object.keys(VIEW_LABELS) as ViewKind[]).map((v) => [
      v,
      h("button", {
        class: "seg",
        text: VIEW_LABELS[v],
        attrs: { type: "button", "data-view": v },
        onClick: () => setView(v),
      }),
    ]),
  ) as Record<ViewKind, HTMLButtonElement>;
  const followButton = h("button", {
    class: "follow",
    text: "Follow",
    title: "Keep the newest entry in view as the session is written",
    attrs: { type: "button", "aria-pressed": String(state.follow) },
    onClick: () => setFollow(!state.follow),
  });
  const exportLinks = h("span", { class: "exports" }, [
    h("span", { class: "exports-label", text: "Export" }),
    ...(["md", "html", "json", "jsonl"] as const).map((format) =>
      h("a", {
        class: "export",
        text: format === "md" ? "Markdown" : format.toUpperCase(),
        attrs: { "data-format": format, download: "" },
      }),
    ),
  ]);
  const treeToggle = h("button", {
    class: "tree-toggle",
    text: "Tree",
    attrs: { type: "button", "aria-expanded": "false" },
    onClick: () => toggleTree(!el.classList.contains("show-tree")),
  });
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
    onClick: () => toggleTree(false),
  });
  const sidebar = h("nav", { class: "sidebar", attrs: { "aria-label": "Session tree" } }, [
    h("div", { class: "tree-head" }, [filterSelect, treeCount, h("span", { class: "spacer" }), treeClose]),
    treeScroll,
  ]);
  const statusLine = h("div", { class: "status" });
  const earlier = h("button", {
    class: "more earlier",
    attrs: { type: "button" },
    onClick: () => loadEarlier(),
  });
  const later = h("button", { class: "more later", attrs: { type: "button" }, onClick: () => loadLater() });
  const jumpEnd = h("button", {
    class: "more jump",
    text: "Jump to the end",
    attrs: { type: "button" },
    onClick: () => showEnd(),
  });
  const itemsEl = h("div", { class: "items" });
  const transcript = h("div", { class: "transcript", attrs: { id: "transcript" } }, [
    statusLine,
    earlier,
    itemsEl,
    h("div", { class: "more-row" }, [later, jumpEnd]),
  ]);
  const el = h("section", { class: "view session-view" }, [
    h("header", { class: "session-bar" }, [
      h("div", { class: "heading" }, [h("div", { class: "heading-row" }, [backButton, title]), facts]),
      h("div", { class: "controls" }, [
        treeToggle,
        h(
          "div",
          { class: "segmented", attrs: { role: "group", "aria-label": "View" } },
          Object.values(viewButtons),
        ),
        followButton,
        exportLinks,
      ]),
    ]),
    h("div", { class: "session-body" }, [sidebar, transcript]),
  ]);

  // --- positions
  const positionOfId = (id: string | null | undefined): number => {
    if (!id || !session || !layout) return -1;
    const entry = session.index.get(id);
    return entry === undefined ? -1 : (layout.positionOf(entry) ?? -1);
  };
  const idAt = (pos: number): string | undefined =>
    pos >= 0 ? (entries[pos] as { id?: string } | undefined)?.id : undefined;

  function isAncestor(ancestor: number, pos: number): boolean {
    if (!layout) return false;
    for (let p = pos; p !== -1; p = layout.parent[p] as number) if (p === ancestor) return true;
    return false;
  }

  /** The leaf shown when `pos` is selected: the branch's, the session's, or the newest below. */
  function leafFor(pos: number): number {
    if (!layout) return -1;
    if (state.leaf !== -1 && isAncestor(pos, state.leaf)) return state.leaf;
    if (sessionLeaf !== -1 && isAncestor(pos, sessionLeaf)) return sessionLeaf;
    return newestLeafBelow(layout, pos);
  }

  // --- indentation: the line the session went on with stays in line, side branches step in.
  function computeIndent(): void {
    if (!layout) return;
    const n = entries.length;
    indent = new Int32Array(n);
    mainChild = new Uint8Array(n);
    const onLeafPath = new Uint8Array(n);
    for (let p = sessionLeaf; p !== -1; p = layout.parent[p] as number) onLeafPath[p] = 1;
    for (let pos = 0; pos < n; pos++) {
      const kids = layout.children[pos] as readonly number[];
      if (kids.length === 0) continue;
      mainChild[kids.find((k) => onLeafPath[k] === 1) ?? (kids[kids.length - 1] as number)] = 1;
    }
    for (const pos of layout.order) {
      const parent = layout.parent[pos] as number;
      if (parent !== -1) indent[pos] = (indent[parent] as number) + (mainChild[pos] ? 0 : 1);
    }
  }

  // --- tree
  function computeTreeRows(): void {
    if (!layout || !session) return;
    onPath = new Uint8Array(entries.length);
    if (state.leaf !== -1) for (let p = state.leaf; p !== -1; p = layout.parent[p] as number) onPath[p] = 1;
    const out: number[] = [];
    for (const pos of layout.order) {
      const id = idAt(pos);
      if (
        treeFilterPasses(entries[pos] as AnyEntry, state.filter, {
          labelled: id !== undefined && session.index.getLabel(id) !== undefined,
          isLeaf: pos === state.leaf,
        })
      )
        out.push(pos);
    }
    treeRows = out;
    treeSpace.style.height = `${treeRows.length * ROW_HEIGHT}px`;
    treeCount.textContent = `${formatInt(treeRows.length)} of ${formatInt(entries.length)}`;
  }

  function treeRowEl(pos: number, row: number): HTMLElement {
    const entry = entries[pos] as AnyEntry;
    const summary = entrySummary(entry, 90);
    const id = idAt(pos);
    const label = id !== undefined ? session?.index.getLabel(id) : undefined;
    const side = layout && layout.parent[pos] !== -1 && mainChild[pos] === 0;
    const el = h("div", { class: `tree-row kind-${summary.kind.replace(/[^a-z]/gi, "")}` }, [
      h("span", { class: "path-marker", text: onPath[pos] ? "•" : "" }),
      h("span", { class: "connector", text: side ? "↳ " : "" }),
      h("span", { class: "row-kind", text: ROW_KIND_LABEL[summary.kind] ?? summary.kind }),
      h("span", { class: "row-preview", text: summary.preview }),
      label !== undefined ? h("span", { class: "label-badge", text: shown(label) }) : null,
      pos === sessionLeaf ? h("span", { class: "leaf-badge", text: "leaf" }) : null,
    ]);
    el.dataset.pos = String(pos);
    if (id !== undefined) el.dataset.entryId = id;
    el.style.top = `${row * ROW_HEIGHT}px`;
    el.style.paddingLeft = `${4 + Math.min(indent[pos] as number, 12) * 14}px`;
    if (onPath[pos]) el.classList.add("on-path");
    if (pos === state.selected) el.classList.add("selected");
    el.title = `${id ?? "(no id)"} · ${summary.kind}`;
    return el;
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
  const scheduleTree = () => {
    if (treeFrame === 0) treeFrame = requestAnimationFrame(renderTreeRows);
  };
  treeScroll.addEventListener("scroll", scheduleTree, { passive: true });
  treeSpace.addEventListener("click", (event) => {
    const row = (event.target as HTMLElement).closest(".tree-row") as HTMLElement | null;
    if (!row) return;
    const id = row.dataset.entryId;
    select(Number(row.dataset.pos), { scroll: true });
    if (id) replaceHash(href({ entry: id, view: state.view === "branch" ? undefined : state.view }));
    if (el.classList.contains("show-tree")) toggleTree(false);
  });
  filterSelect.addEventListener("change", () => {
    state.filter = filterSelect.value as TreeFilter;
    computeTreeRows();
    renderTreeRows();
  });

  function scrollTreeTo(pos: number): void {
    const i = treeRows.indexOf(pos);
    if (i === -1) return;
    const top = i * ROW_HEIGHT;
    if (top < treeScroll.scrollTop || top > treeScroll.scrollTop + treeScroll.clientHeight - ROW_HEIGHT)
      treeScroll.scrollTop = Math.max(0, top - treeScroll.clientHeight / 3);
  }

  function toggleTree(open: boolean): void {
    el.classList.toggle("show-tree", open);
    treeToggle.setAttribute("aria-expanded", String(open));
    if (open) scheduleTree();
  }

  // --- transcript
  function branchSwitch(pos: number, item: DocumentItem): HTMLElement | null {
    if (!item.branch || pos < 0 || !layout || state.view === "context") return null;
    const siblings = siblingsOf(layout, pos);
    const k = layout.siblingIndex[pos] as number;
    const go = (to: number | undefined) => () => {
      if (to === undefined) return;
      state.leaf = -1;
      select(to, { scroll: true, newBranch: true });
    };
    const prev = h("button", {
      class: "icon",
      text: "◀",
      title: "Previous branch",
      attrs: { type: "button", "data-branch": "prev" },
      onClick: go(siblings[k - 1]),
    });
    const next = h("button", {
      class: "icon",
      text: "▶",
      title: "Next branch",
      attrs: { type: "button", "data-branch": "next" },
      onClick: go(siblings[k + 1]),
    });
    prev.disabled = k === 0;
    next.disabled = k === siblings.length - 1;
    return h("span", { class: "branch-switch", title: "The conversation branches here" }, [
      prev,
      h("span", { class: "branch-pos", text: `branch ${item.branch.index}/${item.branch.count}` }),
      next,
    ]);
  }

  function itemElement(item: DocumentItem): HTMLElement {
    const pos = positionOfId(item.id);
    const leafId = idAt(sessionLeaf);
    const node = itemEl(item, {
      hideToolCalls: false,
      isLeaf: item.id !== undefined && item.id === leafId,
      extra: branchSwitch(pos, item),
      time: localTime,
      idEl: (id) =>
        h("a", {
          class: "entry-link",
          text: shown(id),
          title: "Link to this entry",
          attrs: { href: href({ entry: id, view: state.view === "branch" ? undefined : state.view }) },
        }),
    });
    if (pos !== -1 && pos === state.selected) node.classList.add("selected");
    if (state.view === "all-branches" && pos >= 0 && (indent[pos] ?? 0) > 0) {
      node.classList.add("nested");
      node.style.marginLeft = `${Math.min(indent[pos] as number, 12) * 16}px`;
    }
    return node;
  }

  function appendRange(from: number, to: number, where: "start" | "end"): void {
    const frag = document.createDocumentFragment();
    for (let i = from; i < to; i++) frag.append(itemElement(items[i] as DocumentItem));
    if (where === "end") itemsEl.append(frag);
    else itemsEl.prepend(frag);
  }

  function updateMore(): void {
    earlier.hidden = windowStart === 0;
    earlier.textContent = `Show ${formatInt(Math.min(WINDOW, windowStart))} earlier (${formatInt(windowStart)} above)`;
    const below = items.length - windowEnd;
    later.hidden = below === 0;
    later.textContent = `Show ${formatInt(Math.min(WINDOW, below))} more (${formatInt(below)} below)`;
    jumpEnd.hidden = below === 0;
    transcript.dataset.complete = String(windowStart === 0 && below === 0);
  }

  function loadLater(): void {
    if (windowEnd >= items.length) return;
    const to = Math.min(items.length, windowEnd + WINDOW);
    appendRange(windowEnd, to, "end");
    windowEnd = to;
    updateMore();
  }

  function loadEarlier(): void {
    if (windowStart === 0) return;
    const from = Math.max(0, windowStart - WINDOW);
    const anchor = itemsEl.firstElementChild as HTMLElement | null;
    const before = anchor ? anchor.getBoundingClientRect().top : 0;
    appendRange(from, windowStart, "start");
    windowStart = from;
    if (anchor) transcript.scrollTop += anchor.getBoundingClientRect().top - before;
    updateMore();
  }

  function showEnd(): void {
    windowStart = Math.max(0, items.length - WINDOW);
    windowEnd = items.length;
    itemsEl.replaceChildren();
    appendRange(windowStart, windowEnd, "end");
    updateMore();
    transcript.scrollTop = transcript.scrollHeight;
  }

  const nearEnd = new IntersectionObserver(
    (seen) => {
      for (const entry of seen)
        if (entry.isIntersecting && entry.target === later && !later.hidden) loadLater();
    },
    { root: transcript, rootMargin: "400px 0px" },
  );
  nearEnd.observe(later);

  /** Builds the items of the view and shows them around `focus` (a position), else the top or the end. */
  function renderTranscript(focus: number, keepPlace = false): void {
    if (!session) return;
    const leafId = state.leaf === -1 ? null : (idAt(state.leaf) ?? null);
    const doc = buildDocument(session, {
      view: state.view,
      leafId: state.view === "all-branches" ? undefined : leafId,
    });
    items = doc.items;
    const place = keepPlace ? readingPlace() : undefined;
    let at = -1;
    if (focus !== -1) {
      const id = idAt(focus);
      at = items.findIndex((item) => item.id === id);
    }
    if (state.follow) {
      windowStart = Math.max(0, items.length - WINDOW);
      windowEnd = items.length;
    } else if (place) {
      windowStart = Math.max(0, Math.min(windowStart, items.length));
      windowEnd = Math.min(items.length, Math.max(windowEnd, windowEnd === 0 ? WINDOW : windowEnd));
    } else if (at !== -1) {
      windowStart = Math.max(0, at - 10);
      windowEnd = Math.min(items.length, windowStart + WINDOW);
    } else {
      windowStart = 0;
      windowEnd = Math.min(items.length, WINDOW);
    }
    itemsEl.replaceChildren();
    appendRange(windowStart, windowEnd, "end");
    updateMore();
    for (const [v, button] of Object.entries(viewButtons))
      button.setAttribute("aria-pressed", String(v === state.view));
    transcript.dataset.view = state.view;
    el.dataset.view = state.view;
    el.dataset.leaf = leafId ?? "";
    if (doc.view.kind === "context") {
      const model = doc.view.model ? `${doc.view.model.provider}/${doc.view.model.modelId}` : "no model set";
      statusLine.textContent = `What the model is sent at this leaf: ${formatInt(doc.view.messageCount)} messages · ${model} · thinking ${doc.view.thinkingLevel}. Compactions stand in for the entries before them.`;
    } else if (doc.view.kind === "all-branches") {
      statusLine.textContent = `Every entry, branch by branch: ${formatInt(items.length)} items.`;
    } else {
      statusLine.textContent = `The branch to ${leafId ?? "(none)"}: ${formatInt(items.length)} items.`;
    }
    updateExports(leafId);
    if (state.follow) transcript.scrollTop = transcript.scrollHeight;
    else if (place) restorePlace(place);
    else if (at !== -1) {
      const target = itemsEl.querySelector<HTMLElement>(`[data-entry-id="${CSS.escape(idAt(focus) ?? "")}"]`);
      target?.scrollIntoView({ block: "start" });
    } else transcript.scrollTop = 0;
  }

  function readingPlace(): { id: string; offset: number } | undefined {
    const top = transcript.getBoundingClientRect().top;
    for (const child of itemsEl.children) {
      const rect = child.getBoundingClientRect();
      if (rect.bottom <= top) continue;
      const id = (child as HTMLElement).dataset.entryId;
      return id ? { id, offset: rect.top - top } : undefined;
    }
    return undefined;
  }

  function restorePlace(place: { id: string; offset: number }): void {
    const target = itemsEl.querySelector<HTMLElement>(`[data-entry-id="${CSS.escape(place.id)}"]`);
    if (!target) return;
    transcript.scrollTop +=
      target.getBoundingClientRect().top - transcript.getBoundingClientRect().top - place.offset;
  }

  function updateExports(leafId: string | null): void {
    for (const link of exportLinks.querySelectorAll<HTMLAnchorElement>("a.export")) {
      const format = link.dataset.format as string;
      const q = new URLSearchParams({ format, view: state.view });
      if (leafId && state.view !== "all-branches") q.set("leaf", leafId);
      link.href = `/api/sessions/${encodeURIComponent(key)}/export?${q.toString()}`;
      link.hidden = format === "jsonl" && state.view === "context";
    }
  }

  // --- actions
  function select(pos: number, options: { scroll: boolean; newBranch?: boolean }): void {
    if (!layout || pos < 0 || pos >= entries.length) return;
    state.selected = pos;
    state.leaf = leafFor(pos);
    if (state.view === "context" && options.newBranch !== true) state.view = "branch";
    computeTreeRows();
    renderTranscript(options.scroll ? pos : -1);
    scrollTreeTo(pos);
    renderTreeRows();
  }

  function setView(view: ViewKind): void {
    state.view = view;
    renderTranscript(state.selected);
    const id = idAt(state.selected);
    replaceHash(
      href({
        entry: id,
        view: view === "branch" ? undefined : view,
        leaf: id ? undefined : idAt(state.leaf),
      }),
    );
  }

  function setFollow(on: boolean): void {
    state.follow = on;
    followButton.setAttribute("aria-pressed", String(on));
    el.dataset.follow = String(on);
    if (on) {
      if (sessionLeaf !== -1) state.leaf = sessionLeaf;
      computeTreeRows();
      renderTreeRows();
      renderTranscript(-1);
    }
  }

  // --- data
  function rebuild(all: AnyEntry[], header: SessionHeader | null, formatVersion: number): void {
    entries = all;
    session = createRenderSession({ header: header ?? undefined, entries, formatVersion });
    entries = session.index.entries as AnyEntry[];
    layout = layoutTree(session.index);
    sessionLeaf = positionOfId(session.index.leafId);
    computeIndent();
  }

  function showFacts(data: SessionPayload): void {
    const header = data.header as (SessionHeader & Record<string, unknown>) | null;
    title.textContent = oneLine(session ? sessionTitle(session) : key, 160);
    const parts: string[] = [];
    if (header?.id) parts.push(String(header.id));
    if (typeof header?.cwd === "string" && header.cwd) parts.push(projectName(header.cwd));
    if (typeof header?.timestamp === "string") parts.push(`created ${localTime(header.timestamp)}`);
    parts.push(`${formatInt(entries.length)} entries`);
    if (data.formatVersion !== 3) parts.push(`v${data.formatVersion} file, shown as v3`);
    if (data.diagnosticCount > 0)
      parts.push(
        `${formatInt(data.diagnosticCount)} unreadable line${data.diagnosticCount === 1 ? "" : "s"} skipped`,
      );
    facts.textContent = shown(parts.join(" · "));
    facts.title = data.path;
    document.title = `${title.textContent} · pi-session`;
  }

  let formatVersion = 3;
  let header: SessionHeader | null = null;
  let fetching = false;
  let again = false;

  async function load(first: boolean): Promise<void> {
    if (fetching) {
      again = true;
      return;
    }
    fetching = true;
    try {
      const q = new URLSearchParams();
      const last = entries[entries.length - 1] as { id?: string } | undefined;
      if (!first && last?.id) {
        q.set("after", String(entries.length));
        q.set("last", last.id);
      }
      const data = await getJson<SessionPayload>(
        `/api/sessions/${encodeURIComponent(key)}${q.size ? `?${q}` : ""}`,
      );
      if (!first && data.version === version) return;
      version = data.version;
      header = data.header;
      formatVersion = data.formatVersion;
      const wasAtSessionLeaf = state.leaf === -1 || state.leaf === sessionLeaf;
      const oldCount = entries.length;
      rebuild(data.from > 0 ? [...entries, ...data.entries] : data.entries, header, formatVersion);
      showFacts(data);
      if (first) {
        const target = positionOfId(params.get("entry"));
        const leafParam = positionOfId(params.get("leaf"));
        state.leaf = leafParam !== -1 ? leafParam : sessionLeaf;
        if (target !== -1) {
          state.selected = target;
          state.leaf = leafFor(target);
        }
        computeTreeRows();
        renderTranscript(target);
        if (target !== -1) scrollTreeTo(target);
        renderTreeRows();
        el.dataset.loaded = "true";
      } else {
        if (wasAtSessionLeaf) state.leaf = sessionLeaf;
        computeTreeRows();
        renderTranscript(-1, true);
        renderTreeRows();
        el.dataset.updates = String(Number(el.dataset.updates ?? "0") + 1);
        el.dataset.entries = String(entries.length);
        if (entries.length > oldCount) transcript.classList.add("grew");
      }
      el.dataset.entries = String(entries.length);
    } catch (error) {
      statusLine.textContent = `Cannot load this session: ${(error as Error).message}`;
      if (first) title.textContent = "Session not found";
      el.dataset.loaded = "error";
    } finally {
      fetching = false;
      if (again) {
        again = false;
        void load(false);
      }
    }
  }

  const off = onChange((change) => {
    if (change.changed.includes(key)) void load(false);
    else if (change.removed.includes(key))
      statusLine.textContent = "This session's file is gone from the store.";
  });
  setFollow(state.follow);
  void load(true);

  return {
    el,
    move(delta) {
      if (!layout || treeRows.length === 0) return;
      const i = treeRows.indexOf(state.selected);
      const next =
        treeRows[
          Math.max(
            0,
            Math.min(treeRows.length - 1, (i === -1 ? (delta > 0 ? -1 : treeRows.length) : i) + delta),
          )
        ];
      if (next !== undefined) select(next, { scroll: true });
    },
    escape() {
      if (el.classList.contains("show-tree")) {
        toggleTree(false);
        return true;
      }
      return false;
    },
    update(next) {
      const target = positionOfId(next.get("entry"));
      const view = next.get("view") as ViewKind | null;
      if (view && view in VIEW_LABELS) state.view = view;
      else if (!view) state.view = "branch";
      if (target !== -1) select(target, { scroll: true, newBranch: true });
      else renderTranscript(state.selected);
    },
    dispose() {
      off();
      nearEnd.disconnect();
    },
  };
}
