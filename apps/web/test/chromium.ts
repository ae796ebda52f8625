/**
 * Headless Chromium for the app's browser tests: Debian's `chromium` (or `PI_SESSION_CHROMIUM`)
 * driven by playwright-core with the flags this machine needs (no sandbox as root, no GPU, no
 * background networking), as render's browser tests start it.
 */
import { existsSync } from "node:fs";
import { type Browser, type Page, chromium } from "playwright-core";

const CANDIDATES = [
  process.env.PI_SESSION_CHROMIUM,
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome",
];

export function findChromium(): string | undefined {
  return CANDIDATES.find((p): p is string => typeof p === "string" && p !== "" && existsSync(p));
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

export function launchChromium(executablePath: string, extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath,
    args: [...CHROMIUM_ARGS, ...extraArgs],
    headless: true,
    timeout: 60_000,
  });
}

export interface PageLog {
  errors: string[];
  requests: string[];
}

/** Page errors, console errors and every request, for a test to look at. */
export function watch(page: Page): PageLog {
  const log: PageLog = { errors: [], requests: [] };
  page.on("pageerror", (error) => log.errors.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") log.errors.push(message.text());
  });
  page.on("request", (request) => log.requests.push(request.url()));
  return log;
}
