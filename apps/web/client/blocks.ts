/**
 * One document item as elements: its heading (kind, title, details, label, leaf, time, the
 * entry's link) and its blocks (text, thinking, tool calls, outputs, images, code, notes).
 * Tool calls and outputs fold (`<details>`), long outputs show their first lines until asked.
 * Everything is text: session content never becomes markup.
 */
import { type Block, type DocumentItem, highlight, imageDataUrl, imageProblem } from "@pi-session/render";
import { type Child, formatInt, h, shown } from "./dom.js";

/** Output lines shown before "show all". */
const OUTPUT_PREVIEW_LINES = 400;
/** Outputs with at most this many lines start open. */
const OPEN_OUTPUT_LINES = 12;
/** Tool-call code longer than this folds. */
const OPEN_CODE_LINES = 20;

const KIND_LABEL: Record<string, string> = {
  user: "user",
  assistant: "assistant",
  toolResult: "tool result",
  bashExecution: "bash",
  custom: "custom",
  customMessage: "custom message",
  branchSummary: "branch summary",
  branchSummaryEntry: "branch summary",
  compactionSummary: "compaction summary",
  compaction: "compaction",
  system: "system",
  modelChange: "model",
  thinkingLevelChange: "thinking level",
  label: "label",
  sessionInfo: "name",
  customEntry: "extension data",
  usage: "usage",
  contextEdit: "context edit",
  unknownRole: "message",
  unknownEntry: "entry",
};

function lineCount(text: string): number {
  let n = 1;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n++;
  return text.endsWith("\n") ? n - 1 : n;
}

function firstLines(text: string, lines: number): string {
  let at = -1;
  for (let k = 0; k < lines; k++) {
    at = text.indexOf("\n", at + 1);
    if (at === -1) return text;
  }
  return text.slice(0, at);
}

/** `<code>` with the syntax tokens of `text` as spans. */
export function highlighted(text: string, language: string): HTMLElement {
  const code = h("code");
  for (const token of highlight(text, language)) {
    if (token.kind === "plain") code.append(token.text);
    else code.append(h("span", { class: `tok-${token.kind}`, text: token.text }));
  }
  return code;
}

function pre(text: string, language: string, className = "code"): HTMLElement {
  return h("pre", { class: className }, [highlighted(text, language)]);
}

function folded(className: string, summary: Child[], body: Child[], open: boolean): HTMLDetailsElement {
  const el = h("details", { class: className }, [h("summary", {}, summary), ...body]);
  el.open = open;
  return el;
}

function meta(text: string): HTMLElement {
  return h("span", { class: "summary-meta", text });
}

function outputEl(text: string, language: string, isError: boolean): HTMLElement {
  const clean = shown(text);
  if (clean === "") return h("p", { class: "note", text: "(no output)" });
  const lines = lineCount(clean);
  const body = pre(
    lines > OUTPUT_PREVIEW_LINES ? firstLines(clean, OUTPUT_PREVIEW_LINES) : clean,
    language,
    "code output-text",
  );
  const parts: Child[] = [body];
  if (lines > OUTPUT_PREVIEW_LINES) {
    const more = h("button", {
      class: "more inline",
      text: `Show all ${formatInt(lines)} lines`,
      attrs: { type: "button" },
      onClick: () => {
        body.replaceChildren(highlighted(clean, language));
        more.remove();
      },
    });
    parts.push(more);
  }
  return folded(
    `output${isError ? " error" : ""}`,
    [
      h("span", { class: "summary-title", text: isError ? "error output" : "output" }),
      meta(`${formatInt(lines)} line${lines === 1 ? "" : "s"}`),
    ],
    parts,
    lines <= OPEN_OUTPUT_LINES,
  );
}

function blockEl(block: Block): HTMLElement | null {
  switch (block.type) {
    case "text":
      if (block.text.trim() === "") return null;
      return h("div", { class: "text", text: shown(block.text) });
    case "thinking": {
      if (block.redacted) return h("p", { class: "note", text: "(redacted thinking)" });
      if (block.text.trim() === "") return null;
      const lines = lineCount(block.text);
      return folded(
        "thinking",
        [
          h("span", { class: "summary-title", text: "Thinking" }),
          meta(`${formatInt(lines)} line${lines === 1 ? "" : "s"}`),
        ],
        [h("div", { class: "text", text: shown(block.text) })],
        false,
      );
    }
    case "toolCall": {
      const head = h("div", { class: "call-head" }, [
        h("span", { class: "call-name", text: `→ ${shown(block.name || "tool")}` }),
        block.summary ? h("code", { class: "call-summary", text: shown(block.summary) }) : null,
      ]);
      const el = h("div", { class: "tool-call" }, [head]);
      if (block.code) {
        const text = shown(block.code.text);
        const lines = lineCount(text);
        el.append(
          folded(
            "call-code",
            [meta(`arguments · ${formatInt(lines)} line${lines === 1 ? "" : "s"}`)],
            [pre(text, block.code.language)],
            lines <= OPEN_CODE_LINES,
          ),
        );
      }
      return el;
    }
    case "output":
      return outputEl(block.text, block.language, block.isError);
    case "image": {
      const problem = imageProblem(block);
      const url = problem === undefined ? imageDataUrl(block) : undefined;
      if (url === undefined)
        return h("p", { class: "note", text: `(image not shown: ${problem ?? "unknown"})` });
      const img = h("img", { class: "image", attrs: { alt: `image (${block.mimeType})` } });
      img.loading = "lazy";
      img.src = url;
      img.addEventListener("click", () => img.classList.toggle("zoomed"));
      return img;
    }
    case "code": {
      const text = shown(block.text);
      const lines = lineCount(text);
      return folded(
        "code-details",
        [
          h("span", { class: "summary-title", text: shown(block.caption ?? block.language) }),
          meta(`${formatInt(lines)} lines`),
        ],
        [pre(text, block.language)],
        lines <= 6,
      );
    }
    case "note":
      return h("p", {
        class: block.text.startsWith("error:") ? "note error" : "note",
        text: shown(block.text),
      });
  }
}

function detailText(detail: { name: string; value: string }): string {
  return ["model", "tokens", "cost", "level"].includes(detail.name)
    ? detail.value
    : `${detail.name} ${detail.value}`;
}

function titleOf(item: DocumentItem): string {
  switch (item.kind) {
    case "toolResult":
      return `← ${item.toolName || "tool"}`;
    case "bashExecution":
    case "custom":
    case "customMessage":
    case "unknownRole":
    case "unknownEntry":
      return item.title;
    case "customEntry":
      return item.title.replace(/ data$/, "");
    default:
      return "";
  }
}

export interface ItemContext {
  /** The entry's link (`#/s/<key>?entry=<id>`). */
  linkOf(id: string): string;
  /** The session's leaf id (marked "leaf"). */
  leafId: string | null;
  /** Elements put at the end of the heading (the branch switch). */
  extra?: HTMLElement | null;
  selected: boolean;
  time(iso: string): string;
}

export function itemEl(item: DocumentItem, ctx: ItemContext): HTMLElement {
  const el = h("article", {
    class: `item kind-${item.kind}${item.isError ? " is-error" : ""}${item.conversational ? "" : " bookkeeping"}${ctx.selected ? " selected" : ""}`,
  });
  el.dataset.kind = item.kind;
  if (item.id !== undefined) el.dataset.entryId = item.id;
  const title = titleOf(item);
  el.append(
    h("div", { class: "item-head" }, [
      h("span", { class: "kind", text: KIND_LABEL[item.kind] ?? item.kind }),
      title ? h("span", { class: "title", text: shown(title) }) : null,
      item.details.length > 0
        ? h("span", { class: "details", text: shown(item.details.map(detailText).join(" · ")) })
        : null,
      item.label !== undefined
        ? h("span", { class: "label-badge", title: "label", text: shown(item.label) })
        : null,
      item.id !== undefined && item.id === ctx.leafId
        ? h("span", { class: "leaf-badge", text: "leaf" })
        : null,
      h("span", { class: "spacer" }),
      ctx.extra ?? null,
      item.timestamp !== undefined
        ? h("time", { text: ctx.time(item.timestamp), attrs: { datetime: item.timestamp } })
        : null,
      item.id !== undefined
        ? h("a", {
            class: "entry-link",
            text: shown(item.id),
            title: "Link to this entry",
            attrs: { href: ctx.linkOf(item.id) },
          })
        : null,
    ]),
  );
  const body = h("div", { class: "item-body" });
  for (const block of item.blocks) {
    const child = blockEl(block);
    if (child) body.append(child);
  }
  if (body.childNodes.length > 0) el.append(body);
  return el;
}
