/**
 * The folding rule every view uses: by lines and by size, never a remainder not worth its note,
 * and what is kept plus what is left out is always the whole text.
 */
import { fcOptions } from "@pi-session/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { utf8Length } from "./fold.js";
import { describeRest, foldText } from "./index.js";

const lines = (count: number, width = 8) =>
  Array.from({ length: count }, (_, i) => `line ${String(i).padStart(width - 5, "0")}`).join("\n");

describe("foldText", () => {
  it("keeps a text within the limit, or within a tenth of it (a 42-line text is not cut at 40)", () => {
    expect(foldText(lines(40), { lines: 40, chars: 8000 }).rest).toBeUndefined();
    expect(foldText(lines(42), { lines: 40, chars: 8000 }).rest).toBeUndefined();
    expect(foldText(lines(44), { lines: 40, chars: 8000 }).rest).toBeUndefined();
    const cut = foldText(lines(45), { lines: 40, chars: 8000 });
    expect(cut.text).toBe(lines(40));
    expect(cut.rest).toEqual({ partial: false, lines: 5, chars: 44, bytes: 44 });
    // Seven lines at a limit of six: one line would give way to a one-line note.
    expect(foldText(lines(7), { lines: 6, chars: 960 }).rest).toBeUndefined();
    expect(foldText(lines(8), { lines: 6, chars: 960 }).rest?.lines).toBe(2);
  });

  it("folds one long line by size (117 KB stays a few hundred characters)", () => {
    const long = "x".repeat(117_000);
    const folded = foldText(long, { lines: 6, chars: 960 });
    expect(folded.text).toHaveLength(960);
    expect(folded.rest).toEqual({ partial: true, lines: 0, chars: 116_040, bytes: 116_040 });
    expect(describeRest(folded.rest as never)).toBe("the rest of the line (113.3 KB)");
    const twoLines = foldText(`${long}\nnext`, { lines: 6, chars: 960 });
    expect(describeRest(twoLines.rest as never)).toBe("the rest of the line and 1 more line (113.3 KB)");
  });

  it("never splits a surrogate pair; a cut after a newline splits no line", () => {
    const emoji = "😀".repeat(100);
    const folded = foldText(emoji, { lines: 5, chars: 51 });
    expect(folded.text).toBe("😀".repeat(25));
    expect(folded.rest?.bytes).toBe(75 * 4);
    const atLine = foldText(`${"a".repeat(50)}\n${"b".repeat(500)}`, { lines: 10, chars: 51 });
    expect(atLine.text).toBe("a".repeat(50));
    expect(atLine.rest).toMatchObject({ partial: false, lines: 1 });
  });

  it("what is kept, then what is left out, is the whole text; nothing is left out that is not worth a note", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom("a", "b", "\n", "é", "😀"), maxLength: 400 }),
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 1, max: 300 }),
        (text, maxLines, maxChars) => {
          const folded = foldText(text, { lines: maxLines, chars: maxChars });
          if (folded.rest === undefined) {
            expect(folded.text).toBe(text);
            return;
          }
          expect(text.startsWith(folded.text)).toBe(true);
          expect(folded.text.length).toBeLessThanOrEqual(maxChars);
          expect(folded.text.split("\n").length).toBeLessThanOrEqual(maxLines);
          const rest = text.slice(folded.text.length + (folded.rest.partial ? 0 : 1));
          expect(folded.rest.bytes).toBe(utf8Length(rest));
          expect(folded.rest.chars).toBe(rest.length);
          const restLines = folded.rest.lines + (folded.rest.partial ? 1 : 0);
          expect(restLines > Math.max(1, Math.ceil(maxLines / 10)) || rest.length > 40).toBe(true);
        },
      ),
      fcOptions(),
    );
  });
});
