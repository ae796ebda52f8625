/**
 * Properties of the render layer over random sessions (testkit's arbitraries, faults and
 * unknown types included): every view and renderer runs without throwing, documents are JSON,
 * the Markdown of a branch holds every user and assistant text of that branch in order, text
 * output carries no raw control character, and the page's embedded data cannot end its script.
 */
import type { AnyEntry } from "@pi-session/format";
import { arbSessionV2, arbSessionV3, fcOptions, scaledRuns } from "@pi-session/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  branchJsonlLines,
  buildDocument,
  createRenderSession,
  redactSession,
  renderHtml,
  renderMarkdown,
  renderText,
  safeMarkdown,
  type RenderSession,
} from "./index.js";

type Obj = Record<string, unknown>;

function toSession(generated: { header: unknown; entries: readonly unknown[] }): RenderSession {
  return createRenderSession({ header: generated.header as never, entries: generated.entries as AnyEntry[] });
}

/** The user and assistant texts of a branch, in order (what a reader must find in the Markdown). */
function conversationTexts(path: readonly AnyEntry[]): string[] {
  const out: string[] = [];
  for (const entry of path) {
    if (entry.type !== "message") continue;
    const message = (entry as Obj).message as Obj | undefined;
    if (!message || (message.role !== "user" && message.role !== "assistant")) continue;
    const content = message.content;
    if (typeof content === "string") out.push(content);
    else if (Array.isArray(content))
      for (const block of content) {
        const b = block as Obj;
        if (b && b.type === "text" && typeof b.text === "string") out.push(b.text);
      }
  }
  return out.filter((text) => text.trim() !== "");
}

// Raw C0 controls (but \n and \t), DEL, C1 controls and bidi controls.
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

const arbAnySession = fc.oneof(
  arbSessionV3({ maxEntries: 30 }),
  arbSessionV3({ maxEntries: 30, faults: true }),
  arbSessionV3({ maxEntries: 30, shuffle: true }),
  arbSessionV2({ maxEntries: 20 }),
);

describe("random sessions", () => {
  it("every view and every renderer runs, and documents are JSON", () => {
    fc.assert(
      fc.property(arbAnySession, fc.nat(), (generated, pick) => {
        const s = toSession(generated);
        const ids = s.index.entries.map((e) => e.id);
        const leafId = ids.length > 0 ? ids[pick % ids.length] : undefined;
        for (const view of ["branch", "all-branches", "context"] as const) {
          const doc = buildDocument(s, { view, leafId });
          expect(JSON.parse(JSON.stringify(doc))).toEqual(JSON.parse(JSON.stringify(doc)));
          renderText(doc);
          renderText(doc, { full: true });
          renderMarkdown(doc);
          renderMarkdown(doc, { full: true, images: (_image, n) => `img/${n}.png` });
        }
        const html = renderHtml(s, { leafId });
        expect(html.startsWith("<!doctype html>")).toBe(true);
        for (const line of branchJsonlLines(s, { leafId })) JSON.parse(line);
      }),
      fcOptions(),
    );
  });

  it("the Markdown of a branch contains every user and assistant text of that branch, in order", () => {
    fc.assert(
      fc.property(arbSessionV3({ maxEntries: 40 }), fc.nat(), (generated, pick) => {
        const s = toSession(generated);
        const ids = s.index.entries.map((e) => e.id);
        const leafId = ids.length > 0 ? ids[pick % ids.length] : undefined;
        const md = renderMarkdown(buildDocument(s, { leafId }));
        let cursor = 0;
        for (const text of conversationTexts(s.index.activePath(leafId))) {
          // Author Markdown is embedded made safe (raw HTML escaped, controls visible), never cut.
          const shown = safeMarkdown(text);
          const at = md.indexOf(shown, cursor);
          expect(at, `${JSON.stringify(shown)} after offset ${cursor}`).toBeGreaterThanOrEqual(0);
          cursor = at + shown.length;
        }
      }),
      fcOptions(),
    );
  });

  it("plain prose appears in the Markdown verbatim", () => {
    const arbWordsSession = arbSessionV3({
      maxEntries: 30,
      entryTypes: ["message", "label", "model_change"],
    });
    fc.assert(
      fc.property(arbWordsSession, (generated) => {
        const s = toSession(generated);
        const md = renderMarkdown(buildDocument(s));
        for (const text of conversationTexts(s.index.activePath())) {
          if (/^[a-z ]+$/.test(text.trim())) expect(md).toContain(text.trim());
        }
      }),
      fcOptions(),
    );
  });

  it("text output has no raw control characters (only the caller's styling adds escapes)", () => {
    fc.assert(
      fc.property(arbAnySession, (generated) => {
        const s = toSession(generated);
        for (const view of ["branch", "all-branches", "context"] as const) {
          const doc = buildDocument(s, { view });
          expect(renderText(doc, { full: true })).not.toMatch(RAW_CONTROL);
          expect(renderMarkdown(doc, { full: true })).not.toMatch(RAW_CONTROL);
        }
      }),
      fcOptions(),
    );
  });

  it("the page's embedded JSON never holds <, >, & or a line separator, and parses back to the session", () => {
    fc.assert(
      fc.property(arbAnySession, (generated) => {
        const s = toSession(generated);
        const html = renderHtml(s);
        const start = html.indexOf('<script type="application/json" id="pi-session-data">');
        const body = html.slice(html.indexOf(">", start) + 1, html.indexOf("</script>", start));
        expect(body).not.toMatch(/[<>&\u2028\u2029]/);
        expect(JSON.parse(body).entries).toEqual(JSON.parse(JSON.stringify(s.entries)));
      }),
      fcOptions({ numRuns: scaledRuns(50) }),
    );
  });

  it("redaction keeps the tree: ids, parents and the path are unchanged", () => {
    fc.assert(
      fc.property(arbAnySession, (generated) => {
        const s = toSession(generated);
        const { session: redacted } = redactSession(s);
        expect(redacted.index.entries.map((e) => [e.id, e.parentId])).toEqual(
          s.index.entries.map((e) => [e.id, e.parentId]),
        );
        expect(redacted.index.activePath().map((e) => e.id)).toEqual(s.index.activePath().map((e) => e.id));
      }),
      fcOptions(),
    );
  });
});
