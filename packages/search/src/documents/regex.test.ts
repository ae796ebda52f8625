/**
 * `re:` patterns on the linear-time engine: the answers of JavaScript's engine on the patterns
 * both can run, catastrophic patterns in time linear in the text, and a clear refusal of what
 * only a backtracking engine can do.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { QuerySyntaxError, parseQuery, snippetOf, entryDocument } from "./index.js";
import { compileRegex } from "./regex.js";

const PATTERNS = [
  "time\\w+s",
  "pars(e|ing)",
  "^the",
  "\\bfix\\b",
  "[a-c]+\\d",
  "é+",
  "日本",
  "x=\\d",
  "(?<word>ab)c",
  "a.c",
  "[^]b",
  "\\p{L}{3}",
  "colou?r",
];

describe("compileRegex", () => {
  it("answers as JavaScript's case-insensitive engine does on patterns both run", () => {
    const text = fc.array(
      fc.constantFrom(
        "the",
        "Timeouts",
        "parse",
        "PARSING",
        "fix",
        "fixed",
        "ab",
        "abc",
        "a1",
        "é",
        "日本",
        "x=1",
        "colour",
        " ",
        "\n",
        "😀",
        "b",
      ),
      { maxLength: 20 },
    );
    fc.assert(
      fc.property(fc.constantFrom(...PATTERNS), text, (source, words) => {
        const t = words.join("");
        const js = new RegExp(source, "iu");
        expect(compileRegex(source).test(t)).toBe(js.test(t));
        const jsRanges = [...t.matchAll(new RegExp(source, "giu"))]
          .filter((m) => m[0].length > 0)
          .map((m) => [m.index, m.index + m[0].length]);
        expect(compileRegex(source).ranges(t, 100)).toEqual(jsRanges);
      }),
    );
  });

  it("runs a catastrophic pattern in linear time: (.*)*b on 200,000 characters answers", () => {
    // JavaScript's backtracking engine would not return from this in a lifetime.
    const text = "a".repeat(200_000);
    expect(compileRegex("(.*)*b").test(text)).toBe(false);
    expect(compileRegex("(a+)+$x").test(text)).toBe(false);
    expect(compileRegex("(a|aa)*c").test(text)).toBe(false);
  });

  it("refuses backreferences and lookaround, saying why; the query error names the term", () => {
    expect(() => compileRegex("(a)\\1")).toThrow(/backreferences are not supported/);
    expect(() => compileRegex("a(?=b)")).toThrow(/lookahead and lookbehind are not supported/);
    expect(() => compileRegex("(?<!a)b")).toThrow(/lookahead and lookbehind are not supported/);
    expect(() => parseQuery("re:(a)\\1")).toThrow(QuerySyntaxError);
    expect(() => parseQuery("re:(a)\\1")).toThrow(/^re:\(a\)\\1: /);
  });

  it("lights the matches of a catastrophic pattern in a snippet", () => {
    const doc = entryDocument({
      type: "message",
      id: "a",
      parentId: null,
      timestamp: "2026-01-01T00:00:00.000Z",
      message: {
        role: "user",
        content: [
          { type: "text", text: `${"x".repeat(5000)} then xxxxy, and more text after it to fill the line` },
        ],
        timestamp: 1,
      },
    });
    const snippet = snippetOf(doc, parseQuery("re:(x+x+)+y").terms, ["body"], 80);
    const text = snippet?.text ?? "";
    expect(snippet?.ranges.map(([a, b]) => text.slice(a, b))).toEqual(["xxxxy"]);
  });
});
