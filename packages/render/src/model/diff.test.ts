/**
 * Edits as diffs: pi's display diff read back with its line numbers, a diff computed with jsdiff
 * for both argument shapes when pi wrote none, and the text form the Markdown fences.
 */
import { describe, expect, it } from "vitest";
import { computeDiff, diffText, editDiff, parsePiDiff } from "../index.js";

/** What pi 1.6.0's edit tool writes in `details.diff` for a one-line change at line 137. */
const PI_DIFF = [
  " 133 import { limit } from './limit';",
  " 134 ",
  " 135 export function allow(n: number) {",
  " 136   // the limit is inclusive",
  "-137   return n > LIMIT;",
  "+137   return n >= LIMIT;",
  " 138 }",
  "     ...",
  " 201 export default allow;",
].join("\n");

const SIX_OLD = ["one", "two", "three", "four", "five", "six"].join("\n");
const SIX_NEW = ["one", "two", "THREE", "four", "five", "six"].join("\n");

describe("edit diffs", () => {
  it("reads pi's display diff: kinds, the file's line numbers, skipped runs", () => {
    const lines = parsePiDiff(PI_DIFF);
    expect(lines?.filter((l) => l.kind !== "context")).toEqual([
      { kind: "removed", line: 137, text: "  return n > LIMIT;" },
      { kind: "added", line: 137, text: "  return n >= LIMIT;" },
      { kind: "skipped", text: "..." },
    ]);
    expect(lines?.[0]).toEqual({ kind: "context", line: 133, text: "import { limit } from './limit';" });
    expect(parsePiDiff("Successfully replaced text")).toBeUndefined();
    expect(parsePiDiff(" 1 only context")).toBeUndefined();
  });

  it("prefers pi's diff from the result's details; else computes one, for both argument shapes", () => {
    const edits = { path: "a.ts", edits: [{ oldText: SIX_OLD, newText: SIX_NEW }] };
    expect(editDiff(edits, { diff: PI_DIFF, patch: "", firstChangedLine: 137 })?.numbers).toBe("file");
    const computed = editDiff(edits, undefined);
    expect(computed?.numbers).toBe("edit");
    // A one-line change inside a six-line edit: one removed line and one added line, numbered.
    expect(computed?.lines.filter((l) => l.kind === "removed" || l.kind === "added")).toEqual([
      { kind: "removed", line: 3, text: "three" },
      { kind: "added", line: 3, text: "THREE" },
    ]);
    expect(computed?.lines.filter((l) => l.kind === "context")).toHaveLength(5);
    const legacy = editDiff({ path: "a.ts", oldText: SIX_OLD, newText: SIX_NEW }, { diff: "not a diff" });
    expect(legacy).toEqual(computed);
    expect(editDiff({ path: "a.ts" }, undefined)).toBeUndefined();
  });

  it("several edits are separate hunks; far apart lines are skipped", () => {
    const many = Array.from({ length: 30 }, (_, i) => `l${i}`);
    const changed = many.map((l, i) => (i === 2 || i === 25 ? `${l}!` : l));
    const diff = computeDiff(many.join("\n"), changed.join("\n"));
    expect(diff.filter((l) => l.kind === "skipped")).toHaveLength(1);
    expect(diff.filter((l) => l.kind === "added").map((l) => l.line)).toEqual([3, 26]);
    const two = editDiff(
      {
        edits: [
          { oldText: "a", newText: "b" },
          { oldText: "c", newText: "d" },
        ],
      },
      undefined,
    );
    expect(two?.lines.map((l) => l.kind)).toEqual(["removed", "added", "skipped", "removed", "added"]);
  });

  it("as text: sign, padded number, text, as pi writes it", () => {
    const diff = editDiff({ oldText: SIX_OLD, newText: SIX_NEW }, undefined);
    expect(diffText(diff as never)).toBe(" 1 one\n 2 two\n-3 three\n+3 THREE\n 4 four\n 5 five\n 6 six");
    expect(diffText({ numbers: "file", lines: parsePiDiff(PI_DIFF) ?? [] })).toBe(PI_DIFF);
  });
});
