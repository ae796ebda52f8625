/**
 * The exported page's weight and load time: `node dist/page-load.js [--entries N] [--loads N]
 * [--peer] [--keep DIR]`. Generates a session of N entries (default 6,000) with the bench's
 * generator, writes our page of it (render's `renderHtml`) and, with `--peer`, pi 1.6.0's own
 * export of the same file, then opens each in headless Chromium `--loads` times (default 5)
 * and prints the size and the median, min and max of the time from navigation to a page that
 * shows the session: for ours the viewer's `pi-session:rendered` mark (every entry read, the
 * transcript drawn), for pi's the end of its load event (it renders while loading). `--keep`
 * leaves the pages in DIR (to look at them). Needs `pnpm build` and Chromium.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { renderHtml, sessionFromBytes } from "@pi-session/render";
import { findChromium, launchChromium } from "@pi-session/testkit/chromium";
import { ensureSession } from "./generate.js";

const args = process.argv.slice(2);
const option = (name: string): string | undefined => {
  const at = args.indexOf(name);
  return at === -1 ? undefined : args[at + 1];
};
const entries = Number(option("--entries") ?? 6000);
const loads = Number(option("--loads") ?? 5);
const keep = option("--keep");

/** pi's `exportFromFile`, from the copy the conformance tests install. */
async function piExport(input: string, output: string): Promise<void> {
  const here = dirname(fileURLToPath(import.meta.url));
  const root = join(
    here,
    "..",
    "..",
    "packages",
    "conformance",
    "node_modules",
    "@earendil-works",
    "pi-coding-agent",
  );
  const { initTheme } = (await import(pathToFileURL(join(root, "dist", "index.js")).href)) as {
    initTheme: (name?: string) => void;
  };
  initTheme("dark");
  const { exportFromFile } = (await import(
    pathToFileURL(join(root, "dist", "core", "export-html", "index.js")).href
  )) as { exportFromFile: (input: string, options: { outputPath: string }) => Promise<string> };
  await exportFromFile(input, { outputPath: output });
}

/**
 * Run in the page (as text: the bench's types have no DOM): when ours drew the session (its
 * `pi-session:rendered` mark, waited for), else when the load event ended (pi's page renders
 * while it loads).
 */
const RENDERED_AT = `(async () => {
  const mark = () => performance.getEntriesByName("pi-session:rendered")[0]?.startTime;
  if (performance.getEntriesByName("pi-session:start").length === 0) return performance.getEntriesByType("navigation")[0].loadEventEnd;
  for (let waited = 0; mark() === undefined && waited < 120000; waited += 50)
    await new Promise((resolve) => setTimeout(resolve, 50));
  return mark() ?? Number.NaN;
})()`;

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};

const source = ensureSession({ seed: 39, entries });
const dir = keep ?? mkdtempSync(join(tmpdir(), "pi-session-page-load-"));
mkdirSync(dir, { recursive: true });
const pages: { name: string; path: string }[] = [];
const ours = join(dir, "ours.html");
writeFileSync(ours, renderHtml(sessionFromBytes(readFileSync(source))));
pages.push({ name: "pi-session", path: ours });
if (args.includes("--peer")) {
  const theirs = join(dir, "pi.html");
  await piExport(source, theirs);
  pages.push({ name: "pi 1.6.0", path: theirs });
}

const executable = findChromium();
if (executable === undefined) throw new Error("no Chromium found (set PI_SESSION_CHROMIUM)");
const browser = await launchChromium(executable);
try {
  console.log(
    `${entries} entries (${readFileSync(source).length} bytes of JSONL), ${loads} loads each, Node ${process.version}`,
  );
  for (const { name, path } of pages) {
    const times: number[] = [];
    for (let i = 0; i < loads; i++) {
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      await page.goto(pathToFileURL(path).href, { waitUntil: "load", timeout: 120_000 });
      const ms = (await page.evaluate(RENDERED_AT)) as number;
      times.push(ms);
      await page.close();
    }
    const size = readFileSync(path).length;
    console.log(
      `${name}: ${(size / 1e6).toFixed(2)} MB, loaded in ${Math.round(median(times))} ms median ` +
        `(${Math.round(Math.min(...times))}–${Math.round(Math.max(...times))})`,
    );
  }
} finally {
  await browser.close();
  if (keep === undefined) rmSync(dir, { recursive: true, force: true });
}
