/**
 * An edit in the web app, in headless Chromium: a one-line change inside a six-line edit is one
 * removed and one added line with the file's line number (pi's own diff from the result's
 * details), and the result sits inside the call it answers (issue 39). The store is written here:
 * one session whose assistant edits a file, as pi 1.6.0's edit tool records it.
 *
 * Skipped, with a message, only when no Chromium is installed.
 * @module-tag processes
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type RunningServer, startServer } from "../src/server.js";
import { findChromium, launchChromium, watch } from "./chromium.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const executable = findChromium();
if (executable === undefined)
  console.warn("web edit-diff browser test SKIPPED: no Chromium found (install Debian's `chromium`)");

/** pi's display diff of a one-line change at line 3 of a six-line edit. */
const PI_DIFF = [" 1 one", " 2 two", "-3 three", "+3 THREE", " 4 four", " 5 five", " 6 six"].join("\n");

function writeSession(root: string, cwd: string): void {
  const dir = join(root, "--tmp-edit-diff--");
  mkdirSync(dir, { recursive: true });
  const t = (i: number) => new Date(Date.UTC(2026, 0, 1, 10, i)).toISOString();
  const usage = {
    input: 10,
    output: 5,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 15,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
  const six = (third: string) => ["one", "two", third, "four", "five", "six"].join("\n");
  const lines = [
    { type: "session", version: 3, id: "019b0000-0000-7000-8000-0000000ed1f0", timestamp: t(0), cwd },
    {
      type: "message",
      id: "e1",
      parentId: null,
      timestamp: t(1),
      message: { role: "user", content: "Capitalize the third line.", timestamp: 1 },
    },
    {
      type: "message",
      id: "e2",
      parentId: "e1",
      timestamp: t(2),
      message: {
        role: "assistant",
        content: [
          {
            type: "toolCall",
            id: "call_edit",
            name: "edit",
            arguments: { path: "src/six.txt", edits: [{ oldText: six("three"), newText: six("THREE") }] },
          },
        ],
        api: "anthropic-messages",
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        usage,
        stopReason: "toolUse",
        timestamp: 2,
      },
    },
    {
      type: "message",
      id: "e3",
      parentId: "e2",
      timestamp: t(3),
      message: {
        role: "toolResult",
        toolCallId: "call_edit",
        toolName: "edit",
        content: [{ type: "text", text: "Successfully replaced 1 block(s) in src/six.txt." }],
        details: { diff: PI_DIFF, firstChangedLine: 3 },
        isError: false,
        timestamp: 3,
      },
    },
  ];
  writeFileSync(
    join(dir, "2026-01-01T10-00-00-000Z_019b0000-0000-7000-8000-0000000ed1f0.jsonl"),
    `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`,
  );
}

describe.skipIf(executable === undefined)("an edit in the web app", () => {
  let home: string;
  let server: RunningServer;
  let browser: Browser;

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), "pi-session-web-edit-"));
    const root = join(home, "sessions");
    writeSession(root, join(home, "work"));
    server = await startServer({ root, cacheDir: join(home, "cache"), pollMs: 500 });
    browser = await launchChromium(executable as string);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it("a one-line change in a six-line edit is one removed and one added line, numbered; the result sits in its call", async () => {
    await server.source.ready;
    const key = server.source.sessions()[0]?.key as string;
    expect(key).toBeDefined();
    const context = await browser.newContext({ viewport: { width: 1300, height: 800 } });
    const page = await context.newPage();
    const log = watch(page);
    await page.goto(server.url);
    await page.goto(`${server.origin}/#/s/${encodeURIComponent(key)}`);
    await page.waitForSelector(".session-view[data-loaded='true']");
    await page.waitForSelector(".diff-line");
    const changed = await page.$$eval(".diff-line.removed, .diff-line.added", (rows) =>
      rows.map((row) => ({
        kind: row.classList.contains("added") ? "added" : "removed",
        line: row.querySelector(".diff-num")?.textContent,
        text: row.querySelector(".diff-text")?.textContent,
      })),
    );
    expect(changed).toEqual([
      { kind: "removed", line: "3", text: "three" },
      { kind: "added", line: "3", text: "THREE" },
    ]);
    // The result is inside the call's item, not an item of its own.
    expect(await page.$$eval(".call-result", (els) => els.length)).toBe(1);
    expect(log.errors).toEqual([]);
    await context.close();
  });
});
