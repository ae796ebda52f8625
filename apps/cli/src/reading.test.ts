/**
 * Reading a session through the CLI, in-process (`runCli`): `show` on a terminal draws an edit
 * as pi's diff with its line numbers in green and red, heads each result with its call, folds
 * a 117 KB line by size and keeps every line within the width; `export --leaf` writes a page of
 * that branch alone.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCaptured } from "../test/in-process.js";

const dir = mkdtempSync(join(tmpdir(), "pi-session-reading-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PI_DIFF = [
  "    ...",
  "  5   // inclusive",
  "- 6   return n > LIMIT;",
  "+ 6   return n <= LIMIT;",
  "  7 }",
].join("\n");

/** A session as pi writes one: an edit whose result holds pi's diff, a 117 KB line, an abandoned branch. */
function writeSession(): { path: string; mainLeaf: string } {
  const t = (i: number) => new Date(Date.UTC(2026, 10, 2, 9, i)).toISOString();
  const message = (id: string, parentId: string | null, i: number, body: Record<string, unknown>) =>
    JSON.stringify({
      type: "message",
      id,
      parentId,
      timestamp: t(i),
      message: { ...body, timestamp: Date.parse(t(i)) },
    });
  const assistant = (content: unknown[]) => ({
    role: "assistant",
    content,
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    stopReason: "toolUse",
  });
  const lines = [
    JSON.stringify({
      type: "session",
      version: 3,
      id: "019a4c1e-0000-7000-8000-00000000cafe",
      timestamp: t(0),
      cwd: "/home/dev/app",
    }),
    message("a1", null, 1, { role: "user", content: "Fix the limit." }),
    message(
      "a2",
      "a1",
      2,
      assistant([
        {
          type: "toolCall",
          id: "c1",
          name: "edit",
          arguments: {
            path: "src/limit.ts",
            edits: [{ oldText: "return n > LIMIT;", newText: "return n <= LIMIT;" }],
          },
        },
        { type: "toolCall", id: "c2", name: "bash", arguments: { command: "cat big.json" } },
      ]),
    ),
    message("a3", "a2", 3, {
      role: "toolResult",
      toolCallId: "c1",
      toolName: "edit",
      content: [{ type: "text", text: "Successfully replaced 1 block(s) in src/limit.ts." }],
      details: { diff: PI_DIFF, patch: "", firstChangedLine: 6 },
      isError: false,
    }),
    message("a4", "a3", 4, {
      role: "toolResult",
      toolCallId: "c2",
      toolName: "bash",
      content: [{ type: "text", text: `{"data":"${"x".repeat(117_000)}"}` }],
      isError: false,
    }),
    message("b1", "a1", 5, {
      role: "assistant",
      content: [{ type: "text", text: "Abandoned: SIDE-BRANCH-SECRET" }],
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      stopReason: "stop",
    }),
  ];
  const path = join(dir, "session.jsonl");
  writeFileSync(path, `${lines.join("\n")}\n`);
  return { path, mainLeaf: "a4" };
}

async function run(argv: string[], terminal: { columns: number } | undefined) {
  const r = await runCaptured(argv, {
    env: { TERM: "xterm-256color" },
    cwd: dir,
    ...(terminal ? { columns: terminal.columns } : {}),
  });
  return { code: r.code, out: r.stdout, err: r.stderr };
}

const plain = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, "");

describe("reading a session through the CLI", () => {
  const { path, mainLeaf } = writeSession();

  it("show: pi's diff with line numbers in green and red, results headed with their calls, every line within the width", async () => {
    for (const columns of [60, 80, 120]) {
      const { code, out } = await run(["show", path, "--leaf", mainLeaf, "--no-pager"], { columns });
      expect(code).toBe(0);
      expect(out).toContain("\u001b[31m-6   return n > LIMIT;");
      expect(out).toContain("\u001b[32m+6   return n <= LIMIT;");
      const text = plain(out);
      expect(text).toContain("← edit src/limit.ts");
      expect(text).toContain("← bash cat big.json");
      // The 117 KB line folds by size: a few lines, not thousands.
      expect(text.split("\n").length).toBeLessThan(60);
      expect(text).toMatch(/… the rest of the line \(113\.\d KB\)/);
      for (const line of text.split("\n")) expect([...line].length).toBeLessThanOrEqual(columns);
    }
    // Not a terminal: no colours at all.
    const piped = await run(["show", path, "--leaf", mainLeaf], undefined);
    expect(piped.out).not.toContain("\u001b[");
    expect(piped.out).toContain("-6   return n > LIMIT;");
  });

  it("export --leaf --format html: the page holds that branch alone; without --leaf, the whole tree", async () => {
    const branch = join(dir, "branch.html");
    expect(
      (await run(["export", path, "--leaf", mainLeaf, "--format", "html", "-o", branch], undefined)).code,
    ).toBe(0);
    expect(readFileSync(branch, "utf8")).not.toContain("SIDE-BRANCH-SECRET");
    const whole = join(dir, "whole.html");
    expect((await run(["export", path, "--format", "html", "-o", whole], undefined)).code).toBe(0);
    expect(readFileSync(whole, "utf8")).toContain("SIDE-BRANCH-SECRET");
    const markdown = await run(["export", path, "--leaf", mainLeaf, "--format", "md"], undefined);
    expect(markdown.out).toContain(
      "```diff\n   ...\n 5   // inclusive\n-6   return n > LIMIT;\n+6   return n <= LIMIT;\n",
    );
    expect(markdown.out).toContain("**← bash** `cat big.json`");
  });
});
