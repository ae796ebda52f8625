/**
 * The app in headless Chromium over a team's PostgreSQL database (a throw-away cluster that a
 * generated store was synced into as a source, opened read-only): the bar says it is a team
 * database, the list shows every session with its source and filters by source, a session opens
 * with its source in its facts, a search finds the planted phrase and opens the session at its
 * entry, and an entry synced later appears in the open page; no page error.
 *
 * Skipped, with a message, only when no Chromium is installed (`npm run verify` installs Debian's, `scripts/system-packages.sh`).
 * @module-tag processes
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type PostgresDatabase, openPostgresDatabase } from "@pi-session/postgres";
import { type Cluster, startCluster } from "../../../packages/postgres/src/testing/cluster.js";
import { type RunningServer, startServer } from "../src/server.js";
import { findChromium, launchChromium, watch } from "./chromium.js";
import { assistant, makeStore, PLANTED, type TestStore } from "./store.js";

vi.setConfig({ testTimeout: 180_000, hookTimeout: 180_000 });

// biome-ignore lint/suspicious/noExplicitAny: page globals (the test's type check has no DOM)
declare const document: any;

const executable = findChromium();
if (executable === undefined)
  console.warn("web browser tests over a database SKIPPED: no Chromium found (install Debian's `chromium`)");

const SOURCE = "ada@laptop";

describe.skipIf(executable === undefined)("pi-session serve --db in Chromium", () => {
  let cluster: Cluster;
  let writer: PostgresDatabase;
  let store: TestStore;
  let other: TestStore;
  let server: RunningServer;
  let browser: Browser;

  beforeAll(async () => {
    cluster = await startCluster();
    writer = await openPostgresDatabase({ url: cluster.url });
    store = makeStore(12);
    other = makeStore(0);
    await writer.sync({ root: store.root, source: SOURCE });
    await writer.sync({ root: other.root, source: "bob@desktop" });
    server = await startServer({
      database: await openPostgresDatabase({ url: cluster.url, readOnly: true }),
      pollMs: 300,
    });
    browser = await launchChromium(executable as string);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await writer?.close();
    store?.cleanup();
    other?.cleanup();
    cluster?.stop();
  });

  async function open(hash = "#/"): Promise<{ page: Page; log: ReturnType<typeof watch> }> {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const log = watch(page);
    await page.goto(server.url);
    if (hash !== "#/") await page.goto(`${server.origin}/${hash}`);
    return { page, log };
  }

  it("the list shows each session's source and filters by it; a session opens with its source", async () => {
    const { page, log } = await open();
    await page.waitForSelector(".list-view[data-loaded='true']");
    const all = server.source.sessions();
    expect(await page.getAttribute(".count", "data-count")).toBe(String(all.length));
    expect(await page.textContent(".app-bar .served")).toBe("Team database");
    const sources = await page.$$eval(".session-row .source", (els) => els.map((el) => el.textContent));
    expect(new Set(sources)).toEqual(new Set([SOURCE, "bob@desktop"]));
    await page.selectOption(".filter-source", "bob@desktop");
    const bobs = all.filter((r) => r.source === "bob@desktop").length;
    await page.waitForFunction(
      (n: number) => document.querySelector(".count")?.getAttribute("data-count") === String(n),
      bobs,
    );
    await page.selectOption(".filter-source", "");
    await page.fill(".filter-text", "flux capacitor");
    // The planted session and its fork, from each source.
    await page.waitForFunction(() => document.querySelector(".count")?.getAttribute("data-count") === "4");
    await page.fill(".filter-text", "");
    await page.waitForFunction(
      (n: number) => document.querySelector(".count")?.getAttribute("data-count") === String(n),
      all.length,
    );
    // Out of the filter box (Esc), then Enter opens the selected row.
    await page.keyboard.press("Escape");
    const key = await page.getAttribute(".session-row.selected", "data-key");
    await page.keyboard.press("Enter");
    await page.waitForSelector(".session-view[data-loaded='true']");
    expect(page.url()).toContain(`#/s/${key}`);
    const row = all.find((r) => r.key === key);
    expect(await page.textContent(".session-bar .facts")).toContain(`from ${row?.source}`);
    expect(Number(await page.getAttribute(".session-view", "data-entries"))).toBe(row?.entryCount);
    expect(log.errors).toEqual([]);
    await page.close();
  });

  it("search finds the planted phrase and opens the session at its entry", async () => {
    const { page, log } = await open("#/search");
    await page.waitForSelector(".search-view .search-input");
    await page.keyboard.type(`"${PLANTED}"`);
    await page.keyboard.press("Enter");
    await page.waitForFunction(
      () => Number(document.querySelector(".search-view")?.getAttribute("data-results")) >= 2,
    );
    const heads = await page.$$eval(".result-head .source", (els) => els.map((el) => el.textContent));
    expect(new Set(heads)).toEqual(new Set([SOURCE, "bob@desktop"]));
    const hit = `.result[data-key="${store.ids.planted}"] a.hit`;
    await page.click(hit);
    await page.waitForSelector(".session-view[data-loaded='true']");
    const selected = await page.waitForSelector(`article.item.selected[data-entry-id="a0000004"]`);
    expect(await selected.textContent()).toContain(PLANTED);
    expect(log.errors).toEqual([]);
    await page.close();
  });

  it("an entry synced while the session is open appears in the page", async () => {
    const planted = server.source.sessions().find((r) => r.source === SOURCE && r.id === store.ids.planted);
    const { page, log } = await open(`#/s/${encodeURIComponent(planted?.key ?? "")}?follow=1`);
    await page.waitForSelector(".session-view[data-loaded='true']");
    store.append(store.paths.planted, assistant("a0000077", "a0000004", "synced while open", 700));
    await writer.sync({ root: store.root, source: SOURCE });
    const item = await page.waitForSelector(`article.item[data-entry-id="a0000077"]`, { timeout: 60_000 });
    expect(await item.textContent()).toContain("synced while open");
    expect(log.errors).toEqual([]);
    await page.close();
  });
});
