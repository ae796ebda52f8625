/**
 * `@pi-session/render/dom.css`, the stylesheet the package ships for its `./dom` elements, in
 * headless Chromium: items made by `itemEl` from a session with every kind of entry, on a page
 * with nothing but that stylesheet, have their frame, heading, code and tool-call styles, in
 * light and in dark; the same elements without it have none (so what is measured is the
 * stylesheet's doing). The stylesheet is resolved through the package's `exports`, as a user's
 * bundler does; the elements come from the sources, bundled by esbuild. With
 * `PI_SESSION_SCREENSHOTS=<dir>` the styled pages are saved there (to look at them).
 *
 * Skipped, with a message, only when no Chromium is installed (`.ci/run` installs Debian's).
 * @module-tag processes
 */
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { findChromium, launchChromium } from "@pi-session/testkit/chromium";
import { build } from "esbuild";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
// @ts-expect-error the build script's helpers are plain JavaScript
import { sourceAliases } from "../scripts/browser-assets.mjs";
import { buildDocument, createRenderSession } from "../src/index.js";
import { everyKindSession } from "./sessions.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

// biome-ignore lint/suspicious/noExplicitAny: page globals (the type check of tests has no DOM library)
declare const document: any;
// biome-ignore lint/suspicious/noExplicitAny: page globals, see above
declare const getComputedStyle: any;

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const executable = findChromium();
if (executable === undefined)
  console.warn("render dom.css test SKIPPED: no Chromium found (see browser.test.ts)");

/** The page's script: `renderItems(items)` puts each item's element in the body. */
const ENTRY = `
import { h, itemEl } from "@pi-session/render/dom";
globalThis.renderItems = (items) => {
  for (const item of items)
    document.body.append(itemEl(item, {
      hideToolCalls: false,
      isLeaf: false,
      time: (iso) => iso,
      idEl: (id) => h("span", { class: "entry-id", text: id }),
    }));
};`;

/** What the test reads of each element: computed styles a styled item differs in. */
interface Looks {
  frameLeft: string;
  frameLeftColour: string;
  radius: string;
  background: string;
  colour: string;
  kindWeight: string;
  kindCase: string;
  codeBackground: string;
  toolCallBorder: string;
}

describe.skipIf(executable === undefined)("@pi-session/render/dom.css in Chromium", () => {
  let browser: Browser;
  let script: string;
  const stylesheet = createRequire(join(root, "package.json")).resolve("@pi-session/render/dom.css");
  const items = buildDocument(createRenderSession(everyKindSession())).items;

  beforeAll(async () => {
    const bundle = await build({
      stdin: { contents: ENTRY, resolveDir: root, loader: "js" },
      alias: sourceAliases(["format", "migrate", "tree", "context", "render"]),
      bundle: true,
      write: false,
      format: "iife",
      platform: "browser",
      target: "es2022",
      logLevel: "silent",
    });
    script = bundle.outputFiles[0]?.text ?? "";
    browser = await launchChromium(executable as string);
  });

  afterAll(async () => {
    await browser?.close();
  });

  async function looks(options: { css: boolean; scheme: "light" | "dark" }): Promise<Looks> {
    const page = await browser.newPage({ colorScheme: options.scheme });
    try {
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(error.message));
      const style = options.css ? `<style>${readFileSync(stylesheet, "utf8")}</style>` : "";
      await page.setContent(`<!doctype html><html><head>${style}</head><body></body></html>`);
      await page.addScriptTag({ content: script });
      await page.evaluate(
        (shown) => (globalThis as unknown as { renderItems(i: unknown): void }).renderItems(shown),
        items,
      );
      expect(errors).toEqual([]);
      const shots = process.env.PI_SESSION_SCREENSHOTS;
      if (shots && options.css)
        writeFileSync(
          join(shots, `dom-css-${options.scheme}.png`),
          await page.screenshot({ fullPage: true }),
        );
      return await page.evaluate(() => {
        const style = (selector: string) => getComputedStyle(document.querySelector(selector));
        const assistant = style("article.item.kind-assistant");
        return {
          frameLeft: assistant.borderLeftWidth,
          frameLeftColour: assistant.borderLeftColor,
          radius: assistant.borderTopLeftRadius,
          background: style("article.item.kind-user").backgroundColor,
          colour: assistant.color,
          kindWeight: style("article.item .item-head .kind").fontWeight,
          kindCase: style("article.item .item-head .kind").textTransform,
          codeBackground: style("pre.code, pre.plain-text").backgroundColor,
          toolCallBorder: style(".tool-call").borderTopStyle,
        };
      });
    } finally {
      await page.close();
    }
  }

  it("is exported by the package and holds the palette, the blocks' and the items' rules", () => {
    expect(stylesheet).toBe(join(root, "dist", "dom.css"));
    const css = readFileSync(stylesheet, "utf8");
    for (const rule of [
      "--assistant:",
      "prefers-color-scheme: dark",
      ".tool-call {",
      ".item {",
      ".item-head {",
    ])
      expect(css).toContain(rule);
  });

  it("styles an item's frame, heading, code and tool calls, in light and dark; without it they are plain", async () => {
    expect(items.map((item) => item.kind)).toEqual(
      expect.arrayContaining(["user", "assistant", "toolResult"]),
    );
    const light = await looks({ css: true, scheme: "light" });
    const dark = await looks({ css: true, scheme: "dark" });
    const plain = await looks({ css: false, scheme: "light" });
    // The palette's assistant colour (#2f6fde light, #6ea2ff dark) on a 3px left border.
    expect(light).toMatchObject({
      frameLeft: "3px",
      frameLeftColour: "rgb(47, 111, 222)",
      radius: "6px",
      background: "rgb(238, 248, 242)",
      colour: "rgb(29, 32, 38)",
      kindWeight: "700",
      kindCase: "uppercase",
      toolCallBorder: "solid",
    });
    expect(light.codeBackground).toBe("rgb(238, 240, 243)");
    expect(dark).toMatchObject({
      frameLeft: "3px",
      frameLeftColour: "rgb(110, 162, 255)",
      background: "rgb(23, 40, 31)",
      colour: "rgb(227, 230, 235)",
    });
    expect(plain).toMatchObject({
      frameLeft: "0px",
      radius: "0px",
      background: "rgba(0, 0, 0, 0)",
      kindCase: "none",
      toolCallBorder: "none",
    });
  });
});
