/**
 * `serve`'s first build, seen in headless Chromium: on a store of 1,500 sessions the server
 * answers at once, and the page opened right away says it is indexing ("Indexing the store: N
 * of M files read"), its list grows while the build runs, then the status goes and every session
 * is listed. Screenshots of the page while it fills in and once it is complete are written to
 * `PI_SESSION_SHOTS` (else a directory of the run), to be looked at.
 *
 * The build reads and indexes 1,500 files of 40 messages: seconds on any machine, against the
 * tenths of a second the page takes to open (a busy machine only makes the build longer).
 * @module-tag processes
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type RunningServer, startServer } from "../src/server.js";
import { findChromium, launchChromium, watch } from "./chromium.js";
import { dirOf } from "./store.js";

vi.setConfig({ testTimeout: 300_000, hookTimeout: 120_000 });

// biome-ignore lint/suspicious/noExplicitAny: page globals (the test's type check has no DOM)
declare const document: any;

const executable = findChromium();
const SESSIONS = 1500;
const shots = process.env.PI_SESSION_SHOTS ?? mkdtempSync(join(tmpdir(), "pi-session-web-shots-"));

/** A store of `count` sessions in 10 projects, each 40 messages of text. */
function bigStore(count: number): { base: string; root: string } {
  const base = mkdtempSync(join(tmpdir(), "pi-session-first-build-"));
  const root = join(base, "sessions");
  const words = "parser timeout wiring flux capacitor mountain road sea river index build page list".split(
    " ",
  );
  for (let n = 0; n < count; n++) {
    const cwd = `/home/dev/project-${n % 10}`;
    const id = `0199cccc-0000-7000-8000-${String(n).padStart(12, "0")}`;
    const t0 = Date.UTC(2026, 0, 1) + n * 3_600_000;
    const lines = [{ type: "session", version: 3, id, timestamp: new Date(t0).toISOString(), cwd }];
    let parent: string | null = null;
    for (let m = 0; m < 40; m++) {
      const entryId = `e${String(m).padStart(7, "0")}`;
      const text = Array.from({ length: 60 }, (_, k) => words[(n * 7 + m * 3 + k) % words.length]).join(" ");
      const at = t0 + (m + 1) * 1000;
      lines.push({
        type: "message",
        id: entryId,
        parentId: parent,
        timestamp: new Date(at).toISOString(),
        message:
          m % 2 === 0
            ? { role: "user", content: `${n} ${text}`, timestamp: at }
            : {
                role: "assistant",
                provider: "anthropic",
                model: "claude-test",
                content: [{ type: "text", text }],
                timestamp: at,
              },
      } as never);
      parent = entryId;
    }
    const dir = join(root, dirOf(cwd));
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, `${new Date(t0).toISOString().replace(/[:.]/g, "-")}_${id}.jsonl`),
      `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`,
    );
  }
  return { base, root };
}

describe.skipIf(executable === undefined)("serve's first build in Chromium", () => {
  let store: { base: string; root: string };
  let server: RunningServer;
  let browser: Browser;

  beforeAll(async () => {
    store = bigStore(SESSIONS);
    browser = await launchChromium(executable as string);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (store) rmSync(store.base, { recursive: true, force: true });
  });

  it("the page says it is indexing, its list grows, then every session is listed", async () => {
    server = await startServer({ root: store.root, cacheDir: join(store.base, "cache"), pollMs: 500 });
    const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    const log = watch(page);
    await page.goto(server.url);
    // While the build runs: the status line, and some sessions listed but not all (read in one
    // step: the build may end between two reads).
    const seen = await page.waitForFunction(
      () => {
        if (!document.querySelector(".list-view[data-indexing='true'] .session-row")) return false;
        return {
          status: document.querySelector(".status.indexing")?.textContent ?? "",
          count: document.querySelector(".count")?.getAttribute("data-count"),
        };
      },
      undefined,
      { timeout: 120_000 },
    );
    const { status, count } = (await seen.jsonValue()) as { status: string; count: string };
    expect(status).toMatch(/^Indexing the store: [\d,]+ of 1,500 files read/);
    const early = Number(count);
    expect(early).toBeGreaterThan(0);
    expect(early).toBeLessThan(SESSIONS);
    await page.screenshot({ path: join(shots, "first-build-indexing.png") });
    // It grows as the build goes on (the server publishes what it has indexed as it goes).
    await page.waitForFunction(
      (n) => Number(document.querySelector(".count")?.getAttribute("data-count")) > n,
      early,
      { timeout: 120_000 },
    );
    // Then it is complete: no status, every session.
    await page.waitForSelector(".list-view[data-indexing='false']", { timeout: 240_000 });
    await page.waitForFunction(
      (n) => Number(document.querySelector(".count")?.getAttribute("data-count")) === n,
      SESSIONS,
      { timeout: 60_000 },
    );
    expect(await page.isHidden(".status.indexing")).toBe(true);
    await page.screenshot({ path: join(shots, "first-build-complete.png") });
    expect(log.errors).toEqual([]);
    await page.close();
  });
});
