/**
 * One self-contained HTML page for a session: the whole tree, every branch, the context view,
 * pi's filters, search, light and dark, opened offline from a file. Nothing is fetched: the
 * viewer script and style are inlined (built from `page/`), images are `data:` URLs.
 *
 * Session content never runs in the page. The session is embedded as JSON in a
 * `<script type="application/json">` element with `<`, `>`, `&`, U+2028 and U+2029 escaped
 * (so `</script>` in a string cannot end it), and the viewer sets all text as text. The
 * Content-Security-Policy allows only the page's own script and style (by hash), images from
 * `data:`, no connections, no frames, no forms, and Trusted Types for nothing (no HTML parsing
 * from script at all).
 *
 * Use `renderHtml` for a string, `renderHtmlChunks` to write a large session piece by piece.
 */
import { contentSecurityPolicy } from "./csp.js";
import type { TreeFilter } from "./filters.js";
import { jsonText } from "./json.js";
import { sessionTitle } from "./model/document.js";
import type { ViewKind } from "./model/shapes.js";
import { PAGE_SCRIPT, PAGE_SCRIPT_SHA256, PAGE_STYLE, PAGE_STYLE_SHA256 } from "./page-assets.js";
import {
  ENTRIES_ID,
  FIRST_SCREEN_ID,
  type PageFirstScreen,
  type PageSettings,
  firstScreen,
} from "./page-data.js";
import type { RedactionReport } from "./redact.js";
import { type RenderSession, createRenderSession } from "./source.js";
import { sessionTotals } from "./model/totals.js";

export interface HtmlOptions {
  /** The view the page opens with (default `branch`). */
  view?: ViewKind;
  /** The branch the page opens at (default: the session's leaf). */
  leafId?: string | null;
  /** The tree filter the page opens with (default `default`). */
  filter?: TreeFilter;
  /** The page title (default: the session's name, or its id). */
  title?: string;
  /** Shown in the page when the session was redacted. */
  redaction?: RedactionReport;
  /** Who made the page, e.g. `pi-session 0.1.0` (a `generator` meta tag). */
  generator?: string;
  /**
   * Ship only the entries of the branch ending at `leafId` (the session's leaf by default):
   * the other branches, which may hold what was not meant to be shared, are left out.
   */
  branchOnly?: boolean;
}

/** Text safe in HTML text and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

// What HTML would read (<, >, &), line separators, and what a terminal acts on that
// JSON.stringify leaves raw (DEL, C1, bidi controls), so the page is safe to `cat` too.
const JSON_UNSAFE = /[<>&\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * A value as JSON that is safe inside `<script type="application/json">`: every `<`, `>`, `&`,
 * U+2028 and U+2029 (and DEL, C1 and bidi controls) is a `\uXXXX` escape, so no `</script>` or
 * `<!--` can appear. Parses back to the same value with `JSON.parse`.
 */
export function scriptJson(value: unknown): string {
  const text = jsonText(value) || "null";
  return text.replace(JSON_UNSAFE, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** The page's Content-Security-Policy. */
export const CONTENT_SECURITY_POLICY = contentSecurityPolicy({
  script: `'sha256-${PAGE_SCRIPT_SHA256}'`,
  style: `'sha256-${PAGE_STYLE_SHA256}'`,
});

/** About 1 MiB of JSON per chunk of entries. */
const CHUNK_CHARS = 1 << 20;

/** The page in pieces (the session's entries a chunk at a time); joined, they are {@link renderHtml}. */
export function* renderHtmlChunks(whole: RenderSession, options: HtmlOptions = {}): Generator<string> {
  const session =
    options.branchOnly === true
      ? createRenderSession({
          header: whole.header,
          entries: whole.index.activePath(options.leafId === undefined ? whole.index.leafId : options.leafId),
          formatVersion: whole.formatVersion,
        })
      : whole;
  const { index, header } = session;
  const name = index.sessionName;
  const title = options.title ?? sessionTitle(session);
  const settings: PageSettings = {
    v: 1,
    title,
    header: header ?? null,
    formatVersion: session.formatVersion,
    entryCount: index.entries.length,
    leafId: index.leafId,
    initial: {
      view: options.view ?? "branch",
      leafId: options.leafId === undefined ? index.leafId : options.leafId,
      filter: options.filter ?? "default",
    },
  };
  if (name !== undefined) settings.name = name;
  if (options.redaction) settings.redaction = options.redaction;
  if (options.generator) settings.generator = options.generator;
  settings.totals = sessionTotals(session.entries);
  if (options.branchOnly === true) settings.branchOnly = true;
  const first: PageFirstScreen = { settings, ...firstScreen(session, settings) };
  yield [
    "<!doctype html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${escapeHtml(CONTENT_SECURITY_POLICY)}">`,
    '<meta name="referrer" content="no-referrer">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="color-scheme" content="light dark">',
    options.generator ? `<meta name="generator" content="${escapeHtml(options.generator)}">` : "",
    `<title>${escapeHtml(title)}</title>`,
    `<style>${PAGE_STYLE}</style>`,
    "</head>",
    "<body>",
    "<noscript><p>This page shows a pi session with JavaScript, which is turned off.</p></noscript>",
    '<div id="app"></div>',
    // The first screen, then the viewer (it shows the first screen at once), then every entry
    // (read by the viewer once the page is parsed).
    `<script type="application/json" id="${FIRST_SCREEN_ID}">${scriptJson(first)}</script>`,
    `<script>${PAGE_SCRIPT}</script>`,
    `<script type="application/json" id="${ENTRIES_ID}">{"entries":[`,
  ]
    .filter((line) => line !== "")
    .join("\n");
  let chunk = "";
  let separator = "";
  for (const entry of session.entries) {
    chunk += separator + scriptJson(entry);
    separator = ",";
    if (chunk.length >= CHUNK_CHARS) {
      yield chunk;
      chunk = "";
    }
  }
  yield `${chunk}]}</script>\n</body>\n</html>\n`;
}

/** The page as one string. */
export function renderHtml(session: RenderSession, options: HtmlOptions = {}): string {
  let out = "";
  for (const chunk of renderHtmlChunks(session, options)) out += chunk;
  return out;
}
