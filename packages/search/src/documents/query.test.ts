/**
 * The query language and the substring narrowing rules.
 */
import { describe, expect, it } from "vitest";
import { QuerySyntaxError, narrowingPhrases, parseQuery, substringMatcher } from "./index.js";

describe("parseQuery", () => {
  it("tells words, phrases, substrings, exclusions and regexes apart; the last word is a prefix", () => {
    const q = parseQuery('parser "exact phrase" auth.ts -skip re:time\\w+ 日本 timeo');
    expect(q.terms.map((t) => [t.kind, t.kind === "regex" ? t.source : t.text, t.negated])).toEqual([
      ["word", "parser", false],
      ["substring", "exact phrase", false],
      ["substring", "auth.ts", false],
      ["word", "skip", true],
      ["regex", "time\\w+", false],
      ["substring", "日本", false],
      ["word", "timeo", false],
    ]);
    expect(
      q.terms.filter((t) => t.kind === "word" && t.prefix).map((t) => t.kind === "word" && t.text),
    ).toEqual(["timeo"]);
  });

  it("refuses empty queries, queries that only exclude, and bad regexes", () => {
    expect(() => parseQuery("   ")).toThrow(QuerySyntaxError);
    expect(() => parseQuery("-a -b")).toThrow(/only excludes/);
    expect(() => parseQuery("re:(")).toThrow(QuerySyntaxError);
  });
});

describe("substrings", () => {
  it("match at word starts, case-insensitively; CJK anywhere", () => {
    expect(substringMatcher("auth.ts").test("see src/Auth.TS now")).toBe(true);
    expect(substringMatcher("auth.ts").test("oauth.ts")).toBe(false);
    expect(substringMatcher(".ts").test("oauth.ts")).toBe(true);
    expect(substringMatcher("本語").test("日本語")).toBe(true);
  });

  it("narrow only through tokens whose ends are certain", () => {
    expect(narrowingPhrases("auth.ts")).toEqual([{ tokens: ["auth", "ts"], prefix: true }]);
    expect(narrowingPhrases("buf.indexOf(")).toEqual([{ tokens: ["buf", "indexof"], prefix: false }]);
    expect(narrowingPhrases("日本")).toEqual([{ tokens: ["日", "本"], prefix: false }]);
    expect(narrowingPhrases("café.ts x")).toEqual([{ tokens: ["ts", "x"], prefix: true }]);
    expect(narrowingPhrases("é")).toEqual([]);
  });
});
