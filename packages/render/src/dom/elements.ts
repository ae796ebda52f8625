/// <reference lib="dom" preserve="true" />
/**
 * DOM helpers of the exported page and the web app: `h` makes an element, `shown` is session
 * text as it may be shown. Every node is made with `createElement` and every piece of text is
 * set with `textContent` (or a text node): nothing can parse session text as HTML, and both
 * pages' Content-Security-Policy (Trusted Types) would refuse it anyway. Use these for every
 * element that holds session content.
 */
import { highlight } from "../highlight.js";
import { lineEndsAsLf, stripColorCodes, visibleControls } from "../sanitize.js";

export type Child = Node | string | null | undefined | false;

export interface Props {
  class?: string;
  text?: string;
  title?: string;
  /** Attributes set with setAttribute (never `style`, never an event handler). */
  attrs?: Record<string, string>;
  /** A click handler. */
  onClick?: (event: MouseEvent) => void;
}

/** An element with a class, text and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  children: Child[] = [],
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (props.class) el.className = props.class;
  if (props.title) el.title = props.title;
  if (props.attrs) for (const [name, value] of Object.entries(props.attrs)) el.setAttribute(name, value);
  if (props.text !== undefined) el.textContent = props.text;
  const onClick = props.onClick;
  if (onClick) el.addEventListener("click", (event) => onClick(event as MouseEvent));
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return el;
}

/** Session text as shown: colour codes dropped, other control characters visible. */
export function shown(text: string): string {
  return visibleControls(stripColorCodes(lineEndsAsLf(text)));
}

/** A `<code>` with the tokens of `text` as spans (class `tok-<kind>`). */
export function highlighted(text: string, language: string): HTMLElement {
  const code = h("code");
  const tokens = highlight(text, language);
  for (const token of tokens) {
    if (token.kind === "plain") code.append(document.createTextNode(token.text));
    else code.append(h("span", { class: `tok-${token.kind}`, text: token.text }));
  }
  return code;
}

/** A link only for http(s) and mailto URLs; anything else stays text. */
export function safeLink(href: string, label: Child[]): HTMLElement {
  if (/^(https?:\/\/|mailto:)/i.test(href) && !/[\s<>"]/.test(href)) {
    const a = h("a", { attrs: { href, rel: "noopener noreferrer nofollow", target: "_blank" } }, label);
    return a;
  }
  return h("span", { class: "link-text", title: href }, label);
}
