/**
 * The text and Markdown renderers: what each item looks like, folding and cutting with a note
 * saying how much, images as links or notes, and untrusted text kept inert (raw HTML escaped,
 * unsafe links broken, fences that content cannot close, controls made visible).
 */
import { describe, expect, it } from "vitest";
import { everyKindSession, PAYLOADS, payloadSession } from "../test/sessions.js";
import {
  buildDocument,
  createRenderSession,
  escapeInline,
  fence,
  inlineCode,
  lineEndsAsLf,
  oneLineField,
  renderMarkdown,
  renderText,
  renderTextChunks,
  renderTextItem,
  safeMarkdown,
  stripColorCodes,
  visibleControls,
} from "./index.js";

const everyKind = () => createRenderSession(everyKindSession());
const utc = (iso: string) => iso.slice(0, 16).replace("T", " ");

describe("renderText", () => {
  const doc = buildDocument(everyKind());
  const text = renderText(doc, { formatTime: utc, source: "/tmp/s.jsonl" });

  it("a heading per item, bodies indented, bookkeeping on one dimmed line, labels on their targets", () => {
    expect(text.split("\n").slice(0, 2)).toEqual([
      "limit fix 019a4c1e-0000-7000-8000-000000000001",
      "/tmp/s.jsonl · /home/dev/projects/webapp",
    ]);
    expect(text).toContain("\n· model anthropic/claude-sonnet-4-5\n");
    expect(text).toContain(
      "\nuser 2026-11-02 09:03\n  Read src/limit.ts and fix the off-by-one.\n  (image image/png, 0 KB)\n",
    );
    expect(text).toContain("assistant anthropic/claude-sonnet-4-5 [plan] 2026-11-02 09:04\n");
    expect(text).toContain("  → read src/limit.ts\n");
    expect(text).toContain("← bash npm test -- limit error 2026-11-02 09:07\n  FAIL limit.test.ts\n");
    expect(text).toContain("  → edit src/limit.ts\n    -1 n > LIMIT\n    +1 n >= LIMIT\n");
    expect(text).toContain("$ git diff --stat (exit 0) 2026-11-02 09:08\n");
    expect(text).toContain("── compaction (18,250 tokens before) ── 2026-11-02 09:15\n");
    expect(text).toContain("↳ branch 1/3 from e0000004\n");
    // Label entries show on their targets, not as items of their own.
    expect(text).not.toContain("labelled");
  });

  it("folds long bodies with a note, unless full", () => {
    const long = createRenderSession({
      header: everyKindSession().header,
      entries: [
        {
          type: "message",
          id: "a",
          parentId: null,
          timestamp: "2026-01-01T00:00:00.000Z",
          message: {
            role: "toolResult",
            toolCallId: "x",
            toolName: "bash",
            content: [{ type: "text", text: Array.from({ length: 20 }, (_, i) => `line ${i}`).join("\n") }],
            isError: false,
            timestamp: 0,
          },
        },
      ],
    });
    const d = buildDocument(long);
    expect(renderText(d, { foldHint: "; --full shows all" })).toContain(
      "line 5\n  … 14 more lines (107 B); --full shows all",
    );
    expect(renderText(d, { full: true })).toContain("line 19");
  });

  it("styles through the caller's functions only", () => {
    const tag = (name: string) => (s: string) => `<${name}>${s}</${name}>`;
    const styled = renderText(doc, { style: { green: tag("g"), bold: tag("b") } });
    expect(styled).toContain("<b><g>user</g></b>");
  });

  it("chunks join to the same text; a label item alone renders as nothing", () => {
    expect([...renderTextChunks(doc)].join("")).toBe(renderText(doc));
    const label = buildDocument(everyKind(), { view: "all-branches" }).items.find((i) => i.kind === "label");
    expect(label && renderTextItem(label)).toBeUndefined();
  });

  it("terminal escapes from the session arrive visible; colour codes are dropped", () => {
    const out = renderText(buildDocument(createRenderSession(payloadSession())), { full: true });
    expect(out).toContain("red \\x1b]0;title\\x07 \\x1b[2J\\x1b[H cleared \\x08\\x08 \\x0d overwritten");
    expect(out).toContain("abc\\u202edcba\\u202c");
    expect(out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  });
});

describe("renderMarkdown", () => {
  const md = renderMarkdown(buildDocument(everyKind()));

  it("a title and facts, a heading per turn, items as label lines with their bodies", () => {
    expect(md).toMatch(/^# limit fix\n\n- \*\*Session:\*\* `019a4c1e-0000-7000-8000-000000000001`\n/);
    // Counted from the fixture, so an entry added to it changes nothing here.
    const { entries } = everyKindSession();
    const byId = new Map(entries.map((e) => [e.id, e]));
    let onBranch = 0;
    for (let e = byId.get("e0000023"); e !== undefined; e = byId.get(e.parentId ?? "")) onBranch++;
    expect(md).toContain(
      `- **Shows:** the branch ending at \`e0000023\` (the current one): ${onBranch} of ${entries.length} entries`,
    );
    expect(md).toContain(
      "## Turn 1 · 2026-11-02 09:03 UTC\n\n**User**\n\nRead src/limit.ts and fix the off-by-one.",
    );
    expect(md).toContain(
      "**Assistant** · anthropic/claude-sonnet-4-5 · label `plan` · _2026-11-02 09:04 UTC_",
    );
    expect(md).toContain(
      "<details>\n<summary>Thinking</summary>\n\n> The limit check uses > instead of >=.\n\n</details>",
    );
    expect(md).toContain("**→ edit** `src/limit.ts`\n\n```diff\n-1 n > LIMIT\n+1 n >= LIMIT\n```");
    expect(md).toContain("**← read** `src/limit.ts`");
    expect(md).toContain("```ts\nexport function allow(n: number) {");
    expect(md).toContain("**← bash** `npm test -- limit` (error)");
    expect(md).toContain("```console\n$ git diff --stat\n src/limit.ts | 2 +-\n```");
    expect(md).toContain("_Model:_ `anthropic/claude-sonnet-4-5`");
    expect(md).toContain("---\n\n**Compaction** · 18,250 tokens before");
    expect(md).toContain("> ↳ Branch 1 of 3, from `e0000004`");
    expect(md).toContain("_(image 1 left out: image/png, 70 B)_");
  });

  it("the context view: its facts, then the messages the model is sent", () => {
    const ctx = renderMarkdown(buildDocument(everyKind(), { view: "context" }));
    expect(ctx).toContain("- **Shows:** the context the model is sent at `e0000023`:");
    expect(ctx).toContain("model `anthropic/claude-sonnet-4-5`, thinking level `high`");
    expect(ctx).toContain("**Compaction summary** · 18,250 tokens before");
  });

  it("images become links to the files the caller writes, numbered in order", () => {
    const seen: string[] = [];
    const withImages = renderMarkdown(buildDocument(everyKind()), {
      images: (image, n) => {
        seen.push(`${n}:${image.mimeType}:${image.extension}:${image.bytes}`);
        return `s images/${n}.${image.extension}`;
      },
    });
    expect(seen).toEqual(["1:image/png:png:70"]);
    expect(withImages).toContain("![image 1](s%20images/1.png)");
  });

  it("cuts long outputs, saying how many lines and bytes; full keeps them", () => {
    const text = Array.from({ length: 100 }, (_, i) => `line ${i}`).join("\n");
    const s = createRenderSession({
      header: everyKindSession().header,
      entries: [
        {
          type: "message",
          id: "a",
          parentId: null,
          timestamp: "2026-01-01T00:00:00.000Z",
          message: {
            role: "bashExecution",
            command: "seq",
            output: text,
            exitCode: 0,
            cancelled: false,
            truncated: false,
            timestamp: 0,
          },
        },
      ],
    });
    const cut = renderMarkdown(buildDocument(s), { maxOutputLines: 10, cutHint: "; `--full` keeps them" });
    expect(cut).toContain("line 8\n```\n\n_… 91 more lines (726 B) cut; `--full` keeps them_");
    expect(cut).not.toContain("line 9\n");
    expect(renderMarkdown(buildDocument(s), { maxOutputLines: 10, full: true })).toContain("line 99");
    const wide = renderMarkdown(buildDocument(s), { maxOutputChars: 20 });
    expect(wide).toMatch(/_… \d+ more lines \([\d.]+ B\) cut_/);
  });

  it("author Markdown stays Markdown; raw HTML and unsafe links are made inert; controls visible", () => {
    const out = renderMarkdown(buildDocument(createRenderSession(payloadSession())), { full: true });
    // Outside code (fences and spans), every < is escaped, but for the renderer's own <details>.
    const prose = out
      .replace(/^(`{3,})[^\n]*\n[\s\S]*?\n\1$/gm, "")
      .replace(/(`+)[^`]*?\1/g, "")
      .replace(/<\/?(details|summary)>/g, "");
    expect(prose).not.toMatch(/(?<!\\)</);
    expect(out).toContain("\\<script>window.__pwned = 'script'\\</script>");
    expect(out).toContain("[click me](\u200bjavascript:window.__pwned='link')");
    expect(out).toContain("\\x1b]0;title\\x07");
    expect(out).not.toContain("\u001b");
    // Titles and labels are escaped or code spans.
    expect(out).toContain("label `label <script>window.__pwned = 'script'</script>`");
  });

  it("safeMarkdown leaves code verbatim and closes a fence left open", () => {
    expect(safeMarkdown("a <b> `<c>` d")).toBe("a \\<b> `<c>` d");
    expect(safeMarkdown("```html\n<div>\n```\n<p>")).toBe("```html\n<div>\n```\n\\<p>");
    expect(safeMarkdown("x\n\n    <indented>\n<y>")).toBe("x\n\n    <indented>\n\\<y>");
    expect(safeMarkdown("```\nunclosed <x>")).toBe("```\nunclosed <x>\n```");
    expect(safeMarkdown("~~~~\na\n~~~\nb\n~~~~\nc")).toBe("~~~~\na\n~~~\nb\n~~~~\nc");
    expect(safeMarkdown("[x](data:text/html,hi) [y](https://ok)")).toBe(
      "[x](\u200bdata:text/html,hi) [y](https://ok)",
    );
  });

  it("safeMarkdown keeps verbatim only the code every renderer agrees is code", () => {
    // Indented lines in a list are the item's text, not code.
    expect(safeMarkdown("- a\n\n    <b>")).toBe("- a\n\n    \\<b>");
    expect(safeMarkdown("a\n\n    <b>")).toBe("a\n\n    <b>");
    // A backtick left open on an earlier line may close on this one: its spans are prose.
    expect(safeMarkdown("a `b\nc `<d>` e")).toBe("a `b\nc `\\<d>` e");
    // A table splits cells at | before code spans; an escaped backtick opens nothing.
    expect(safeMarkdown("| `a|<b>` |")).toBe("| `a|\\<b>` |");
    expect(safeMarkdown("\\`<b>`")).toBe("\\`\\<b>`");
    // A fence whose info string holds a backtick is no fence; one in a list item ends with it.
    expect(safeMarkdown("```a`b\n<c>")).toBe("```a`b\n\\<c>");
    expect(safeMarkdown("- a\n  ```\n  <b>\n<c>")).toBe("- a\n  ```\n  <b>\n```\n\\<c>");
    // Web and mail autolinks stay; prose "data:" stays; every spelling of a script link breaks.
    expect(safeMarkdown("see <https://x.example/a> and the data: 5")).toBe(
      "see <https://x.example/a> and the data: 5",
    );
    expect(safeMarkdown("[a](&#106;ava&Tab;script&colon;x) [b]: JAVA%53CRIPT\\:x")).toBe(
      "[a](\u200b&#106;ava&Tab;script&colon;x) [b]: \u200bJAVA%53CRIPT\\:x",
    );
  });

  it("fences and code spans longer than any backtick run inside them", () => {
    expect(fence("a ``` b\n````", "ts")).toBe("`````ts\na ``` b\n````\n`````");
    expect(fence("", "")).toBe("```\n```");
    expect(inlineCode("a `b` c")).toBe("``a `b` c``");
    expect(inlineCode("`x`")).toBe("`` `x` ``");
    expect(escapeInline("*a* _b_ [c](d) <e> | ~f~ &g")).toBe(
      "\\*a\\* \\_b\\_ \\[c\\](d) \\<e\\> \\| \\~f\\~ \\&g",
    );
  });
});

describe("sanitize", () => {
  it("shows controls as \\x / \\u escapes, keeps newlines and tabs; CRLF as LF on request", () => {
    expect(visibleControls("a\u0000b\u001bc\u007fd\r\ne\rf\tg\n")).toBe(
      "a\\x00b\\x1bc\\x7fd\\x0d\ne\\x0df\tg\n",
    );
    expect(visibleControls(lineEndsAsLf("d\r\ne\rf"))).toBe("d\ne\\x0df");
    expect(visibleControls("\u0085\u009b\u202e\u2066")).toBe("\\x85\\x9b\\u202e\\u2066");
    expect(oneLineField("a\nb\tc")).toBe("a\\x0ab\\x09c");
    const plain = "no controls here ✓";
    expect(visibleControls(plain)).toBe(plain);
  });

  it("drops colour codes only", () => {
    expect(stripColorCodes("\u001b[1;31mred\u001b[0m \u001b[2J")).toBe("red \u001b[2J");
    expect(PAYLOADS.terminal).toContain("\u001b");
  });
});
