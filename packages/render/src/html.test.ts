/**
 * The page writer (without a browser; see test/browser.test.ts for the page itself): the
 * Content-Security-Policy and its hashes, safe embedding of the data, the first screen, and
 * what the viewer bundle (generated from page/ before the tests) may hold.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { everyKindSession, PAYLOADS, payloadSession, readingSession } from "../test/sessions.js";
import { CONTENT_SECURITY_POLICY } from "./html.js";
import {
  createRenderSession,
  escapeHtml,
  exportChunks,
  renderHtml,
  renderHtmlChunks,
  scriptJson,
} from "./index.js";
import { HIGHLIGHT_ELEMENT } from "../scripts/browser-assets.mjs";
import { PAGE_SCRIPT, PAGE_SCRIPT_SHA256, PAGE_STYLE, PAGE_STYLE_SHA256 } from "./page-assets.js";

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("base64");

function jsonScript(html: string, id: string): unknown {
  const start = html.indexOf(`<script type="application/json" id="${id}">`);
  const from = html.indexOf(">", start) + 1;
  return JSON.parse(html.slice(from, html.indexOf("</script>", from)));
}

describe("a page of one branch", () => {
  const session = createRenderSession(readingSession());
  const mainLeaf = session.entries[session.entries.length - 2]?.id as string;

  it("the whole tree by default; with a leaf, export ships that branch alone (no abandoned branch)", () => {
    expect(renderHtml(session)).toContain("SIDE-BRANCH-SECRET");
    const page = [...exportChunks(session, { format: "html", view: "branch", leafId: mainLeaf })].join("");
    expect(page).not.toContain("SIDE-BRANCH-SECRET");
    const data = jsonScript(page, "pi-session-data") as { entries: { id: string }[] };
    expect(data.entries.map((e) => e.id)).toEqual(session.index.pathTo(mainLeaf).map((e) => e.id));
    const first = jsonScript(page, "pi-session-first") as {
      settings: { branchOnly?: boolean; totals: { toolCalls: number; models: string[] } };
    };
    expect(first.settings.branchOnly).toBe(true);
    expect(first.settings.totals.toolCalls).toBe(6);
    expect(first.settings.totals.models).toEqual(["anthropic/claude-sonnet-4-5"]);
  });
});

describe("renderHtml", () => {
  const session = createRenderSession(everyKindSession());
  const html = renderHtml(session, { generator: "test 1.0" });

  it("allows only its own script and style, by hash, and no network", () => {
    expect(PAGE_SCRIPT_SHA256).toBe(sha256(PAGE_SCRIPT));
    expect(PAGE_STYLE_SHA256).toBe(sha256(PAGE_STYLE));
    expect(CONTENT_SECURITY_POLICY).toContain("default-src 'none'");
    expect(CONTENT_SECURITY_POLICY).toContain(`script-src 'sha256-${PAGE_SCRIPT_SHA256}'`);
    expect(CONTENT_SECURITY_POLICY).toContain(`style-src 'sha256-${PAGE_STYLE_SHA256}'`);
    expect(CONTENT_SECURITY_POLICY).toContain("img-src data:");
    expect(CONTENT_SECURITY_POLICY).toContain("connect-src 'none'");
    expect(CONTENT_SECURITY_POLICY).toContain("require-trusted-types-for 'script'");
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-inline|unsafe-eval|https?:|\*/);
    // The policy comes before any script or style, and the executable script is exactly the viewer.
    const csp = html.indexOf('http-equiv="Content-Security-Policy"');
    expect(csp).toBeGreaterThan(0);
    expect(csp).toBeLessThan(html.indexOf("<style>"));
    expect(html).toContain(`<style>${PAGE_STYLE}</style>`);
    expect(html).toContain(`<script>${PAGE_SCRIPT}</script>`);
    expect(html.match(/<script>/g)).toHaveLength(1);
    expect(html).toContain('<meta name="generator" content="test 1.0">');
  });

  it("embeds the first screen and every entry as JSON that parses back", () => {
    const first = jsonScript(html, "pi-session-first") as {
      settings: { leafId: string };
      items: unknown[];
      rows: number;
    };
    expect(first.settings.leafId).toBe("e0000023");
    expect(first.items.length).toBe(Math.min(40, first.rows));
    const data = jsonScript(html, "pi-session-data") as { entries: unknown[] };
    expect(data.entries).toEqual(JSON.parse(JSON.stringify(session.entries)));
    expect([...renderHtmlChunks(session, { generator: "test 1.0" })].join("")).toBe(html);
  });

  it("session text cannot end a script, open a comment or break out of an attribute", () => {
    const page = renderHtml(createRenderSession(payloadSession()), { title: `t${PAYLOADS.endScript}"'` });
    const withoutViewer = page.replace(`<script>${PAGE_SCRIPT}</script>`, "");
    expect(withoutViewer.match(/<\/script/gi)).toHaveLength(2); // the two JSON elements' own ends
    expect(withoutViewer).not.toContain("<!--");
    expect(withoutViewer).not.toMatch(/<script>/i);
    expect(page).toContain(
      "<title>t&#60;/script&#62;&#60;script&#62;window.__pwned = &#39;end&#39;&#60;/script&#62;&#34;&#39;</title>",
    );
    const data = jsonScript(page, "pi-session-data") as { entries: { message?: { content?: unknown } }[] };
    expect(JSON.stringify(data.entries)).toContain(PAYLOADS.endScript);
  });

  it("scriptJson escapes what HTML would read and nothing else", () => {
    const value = { a: "</script><!-- & \u2028\u2029 ok" };
    const json = scriptJson(value);
    expect(json).toBe('{"a":"\\u003c/script\\u003e\\u003c!-- \\u0026 \\u2028\\u2029 ok"}');
    expect(JSON.parse(json)).toEqual(value);
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      "&#60;a href=&#34;x&#34; title=&#39;y&#39;&#62;&#38;&#60;/a&#62;",
    );
  });

  it("opens where asked: view, leaf and filter", () => {
    const page = renderHtml(session, { view: "context", leafId: "e0000041", filter: "user-only" });
    const first = jsonScript(page, "pi-session-first") as {
      settings: { initial: unknown };
      items: { kind: string }[];
      context: { messageCount: number };
    };
    expect(first.settings.initial).toEqual({ view: "context", leafId: "e0000041", filter: "user-only" });
    expect(first.context.messageCount).toBe(first.items.length);
  });
});

describe("the viewer bundle", () => {
  it("holds nothing that would end its element early, and no network API", () => {
    expect(PAGE_SCRIPT).not.toMatch(/<\/script|<!--/i);
    expect(PAGE_STYLE).not.toMatch(/<\/style|<!--/i);
    expect(PAGE_SCRIPT).not.toMatch(
      /\b(fetch|XMLHttpRequest|WebSocket|EventSource|sendBeacon|importScripts|eval|Function)\s*\(/,
    );
    // But for highlight.js's highlightElement, never called (browser-assets.mjs).
    expect(PAGE_SCRIPT).toMatch(HIGHLIGHT_ELEMENT);
    expect(PAGE_SCRIPT.replace(HIGHLIGHT_ELEMENT, "")).not.toMatch(
      /innerHTML|outerHTML|insertAdjacentHTML|document\.write|srcdoc|\.href\s*=/,
    );
    expect(PAGE_STYLE).not.toMatch(/url\(|@import|@font-face/);
  });
});
