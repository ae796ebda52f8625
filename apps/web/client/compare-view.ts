/**
 * Two branches of a session side by side (`#/compare/<key>?left=<id>&right=<id>`; without
 * ids, the current leaf and the most recent other): their common ancestor on top, then one
 * column per side with its entries after the ancestor and what it did (messages, tool calls,
 * files touched, tokens, cost, how it ended), each entry linking to itself in the session.
 * The server computes it with the code `pi-session diff` prints (search's `compareBranches`).
 * Branches are picked in the session's tree (its Compare mode).
 */
import type { BranchCompare, ComparedSide, SideEntry } from "@pi-session/search/documents";
import { getJson } from "./api.js";
import { formatCost, formatInt, formatTokens, h, oneLine } from "./dom.js";
import { hitHref } from "./search-view.js";
import type { View } from "./view.js";

export function compareHref(key: string, left?: string, right?: string): string {
  const q = new URLSearchParams();
  if (left !== undefined && right !== undefined) {
    q.set("left", left);
    q.set("right", right);
  }
  const s = q.toString();
  return `#/compare/${encodeURIComponent(key)}${s ? `?${s}` : ""}`;
}

function counts(record: Record<string, number>): string {
  const parts = Object.entries(record).map(([k, n]) => `${k} ${formatInt(n)}`);
  return parts.length > 0 ? parts.join(", ") : "none";
}

function entryLink(key: string, e: SideEntry): HTMLElement {
  return h(
    "a",
    { class: "hit compare-entry", attrs: { href: hitHref(key, e.id), "data-entry-id": e.id ?? "" } },
    [
      h("span", {
        class: `role role-${e.role === "toolResult" || e.role === "bashExecution" ? "tool" : (e.role ?? e.type)}`,
        text: e.role ?? e.type,
      }),
      h("span", { class: "snippet", text: oneLine(e.text, 300) }),
    ],
  );
}

function column(key: string, name: string, side: ComparedSide): HTMLElement {
  const entries = h(
    "ol",
    { class: "hits" },
    side.entries.map((e) => h("li", {}, [entryLink(key, e)])),
  );
  const facts = h("dl", { class: "compare-facts" }, [
    h("dt", { text: "Messages" }),
    h("dd", { text: counts(side.messages) }),
    h("dt", { text: "Tool calls" }),
    h("dd", { text: counts(side.toolCalls) }),
    h("dt", { text: "Files" }),
    h(
      "dd",
      {},
      side.files.length === 0
        ? ["none"]
        : side.files.map((f) =>
            h("div", { class: "compare-file", text: `${f.actions.join(", ")} ${oneLine(f.path, 200)}` }),
          ),
    ),
    h("dt", { text: "Tokens" }),
    h("dd", { text: formatTokens(side.tokens) }),
    h("dt", { text: "Cost" }),
    h("dd", { text: formatCost(side.cost) }),
    h("dt", { text: "Ended" }),
    h("dd", { class: "compare-ended", text: side.stopReason ?? "—" }),
  ]);
  return h("section", { class: `compare-side side-${name}`, attrs: { "data-leaf": side.leaf ?? "" } }, [
    h("a", { class: "result-head", attrs: { href: hitHref(key, side.leaf) } }, [
      h("span", { class: "title", text: `${name === "left" ? "Left" : "Right"}: ${side.leaf ?? "(none)"}` }),
      side.current ? h("span", { class: "badge", text: "current leaf" }) : null,
      h("span", { class: "time", text: `${formatInt(side.entries.length)} entries after the ancestor` }),
    ]),
    facts,
    entries,
  ]);
}

export function compareView(key: string, params: URLSearchParams): View {
  const heading = h("h1", { class: "files-title", text: "Compare branches" });
  const status = h("p", { class: "status", text: "Loading…" });
  const body = h("div", { class: "results compare" });
  const el = h("section", { class: "view compare-view" }, [
    h("div", { class: "toolbar" }, [
      h("a", { class: "back-link", text: "← Session", attrs: { href: hitHref(key, null) } }),
      heading,
    ]),
    status,
    body,
  ]);
  const controller = new AbortController();
  const q = new URLSearchParams();
  for (const side of ["left", "right"]) {
    const id = params.get(side);
    if (id !== null) q.set(side, id);
  }
  getJson<BranchCompare & { key: string }>(
    `/api/sessions/${encodeURIComponent(key)}/compare${q.size > 0 ? `?${q.toString()}` : ""}`,
    controller.signal,
  ).then(
    (data) => {
      const ancestor = data.ancestor;
      status.textContent = ancestor
        ? `Common ancestor: ${ancestor.id ?? "(no id)"} · ${ancestor.role ?? ancestor.type} · ${oneLine(ancestor.text, 160)}`
        : "No common ancestor: the branches start at different roots.";
      status.dataset.ancestor = ancestor?.id ?? "";
      body.replaceChildren(
        h("div", { class: "compare-columns" }, [
          column(key, "left", data.left),
          column(key, "right", data.right),
        ]),
      );
      el.dataset.state = "ready";
    },
    (error) => {
      if (controller.signal.aborted) return;
      status.textContent = oneLine((error as Error).message, 300);
      el.dataset.state = "error";
    },
  );
  return { el, dispose: () => controller.abort() };
}
