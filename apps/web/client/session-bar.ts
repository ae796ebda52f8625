/**
 * The session view's header: back, the session's title and facts (id, its source when served
 * from a team database, project, created,
 * entries, file version, unreadable lines), the sessions it belongs under and those under it
 * (a fork's or subagent's parent, its forks and subagents), the command that resumes it in pi
 * with a copy button, the view switch (branch, all branches, context), "Follow", the tree
 * drawer's toggle, the session's Files (file activity) and the export links. Use `sessionBar`
 * once per session view; the view calls its setters as its state changes.
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

/** A session linked from this one. */
export interface RelatedSession {
  key: string;
  title: string;
  kind: "subagent" | "fork";
}

export interface Relations {
  /** The session this one belongs under, when it is in the store. */
  parent: RelatedSession | null;
  /** Its subagents and forks. */
  children: RelatedSession[];
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
  /** Links to the parent session and to the children (hidden when there are none). */
  showRelations(relations: Relations): void;
  /** The command that resumes the session in pi, with a copy button; `missingCwd`: it forks here. */
  showResume(resume: { line: string; missingCwd: boolean }): void;
}

const KIND_LABEL = { subagent: "subagent", fork: "fork" } as const;

function relatedLink(session: RelatedSession): HTMLElement {
  return h("a", {
    class: `related ${session.kind}`,
    text: oneLine(session.title, 60),
    title: `${KIND_LABEL[session.kind]}: ${session.title}`,
    attrs: { href: `#/s/${encodeURIComponent(session.key)}`, "data-key": session.key },
  });
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
  const relations = h("p", { class: "relations" });
  relations.hidden = true;
  const resumeCode = h("code", { class: "resume-line" });
  const copyButton = h("button", {
    class: "copy",
    text: "Copy",
    title: "Copy the command to the clipboard",
    attrs: { type: "button" },
    onClick: () => {
      const line = resumeCode.textContent ?? "";
      navigator.clipboard.writeText(line).then(
        () => {
          copyButton.textContent = "Copied";
          copyButton.dataset.copied = "true";
        },
        () => {
          // No clipboard (an insecure context, a refusal): the line is selected to copy by hand.
          const range = document.createRange();
          range.selectNodeContents(resumeCode);
          getSelection()?.removeAllRanges();
          getSelection()?.addRange(range);
          copyButton.textContent = "Select";
        },
      );
    },
  });
  const resumeNote = h("span", { class: "resume-note" });
  const resume = h("p", { class: "resume" }, [
    h("span", { class: "resume-label", text: "Resume in pi" }),
    resumeCode,
    copyButton,
    resumeNote,
  ]);
  resume.hidden = true;
  const el = h("header", { class: "session-bar" }, [
    h("div", { class: "heading" }, [
      h("div", { class: "heading-row" }, [backButton, title]),
      facts,
      relations,
      resume,
    ]),
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
    showRelations({ parent, children }) {
      const parts: (string | HTMLElement)[] = [];
      if (parent)
        parts.push(`${parent.kind === "subagent" ? "Subagent of" : "Forked from"} `, relatedLink(parent));
      for (const kind of ["subagent", "fork"] as const) {
        const of = children.filter((c) => c.kind === kind);
        if (of.length === 0) continue;
        if (parts.length > 0) parts.push(" · ");
        parts.push(
          `${of.length} ${kind === "subagent" ? "subagent" : "fork"}${of.length === 1 ? "" : "s"}: `,
        );
        for (const [i, child] of of.entries()) parts.push(...(i > 0 ? [", "] : []), relatedLink(child));
      }
      relations.replaceChildren(...parts);
      relations.hidden = parts.length === 0;
    },
    showResume({ line, missingCwd }) {
      resumeCode.textContent = shown(line);
      resumeCode.title = shown(line);
      resumeNote.textContent = missingCwd ? "its directory is gone: this forks it into the current one" : "";
      copyButton.textContent = "Copy";
      delete copyButton.dataset.copied;
      resume.hidden = false;
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
