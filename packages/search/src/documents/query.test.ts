/**
 * The query language and the substring narrowing rules.
 */
import { describe, expect, it } from "vitest";
import {
  QuerySyntaxError,
  identifierParts,
  isPartStart,
  narrowingPhrases,
  parseQuery,
  substringMatcher,
  substringNarrowing,
} from "./index.js";

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
  it("match at word starts and identifier parts, case-insensitively; CJK anywhere", () => {
    expect(substringMatcher("auth.ts").test("see src/Auth.TS now")).toBe(true);
    expect(substringMatcher("auth.ts").test("oauth.ts")).toBe(false);
    expect(substringMatcher("auth.ts").test("src/getAuth.ts")).toBe(true);
    expect(substringMatcher(".ts").test("oauth.ts")).toBe(true);
    expect(substringMatcher("本語").test("日本語")).toBe(true);
    expect(substringMatcher("Timeout").test("parserTimeout")).toBe(true);
    expect(substringMatcher("timeoutms").test("a parserTimeoutMs b")).toBe(true);
    expect(substringMatcher("imeout").test("parserTimeout")).toBe(false);
    expect(substringMatcher("session").test("parse_session_text")).toBe(true);
    expect(substringMatcher("server").test("HTTPServer")).toBe(true);
    expect(substringMatcher("decode").test("utf8Decode")).toBe(true);
    // Overlapping occurrences: the second "aa" starts a part.
    expect(substringMatcher("Ab").test("xaAb")).toBe(true);
  });

  it("identifier parts: humps, capitals before lower case, letters and digits; data has none", () => {
    expect(identifierParts("call parserTimeoutMs now")).toBe("timeoutms ms");
    expect(identifierParts("HTTPServer XMLHttpRequest")).toBe("server httprequest request");
    expect(identifierParts("utf8Decode")).toBe("8decode decode");
    expect(identifierParts("parserTimeout parserTimeout")).toBe("timeout");
    // Touching a letter outside ASCII: part of a longer word, not an identifier.
    expect(identifierParts("caféTimeout")).toBe("");
    // A hash has more than 8 part starts: data.
    expect(identifierParts("a3f9c2d1e8b7a6f5c4d3")).toBe("");
    expect(identifierParts(`${"aB".repeat(40)}`)).toBe("");
    expect(identifierParts("plain words only")).toBe("");
    expect(isPartStart("parserTimeout", 6)).toBe(true);
    expect(isPartStart("parserTimeout", 7)).toBe(false);
  });

  it("narrow only through tokens whose ends are certain", () => {
    expect(narrowingPhrases("auth.ts")).toEqual([{ tokens: ["auth", "ts"], prefix: true }]);
    expect(narrowingPhrases("buf.indexOf(")).toEqual([{ tokens: ["buf", "indexof"], prefix: false }]);
    expect(narrowingPhrases("日本")).toEqual([{ tokens: ["日", "本"], prefix: false }]);
    expect(narrowingPhrases("café.ts x")).toEqual([{ tokens: ["ts", "x"], prefix: true }]);
    expect(narrowingPhrases("é")).toEqual([]);
  });

  it("narrow a term that starts with a letter or digit from an identifier part too", () => {
    expect(substringNarrowing("auth.ts")).toEqual({
      phrases: [{ tokens: ["auth", "ts"], prefix: true }],
      part: { token: "auth", prefix: false, phrases: [{ tokens: ["ts"], prefix: true }] },
    });
    expect(substringNarrowing("Timeout")).toEqual({
      phrases: [{ tokens: ["timeout"], prefix: true }],
      part: { token: "timeout", prefix: true, phrases: [] },
    });
    expect(substringNarrowing(".ts")).toEqual({ phrases: [{ tokens: ["ts"], prefix: true }] });
    expect(substringNarrowing("日本").part).toBeUndefined();
  });
});
