/**
 * Headless Chromium for the browser tests (render's page, the README examples, the packed pure
 * layers): Debian's `chromium` (or `PI_SESSION_CHROMIUM`) driven by playwright-core, started
 * with the flags this machine needs (no sandbox as root, no GPU, no background networking: its
 * requests are refused here and would only add noise). Pages are opened from files or served
 * from a made-up origin through `page.route`, so every request the page makes is seen.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";

const CANDIDATES = [
  process.env.PI_SESSION_CHROMIUM,
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome-stable",
  "/usr/bin/google-chrome",
];

/** The Chromium executable, or undefined when there is none. */
export function findChromium(): string | undefined {
  return CANDIDATES.find(
    (path): path is string => typeof path === "string" && path !== "" && existsSync(path),
  );
}

export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-extensions",
];

export function launchChromium(executablePath: string): Promise<Browser> {
  return chromium.launch({ executablePath, args: CHROMIUM_ARGS, headless: true, timeout: 60_000 });
}

/** Everything a page did that a test wants to see. */
export interface PageLog {
  errors: string[];
  console: string[];
  requests: string[];
}

export function watch(page: Page): PageLog {
  const log: PageLog = { errors: [], console: [], requests: [] };
  page.on("pageerror", (error) => log.errors.push(error.message));
  page.on("console", (message) => {
    log.console.push(`${message.type()}: ${message.text()}`);
    if (message.type() === "error") log.errors.push(message.text());
  });
  page.on("request", (request) => log.requests.push(request.url()));
  return log;
}

/** The origin pages are served from (nothing answers it but `page.route`). */
export const ORIGIN = "http://pi-session.invalid";

/**
 * Serves `html` at `<ORIGIN>/page.html` through `page.route`; every other request is recorded
 * in `blocked` and aborted.
 */
export async function serve(page: Page, html: string): Promise<{ url: string; blocked: string[] }> {
  const url = `${ORIGIN}/page.html`;
  const blocked: string[] = [];
  await page.route("**/*", async (route) => {
    const requested = route.request().url();
    if (requested === url)
      await route.fulfill({ status: 200, contentType: "text/html; charset=utf-8", body: html });
    else {
      blocked.push(requested);
      await route.abort();
    }
  });
  return { url, blocked };
}

/** A temporary directory for page files, removed by `cleanup`. */
export function pageFiles(): { write(name: string, html: string): string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), "pi-session-pages-"));
  return {
    write(name, html) {
      const path = join(dir, name);
      writeFileSync(path, html);
      return path;
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Waits until the viewer has read every entry (the first screen shows before that). */
export async function ready(page: Page, timeout = 120_000): Promise<void> {
  await page.waitForSelector("html[data-ready='true']", { timeout });
}
