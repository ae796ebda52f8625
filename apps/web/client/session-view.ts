/**
 * A session: the transcript of a branch, every branch, or the context the model is sent
 * (the render layer's document model, built here from the v3 entries the server sends), with
 * the tree beside it (virtualized rows, pi's /tree filters, labels, the leaf, the path shown)
 * to switch branches, a switch at every branch point, deep links to entries
 * (`#/s/<key>?entry=<id>`), export downloads, and live updates: when the file grows, only the
 * new entries are fetched, and "Follow" keeps the newest in view. The header is
 * `session-bar.ts`, the tree panel `session-tree.ts`, each item render's `itemEl`.
 */
import type { AnyEntry, SessionHeader } from "@pi-session/format";
import {
  type DocumentItem,
  type RenderSession,
  type TreeLayout,
  type ViewKind,
  branchIndentation,
  buildDocument,
  callRoleOfItem,
  createRenderSession,
  groupResults,
  layoutTree,
  localTime,
  newestLeafBelow,
  sessionTitle,
  siblingsOf,
} from "@pi-session/render";
import { ItemWindow, itemEl } from "@pi-session/render/dom";
import { ApiError, type SessionRow, getJson, onChange } from "./api.js";
import { formatInt, h, oneLine, shown } from "./dom.js";
import { loadSessions, titleOf } from "./list-view.js";
import { type RelatedSession, type Relations, VIEW_LABELS, sessionBar } from "./session-bar.js";
import { compareHref } from "./compare-view.js";
import { treePanel } from "./session-tree.js";
import { type View, replaceHash } from "./view.js";

/** Items rendered at a time, and added per step at either end. */
const WINDOW = 120;

interface SessionPayload {
  key: string;
  path: string;
  /** Served from a team database: the source it came from. */
  source?: string;
  version: string;
  formatVersion: number;
  header: SessionHeader | null;
  from: number;
  entryCount: number;
  entries: AnyEntry[];
  diagnostics: { line: number; offset: number; reason: string }[];
  diagnosticCount: number;
}

/** The related sessions of `key` among the list's rows: the one it belongs under, those under it. */
function relationsOf(key: string, rows: readonly SessionRow[]): Relations {
  const related = (row: SessionRow): RelatedSession => ({
    key: row.key,
    title: titleOf(row),
    kind: row.parentKind ?? "fork",
  });
  const self = rows.find((r) => r.key === key);
  const parentRow = self?.parentKey ? rows.find((r) => r.key === self.parentKey) : undefined;
  return {
    parent: parentRow && self ? { ...related(parentRow), kind: self.parentKind ?? "fork" } : null,
    children: rows.filter((r) => r.parentKey === key).map(related),
  };
}

export function sessionView(asked: string, params: URLSearchParams, back: () => void): View {
  // The URL may name the session by an id prefix: its key once the server has said it.
  let key = asked;
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
  let indent: Int32Array = new Int32Array(0);
  let mainChild: Uint8Array = new Uint8Array(0);
  /** The transcript's rows: items, the results of an assistant message's calls grouped under it. */
  let items: { item: DocumentItem; results: DocumentItem[] }[] = [];
  let version = "";
  const state = {
    view: (params.get("view") as ViewKind | null) ?? "branch",
    leaf: -1,
    selected: -1,
    follow: params.get("follow") === "1",
  };
  if (!(state.view in VIEW_LABELS)) state.view = "branch";

  // --- elements
  const bar = sessionBar({
    back,
    view: (v) => setView(v),
    follow: () => setFollow(!state.follow),
    toggleTree: () => toggleTree(!el.classList.contains("show-tree")),
  });
  const statusLine = h("div", { class: "status" });
  const earlier = h("button", {
    class: "more earlier",
    attrs: { type: "button" },
    onClick: () => win.earlier(),
  });
  const later = h("button", { class: "more later", attrs: { type: "button" }, onClick: () => win.later() });
  const jumpEnd = h("button", {
    class: "more jump",
    text: "Jump to the end",
    attrs: { type: "button" },
    onClick: () => win.showLast(),
  });
  const itemsEl = h("div", { class: "items" });
  const transcript = h("div", { class: "transcript", attrs: { id: "transcript" } }, [
    statusLine,
    earlier,
    itemsEl,
    h("div", { class: "more-row" }, [later, jumpEnd]),
  ]);
  const win = new ItemWindow(
    itemsEl,
    transcript,
    { count: () => items.length, render: appendRange, changed: updateMore },
    WINDOW,
  );
  const tree = treePanel({
    compareHref: (left, right) => compareHref(key, left, right),
    source: () => ({
      entries,
      session,
      layout,
      sessionLeaf,
      indent,
      mainChild,
      leaf: state.leaf,
      selected: state.selected,
    }),
    onPick(pos, id) {
      select(pos, { scroll: true });
      if (id) replaceHash(href({ entry: id, view: state.view === "branch" ? undefined : state.view }));
      if (el.classList.contains("show-tree")) toggleTree(false);
    },
    onClose: () => toggleTree(false),
  });
  const el = h("section", { class: "view session-view" }, [
    bar.el,
    h("div", { class: "session-body" }, [tree.sidebar, transcript]),
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
    if (layout) ({ indent, mainChild } = branchIndentation(layout, sessionLeaf));
  }

  function toggleTree(open: boolean): void {
    el.classList.toggle("show-tree", open);
    bar.setTreeOpen(open);
    if (open) tree.schedule();
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

  function itemElement(item: DocumentItem, results: DocumentItem[] = []): HTMLElement {
    const pos = positionOfId(item.id);
    const leafId = idAt(sessionLeaf);
    const node = itemEl(item, {
      hideToolCalls: false,
      // A result sits inside the call it answers, and folds with it.
      resultsOf: (callId) =>
        results
          .filter((result) => result.toolCallId === callId)
          .map((result) => {
            const nested = itemElement(result);
            nested.classList.add("call-result");
            return nested;
          }),
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
    for (let i = from; i < to; i++) {
      const row = items[i] as { item: DocumentItem; results: DocumentItem[] };
      frag.append(itemElement(row.item, row.results));
    }
    if (where === "end") itemsEl.append(frag);
    else itemsEl.prepend(frag);
  }

  function updateMore(): void {
    earlier.hidden = win.start === 0;
    earlier.textContent = `Show ${formatInt(Math.min(win.batch, win.start))} earlier (${formatInt(win.start)} above)`;
    const below = items.length - win.end;
    later.hidden = below === 0;
    later.textContent = `Show ${formatInt(Math.min(win.batch, below))} more (${formatInt(below)} below)`;
    jumpEnd.hidden = below === 0;
    transcript.dataset.complete = String(win.start === 0 && below === 0);
  }

  const nearEnd = new IntersectionObserver(
    (seen) => {
      for (const entry of seen)
        if (entry.isIntersecting && entry.target === later && !later.hidden) win.later();
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
    items = groupResults(doc.items, callRoleOfItem).map((group) => ({
      item: group.row,
      results: group.results,
    }));
    const place = keepPlace ? readingPlace() : undefined;
    let at = -1;
    if (focus !== -1) {
      const id = idAt(focus);
      at = items.findIndex((row) => row.item.id === id || row.results.some((result) => result.id === id));
    }
    if (state.follow) {
      win.start = Math.max(0, items.length - win.batch);
      win.end = items.length;
    } else if (place) {
      win.start = Math.max(0, Math.min(win.start, items.length));
      win.end = Math.min(items.length, Math.max(win.end, win.end === 0 ? win.batch : win.end));
    } else if (at !== -1) {
      win.start = Math.max(0, at - 10);
      win.end = Math.min(items.length, win.start + win.batch);
    } else {
      win.start = 0;
      win.end = Math.min(items.length, win.batch);
    }
    itemsEl.replaceChildren();
    appendRange(win.start, win.end, "end");
    updateMore();
    bar.setView(state.view);
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
    bar.setExports(key, state.view, leafId);
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

  // --- actions
  function select(pos: number, options: { scroll: boolean; newBranch?: boolean }): void {
    if (!layout || pos < 0 || pos >= entries.length) return;
    state.selected = pos;
    state.leaf = leafFor(pos);
    if (state.view === "context" && options.newBranch !== true) state.view = "branch";
    tree.computeRows();
    renderTranscript(options.scroll ? pos : -1);
    tree.scrollTo(pos);
    tree.render();
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
    bar.setFollow(on);
    el.dataset.follow = String(on);
    if (on) {
      if (sessionLeaf !== -1) state.leaf = sessionLeaf;
      tree.computeRows();
      tree.render();
      renderTranscript(-1);
    }
  }

  // --- data
  /** The sessions linked to this one (from the list), and the command that resumes it in pi. */
  async function showLinks(): Promise<void> {
    try {
      bar.showRelations(relationsOf(key, (await loadSessions()).sessions));
    } catch {
      // No list: no links.
    }
    try {
      const resume = await getJson<{ line: string | null; missingCwd?: boolean }>(
        `/api/sessions/${encodeURIComponent(key)}/resume`,
      );
      if (resume.line !== null) bar.showResume({ line: resume.line, missingCwd: resume.missingCwd === true });
    } catch {
      // Nothing to resume (a session of a team database): no line.
    }
  }

  function rebuild(all: AnyEntry[], header: SessionHeader | null, formatVersion: number): void {
    entries = all;
    session = createRenderSession({ header: header ?? undefined, entries, formatVersion });
    entries = session.index.entries as AnyEntry[];
    layout = layoutTree(session.index);
    sessionLeaf = positionOfId(session.index.leafId);
    computeIndent();
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
      if (first && data.key !== key) {
        key = data.key;
        replaceHash(href(Object.fromEntries(params)));
      }
      version = data.version;
      header = data.header;
      formatVersion = data.formatVersion;
      const wasAtSessionLeaf = state.leaf === -1 || state.leaf === sessionLeaf;
      const oldCount = entries.length;
      rebuild(data.from > 0 ? [...entries, ...data.entries] : data.entries, header, formatVersion);
      bar.showFacts({
        title: session ? sessionTitle(session) : key,
        path: data.path,
        ...(data.source !== undefined ? { source: data.source } : {}),
        header: data.header,
        entryCount: entries.length,
        formatVersion: data.formatVersion,
        diagnosticCount: data.diagnosticCount,
      });
      if (first) {
        const target = positionOfId(params.get("entry"));
        const leafParam = positionOfId(params.get("leaf"));
        state.leaf = leafParam !== -1 ? leafParam : sessionLeaf;
        if (target !== -1) {
          state.selected = target;
          state.leaf = leafFor(target);
        }
        tree.computeRows();
        renderTranscript(target);
        if (target !== -1) tree.scrollTo(target);
        tree.render();
        el.dataset.loaded = "true";
        void showLinks();
      } else {
        if (wasAtSessionLeaf) state.leaf = sessionLeaf;
        tree.computeRows();
        renderTranscript(-1, true);
        tree.render();
        void showLinks();
        el.dataset.updates = String(Number(el.dataset.updates ?? "0") + 1);
        el.dataset.entries = String(entries.length);
        if (entries.length > oldCount) transcript.classList.add("grew");
      }
      el.dataset.entries = String(entries.length);
    } catch (error) {
      if (first && error instanceof ApiError && error.status === 404) {
        // Nothing to show: no session controls, only what was asked and the way back.
        el.replaceChildren(notFound(asked, error.message));
        el.dataset.loaded = "not-found";
        return;
      }
      statusLine.textContent = `Cannot load this session: ${(error as Error).message}`;
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
      const rows = tree.rows();
      if (!layout || rows.length === 0) return;
      const i = rows.indexOf(state.selected);
      const next =
        rows[Math.max(0, Math.min(rows.length - 1, (i === -1 ? (delta > 0 ? -1 : rows.length) : i) + delta))];
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

/** The page of a key or id prefix that names no session (or more than one). */
function notFound(asked: string, reason: string): HTMLElement {
  return h("div", { class: "not-found" }, [
    h("h1", { text: "Session not found" }),
    h("p", {}, [
      "No session has the id or id prefix ",
      h("code", { text: oneLine(asked, 80) }),
      reason === "no such session" ? "." : `: ${oneLine(reason, 200)}.`,
    ]),
    h("p", {}, [h("a", { text: "Back to the sessions", attrs: { href: "#/" } })]),
  ]);
}
