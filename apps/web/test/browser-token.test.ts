/**
 * `serve`'s token never reaches another server (issue 37, finding 5). The built CLI's
 * `pi-session serve` prints its URL; headless Chromium opens it, reloads it, opens a tab from
 * one of its links and downloads an export, then the same browser visits a second local HTTP
 * server on another port (as 127.0.0.1 and as localhost) that records every request: no
 * request there carries the token, in its URL or any header, and the browser holds no cookie.
 * A control shows the recorder would have caught it: a cookie for 127.0.0.1 (what the server
 * used to set) is sent to the recorder's port.
 *
 * Build first (`pnpm build`): the CLI's bundle carries the app. Skipped, with a message, only
 * when no Chromium is installed.
 * @module-tag processes
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { type IncomingHttpHeaders, type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { findChromium, launchChromium, watch } from "./chromium.js";
import { makeStore, PLANTED, type TestStore } from "./store.js";

vi.setConfig({ testTimeout: 180_000, hookTimeout: 120_000 });

const executable = findChromium();
if (executable === undefined)
  console.warn("web token tests SKIPPED: no Chromium found (install Debian's `chromium`)");

const CLI = fileURLToPath(new URL("../../cli/dist/pi-session.cjs", import.meta.url));

interface Recorded {
  url: string;
  headers: IncomingHttpHeaders;
}

/** A local server that records every request and answers a page that asks it for more. */
async function recorder(): Promise<{ server: Server; port: number; requests: Recorded[] }> {
  const requests: Recorded[] = [];
  const server = createServer((req, res) => {
    requests.push({ url: req.url ?? "", headers: req.headers });
    if (req.url === "/") {
      res.writeHead(200, { "Content-Type": "text/html" });
      res.end(
        '<!doctype html><title>another server</title><img src="/pixel.png"><script src="/script.js"></script>' +
          "<script>fetch('/api/sessions', { credentials: 'include' }).catch(() => {})</script>",
      );
      return;
    }
    res.writeHead(404);
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as AddressInfo).port, requests };
}

function startServe(root: string, cache: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [CLI, "serve", "--session-dir", root, "--port", "0"], {
    env: { ...process.env, XDG_CACHE_HOME: cache, NO_COLOR: "1", PI_SESSION_SERVE_POLL_MS: "500" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let err = "";
  child.stderr?.on("data", (c: Buffer) => {
    err += c.toString();
  });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (c: Buffer) => {
      out += c.toString();
      const nl = out.indexOf("\n");
      if (nl >= 0) resolve({ child, url: out.slice(0, nl) });
    });
    child.on("exit", (code) => reject(new Error(`serve exited ${code}: ${err}`)));
  });
}

describe.skipIf(executable === undefined)("serve's token in Chromium", () => {
  /** Where screenshots go (`PI_SESSION_SCREENSHOTS` to keep them for a look). */
  const shots = () => process.env.PI_SESSION_SCREENSHOTS ?? cache;
  let store: TestStore;
  let cache: string;
  let serve: { child: ChildProcess; url: string };
  let browser: Browser;

  beforeAll(async () => {
    store = makeStore(8);
    cache = mkdtempSync(join(tmpdir(), "pi-session-token-cache-"));
    serve = await startServe(store.root, cache);
    browser = await launchChromium(executable as string);
  });

  afterAll(async () => {
    await browser?.close();
    if (serve) {
      const ended = new Promise((r) => serve.child.once("exit", r));
      serve.child.kill("SIGTERM");
      await ended;
    }
    store?.cleanup();
    if (cache) rmSync(cache, { recursive: true, force: true });
  });

  it("the app works on reload, in a tab opened from its links and for downloads; another server gets no token", async () => {
    const token = /#token=([A-Za-z0-9_-]{43})$/.exec(serve.url)?.[1] as string;
    expect(token).toBeDefined();
    const origin = serve.url.slice(0, serve.url.indexOf("/#"));
    const context = await browser.newContext({ acceptDownloads: true });
    const page = await context.newPage();
    const log = watch(page);
    await page.goto(serve.url);
    await page.waitForSelector(".list-view[data-loaded='true']");
    // The token left the address bar (and so the history) at once.
    expect(page.url()).toBe(`${origin}/#/`);
    await page.screenshot({ path: join(shots(), "app-after-token.png") });

    await page.reload();
    await page.waitForSelector(".list-view[data-loaded='true']");
    expect(Number(await page.getAttribute(".count", "data-count"))).toBeGreaterThan(0);

    // A session opened in a new tab from its row's link.
    const link = page.locator(".session-row").first();
    const [tab] = await Promise.all([context.waitForEvent("page"), link.click({ modifiers: ["Control"] })]);
    await tab.waitForSelector(".session-view[data-loaded='true']");
    expect(tab.url()).toMatch(new RegExp(`^${origin}/#/s/`));

    // Its Markdown export downloads the session, not a refusal.
    const [download] = await Promise.all([
      tab.waitForEvent("download"),
      tab.locator("a.export[data-format='md']").click(),
    ]);
    const saved = join(cache, "export.md");
    await download.saveAs(saved);
    expect(readFileSync(saved, "utf8")).toMatch(/^# /);
    await tab.close();

    // The page the planted phrase is in, found by search (its API with the token).
    await page.goto(`${origin}/#/search?q=${encodeURIComponent(`"${PLANTED}"`)}`);
    await page.waitForFunction(
      () =>
        Number(
          (
            globalThis as unknown as {
              document: { querySelector(s: string): { getAttribute(n: string): string } };
            }
          ).document
            .querySelector(".search-view")
            ?.getAttribute("data-results"),
        ) >= 1,
    );
    expect(log.errors).toEqual([]);

    // The same browser visits another local server, by address and by name.
    const other = await recorder();
    try {
      for (const host of ["127.0.0.1", "localhost"]) {
        const visit = await context.newPage();
        await visit.goto(`http://${host}:${other.port}/`);
        await visit.waitForLoadState("networkidle");
        await visit.close();
        // And the app's own tab navigates there (a link followed from it, a Referer if any).
        await page.goto(`http://${host}:${other.port}/`);
        await page.waitForLoadState("networkidle");
        await page.goBack();
      }
      expect(other.requests.length).toBeGreaterThanOrEqual(8);
      for (const request of other.requests) {
        const seen = `${request.url} ${JSON.stringify(request.headers)}`;
        expect(seen).not.toContain(token);
        expect(request.headers.cookie ?? "").not.toContain("pi-session");
      }
      expect(await context.cookies()).toEqual([]);

      // The control: a cookie for 127.0.0.1, as the server used to set, goes to the other port.
      await context.addCookies([
        {
          name: "pi-session-control",
          value: token,
          domain: "127.0.0.1",
          path: "/",
          httpOnly: true,
          sameSite: "Strict",
        },
      ]);
      const before = other.requests.length;
      const control = await context.newPage();
      await control.goto(`http://127.0.0.1:${other.port}/`);
      await control.close();
      expect(other.requests.slice(before).some((r) => (r.headers.cookie ?? "").includes(token))).toBe(true);
    } finally {
      await new Promise<void>((resolve) => other.server.close(() => resolve()));
    }
    await context.close();
  });

  it("a page opened without the token shows why, and its API answers nothing", async () => {
    const origin = serve.url.slice(0, serve.url.indexOf("/#"));
    for (const colorScheme of ["light", "dark"] as const) {
      const context = await browser.newContext({ colorScheme });
      const page = await context.newPage();
      const reply = await page.goto(`${origin}/`);
      expect(reply?.status()).toBe(200);
      await page.waitForFunction(() =>
        (
          globalThis as unknown as { document: { body: { textContent: string } } }
        ).document.body.textContent.includes("needs its token"),
      );
      expect(await page.textContent("body")).not.toContain(PLANTED);
      await page.screenshot({ path: join(shots(), `no-token-${colorScheme}.png`) });
      await context.close();
    }
  });
});
