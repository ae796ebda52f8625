/**
 * The README's example runs as written: in Node (importing the built package by its name),
 * and in Chromium (bundled for the browser by esbuild, which fails on any Node built-in).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";
import { afterAll, describe, expect, it, vi } from "vitest";
import { findChromium, launchChromium } from "./chromium.js";

vi.setConfig({ testTimeout: 120_000 });

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const readme = readFileSync(join(root, "README.md"), "utf8");
const example = /## Example[\s\S]*?```js\n([\s\S]*?)```/.exec(readme)?.[1] ?? "";
const session = readFileSync(
  join(
    root,
    "..",
    "..",
    "examples",
    "sessions",
    "--home-dev-projects-webapp--",
    "2026-11-02T09-12-20-000Z_019a4c1e-7b2f-7c3d-9e4f-5a6b7c8d9e0f.jsonl",
  ),
  "utf8",
);

// Inside the package, so `@pi-session/render` resolves to the package itself (its dist).
const dir = mkdtempSync(join(root, "test", ".readme-"));
const file = join(dir, "example.mjs");
writeFileSync(file, example);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function checkLogged(logged: unknown[]): void {
  const [items, counts, markdown, terminal, page] = logged as [
    number,
    Record<string, number>,
    number,
    number,
    number,
  ];
  expect(items).toBe(20);
  expect(counts).toEqual({ signature: 1 });
  expect(markdown).toBeGreaterThan(1000);
  expect(terminal).toBeGreaterThan(300);
  expect(page).toBeGreaterThan(100_000);
}

describe("the README example", () => {
  it("has one", () => {
    expect(example).toContain('from "@pi-session/render"');
  });

  it("runs in Node", async () => {
    const logged: unknown[][] = [];
    const spy = vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => {
      logged.push(args);
    });
    (globalThis as { text?: string }).text = session;
    try {
      await import(pathToFileURL(file).href);
    } finally {
      spy.mockRestore();
      delete (globalThis as { text?: string }).text;
    }
    expect(logged).toHaveLength(1);
    checkLogged(logged[0] as unknown[]);
  });

  const executable = findChromium();
  it.skipIf(executable === undefined)("runs in a browser", { tags: ["processes"] }, async () => {
    const bundle = await build({
      entryPoints: [file],
      bundle: true,
      write: false,
      format: "iife",
      platform: "browser",
      target: "es2022",
      logLevel: "silent",
    });
    const browser = await launchChromium(executable as string);
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(error.message));
      await page.setContent("<!doctype html><title>readme</title>");
      await page.evaluate((text) => {
        const w = globalThis as unknown as {
          text: string;
          logged: unknown[][];
          console: { log: (...a: unknown[]) => void };
        };
        w.text = text;
        w.logged = [];
        w.console.log = (...args: unknown[]) => w.logged.push(args);
      }, session);
      await page.addScriptTag({ content: bundle.outputFiles[0]?.text ?? "" });
      const logged = await page.evaluate(() => (globalThis as unknown as { logged: unknown[][] }).logged);
      expect(errors).toEqual([]);
      expect(logged).toHaveLength(1);
      checkLogged(logged[0] as unknown[]);
    } finally {
      await browser.close();
    }
  });
});
