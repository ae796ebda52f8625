/// <reference lib="dom" preserve="true" />
/**
 * The elements of one block of an item (text, thinking, tool call, output, image, code,
 * note): Markdown made into elements, a tool call as a fold holding its arguments (an edit as
 * a coloured diff with line numbers) and, where the page gives them, the results that answer
 * it; long outputs folded by the one rule of every view (fold.ts) with a "show all", colour
 * codes as colours, images only when their type and data are safe. Everything from the
 * session is set as text (elements.ts). Use `blockEl` for each block of a document item
 * (`itemEl` does).
 */
import { type FoldLimit, foldText } from "../fold.js";
import { decodedSize, imageDataUrl, imageProblem } from "../images.js";
import type { EditDiff } from "../model/diff.js";
import type { Block, DocumentItem, OutputBlock } from "../model/shapes.js";
import { formatInt, formatSize } from "../readable.js";
import { lineEndsAsLf } from "../sanitize.js";
import { ansiCode, hasColorCodes } from "./ansi.js";
import { copyButton } from "./copy.js";
import { type Child, h, highlighted, shown } from "./elements.js";
import { codeBlock, markdown } from "./markdown.js";

/** What an output shows before "show all". */
const OUTPUT_PREVIEW: FoldLimit = { lines: 200, chars: 20_000 };
/** Outputs within this start open. */
const OPEN_OUTPUT: FoldLimit = { lines: 12, chars: 2_000 };
/** Code (data as JSON) within this starts open. */
const OPEN_CODE: FoldLimit = { lines: 6, chars: 1_000 };
/** A tool call's code or diff past this starts folded. */
const OPEN_CALL: FoldLimit = { lines: 40, chars: 6_000 };

export interface BlockOptions {
  /** The "no tools" filter: items show no tool calls. */
  hideToolCalls: boolean;
  /** The elements of the results that answer the call `callId`, shown inside the call (none by default). */
  resultsOf?: (callId: string) => HTMLElement[];
  /**
   * Build what folds hold at once (for a search that marks text in them); by default a fold's
   * content is built when it is first opened.
   */
  eager?: boolean;
}

export function lineCount(text: string): number {
  let lines = 1;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) lines++;
  return text.endsWith("\n") ? lines - 1 : lines;
}

const fits = (text: string, limit: FoldLimit) => foldText(text, limit).rest === undefined;

/** A `<details>` of class `className`: its summary line, its body, and whether it starts open. */
interface Folded {
  summary: Child[];
  /** The body, made when the fold is first open (at once when it starts open, or `eager`). */
  body: () => Child[];
  open: boolean;
  eager?: boolean;
}

/**
 * A fold whose body is built when first opened: most folds of a long transcript are never
 * opened, and their highlighting and Markdown are the bulk of drawing it.
 */
function details(className: string, folded: Folded): HTMLDetailsElement {
  const el = h("details", { class: className }, [h("summary", {}, folded.summary)]);
  const fill = () => {
    for (const child of folded.body()) if (child) el.append(child);
  };
  if (folded.open || folded.eager === true) fill();
  else el.addEventListener("toggle", () => el.open && el.childElementCount === 1 && fill());
  el.open = folded.open;
  return el;
}

/** The content of an output: colour codes as colours, else highlighted in its language. */
function outputContent(raw: string, language: string): Node {
  return hasColorCodes(raw) ? ansiCode(raw) : highlighted(shown(raw), language);
}

function outputEl(block: OutputBlock, title: string, eager: boolean): HTMLElement {
  const raw = lineEndsAsLf(block.text);
  const clean = shown(raw);
  if (clean === "") return h("p", { class: "note", text: "(no output)" });
  const lines = lineCount(clean);
  const summary = [
    h("span", { class: "summary-title", text: title }),
    h("span", {
      class: "summary-meta",
      text: `${formatInt(lines)} line${lines === 1 ? "" : "s"} · ${formatSize(clean.length)}`,
    }),
  ];
  const body = (): Child[] => {
    const preview = foldText(raw, OUTPUT_PREVIEW);
    const pre = h("pre", { class: "code output-text" }, [outputContent(preview.text, block.language)]);
    if (preview.rest === undefined) return [copyButton("Copy", "Copy the output", () => clean), pre];
    const more = h("button", {
      class: "more inline",
      text: `Show all ${formatInt(lines)} lines (${formatSize(clean.length)})`,
      attrs: { type: "button" },
    });
    more.addEventListener("click", () => {
      pre.replaceChildren(outputContent(raw, block.language));
      more.remove();
    });
    return [copyButton("Copy", "Copy the output", () => clean), pre, more];
  };
  return details(`output${block.isError ? " error" : ""}`, {
    summary,
    body,
    open: fits(clean, OPEN_OUTPUT),
    eager,
  });
}

function imageEl(block: Extract<Block, { type: "image" }>): HTMLElement {
  const problem = imageProblem(block);
  const url = problem === undefined ? imageDataUrl(block) : undefined;
  if (url === undefined) return h("p", { class: "note", text: `(image not shown: ${problem ?? "unknown"})` });
  const img = h("img", {
    class: "image",
    attrs: { alt: `image (${block.mimeType}, ${formatSize(decodedSize(block.data))})` },
  });
  img.loading = "lazy";
  img.decoding = "async";
  img.src = url;
  img.addEventListener("click", () => img.classList.toggle("zoomed"));
  return img;
}

const SIGNS = { added: "+", removed: "-", context: " ", skipped: " " } as const;

/** An edit as rows: the line number, the sign and the text, added and removed lines coloured. */
function diffEl(diff: EditDiff, eager: boolean): HTMLElement {
  const rowsEl = () => {
    const el = h(
      "div",
      { class: `diff numbers-${diff.numbers}` },
      diff.lines.map((line) =>
        h("div", { class: `diff-line ${line.kind}` }, [
          h("span", { class: "diff-num", text: line.line === undefined ? "" : String(line.line) }),
          h("span", { class: "diff-sign", text: SIGNS[line.kind] }),
          h("span", { class: "diff-text", text: line.kind === "skipped" ? "…" : shown(line.text) }),
        ]),
      ),
    );
    if (diff.numbers === "edit") el.title = "Line numbers count from the start of the edited text";
    return el;
  };
  const added = diff.lines.filter((line) => line.kind === "added").length;
  const removed = diff.lines.filter((line) => line.kind === "removed").length;
  const text = diff.lines.map((line) => `${SIGNS[line.kind]}${line.text}`).join("\n");
  return details("call-code diff-details", {
    summary: [
      h("span", { class: "summary-meta diff-added", text: `+${formatInt(added)}` }),
      h("span", { class: "summary-meta diff-removed", text: `−${formatInt(removed)}` }),
    ],
    body: () => [copyButton("Copy", "Copy the diff", () => text), rowsEl()],
    open: fits(text, OPEN_CALL),
    eager,
  });
}

function toolCallEl(block: Extract<Block, { type: "toolCall" }>, options: BlockOptions): HTMLElement {
  const head = h("summary", { class: "call-head" }, [
    h("span", { class: "call-name", text: `→ ${shown(block.name || "tool")}` }),
    block.summary ? h("code", { class: "call-summary", text: shown(block.summary) }) : null,
  ]);
  const body: Child[] = [];
  const eager = options.eager === true;
  if (block.diff) body.push(diffEl(block.diff, eager));
  else if (block.code) {
    const text = shown(block.code.text);
    if (fits(text, OPEN_CALL)) body.push(codeBlock(text, block.code.language));
    else {
      const lines = lineCount(text);
      body.push(
        details("call-code", {
          summary: [h("span", { class: "summary-meta", text: `${formatInt(lines)} lines` })],
          body: () => [codeBlock(text, block.code?.language ?? "text")],
          open: false,
          eager,
        }),
      );
    }
  }
  const results = block.id ? (options.resultsOf?.(block.id) ?? []) : [];
  // The call folds with what answers it.
  const el = h("details", { class: `tool-call${results.length > 0 ? " answered" : ""}` }, [
    head,
    ...body,
    ...results,
  ]);
  el.open = true;
  if (block.id) el.dataset.callId = block.id;
  return el;
}

export function blockEl(block: Block, item: DocumentItem, options: BlockOptions): HTMLElement | null {
  switch (block.type) {
    case "text":
      if (block.text.trim() === "") return null;
      return block.markdown
        ? markdown(block.text)
        : h("pre", { class: "plain-text", text: shown(block.text) });
    case "thinking": {
      if (block.redacted) return h("p", { class: "note", text: "(redacted thinking)" });
      if (block.text.trim() === "") return null;
      const lines = lineCount(block.text);
      return details("thinking", {
        summary: [
          h("span", { class: "summary-title", text: "Thinking" }),
          h("span", { class: "summary-meta", text: `${formatInt(lines)} line${lines === 1 ? "" : "s"}` }),
        ],
        body: () => [markdown(block.text)],
        open: false,
        eager: options.eager === true,
      });
    }
    case "toolCall":
      return options.hideToolCalls ? null : toolCallEl(block, options);
    case "output":
      return outputEl(
        block,
        item.kind === "bashExecution" ? "output" : block.isError ? "error output" : "output",
        options.eager === true,
      );
    case "image":
      return imageEl(block);
    case "code": {
      const text = shown(block.text);
      const lines = lineCount(text);
      return details("code-details", {
        summary: [
          h("span", { class: "summary-title", text: shown(block.caption ?? block.language) }),
          h("span", { class: "summary-meta", text: `${formatInt(lines)} lines` }),
        ],
        body: () => [codeBlock(text, block.language)],
        open: fits(text, OPEN_CODE),
        eager: options.eager === true,
      });
    }
    case "note":
      return h("p", {
        class: block.text.startsWith("error:") ? "note error" : "note",
        text: shown(block.text),
      });
  }
}
