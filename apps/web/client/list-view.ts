/**
 * The sessions view: every session of the store, newest first, with its name or first
 * message, project, time, message count, tokens and cost; filtered by text, project, date,
 * named and holding secrets (the session database's secret scan, as `ls --secrets`) (and, served from a team database, by source: each row says which person or machine it
 * came from); virtualized (only the rows on screen exist), so thousands scroll smoothly. New and
 * changed sessions come in live.
 */
import type { Served } from "../src/rows.js";
import { type SessionRow, getJson, onChange } from "./api.js";
import {
  formatCost,
  formatInt,
  formatTokens,
  h,
  oneLine,
  projectLabels,
  shortIds,
  shortTime,
} from "./dom.js";
import { type View, replaceHash } from "./view.js";

/** Row height in px (must match `.session-row` in the style). */
const ROW_HEIGHT = 58;
const DAY_MS = 86_400_000;
const SINCE_CHOICES: [string, string][] = [
  ["", "Any time"],
  ["1", "Today"],
  ["7", "Last 7 days"],
  ["30", "Last 30 days"],
  ["90", "Last 90 days"],
];

export interface ListData {
  generation: number;
  served: Served;
  /** The first build is under way: files read of those to read (the list fills in). */
  indexing?: { done: number; total: number };
  sessions: SessionRow[];
}

/** Sessions cached across views (the search view names projects from it too). */
let cached: ListData | undefined;
let pending: Promise<ListData> | undefined;

export function loadSessions(force = false): Promise<ListData> {
  if (cached && !force) return Promise.resolve(cached);
  pending ??= getJson<ListData>("/api/sessions").then(
    (data) => {
      cached = data;
      pending = undefined;
      return data;
    },
    (error) => {
      pending = undefined;
      throw error;
    },
  );
  return pending;
}

onChange(() => {
  cached = undefined;
});

/** The columns the list sorts by, each with the order a first click gives. */
const SORTS = {
  title: { label: "Session", class: "c-title", first: "asc" },
  modified: { label: "Last message", class: "c-time", first: "desc" },
  messages: { label: "Messages", class: "c-num", first: "desc" },
  tokens: { label: "Tokens", class: "c-num", first: "desc" },
  cost: { label: "Cost", class: "c-num", first: "desc" },
} as const;
type SortKey = keyof typeof SORTS;

function sortValue(row: SessionRow, key: SortKey): number | string {
  switch (key) {
    case "title":
      return titleOf(row).toLowerCase();
    case "modified":
      return row.modifiedMs;
    case "messages":
      return row.messageCount;
    case "tokens":
      return row.tokens;
    case "cost":
      return row.cost;
  }
}

export function titleOf(row: Pick<SessionRow, "name" | "firstMessage">): string {
  return oneLine(row.name || row.firstMessage || "(no messages)", 240);
}

/** Secrets the scan found in a session (0: none, or not scanned yet). */
function secretCount(row: Pick<SessionRow, "secrets">): number {
  let n = 0;
  for (const count of Object.values(row.secrets ?? {})) n += count;
  return n;
}

export function listView(params: URLSearchParams): View {
  const state = {
    text: params.get("q") ?? "",
    project: params.get("project") ?? "",
    since: params.get("since") ?? "",
    named: params.get("named") === "1",
    secrets: params.get("secrets") === "1",
    source: params.get("source") ?? "",
    sort: (params.get("sort") ?? "modified") as SortKey,
    order: params.get("order") === "asc" ? "asc" : params.get("order") === "desc" ? "desc" : "",
    selected: 0,
  };
  if (!(state.sort in SORTS)) state.sort = "modified";
  if (state.order === "") state.order = SORTS[state.sort].first;
  let labels = new Map<string, string>();
  let short = new Map<string, string>();
  let fromDatabase = false;
  let all: SessionRow[] = [];
  let rows: SessionRow[] = [];
  const fresh = new Set<string>();

  const textInput = h("input", {
    class: "filter-text",
    attrs: {
      type: "text",
      placeholder: "Filter by title, project or id",
      "aria-label": "Filter by title, project or id",
      spellcheck: "false",
    },
  });
  textInput.value = state.text;
  const projectSelect = h("select", { class: "filter-project", attrs: { "aria-label": "Project" } });
  // Served from a team database: who the sessions came from.
  const sourceSelect = h("select", { class: "filter-source", attrs: { "aria-label": "Source" } });
  sourceSelect.hidden = true;
  const sinceSelect = h(
    "select",
    { class: "filter-since", attrs: { "aria-label": "Date" } },
    SINCE_CHOICES.map(([value, label]) => h("option", { text: label, attrs: { value } })),
  );
  sinceSelect.value = state.since;
  const namedBox = h("input", { attrs: { type: "checkbox", "aria-label": "Named only" } });
  namedBox.checked = state.named;
  const secretsBox = h("input", {
    class: "filter-secrets",
    attrs: { type: "checkbox", "aria-label": "Only sessions holding secrets" },
  });
  secretsBox.checked = state.secrets;
  const count = h("span", { class: "count", attrs: { "aria-live": "polite" } });
  const scroller = h("div", { class: "list-scroll", attrs: { tabindex: "0", role: "listbox" } });
  const space = h("div", { class: "list-space" });
  scroller.append(space);
  const message = h("p", { class: "empty", text: "Loading sessions…" });
  const indexing = h("p", { class: "status indexing", attrs: { "aria-live": "polite" } });
  indexing.hidden = true;
  let building: ListData["indexing"];

  // Column headings that sort: a click sorts by that column, another turns the order round.
  const sortButtons = (Object.keys(SORTS) as SortKey[]).map((key) =>
    h("button", {
      class: `sort ${SORTS[key].class}`,
      text: SORTS[key].label,
      attrs: { type: "button", "data-sort": key },
      onClick: () => {
        state.order = state.sort === key ? (state.order === "asc" ? "desc" : "asc") : SORTS[key].first;
        state.sort = key;
        syncHash();
        applyFilters();
      },
    }),
  );
  const el = h("section", { class: "view list-view" }, [
    h("div", { class: "toolbar" }, [
      textInput,
      sourceSelect,
      projectSelect,
      sinceSelect,
      h("label", { class: "check" }, [namedBox, " Named"]),
      h("label", { class: "check", title: "Sessions the secret scan found credentials in" }, [
        secretsBox,
        " Secrets",
      ]),
      h("span", { class: "spacer" }),
      count,
    ]),
    h("div", { class: "list-head" }, sortButtons),
    indexing,
    message,
    scroller,
  ]);

  function syncHash(): void {
    const p = new URLSearchParams();
    if (state.text) p.set("q", state.text);
    if (state.project) p.set("project", state.project);
    if (state.source) p.set("source", state.source);
    if (state.since) p.set("since", state.since);
    if (state.named) p.set("named", "1");
    if (state.secrets) p.set("secrets", "1");
    if (state.sort !== "modified" || state.order !== "desc") {
      p.set("sort", state.sort);
      p.set("order", state.order);
    }
    const query = p.toString();
    replaceHash(`#/${query ? `?${query}` : ""}`);
  }

  function applyFilters(): void {
    const needle = state.text.toLowerCase();
    const since = state.since ? Date.now() - Number(state.since) * DAY_MS : undefined;
    const startOfToday = new Date();
    startOfToday.setHours(0, 0, 0, 0);
    const from = state.since === "1" ? startOfToday.getTime() : since;
    rows = all.filter(
      (r) =>
        (!state.project || r.project === state.project) &&
        (!state.source || r.source === state.source) &&
        (!state.named || (r.name !== null && r.name !== "")) &&
        (!state.secrets || secretCount(r) > 0) &&
        (from === undefined || r.modifiedMs >= from) &&
        (!needle ||
          titleOf(r).toLowerCase().includes(needle) ||
          r.project.toLowerCase().includes(needle) ||
          // A short id as the list and the CLI print it.
          r.id.toLowerCase().startsWith(needle) ||
          (r.source ?? "").toLowerCase().includes(needle)),
    );
    const sign = state.order === "asc" ? 1 : -1;
    const sortKey = state.sort;
    // Ties keep the newest first (the server's order), so a sort is stable as sessions change.
    if (sortKey !== "modified" || state.order !== "desc")
      rows = rows
        .map((row, at) => ({ row, at, value: sortValue(row, sortKey) }))
        .sort((a, b) => (a.value < b.value ? -sign : a.value > b.value ? sign : a.at - b.at))
        .map(({ row }) => row);
    for (const button of sortButtons) {
      const on = button.dataset.sort === state.sort;
      button.setAttribute("aria-sort", on ? (state.order === "asc" ? "ascending" : "descending") : "none");
      button.dataset.arrow = on ? (state.order === "asc" ? "↑" : "↓") : "";
    }
    state.selected = Math.min(state.selected, Math.max(0, rows.length - 1));
    space.style.height = `${rows.length * ROW_HEIGHT}px`;
    count.textContent =
      rows.length === all.length
        ? `${formatInt(all.length)} sessions`
        : `${formatInt(rows.length)} of ${formatInt(all.length)} sessions`;
    count.dataset.count = String(rows.length);
    message.hidden = rows.length > 0;
    if (rows.length === 0)
      message.textContent = building
        ? "Indexing the sessions…"
        : all.length === 0
          ? `No sessions in this ${fromDatabase ? "database" : "store"}.`
          : "No session matches.";
    indexing.hidden = building === undefined;
    indexing.textContent = building
      ? `Indexing the store: ${formatInt(building.done)} of ${formatInt(building.total)} files read; the list fills in as they come (search and usage wait for the end).`
      : "";
    el.dataset.indexing = building ? "true" : "false";
    renderRows();
  }

  function rowEl(row: SessionRow, i: number): HTMLElement {
    const el = h(
      "a",
      {
        class: `session-row${i === state.selected ? " selected" : ""}${fresh.has(row.key) ? " fresh" : ""}`,
        attrs: { href: `#/s/${encodeURIComponent(row.key)}`, role: "option", "data-key": row.key },
      },
      [
        h("span", { class: "c-title" }, [
          h("span", { class: `title${row.name ? " named" : ""}`, text: titleOf(row) }),
          h("span", { class: "sub" }, [
            row.source !== undefined
              ? h("span", {
                  class: "source",
                  text: oneLine(row.source, 60),
                  title: `From ${oneLine(row.source)}`,
                })
              : null,
            h("span", { class: "project", text: labels.get(row.project) ?? row.project, title: row.project }),
            h("span", { class: "id", text: short.get(row.id) ?? row.id.slice(0, 8) }),
            row.errored
              ? h("span", { class: "badge error", text: "error", title: "A tool call failed" })
              : null,
            secretCount(row) > 0
              ? h("span", {
                  class: "badge secrets",
                  text: "secrets",
                  title: `Holds ${Object.entries(row.secrets ?? {})
                    .map(([kind, n]) => `${kind} ${n}`)
                    .join(", ")} (pi-session secrets shows where)`,
                })
              : null,
            row.parentKind === "subagent"
              ? h("span", {
                  class: "badge subagent",
                  text: "subagent",
                  title: "A subagent of another session",
                })
              : row.parentKey
                ? h("span", { class: "badge", text: "fork", title: "Forked from another session" })
                : null,
          ]),
        ]),
        h("span", { class: "c-time", text: shortTime(row.modifiedMs) }),
        h("span", { class: "c-num", text: formatInt(row.messageCount) }),
        h("span", { class: "c-num", text: formatTokens(row.tokens) }),
        h("span", { class: "c-num", text: formatCost(row.cost) }),
      ],
    );
    el.style.top = `${i * ROW_HEIGHT}px`;
    return el;
  }

  let frame = 0;
  function renderRows(): void {
    frame = 0;
    const top = scroller.scrollTop;
    const height = scroller.clientHeight || 800;
    const first = Math.max(0, Math.floor(top / ROW_HEIGHT) - 8);
    const last = Math.min(rows.length, Math.ceil((top + height) / ROW_HEIGHT) + 8);
    const frag = document.createDocumentFragment();
    for (let i = first; i < last; i++) frag.append(rowEl(rows[i] as SessionRow, i));
    space.replaceChildren(frag);
  }
  const schedule = () => {
    if (frame === 0) frame = requestAnimationFrame(renderRows);
  };
  scroller.addEventListener("scroll", schedule, { passive: true });
  window.addEventListener("resize", schedule);

  function fillProjects(): void {
    const projects = [...new Set(all.map((r) => r.project))].sort();
    // Labels no two projects share (two `web/app`s are told apart by more of their paths).
    labels = projectLabels(projects);
    projectSelect.replaceChildren(
      h("option", { text: "All projects", attrs: { value: "" } }),
      ...projects.map((p) => h("option", { text: labels.get(p) ?? p, title: p, attrs: { value: p } })),
    );
    projectSelect.value = projects.includes(state.project) ? state.project : "";
    const sources = [...new Set(all.flatMap((r) => (r.source === undefined ? [] : [r.source])))].sort();
    sourceSelect.hidden = !fromDatabase;
    sourceSelect.replaceChildren(
      h("option", { text: "All sources", attrs: { value: "" } }),
      ...sources.map((name) => h("option", { text: oneLine(name, 60), title: name, attrs: { value: name } })),
    );
    sourceSelect.value = sources.includes(state.source) ? state.source : "";
  }

  async function load(force: boolean): Promise<void> {
    try {
      const data = await loadSessions(force);
      if (all.length > 0) {
        const before = new Map(all.map((r) => [r.key, r.modifiedMs]));
        for (const r of data.sessions) if (before.get(r.key) !== r.modifiedMs) fresh.add(r.key);
      }
      all = data.sessions;
      short = shortIds(all.map((r) => r.id));
      building = data.indexing;
      fromDatabase = data.served.kind === "database";
      fillProjects();
      applyFilters();
      el.dataset.loaded = "true";
    } catch (error) {
      message.hidden = false;
      message.textContent = `Cannot load the sessions: ${(error as Error).message}`;
    }
  }

  textInput.addEventListener("input", () => {
    state.text = textInput.value;
    state.selected = 0;
    syncHash();
    applyFilters();
  });
  projectSelect.addEventListener("change", () => {
    state.project = projectSelect.value;
    syncHash();
    applyFilters();
  });
  sourceSelect.addEventListener("change", () => {
    state.source = sourceSelect.value;
    syncHash();
    applyFilters();
  });
  sinceSelect.addEventListener("change", () => {
    state.since = sinceSelect.value;
    syncHash();
    applyFilters();
  });
  namedBox.addEventListener("change", () => {
    state.named = namedBox.checked;
    syncHash();
    applyFilters();
  });
  secretsBox.addEventListener("change", () => {
    state.secrets = secretsBox.checked;
    syncHash();
    applyFilters();
  });

  let reload = 0;
  const off = onChange(() => {
    clearTimeout(reload);
    reload = window.setTimeout(() => void load(true), 150);
  });
  void load(false);

  function scrollToSelected(): void {
    const top = state.selected * ROW_HEIGHT;
    if (top < scroller.scrollTop) scroller.scrollTop = top;
    else if (top + ROW_HEIGHT > scroller.scrollTop + scroller.clientHeight)
      scroller.scrollTop = top + ROW_HEIGHT - scroller.clientHeight;
    renderRows();
  }

  return {
    el,
    move(delta) {
      if (rows.length === 0) return;
      state.selected = Math.max(0, Math.min(rows.length - 1, state.selected + delta));
      scrollToSelected();
    },
    open() {
      const row = rows[state.selected];
      if (row) location.hash = `#/s/${encodeURIComponent(row.key)}`;
    },
    dispose() {
      off();
      window.removeEventListener("resize", schedule);
      clearTimeout(reload);
    },
  };
}
