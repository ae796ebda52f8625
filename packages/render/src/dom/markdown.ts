/// <reference lib="dom" preserve="true" />
/**
 * Markdown to DOM for the exported page and the web app: CommonMark with GitHub's tables and
 * strike-through, parsed by markdown-it into its token stream and built here as elements (no
 * HTML string is ever made, so the pages' Trusted Types policy of none holds). Raw HTML is
 * text (markdown-it's `html: false`); links are anchors only for http(s) and mailto
 * (`safeLink`), images in Markdown are links (a page loads no image from a URL); a single
 * newline is a line break, as in chat. Use {@link markdown} for every Markdown text of a
 * session.
 *
 * Texts over {@link MARKDOWN_LIMIT} are shown as plain pre-wrapped text; markdown-it bounds
 * nesting (100 levels) and this builder walks tokens without recursion.
 */
import MarkdownIt, { type Token as MdToken } from "markdown-it";
import { copyButton } from "./copy.js";
import { type Child, h, highlighted, safeLink, shown } from "./elements.js";

export const MARKDOWN_LIMIT = 60_000;

/** Made on first use (the page may show no Markdown before it needs to). */
let parser: InstanceType<typeof MarkdownIt> | undefined;

function markdownParser(): InstanceType<typeof MarkdownIt> {
  parser ??= new MarkdownIt("default", { html: false, linkify: true, breaks: true, typographer: false });
  return parser;
}

/** Headings start two levels down: a message's `#` is not the page's title. */
function headingTag(tag: string): keyof HTMLElementTagNameMap {
  const level = Math.min(6, Number(tag.slice(1)) + 2);
  return `h${level}` as keyof HTMLElementTagNameMap;
}

/** The element a block or inline token opens. */
function opened(token: MdToken): HTMLElement {
  switch (token.type) {
    case "heading_open":
      return h(headingTag(token.tag), { class: "md-heading" });
    case "link_open":
      return safeLink(String(token.attrGet("href") ?? ""), []);
    case "ordered_list_open": {
      const list = h("ol");
      const start = token.attrGet("start");
      if (start !== null) list.setAttribute("start", String(start));
      return list;
    }
    case "table_open":
      return h("table", { class: "md-table" });
    default:
      return document.createElement(token.tag);
  }
}

/** Appends the elements of `tokens` (markdown-it's stream: opens, closes and leaves) to `root`. */
function build(tokens: readonly MdToken[], root: HTMLElement): void {
  // Each entry is where children go; the stack follows the tokens' nesting.
  const stack: HTMLElement[] = [root];
  // Inline tokens carry their own stream; walked in place, with the same stack.
  const pending: { tokens: readonly MdToken[]; at: number }[] = [{ tokens, at: 0 }];
  while (pending.length > 0) {
    const run = pending[pending.length - 1] as { tokens: readonly MdToken[]; at: number };
    if (run.at >= run.tokens.length) {
      pending.pop();
      continue;
    }
    const token = run.tokens[run.at++] as MdToken;
    const parent = stack[stack.length - 1] as HTMLElement;
    if (token.nesting === 1) {
      // A tight list's paragraphs are hidden: their content goes straight into the item.
      if (token.hidden) stack.push(parent);
      else {
        const el = opened(token);
        if (token.type === "table_open") parent.append(h("div", { class: "table-wrap" }, [el]));
        else parent.append(el);
        stack.push(el);
      }
      continue;
    }
    if (token.nesting === -1) {
      stack.pop();
      continue;
    }
    if (token.type === "inline" && token.children) {
      pending.push({ tokens: token.children, at: 0 });
      continue;
    }
    const leaf = leafOf(token);
    if (leaf) parent.append(leaf);
  }
}

/** The node of a token that opens nothing (text, code, a break, an image, a rule). */
function leafOf(token: MdToken): Child {
  switch (token.type) {
    case "text":
    case "html_inline":
    case "html_block":
      return token.content;
    case "code_inline":
      return h("code", { text: token.content });
    case "softbreak":
    case "hardbreak":
      return h("br");
    case "fence":
    case "code_block":
      return codeBlock(token.content.replace(/\n$/, ""), token.info.trim().split(/\s+/)[0] ?? "");
    case "hr":
      return h("hr");
    case "image":
      // Never loaded: a page makes no request. Its text, linked when the URL is safe.
      return safeLink(String(token.attrGet("src") ?? ""), [`image: ${token.content || "untitled"}`]);
    default:
      return token.content ? token.content : null;
  }
}

/** A `<pre>` with highlighted code, and a button that copies the code. */
export function codeBlock(text: string, language: string): HTMLElement {
  const pre = h("pre", { class: "code" }, [highlighted(text, language || "text")]);
  if (language) pre.dataset.language = language;
  return h("div", { class: "code-block" }, [copyButton("Copy", "Copy the code", () => text), pre]);
}

/** Session Markdown as a `<div class="md">`. */
export function markdown(text: string): HTMLElement {
  const clean = shown(text);
  if (clean.length > MARKDOWN_LIMIT) return h("div", { class: "md md-plain", text: clean });
  const root = h("div", { class: "md" });
  build(markdownParser().parse(clean, {}), root);
  return root;
}
