/**
 * Values nested 100,000 deep (JSON.parse reads them; JSON.stringify and any recursion run out
 * of stack): every view, renderer, the page, the JSONL and redaction still work.
 */
import { parseSessionText } from "@pi-session/format";
import { describe, expect, it } from "vitest";
import {
  branchJsonlLines,
  buildDocument,
  redactSession,
  renderHtml,
  renderMarkdown,
  renderText,
  sessionFromText,
} from "./index.js";

const DEPTH = 100_000;
const deep = (inner: string) => `${'{"a":['.repeat(DEPTH)}${inner}${"]}".repeat(DEPTH)}`;

function deepSession(): string {
  const header =
    '{"type":"session","version":3,"id":"0199aaaa-0000-7000-8000-000000000001","timestamp":"2026-11-02T09:00:00.000Z","cwd":"/p"}';
  const user = `{"type":"message","id":"c1","parentId":null,"timestamp":"2026-11-02T09:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"deep"},{"type":"deep","x":${deep('"sk-ant-api03-Zyx987Wvu654Tsr321Qpo098Nml765"')}}],"timestamp":1}}`;
  const call = `{"type":"message","id":"c2","parentId":"c1","timestamp":"2026-11-02T09:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"t1","name":"bash","arguments":${deep("1")}}],"provider":"p","model":"m","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"total":0}},"stopReason":"toolUse","timestamp":2}}`;
  return `${header}\n${user}\n${call}\n`;
}

describe("a session nested 100,000 deep", { timeout: 60_000 }, () => {
  const session = sessionFromText(deepSession());

  it("renders in every view and format", () => {
    for (const view of ["branch", "all-branches", "context"] as const) {
      const doc = buildDocument(session, { view });
      expect(renderText(doc, { full: true })).toContain("→ bash");
      expect(renderMarkdown(doc, { full: true })).toContain('"a": [');
    }
    const html = renderHtml(session);
    expect(html.length).toBeGreaterThan(DEPTH * 6);
  });

  it("the JSONL parses back to the same entries", () => {
    const lines = [...branchJsonlLines(session)];
    const parsed = parseSessionText(`${lines.join("\n")}\n`);
    expect(parsed.diagnostics).toEqual([]);
    expect(parsed.records).toHaveLength(3);
  });

  it("redaction reaches the bottom", () => {
    const { report } = redactSession(session);
    expect(report.counts).toEqual({ anthropic: 1 });
  });
});
