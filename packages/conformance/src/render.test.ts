/**
 * Our renderers on a session pi 1.6.0 wrote itself (rich-session.ts: pi's agent, its real
 * tools, a faux model): an edit is the diff pi stored in its result, with the file's line
 * numbers (a one-line change inside a six-line edit is one removed and one added line); every
 * result is headed with its call (two parallel reads tell their paths); a 117 KB line folds by
 * size; colour codes are not printed as escapes.
 */
import { renderMarkdown, renderText, buildDocument, sessionFromText } from "@pi-session/render";
import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { writeRichSession } from "./rich-session.js";

describe("a session pi wrote, as we render it", () => {
  let text = "";
  let markdown = "";
  let items: ReturnType<typeof buildDocument>["items"] = [];

  beforeAll(async () => {
    const { path } = await writeRichSession();
    const session = sessionFromText(readFileSync(path, "utf8"));
    const doc = buildDocument(session);
    items = doc.items;
    text = renderText(doc, { width: 80 });
    markdown = renderMarkdown(doc);
  }, 120_000);

  it("an edit is pi's own diff, with the file's line numbers: one line removed, one added", () => {
    const edit = items
      .flatMap((item) => item.blocks)
      .find((b) => b.type === "toolCall" && b.id === "call_edit");
    expect(edit?.type === "toolCall" && edit.diff?.numbers).toBe("file");
    const changed =
      edit?.type === "toolCall"
        ? edit.diff?.lines.filter((l) => l.kind !== "context" && l.kind !== "skipped")
        : [];
    expect(changed).toEqual([
      { kind: "removed", line: 6, text: "  return n > LIMIT;" },
      { kind: "added", line: 6, text: "  return n <= LIMIT;" },
    ]);
    // As pi writes it: the sign, the number padded to the file's widest, the text.
    expect(text).toContain("    - 6   return n > LIMIT;\n    + 6   return n <= LIMIT;\n");
    expect(markdown).toContain("- 6   return n > LIMIT;\n+ 6   return n <= LIMIT;\n");
    // The older argument shape is shown from pi's diff too.
    const legacy = items
      .flatMap((item) => item.blocks)
      .find((b) => b.type === "toolCall" && b.id === "call_edit_legacy");
    expect(legacy?.type === "toolCall" && legacy.diff?.lines.filter((l) => l.kind === "added")).toEqual([
      { kind: "added", line: 3, text: '    return f"Hello, {name}!"' },
    ]);
  });

  it("each result is headed with its call: parallel reads say which file", () => {
    expect(text).toMatch(/← read src\/limit\.ts .*\n {2}\/\/ Rate limits/);
    expect(text).toMatch(/← read src\/greet\.py .*\n {2}def greet/);
    expect(markdown).toContain("**← read** `src/limit.ts`");
    expect(markdown).toContain("**← bash** `head -c 117000 /dev/zero | tr '\\0' x`");
  });

  it("the 117 KB line folds by size; colour codes are dropped, not printed as escapes", () => {
    const long = text.split("\n\n").find((part) => part.startsWith("← bash head -c 117000")) ?? "";
    expect(long.split("\n").length).toBeLessThan(20);
    expect(long).toContain("… the rest of the line");
    expect(text).toContain("✓ 12 passed ✗ 1 failed");
    expect(text).not.toContain("\\x1b[32m");
    expect(markdown).not.toMatch(/_… \d+ more lines? \(\d+ B\) cut_/);
  });
});
