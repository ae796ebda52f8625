/**
 * The small parts: the highlighter (tokens always add up to the input), images (allow-list,
 * base64), the JSONL of a branch (valid v3, leaf last), pi's /tree filters and search text,
 * the tree layout and one-line summaries.
 */
import { validateRecords } from "@pi-session/format/schema";
import { type AnyEntry, parseSessionText } from "@pi-session/format";
import { readUpstreamFixture } from "@pi-session/testkit";
import { fcOptions } from "@pi-session/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { everyKindSession, PNG_1PX } from "../test/sessions.js";
import {
  branchJsonlLines,
  canHighlight,
  collectToolCalls,
  createRenderSession,
  HIGHLIGHT_LIMIT,
  decodeBase64,
  entrySummary,
  highlight,
  imageDataUrl,
  imageProblem,
  isToolOnlyAssistant,
  layoutTree,
  newestLeafBelow,
  oneLine,
  safeImage,
  searchText,
  searchTokens,
  sessionFromBytes,
  transcriptFilterPasses,
  treeFilterPasses,
} from "./index.js";

describe("highlight", () => {
  const LANGUAGES = ["ts", "python", "sh", "json", "diff", "html", "sql", "css", "lua", "text", "nope"];

  it("tokens always concatenate back to the input, in any language", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", maxLength: 300 }),
        fc.constantFrom(...LANGUAGES),
        (code, language) => {
          expect(
            highlight(code, language)
              .map((t) => t.text)
              .join(""),
          ).toBe(code);
        },
      ),
      fcOptions(),
    );
  });

  it("marks comments, strings, numbers, keywords, keys, diff lines and tags", () => {
    const kinds = (code: string, language: string) =>
      highlight(code, language)
        .filter((t) => t.kind !== "plain")
        .map((t) => `${t.kind}:${t.text}`);
    expect(kinds('const a = "x"; // hi\nreturn 42;', "ts")).toEqual([
      "keyword:const",
      'string:"x"',
      "comment:// hi",
      "keyword:return",
      "number:42",
    ]);
    expect(kinds('{"a": 1, "c": "s"}', "json")).toEqual([
      'property:"a"',
      "number:1",
      'property:"c"',
      'string:"s"',
    ]);
    expect(kinds("echo $HOME # note\nif [ x ]; then exit; fi", "sh")).toEqual([
      "literal:echo",
      "property:$HOME",
      "comment:# note",
      "keyword:if",
      "keyword:then",
      "literal:exit",
      "keyword:fi",
    ]);
    expect(kinds("--- a\n+++ b\n@@ -1 +1 @@\n-old\n+new\n same", "diff")).toEqual([
      "comment:--- a",
      "comment:+++ b",
      "meta:@@ -1 +1 @@",
      "deleted:-old",
      "inserted:+new",
    ]);
    expect(kinds('<a href="x">t</a><!-- c -->', "html")).toContain("comment:<!-- c -->");
    expect(kinds("SELECT id FROM t -- all", "sql")).toEqual([
      "keyword:SELECT",
      "keyword:FROM",
      "comment:-- all",
    ]);
    expect(canHighlight("tsx")).toBe(true);
    expect(canHighlight("toml")).toBe(true);
    expect(canHighlight("brainfuck")).toBe(false);
  });

  it("gets right what a hand-written tokenizer got wrong: Rust lifetimes, JS regexes, Python triple quotes", () => {
    const kinds = (code: string, language: string) =>
      highlight(code, language)
        .filter((t) => t.kind !== "plain")
        .map((t) => `${t.kind}:${t.text}`);
    // A lifetime is not a character literal that runs to the next quote.
    expect(kinds("fn f<'a>(x: &'a str) -> &'a str { x }", "rust")).toEqual([
      "keyword:fn",
      "property:f",
      "literal:'a",
      "literal:'a",
      "keyword:str",
      "literal:'a",
      "keyword:str",
    ]);
    // A quote inside a regex literal opens no string.
    expect(kinds(`const re = /a"b/g; const s = 'x';`, "js")).toEqual([
      "keyword:const",
      'string:/a"b/g',
      "keyword:const",
      "string:'x'",
    ]);
    // A quote inside a triple-quoted string closes nothing.
    expect(kinds(`def f():\n    """doc ' string"""\n    return 1`, "python")).toEqual([
      "keyword:def",
      "property:f",
      `string:"""doc ' string"""`,
      "keyword:return",
      "number:1",
    ]);
  });

  it("gives back every character of pathological input, and plain text past its limit", () => {
    const code = `${"/*".repeat(5_000)}${'"'.repeat(5_000)}${"<a ".repeat(5_000)}`;
    for (const language of ["ts", "html", "json", "sh"]) {
      expect(
        highlight(code, language)
          .map((t) => t.text)
          .join(""),
      ).toBe(code);
    }
    const long = "x = 1\n".repeat(HIGHLIGHT_LIMIT);
    expect(highlight(long, "python")).toEqual([{ kind: "plain", text: long }]);
  });
});

describe("images", () => {
  it("allows raster types with base64 data only", () => {
    expect(safeImage({ type: "image", mimeType: "image/png", data: PNG_1PX })).toEqual({
      mimeType: "image/png",
      extension: "png",
      bytes: 70,
    });
    expect(imageDataUrl({ type: "image", mimeType: "IMAGE/JPEG", data: "AAAA" })).toBe(
      "data:image/jpeg;base64,AAAA",
    );
    expect(imageProblem({ type: "image", mimeType: "image/svg+xml", data: "AAAA" })).toMatch(/not shown/);
    expect(imageProblem({ type: "image", mimeType: "text/html", data: "AAAA" })).toMatch(/not shown/);
    expect(imageProblem({ type: "image", mimeType: "image/png", data: 'AAAA"><script>' })).toBe(
      "data is not base64",
    );
    expect(imageProblem({ type: "image", mimeType: "image/png", data: "" })).toBe("no data");
    expect(imageProblem({ type: "image", mimeType: 5 as never, data: "AAAA" })).toMatch(/not shown/);
  });

  it("decodes base64 as Node does", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        const b64 = Buffer.from(bytes).toString("base64");
        expect(Buffer.from(decodeBase64(b64))).toEqual(Buffer.from(bytes));
      }),
      fcOptions(),
    );
    expect(() => decodeBase64("ab$d")).toThrow(/not base64/);
  });
});

describe("branchJsonlLines", () => {
  it("the branch as a valid v3 file: header first, root to leaf, keys as written", () => {
    const session = createRenderSession(everyKindSession());
    const lines = [...branchJsonlLines(session, { leafId: "e0000043" })];
    const parsed = parseSessionText(`${lines.join("\n")}\n`);
    expect(parsed.diagnostics).toEqual([]);
    expect(validateRecords(parsed.records).filter((d) => d.severity === "error")).toEqual([]);
    expect(lines.map((l) => JSON.parse(l).id)).toEqual([
      "019a4c1e-0000-7000-8000-000000000001",
      "e0000001",
      "e0000002",
      "e0000003",
      "e0000004",
      "e0000040",
      "e0000041",
      "e0000043",
    ]);
    expect(lines[4]).toBe(JSON.stringify(session.index.get("e0000004")));
    expect([...branchJsonlLines(session, { allBranches: true })]).toHaveLength(session.entries.length + 1);
    expect([...branchJsonlLines(session, { leafId: null })]).toHaveLength(1);
  });

  it("a v1 file comes out as v3 with ids", () => {
    const session = sessionFromBytes(readUpstreamFixture("before-compaction"));
    const lines = [...branchJsonlLines(session)].map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ type: "session", version: 3 });
    expect(lines.slice(1).every((e) => typeof e.id === "string")).toBe(true);
  });
});

describe("filters", () => {
  const session = createRenderSession(everyKindSession());
  const entries = session.index.entries;
  const ctx = (id: string) => ({ labelled: session.index.getLabel(id) !== undefined });
  const passing = (filter: Parameters<typeof treeFilterPasses>[1], tree: boolean) =>
    entries
      .filter((e) =>
        tree ? treeFilterPasses(e, filter, ctx(e.id)) : transcriptFilterPasses(e, filter, ctx(e.id)),
      )
      .map((e) => e.id);

  it("pi's rules: default hides settings, no-tools tool results too, user-only, labeled-only, all", () => {
    const all = passing("all", false);
    expect(all).toHaveLength(entries.length);
    const hidden = all.filter((id) => !passing("default", false).includes(id));
    expect(hidden.map((id) => session.index.get(id)?.type).sort()).toEqual([
      "custom",
      "label",
      "label",
      "model_change",
      "thinking_level_change",
    ]);
    expect(passing("user-only", false)).toEqual(["e0000003", "e0000040"]);
    expect(passing("labeled-only", true)).toEqual(["e0000004", "e0000041"]);
    expect(passing("no-tools", false)).not.toContain("e0000005");
    // The tree also hides assistant messages without text (only tool calls), as pi's does.
    expect(passing("default", false)).toContain("e0000006");
    expect(passing("default", true)).not.toContain("e0000006");
    expect(passing("no-tools", false)).not.toContain("e0000006");
    const e6 = session.index.get("e0000006");
    expect(e6 && isToolOnlyAssistant(e6)).toBe(true);
    expect(e6 && treeFilterPasses(e6, "default", { labelled: false, isLeaf: true })).toBe(true);
  });

  it("search text is lower case and covers label, role, content, commands and tool arguments", () => {
    const e4 = session.index.get("e0000004");
    const text = e4 ? searchText(e4, "Plan") : "";
    expect(text).toContain("plan");
    expect(text).toContain("assistant");
    expect(text).toContain("let me read the file.");
    expect(text).toContain('{"path":"src/limit.ts"}');
    expect(searchTokens("  Foo   BAR ")).toEqual(["foo", "bar"]);
  });
});

describe("layout and summaries", () => {
  it("positions, depth first, siblings and the newest leaf below", () => {
    const session = createRenderSession(everyKindSession());
    const layout = layoutTree(session.index);
    const at = (id: string) => session.index.entries.findIndex((e) => e.id === id);
    expect(layout.order.length).toBe(session.index.entries.length);
    expect(layout.children[at("e0000004")]?.map((p) => session.index.entries[p]?.id)).toEqual([
      "e0000005",
      "e0000040",
      "e0000042",
    ]);
    expect(layout.siblingIndex[at("e0000042")]).toBe(2);
    expect(layout.depth[at("e0000040")]).toBe(4);
    expect(session.index.entries[newestLeafBelow(layout, at("e0000004"))]?.id).toBe("e0000042");
  });

  it("one line, controls visible, cut", () => {
    expect(oneLine("a\n\tb\u001b[1m   c", 80)).toBe("a b\\x1b[1m c");
    expect(oneLine("x".repeat(100), 10)).toBe(`${"x".repeat(9)}…`);
    expect(oneLine(`${"y".repeat(10_000_000)}`, 5)).toBe("yyyy…");
    const session = createRenderSession(everyKindSession());
    const summary = (id: string) => {
      const e = session.index.get(id);
      return e ? entrySummary(e) : undefined;
    };
    expect(summary("e0000006")).toEqual({
      kind: "assistant",
      preview: "→ edit, bash",
      label: "assistant",
      tone: "assistant",
    });
    expect(summary("e0000008")).toEqual({
      kind: "bash",
      preview: "$ git diff --stat",
      label: "bash",
      tone: "tool",
    });
    expect(summary("e0000022")).toEqual({
      kind: "future_thing",
      preview: '{"payload":{"x":1}}',
      label: "future_thing",
      tone: "meta",
    });
    expect(summary("e0000014")).toEqual({
      kind: "critic",
      preview: '{"verdict":"looks fine"}',
      label: "critic",
      tone: "meta",
    });
    // A result names what its call was about, given the session's calls.
    const result = session.index.get("e0000007");
    expect(result && entrySummary(result).preview).toBe("bash (error)");
    expect(result && entrySummary(result, 70, collectToolCalls(session.entries)).preview).toBe(
      "bash npm test -- limit (error)",
    );
    // pi's system prompt message (its text in sections, no content) is named, not dumped as JSON.
    const system = {
      type: "message",
      id: "s1",
      parentId: null,
      timestamp: "2026-01-01T00:00:00.000Z",
      message: { role: "system", content: "", sections: { preamble: "You are careful." }, timestamp: 1 },
    } as unknown as AnyEntry;
    expect(entrySummary(system)).toMatchObject({ kind: "system", preview: "system prompt" });
  });
});
