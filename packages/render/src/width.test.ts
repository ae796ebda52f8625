/**
 * Terminal columns: wide characters count twice, marks not at all; cuts keep the start or the
 * end with `…`; styled runs are cut before they are styled; lines fold at spaces, and the text
 * renderer fits every line to a width while keeping bodies indented.
 */
import { fcOptions } from "@pi-session/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { everyKindSession } from "../test/sessions.js";
import {
  buildDocument,
  charWidth,
  createRenderSession,
  cutEnd,
  cutStart,
  fitPieces,
  renderText,
  textWidth,
  wrapLine,
} from "./index.js";

describe("textWidth", () => {
  it("counts CJK, fullwidth forms and emoji twice, combining marks and joiners not at all", () => {
    expect(textWidth("abc")).toBe(3);
    expect(textWidth("日本語")).toBe(6);
    expect(textWidth("ＡＢ")).toBe(4);
    expect(textWidth("한국")).toBe(4);
    expect(textWidth("🚀x")).toBe(3);
    expect(textWidth("e\u0301")).toBe(1);
    expect(charWidth("\u200d")).toBe(0);
  });

  it("measures emoji as terminals draw them: two columns, sequences one cluster", () => {
    for (const emoji of ["✅", "❌", "☕", "⚡", "🚀", "❤️", "👍🏽", "🇯🇵", "👨‍👩‍👧", "🏳️‍🌈"])
      expect(textWidth(emoji), emoji).toBe(2);
    expect(textWidth("done ✅ (2 ❌)")).toBe(14);
    expect(textWidth("a\nb")).toBe(3);
  });

  it("property: a text is as wide as its grapheme clusters together", () => {
    const unit = fc.constantFrom(
      "a",
      " ",
      "日",
      "é",
      "e\u0301",
      "✅",
      "☕",
      "👍🏽",
      "🇯🇵",
      "👨‍👩‍👧",
      "❤️",
      "\u200d",
      "한",
    );
    const clusters = new Intl.Segmenter(undefined, { granularity: "grapheme" });
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 30 }), (text) => {
        const sum = Array.from(clusters.segment(text), (s) => charWidth(s.segment)).reduce(
          (a, b) => a + b,
          0,
        );
        expect(textWidth(text)).toBe(sum);
      }),
      fcOptions(),
    );
  });
});

describe("cuts", () => {
  it("cutEnd keeps the start, cutStart the end, in columns, never splitting a wide character", () => {
    expect(cutEnd("hello world", 8)).toBe("hello w…");
    expect(cutEnd("short", 8)).toBe("short");
    expect(cutEnd("日本語のテキスト", 7)).toBe("日本語…");
    expect(textWidth(cutEnd("日本語のテキスト", 6))).toBeLessThanOrEqual(6);
    expect(cutStart("/home/dev/projects/webapp", 10)).toBe("…ts/webapp");
    expect(cutEnd("abc", 0)).toBe("");
    // A sequence is never split: the family, the flag and the thumb go whole or not at all.
    expect(cutEnd("ok 👨‍👩‍👧 🇯🇵 👍🏽 end", 6)).toBe("ok 👨‍👩‍👧…");
    expect(cutStart("start 🇯🇵👍🏽", 5)).toBe("…🇯🇵👍🏽");
  });

  it("fitPieces cuts the text, then styles it, and drops the pieces after the cut", () => {
    const tag = (t: string) => `<${t}>`;
    const pieces = [
      { text: "2026-01-01" },
      { text: " " },
      { text: "a title that is long", style: tag },
      { text: " id" },
    ];
    expect(fitPieces(pieces, undefined)).toBe("2026-01-01 <a title that is long> id");
    expect(fitPieces(pieces, 20)).toBe("2026-01-01 <a title>…");
    expect(fitPieces(pieces, 100)).toBe("2026-01-01 <a title that is long> id");
  });
});

describe("wrapLine", () => {
  it("folds at spaces, mid-word only when a word is longer than the line", () => {
    expect(wrapLine("the quick brown fox jumps", 10)).toEqual(["the quick", "brown fox", "jumps"]);
    expect(wrapLine("abcdefghijklmnop", 5)).toEqual(["abcde", "fghij", "klmno", "p"]);
    expect(wrapLine("日本語のテキスト", 5)).toEqual(["日本", "語の", "テキ", "スト"]);
    expect(wrapLine("fits", 10)).toEqual(["fits"]);
    expect(wrapLine("", 10)).toEqual([""]);
    expect(wrapLine("日本", 1)).toEqual(["日", "本"]);
  });

  it("property: every line fits, and the non-space text is kept in order", () => {
    const unit = fc.constantFrom("a", "b", " ", "日", "é", "-", "🚀", "✅", "👍🏽", "🇯🇵", "👨‍👩‍👧");
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 80 }), fc.integer({ min: 2, max: 30 }), (line, width) => {
        const lines = wrapLine(line, width);
        for (const l of lines) expect(textWidth(l)).toBeLessThanOrEqual(width);
        expect(lines.join("").replace(/ /g, "")).toBe(line.replace(/ /g, ""));
      }),
      fcOptions(),
    );
  });
});

describe("renderText with a width", () => {
  const doc = buildDocument(createRenderSession(everyKindSession()));
  const utc = (iso: string) => iso.slice(0, 16).replace("T", " ");

  it("fits every line, keeps bodies indented, and is unchanged without a width", () => {
    const wide = renderText(doc, { formatTime: utc, full: true });
    expect(renderText(doc, { formatTime: utc, full: true, width: 10_000 })).toBe(wide);
    for (const width of [20, 40, 60]) {
      const text = renderText(doc, { formatTime: utc, full: true, width });
      for (const line of text.split("\n")) expect(textWidth(line), line).toBeLessThanOrEqual(width);
    }
    // Bodies are folded, not cut: what they held is all there, under their indent.
    const twenty = renderText(doc, { formatTime: utc, full: true, width: 20 });
    expect(twenty).toContain("\n  Read src/limit.ts\n  and fix the\n  off-by-one.\n");
    expect(twenty).toContain('\n    "value": 42\n');
    const narrow = renderText(doc, { formatTime: utc, width: 40 });
    // A body line folded to the width stays under its heading's indent.
    expect(narrow).toContain("\n  Read src/limit.ts and fix the\n  off-by-one.\n");
  });

  it("a long heading gives way before its label and time", () => {
    const text = renderText(doc, { formatTime: utc, width: 40 });
    expect(text).toContain("\nassistant anthr… [plan] 2026-11-02 09:04\n");
    for (const line of text.split("\n")) expect(textWidth(line)).toBeLessThanOrEqual(40);
  });
});
