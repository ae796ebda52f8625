/**
 * The search view: results as you type, through the session database (its query syntax:
 * stemmed words, "phrases", -exclusions, re:regex; and its filters), newest sessions first or
 * the best matches, each session with its hits and their snippets, matches marked; a hit opens
 * the session at its entry. Typing searches from 3 characters on; Enter searches shorter input.
 */
import { messageRoleInfo } from "@pi-session/format";
import type { EntryHit, Snippet } from "@pi-session/search";
import { getJson, onChange, type SessionRow } from "./api.js";
import { h, marked, oneLine, projectName, shortTime } from "./dom.js";
import { loadSessions, titleOf } from "./list-view.js";
import { type View, replaceHash } from "./view.js";

/** A hit as the server sends it (`searchJson`): search's own, without the score, the snippet's field, or undefined. */
type Hit = Omit<EntryHit, "score" | "snippet"> & { snippet: Pick<Snippet, "text" | "ranges"> | null };

type SessionHits = Pick<SessionRow, "key" | "name" | "firstMessage" | "project" | "source" | "modifiedMs"> & {
  hits: Hit[];
  /** Found by its id: the query is the start of it (a short id as the list and the CLI print it). */
  idMatch?: true;
};

interface SearchAnswer {
  query: string;
  more: boolean;
  /** The search stopped at its time limit after checking this many candidate entries. */
  cut?: { timeLimitMs: number; checked: number };
  sessions: SessionHits[];
}

const ROLE_CHOICES: [string, string][] = [
  ["", "Any role"],
  ["user", "User"],
  ["assistant", "Assistant"],
  ["tool", "Tool output"],
];

const ORDER_CHOICES: [string, string][] = [
  ["", "Newest first"],
  ["best", "Best match"],
];

/** Characters typed before searching as you type: 1-2 match nearly everything, at most cost. */
const MIN_TYPED = 3;

/**
 * Whether the query being typed ends in a word of 1-2 letters or digits that is a prefix (not
 * closed by a quote): such a prefix stands for hundreds of words, the costliest searches a
 * keystroke can ask for, and its answer is gone at the next keystroke. Search as you type waits
 * for a third character (or Enter); CJK characters are words of their own and do not wait.
 */
export function endsInShortPrefix(text: string): boolean {
  const last = text.trimEnd().split(/\s+/).pop() ?? "";
  if (last.endsWith('"')) return false;
  return /^[-"(]*[A-Za-z0-9]{1,2}$/.test(last);
}

export function hitHref(key: string, entryId: string | null): string {
  return `#/s/${encodeURIComponent(key)}${entryId ? `?entry=${encodeURIComponent(entryId)}` : ""}`;
}

export function searchView(params: URLSearchParams): View {
  const input = h("input", {
    class: "search-input",
    attrs: {
      type: "search",
      placeholder: 'Search every session: words, "a phrase", -not, re:regex',
      "aria-label": "Search",
      autocomplete: "off",
      spellcheck: "false",
    },
  });
  input.value = params.get("q") ?? "";
  const roleSelect = h(
    "select",
    { attrs: { "aria-label": "Role" } },
    ROLE_CHOICES.map(([value, label]) => h("option", { text: label, attrs: { value } })),
  );
  roleSelect.value = params.get("role") ?? "";
  const orderSelect = h(
    "select",
    { attrs: { "aria-label": "Order" } },
    ORDER_CHOICES.map(([value, label]) => h("option", { text: label, attrs: { value } })),
  );
  orderSelect.value = params.get("sort") === "best" ? "best" : "";
  const projectSelect = h("select", { attrs: { "aria-label": "Project" } }, [
    h("option", { text: "All projects", attrs: { value: "" } }),
  ]);
  const namedBox = h("input", { attrs: { type: "checkbox", "aria-label": "Named only" } });
  namedBox.checked = params.get("named") === "1";
  const branchesBox = h("input", { attrs: { type: "checkbox", "aria-label": "All branches" } });
  branchesBox.checked = params.get("allBranches") === "1";
  const thinkingBox = h("input", { attrs: { type: "checkbox", "aria-label": "Thinking too" } });
  thinkingBox.checked = params.get("thinking") === "1";
  const status = h("p", { class: "status", attrs: { "aria-live": "polite" } });
  const results = h("div", { class: "results" });
  const el = h("section", { class: "view search-view" }, [
    h("div", { class: "search-bar" }, [input]),
    h("div", { class: "toolbar" }, [
      orderSelect,
      roleSelect,
      projectSelect,
      h("label", { class: "check" }, [namedBox, " Named"]),
      h("label", { class: "check", title: "Rank hits on abandoned branches with the others" }, [
        branchesBox,
        " All branches",
      ]),
      h("label", { class: "check" }, [thinkingBox, " Thinking"]),
    ]),
    status,
    results,
  ]);

  let links: HTMLAnchorElement[] = [];
  let selected = -1;
  let controller: AbortController | undefined;
  let timer = 0;
  // The query (with its choices) whose answer is shown or under way: Enter opens its first hit.
  let asked: string | undefined;
  const syncBranches = () => {
    // Newest first ranks nothing, so the current branch has no precedence to give up.
    branchesBox.disabled = orderSelect.value === "";
  };
  syncBranches();

  void loadSessions().then((data) => {
    const projects = [...new Set(data.sessions.map((s) => s.project).filter((p) => p !== ""))].sort();
    for (const p of projects)
      projectSelect.append(h("option", { text: projectName(p), title: p, attrs: { value: p } }));
    projectSelect.value = params.get("project") ?? "";
  });

  function queryParams(): URLSearchParams {
    const p = new URLSearchParams();
    p.set("q", input.value);
    if (orderSelect.value) p.set("sort", orderSelect.value);
    if (roleSelect.value) p.set("role", roleSelect.value);
    if (projectSelect.value) p.set("project", projectSelect.value);
    if (namedBox.checked) p.set("named", "1");
    if (branchesBox.checked) p.set("allBranches", "1");
    if (thinkingBox.checked) p.set("thinking", "1");
    return p;
  }

  function select(i: number): void {
    links[selected]?.classList.remove("selected");
    selected = i;
    const link = links[selected];
    if (link) {
      link.classList.add("selected");
      link.scrollIntoView({ block: "nearest" });
    }
  }

  function render(answer: SearchAnswer): void {
    links = [];
    selected = -1;
    const frag = document.createDocumentFragment();
    for (const s of answer.sessions) {
      const hits = h("ol", { class: "hits" });
      for (const hit of s.hits) {
        const link = h(
          "a",
          { class: "hit", attrs: { href: hitHref(s.key, hit.entryId), "data-entry-id": hit.entryId ?? "" } },
          [
            h("span", {
              class: `role role-${messageRoleInfo(hit.role)?.tone ?? hit.role ?? hit.type}`,
              text: messageRoleInfo(hit.role)?.label ?? hit.role ?? hit.type,
            }),
            hit.onBranch ? null : h("span", { class: "badge", text: "other branch" }),
            h("span", { class: "snippet" }, [
              hit.snippet ? marked(hit.snippet.text, hit.snippet.ranges) : `line ${hit.line}`,
            ]),
          ],
        );
        links.push(link);
        hits.append(h("li", {}, [link]));
      }
      const head = h("a", { class: "result-head", attrs: { href: hitHref(s.key, null) } }, [
        h("span", { class: `title${s.name ? " named" : ""}`, text: titleOf(s) }),
        s.idMatch
          ? h("span", {
              class: "badge",
              text: `id ${s.key.split("~")[0]}`,
              title: "Its id starts with the query",
            })
          : null,
        s.source !== undefined
          ? h("span", {
              class: "source",
              text: oneLine(s.source, 60),
              title: `From ${oneLine(s.source)}`,
            })
          : null,
        h("span", { class: "project", text: projectName(s.project), title: s.project }),
        h("span", { class: "time", text: shortTime(s.modifiedMs) }),
      ]);
      // A session found by its id has no hits: its heading is what j and k move to.
      if (s.hits.length === 0) links.push(head);
      frag.append(h("article", { class: "result", attrs: { "data-key": s.key } }, [head, hits]));
    }
    results.replaceChildren(frag);
    const n = answer.sessions.length;
    const cut = answer.cut;
    // Never "no session matches" for what the search did not look at.
    const stopped = cut
      ? ` The search stopped at its ${cut.timeLimitMs / 1000} s time limit after checking ${cut.checked.toLocaleString("en-US")} entries: others may match; narrow the query.`
      : "";
    status.textContent =
      n === 0
        ? cut
          ? `No match in the part searched.${stopped}`
          : `No session matches ${oneLine(answer.query, 80)}.`
        : `${n} session${n === 1 ? "" : "s"}${answer.more ? " (more match: narrow the query)" : ""}.${stopped}`;
    el.dataset.cut = cut ? "true" : "false";
    el.dataset.results = String(n);
    el.dataset.query = answer.query;
  }

  async function run(typed = false): Promise<void> {
    const p = queryParams();
    replaceHash(`#/search?${p.toString()}`);
    const length = input.value.trim().length;
    if (typed && length >= MIN_TYPED && endsInShortPrefix(input.value)) {
      // What is shown stays (the answer without the short word, when it came); Enter searches.
      status.textContent = `Type one more character of the last word, or press Enter to search.`;
      return;
    }
    if (length === 0 || (typed && length < MIN_TYPED)) {
      controller?.abort();
      asked = undefined;
      results.replaceChildren();
      status.textContent =
        length === 0
          ? "Type to search every session."
          : `Type ${MIN_TYPED} characters to search as you type, or press Enter to search.`;
      el.dataset.results = "0";
      return;
    }
    controller?.abort();
    controller = new AbortController();
    asked = p.toString();
    status.textContent = "Searching…";
    const api = new URLSearchParams(p);
    api.delete("sort");
    if (orderSelect.value === "") api.set("order", "newest");
    try {
      const answer = await getJson<SearchAnswer>(`/api/search?${api.toString()}`, controller.signal);
      render(answer);
    } catch (error) {
      if ((error as Error).name === "AbortError") return;
      results.replaceChildren();
      status.textContent = (error as Error).message;
      el.dataset.results = "0";
    }
  }

  // A keystroke gives up the answer under way (the server drops a search not yet run), and
  // asks 120 ms after the last one, from MIN_TYPED characters on.
  const later = () => {
    controller?.abort();
    clearTimeout(timer);
    timer = window.setTimeout(() => void run(true), 120);
  };
  input.addEventListener("input", later);
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      event.preventDefault();
      // Enter searches what is typed (short input too), or opens the first hit of its answer.
      if (asked !== queryParams().toString()) {
        clearTimeout(timer);
        void run();
        return;
      }
      const first = links[Math.max(0, selected)];
      if (first) location.hash = first.getAttribute("href") as string;
    } else if (event.key === "ArrowDown") {
      event.preventDefault();
      input.blur();
      select(0);
    }
  });
  orderSelect.addEventListener("change", syncBranches);
  for (const control of [orderSelect, roleSelect, projectSelect, namedBox, branchesBox, thinkingBox])
    control.addEventListener("change", () => void run());
  // The store changed: the answer shown is asked again (short input searched by Enter too).
  const off = onChange(() => {
    if (asked === undefined) return;
    controller?.abort();
    clearTimeout(timer);
    timer = window.setTimeout(() => void run(), 120);
  });

  void run();
  requestAnimationFrame(() => input.focus());

  return {
    el,
    move(delta) {
      if (links.length === 0) return;
      select(Math.max(0, Math.min(links.length - 1, selected + delta)));
    },
    open() {
      const link = links[selected];
      if (link) location.hash = link.getAttribute("href") as string;
    },
    dispose() {
      off();
      controller?.abort();
      clearTimeout(timer);
    },
  };
}
