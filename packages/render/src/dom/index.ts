/// <reference lib="dom" preserve="true" />
/**
 * @pi-session/render/dom: a document's items as DOM elements, for a page that shows a session
 * (the exported page and the web app use it): items with their heading and blocks, Markdown
 * made into elements, syntax-highlighted code, the element helper they are built with, and
 * the theme button (system, light, dark), and the window that renders a long transcript a batch at
 * a time.
 * Session text only ever becomes text nodes. Needs a DOM (a browser, or a DOM in tests).
 */
export { type BlockOptions, blockEl, lineCount } from "./blocks.js";
export { type Child, type Props, h, highlighted, safeLink, shown } from "./elements.js";
export { type ItemElOptions, copyableText, itemEl } from "./item.js";
export { ansiCode, hasColorCodes } from "./ansi.js";
export { copyButton, copyText } from "./copy.js";
export { ItemWindow, type ItemWindowHooks } from "./item-window.js";
export { MARKDOWN_LIMIT, codeBlock, markdown } from "./markdown.js";
export { setUpTheme } from "./theme.js";
