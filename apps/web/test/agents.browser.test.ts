/**
 * The web app's views of subagent sessions and of resuming, in headless Chromium against a
 * store written by testkit's agent store: a subagent (pi-subagents' `run-0/session.jsonl` in
 * a folder named after its parent) and a fork are badged in the list, linked from their
 * parent's page and link back to it; the session page shows the command that resumes it in pi
 * (`cd <dir> && pi --session <file>`, or `pi --fork <file>` when its directory is gone) and
 * copies it to the clipboard. Screenshots, light and dark, go to $PI_SESSION_SCREENSHOTS when set.
 *
 * Skipped, with a message, only when no Chromium is installed.
 * @module-tag processes
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AgentStore, writeAgentStore } from "@pi-session/testkit/agent-store";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type RunningServer, startServer } from "../src/server.js";
import { findChromium, launchChromium, watch } from "./chromium.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

// biome-ignore lint/suspicious/noExplicitAny: page globals (the test's type check has no DOM)
declare const navigator: any;

const executable = findChromium();
if (executable === undefined)
  console.warn("web agent-view browser tests SKIPPED: no Chromium found (install Debian's `chromium`)");

describe.skipIf(executable === undefined)("subagents and resume in the web app", () => {
  let home: string;
  let store: AgentStore;
  let gone: AgentStore;
  let server: RunningServer;
  let browser: Browser;

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), "pi-session-web-agents-"));
    const root = join(home, "sessions");
    store = writeAgentStore(root, join(home, "work", "app"));
    // A project whose directory is gone (its sessions stay).
    gone = writeAgentStore(join(home, "other-root"), join(home, "work", "removed"), { createCwd: false });
    server = await startServer({ root, cacheDir: join(home, "cache"), pollMs: 500 });
    browser = await launchChromium(executable as string);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  const keyOf = (path: string) => server.source.sessions().find((row) => row.path === path)?.key as string;

  async function open(hash: string, colorScheme: "light" | "dark" = "light") {
    const context = await browser.newContext({ viewport: { width: 1300, height: 800 }, colorScheme });
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.origin });
    const page = await context.newPage();
    const log = watch(page);
    await page.goto(server.url);
    await page.goto(`${server.origin}/${hash}`);
    return { page, log, context };
  }

  it("the list badges the subagent and the fork", async () => {
    const { page, log, context } = await open("#/");
    await page.waitForSelector(".list-view[data-loaded='true']");
    const badge = (path: string) =>
      page.textContent(`.session-row[data-key="${keyOf(path)}"] .badge:not(.error)`);
    expect(await badge(store.subagent.path)).toBe("subagent");
    expect(await badge(store.fork.path)).toBe("fork");
    // The main session is neither (its secret may earn it the secrets badge, once scanned).
    expect(
      await page.$(`.session-row[data-key="${keyOf(store.main.path)}"] .badge:not(.error):not(.secrets)`),
    ).toBeNull();
    expect(log.errors).toEqual([]);
    await context.close();
  });

  it("a parent links to its subagent and fork; a subagent links back; the resume line copies", async () => {
    for (const scheme of ["light", "dark"] as const) {
      const { page, log, context } = await open(`#/s/${encodeURIComponent(keyOf(store.main.path))}`, scheme);
      await page.waitForSelector(".relations:not([hidden]) a.related");
      const links = await page.$$eval(".relations a.related", (els) =>
        els.map((el) => [el.getAttribute("data-key"), el.className]),
      );
      expect(links).toEqual([
        [keyOf(store.subagent.path), "related subagent"],
        [keyOf(store.fork.path), "related fork"],
      ]);
      expect(await page.textContent(".relations")).toMatch(/1 subagent: .*1 fork: /);
      await page.waitForSelector(".resume:not([hidden])");
      const line = await page.textContent(".resume-line");
      expect(line).toBe(`cd ${store.cwd} && pi --session ${store.main.path}`);
      await page.click(".resume .copy");
      await page.waitForSelector(".resume .copy[data-copied='true']");
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(line);
      const shots = process.env.PI_SESSION_SCREENSHOTS;
      if (shots) await page.screenshot({ path: join(shots, `agents-parent-${scheme}.png`) });
      // To the subagent, and back.
      await page.click(`.relations a.related.subagent`);
      await page.waitForSelector(".relations:not([hidden]) a.related");
      expect(await page.textContent(".relations")).toMatch(/^Subagent of /);
      expect(await page.getAttribute(".relations a.related", "data-key")).toBe(keyOf(store.main.path));
      await page.waitForFunction(
        (path: string) => document.querySelector(".resume-line")?.textContent?.endsWith(path),
        store.subagent.path,
      );
      if (shots) await page.screenshot({ path: join(shots, `agents-subagent-${scheme}.png`) });
      expect(log.errors).toEqual([]);
      await context.close();
    }
  });

  it("a session whose directory is gone shows the fork command, said as such", async () => {
    const other = await startServer({ root: gone.root, cacheDir: join(home, "cache2"), pollMs: 500 });
    try {
      const context = await browser.newContext({ viewport: { width: 1300, height: 800 } });
      const page = await context.newPage();
      await page.goto(other.url);
      const key = other.source.sessions().find((row) => row.path === gone.main.path)?.key as string;
      await page.goto(`${other.origin}/#/s/${encodeURIComponent(key)}`);
      await page.waitForSelector(".resume:not([hidden])");
      expect(await page.textContent(".resume-line")).toBe(`pi --fork ${gone.main.path}`);
      expect(await page.textContent(".resume-note")).toMatch(/directory is gone/);
      await context.close();
    } finally {
      await other.close();
    }
  });
});

// biome-ignore lint/suspicious/noExplicitAny: page globals, see above
declare const document: any;
