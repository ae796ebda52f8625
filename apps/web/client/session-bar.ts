/**
 * The session view's header: back, the session's title and facts (id, its source when served
 * from a team database, project, created,
 * entries, file version, unreadable lines), the view switch (branch, all branches, context),
 * "Follow", the tree drawer's toggle, the session's Files (file activity) and the export links. Use `sessionBar` once per session
 * view; the view calls its setters as its state changes.
 */
import type { SessionHeader } from "@pi-session/format";
import { type ViewKind, localTime } from "@pi-session/render";
import { formatInt, h, oneLine, projectName, shown } from "./dom.js";
import { withToken } from "./api.js";

export const VIEW_LABELS: Record<ViewKind, string> = {
  branch: "Branch",
  "all-branches": "All branches",
  context: "Context",
};

export interface SessionFacts {
  title: string;
  path: string;
  /** Served from a team database: the source (person or machine) it came from. */
  source?: string;
  header: SessionHeader | null;
  entryCount: number;
  formatVersion: number;
  diagnosticCount: number;
}

export interface SessionBarHandlers {
  back(): void;
  view(view: ViewKind): void;
  follow(): void;
  toggleTree(): void;
}

export interface SessionBar {
  el: HTMLElement;
  /** Shows a title alone (while loading, or "not found"). */
  setTitle(text: string): void;
  showFacts(facts: SessionFacts): void;
  setView(view: ViewKind): void;
  setFollow(on: boolean): void;
  setTreeOpen(open: boolean): void;
  /** Points the export links at the session `key` as shown (its view and leaf), and its Files link. */
  setExports(key: string, view: ViewKind, leafId: string | null): void;
}

export function sessionBar(handlers: SessionBarHandlers): SessionBar {
  const backButton = h(
    "button",
    {
      class: "back",
      title: "Back (Esc)",
      attrs: { type: "button", "aria-label": "Back" },
      onClick: () => handlers.back(),
    },
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
        onClick: () => handlers.view(v),
      }),
    ]),
  ) as Record<ViewKind, HTMLButtonElement>;
  const followButton = h("button", {
    class: "follow",
    text: "Follow",
    title: "Keep the newest entry in view as the session is written",
    attrs: { type: "button", "aria-pressed": "false" },
    onClick: () => handlers.follow(),
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
  const filesLink = h("a", {
    class: "files-link",
    text: "Files",
    title: "The files this session read, edited or wrote",
  });
  const treeToggle = h("button", {
    class: "tree-toggle",
    text: "Tree",
    attrs: { type: "button", "aria-expanded": "false" },
    onClick: () => handlers.toggleTree(),
  });
  const el = h("header", { class: "session-bar" }, [
    h("div", { class: "heading" }, [h("div", { class: "heading-row" }, [backButton, title]), facts]),
    h("div", { class: "controls" }, [
      treeToggle,
      h(
        "div",
        { class: "segmented", attrs: { role: "group", "aria-label": "View" } },
        Object.values(viewButtons),
      ),
      followButton,
      filesLink,
      exportLinks,
    ]),
  ]);

  return {
    el,
    setTitle(text) {
      title.textContent = text;
    },
    showFacts(data) {
      const header = data.header as (SessionHeader & Record<string, unknown>) | null;
      title.textContent = oneLine(data.title, 160);
      const parts: string[] = [];
      if (header?.id) parts.push(String(header.id));
      if (data.source !== undefined) parts.push(`from ${oneLine(data.source, 60)}`);
      if (typeof header?.cwd === "string" && header.cwd) parts.push(projectName(header.cwd));
      if (typeof header?.timestamp === "string") parts.push(`created ${localTime(header.timestamp)}`);
      parts.push(`${formatInt(data.entryCount)} entries`);
      if (data.formatVersion !== 3) parts.push(`v${data.formatVersion} file, shown as v3`);
      if (data.diagnosticCount > 0)
        parts.push(
          `${formatInt(data.diagnosticCount)} unreadable line${data.diagnosticCount === 1 ? "" : "s"} skipped`,
        );
      facts.textContent = shown(parts.join(" · "));
      facts.title = data.source !== undefined ? `${data.path} on ${data.source}` : data.path;
      document.title = `${title.textContent} · pi-session`;
    },
    setView(view) {
      for (const [v, button] of Object.entries(viewButtons))
        button.setAttribute("aria-pressed", String(v === view));
    },
    setFollow(on) {
      followButton.setAttribute("aria-pressed", String(on));
    },
    setTreeOpen(open) {
      treeToggle.setAttribute("aria-expanded", String(open));
    },
    setExports(key, view, leafId) {
      filesLink.setAttribute("href", `#/files?session=${encodeURIComponent(key)}`);
      for (const link of exportLinks.querySelectorAll<HTMLAnchorElement>("a.export")) {
        const format = link.dataset.format as string;
        const q = new URLSearchParams({ format, view });
        if (leafId && view !== "all-branches") q.set("leaf", leafId);
        link.href = withToken(`/api/sessions/${encodeURIComponent(key)}/export?${q.toString()}`);
        link.hidden = format === "jsonl" && view === "context";
      }
    },
  };
}
