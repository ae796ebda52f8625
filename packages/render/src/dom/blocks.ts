/// <reference lib="dom" preserve="true" />
/**
 * The elements of one block of an item (text, thinking, tool call, output, image, code,
 * note): Markdown made into elements, long outputs folded with a "show all", images only when
 * their type and data are safe. Everything from the session is set as text (elements.ts).
 * Use `blockEl` for each block of a document item (`itemEl` does).
 */
import { decodedSize, imageDataUrl, imageProblem } from "../images.js";
import type { Block, DocumentItem, OutputBlock } from "../model/shapes.js";
import { formatInt, formatSize } from "../readable.js";
import { type Child, h, shown } from "./elements.js";
import { codeBlock, markdown } from "./markdown.js";

/** Output lines shown before "show all". */
const OUTPUT_PREVIEW_LINES = 400;
/** Outputs with at most this many lines start open. */
const OPEN_OUTPUT_LINES = 12;
/** Code (data as JSON) with at most this many lines starts open. */
const OPEN_CODE_LINES = 6;
/** A tool call's code with more lines than this starts folded. */
const FOLDED_CALL_LINES = 20;

export interface BlockOptions {
  /** The "no tools" filter: items show no tool calls. */
  hideToolCalls: boolean;
}

export function lineCount(text: string): number {
  let lines = 1;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) lines++;
  return text.endsWith("\n") ? lines - 1 : lines;
}

function firstLines(text: string, lines: number): string {
  let at = -1;
  for (let k = 0; k < lines; k++) {
    at = text.indexOf("\n", at + 1);
    if (at === -1) return text;
  }
  return text.slice(0, at);
}

/** A `<details>` of class `className`: its summary line, its body, and whether it starts open. */
interface Folded {
  summary: Child[];
  body: Child[];
  open: boolean;
}

function details(className: string, folded: Folded): HTMLDetailsElement {
  const el = h("details", { class: className }, [h("summary", {}, folded.summary), ...folded.body]);
  el.open = folded.open;
  return el;
}

function outputEl(block: OutputBlock, title: string): HTMLElement {
  const { language, isError } = block;
  const clean = shown(block.text);
  if (clean === "") return h("p", { class: "note", text: "(no output)" });
  const lines = lineCount(clean);
  const summary = [
    h("span", { class: "summary-title", text: title }),
    h("span", {
      class: "summary-meta",
      text: `${formatInt(lines)} line${lines === 1 ? "" : "s"} · ${formatSize(clean.length)}`,
    }),
  ];
  const pre = h("pre", { class: "code output-text" });
  const body: Child[] = [pre];
  if (lines > OUTPUT_PREVIEW_LINES) {
    pre.append(codeBlockInner(firstLines(clean, OUTPUT_PREVIEW_LINES), language));
    const more = h("button", {
      class: "more inline",
      text: `Show all ${formatInt(lines)} lines`,
      attrs: { type: "button" },
    });
    more.addEventListener("click", () => {
      pre.replaceChildren(codeBlockInner(clean, language));
      more.remove();
    });
    body.push(more);
  } else pre.append(codeBlockInner(clean, language));
  return details(`output${isError ? " error" : ""}`, { summary, body, open: lines <= OPEN_OUTPUT_LINES });
}

function codeBlockInner(text: string, language: string): Node {
  return (codeBlock(text, language).firstChild as Node) ?? document.createTextNode(text);
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
        body: [markdown(block.text)],
        open: false,
      });
    }
    case "toolCall": {
      if (options.hideToolCalls) return null;
      const head = h("div", { class: "call-head" }, [
        h("span", { class: "call-name", text: `→ ${shown(block.name || "tool")}` }),
        block.summary ? h("code", { class: "call-summary", text: shown(block.summary) }) : null,
      ]);
      const el = h("div", { class: "tool-call" }, [head]);
      if (block.code) {
        const text = shown(block.code.text);
        const lines = lineCount(text);
        if (lines > FOLDED_CALL_LINES)
          el.append(
            details("call-code", {
              summary: [h("span", { class: "summary-meta", text: `${formatInt(lines)} lines` })],
              body: [codeBlock(text, block.code.language)],
              open: false,
            }),
          );
        else el.append(codeBlock(text, block.code.language));
      }
      return el;
    }
    case "output":
      return outputEl(
        block,
        item.kind === "bashExecution" ? "output" : block.isError ? "error output" : "output",
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
        body: [codeBlock(text, block.language)],
        open: lines <= OPEN_CODE_LINES,
      });
    }
    case "note":
      return h("p", {
        class: block.text.startsWith("error:") ? "note error" : "note",
        text: shown(block.text),
      });
  }
}
