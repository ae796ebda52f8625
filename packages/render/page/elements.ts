/**
 * The page's fixed elements, made once as the page loads: the top bar (title, facts, view
 * buttons, filter, search, theme), the tree sidebar and the transcript with its "more"
 * buttons. The panels fill them; this module only builds them and puts them in `#app`.
 */
import type { SessionHeader } from "@pi-session/format";
import { TREE_FILTERS, type TreeFilter } from "../src/filters.js";
import type { ViewKind } from "../src/model/shapes.js";
import { formatInt, localTime } from "../src/readable.js";
import { settings } from "./data.js";
import { h, shown } from "../src/dom/elements.js";
import { state } from "./state.js";

const app = document.getElementById("app") as HTMLElement;
const header = settings.header as (SessionHeader & Record<string, unknown>) | null;

export const viewButtons: Record<ViewKind, HTMLButtonElement> = {
  branch: h("button", { class: "seg", text: "Branch", attrs: { type: "button", "data-view": "branch" } }),
  "all-branches": h("button", {
    class: "seg",
    text: "All branches",
    attrs: { type: "button", "data-view": "all-branches" },
  }),
  context: h("button", { class: "seg", text: "Context", attrs: { type: "button", "data-view": "context" } }),
};
export const FILTER_LABELS: Record<TreeFilter, string> = {
  default: "Default",
  "no-tools": "No tools",
  "user-only": "User only",
  "labeled-only": "Labeled only",
  all: "All",
};
export const filterSelect = h(
  "select",
  { class: "filter", title: "pi's /tree filters", attrs: { "aria-label": "Filter" } },
  TREE_FILTERS.map((f) => h("option", { text: FILTER_LABELS[f], attrs: { value: f } })),
);
filterSelect.value = state.filter;
export const searchInput = h("input", {
  class: "search",
  attrs: {
    type: "search",
    placeholder: "Search (/)",
    "aria-label": "Search",
    autocomplete: "off",
    spellcheck: "false",
  },
});
export const searchCount = h("span", { class: "search-count", attrs: { "aria-live": "polite" } });
export const prevMatch = h("button", {
  class: "icon",
  text: "↑",
  title: "Previous match (Shift+Enter)",
  attrs: { type: "button" },
});
export const nextMatch = h("button", {
  class: "icon",
  text: "↓",
  title: "Next match (Enter)",
  attrs: { type: "button" },
});
export const themeButton = h("button", { class: "theme", attrs: { type: "button" } });
export const treeToggle = h("button", {
  class: "tree-toggle",
  text: "Tree",
  attrs: { type: "button", "aria-expanded": "false" },
});

const titleText = settings.title;
const facts: string[] = [];
if (header?.id) facts.push(String(header.id));
if (typeof header?.cwd === "string" && header.cwd) facts.push(header.cwd);
if (typeof header?.timestamp === "string") facts.push(`created ${localTime(header.timestamp)}`);
facts.push(`${formatInt(settings.entryCount)} entries`);
if (settings.formatVersion !== 3) facts.push(`v${settings.formatVersion} file, shown as v3`);

/** The totals line: models, messages by role, tool calls, tokens and cost. */
function totalsText(): string | undefined {
  const totals = settings.totals;
  if (totals === undefined) return undefined;
  const { messages, tokens } = totals;
  const roles = Object.entries(messages)
    .sort((a, b) => b[1] - a[1])
    .map(([role, n]) => `${formatInt(n)} ${ROLE_NAMES[role] ?? role}`);
  const total = Object.values(messages).reduce((sum, n) => sum + n, 0);
  const parts = [
    totals.models.length > 0 ? totals.models.join(", ") : "no model",
    `${formatInt(total)} messages${roles.length > 0 ? ` (${roles.join(", ")})` : ""}`,
    `${formatInt(totals.toolCalls)} tool calls`,
    `${formatTokens(tokens.input)} in · ${formatTokens(tokens.output)} out` +
      (tokens.cacheRead > 0 ? ` · ${formatTokens(tokens.cacheRead)} cache read` : "") +
      (tokens.cacheWrite > 0 ? ` · ${formatTokens(tokens.cacheWrite)} cache write` : ""),
    `$${totals.cost.toFixed(totals.cost > 0 && totals.cost < 0.01 ? 4 : 2)}`,
  ];
  return parts.join(" · ");
}

const ROLE_NAMES: Record<string, string> = {
  toolResult: "tool results",
  bashExecution: "bash runs",
  branchSummary: "branch summaries",
  compactionSummary: "compaction summaries",
};

/** Tokens as people read them: 950, 12.3k, 4.5M. */
function formatTokens(n: number): string {
  if (n < 1000) return formatInt(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

const redaction = settings.redaction;
const redactionNote = redaction
  ? h("p", {
      class: "redaction",
      text:
        redaction.total === 0
          ? "Redacted for sharing: nothing found to remove."
          : `Redacted for sharing: ${Object.entries(redaction.counts)
              .map(([kind, n]) => `${kind} ${formatInt(n)}`)
              .join(", ")}.`,
    })
  : null;

const topbar = h("header", { class: "topbar" }, [
  h("div", { class: "heading" }, [
    h("h1", { text: shown(titleText) }),
    h("p", { class: "facts", text: shown(facts.join(" · ")) }),
    totalsText() !== undefined
      ? h("p", { class: "facts totals", text: shown(totalsText() as string) })
      : null,
    settings.branchOnly
      ? h("p", {
          class: "redaction",
          text: "One branch of the session: the others were left out of this page.",
        })
      : null,
    redactionNote,
  ]),
  h("div", { class: "controls" }, [
    treeToggle,
    h(
      "div",
      { class: "segmented", attrs: { role: "group", "aria-label": "View" } },
      Object.values(viewButtons),
    ),
    filterSelect,
    h("div", { class: "search-box" }, [searchInput, searchCount, prevMatch, nextMatch]),
    themeButton,
  ]),
]);

export const treeScroll = h("div", { class: "tree-scroll", attrs: { tabindex: "0" } });
export const treeSpace = h("div", { class: "tree-space" });
treeScroll.append(treeSpace);
export const treeCount = h("span", { class: "tree-count" });
export const treeClose = h("button", { class: "tree-close", text: "Close", attrs: { type: "button" } });
const treeHead = h("div", { class: "tree-head" }, [treeCount, treeClose]);
const sidebar = h("nav", { class: "sidebar", attrs: { "aria-label": "Session tree" } }, [
  treeHead,
  treeScroll,
]);

export const statusLine = h("div", { class: "status" });
export const earlier = h("button", { class: "more earlier", attrs: { type: "button" } });
export const later = h("button", { class: "more later", attrs: { type: "button" } });
export const showAll = h("button", { class: "more all", attrs: { type: "button" } });
export const jumpEnd = h("button", {
  class: "more jump",
  text: "Jump to the end",
  attrs: { type: "button" },
});
export const itemsEl = h("div", { class: "items" });
export const transcript = h("main", { class: "transcript", attrs: { id: "transcript" } }, [
  statusLine,
  earlier,
  itemsEl,
  h("div", { class: "more-row" }, [later, showAll, jumpEnd]),
]);

app.append(topbar, h("div", { class: "body" }, [sidebar, transcript]));
