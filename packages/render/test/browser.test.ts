/**
 * The exported page in headless Chromium (playwright-core driving Debian's `chromium`): it
 * shows the context of pi's real compacted session message for message, switches branches,
 * applies each of pi's /tree filters, finds a planted word, renders planted payloads as inert
 * text under its Content-Security-Policy, makes no request, and shows the first screen of a
 * 50,000-entry session within the first-paint budget (best of three loads).
 *
 * Skipped, with a message, only when no Chromium is installed (`npm run verify` installs Debian's, `scripts/system-packages.sh`).
 * @module-tag processes
 */
import { buildSessionContext } from "@pi-session/context";
import type { AnyEntry } from "@pi-session/format";
import { readUpstreamFixture } from "@pi-session/testkit";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createRenderSession, renderHtml, sessionFromBytes } from "../src/index.js";
import { findChromium, launchChromium, pageFiles, ready, serve, watch } from "@pi-session/testkit/chromium";
import { everyKindSession, largeSession, PAYLOADS, payloadSession, readingSession } from "./sessions.js";

vi.setConfig({ testTimeout: 180_000, hookTimeout: 120_000 });

// The callbacks given to page.evaluate run in the page; the type check of tests has no DOM
// library, so the page globals they use are declared here, loosely.
// biome-ignore lint/suspicious/noExplicitAny: page globals, see above
declare const document: any;
// biome-ignore lint/suspicious/noExplicitAny: page globals, see above
declare const window: any;
// biome-ignore lint/suspicious/noExplicitAny: page globals, see above
declare const getComputedStyle: any;

const executable = findChromium();
if (executable === undefined) {
  console.warn(
    "render browser tests SKIPPED: no Chromium found (looked for $PI_SESSION_CHROMIUM, /usr/bin/chromium, " +
      "chromium-browser, google-chrome); install Debian's `chromium` (`apt-get install -y chromium`) to run them",
  );
}

/** Kinds and entry ids of the items the transcript shows now (results inside their calls too), in order. */
async function shownItems(page: Page): Promise<{ kind: string; id: string }[]> {
  return page.$$eval("#transcript .items article.item", (els) =>
    els.map((el) => ({
      kind: el.getAttribute("data-kind") ?? "",
      id: el.getAttribute("data-entry-id") ?? "",
    })),
  );
}

async function showAll(page: Page): Promise<void> {
  for (;;) {
    // Looked at and acted on in one step, in the page: it renders as it loads, so a button seen
    // from here could be covered or gone by the time a pointer click landed (on a busy machine
    // such a click waited 30 s for a button that never came back).
    const complete = await page.evaluate(() => {
      const transcript = document.querySelector("#transcript");
      if (transcript.getAttribute("data-complete") === "true") return true;
      const all = document.querySelector("button.more.all");
      if (all !== null && all.offsetParent !== null) all.click();
      else transcript.scrollTo(0, transcript.scrollHeight);
      return false;
    });
    if (complete) return;
  }
}

async function setView(page: Page, view: string): Promise<void> {
  await page.click(`button[data-view="${view}"]`);
  await page.waitForSelector(`#transcript[data-view="${view}"]`);
}

describe.skipIf(executable === undefined)("the exported page in Chromium", () => {
  let browser: Browser;
  const files = pageFiles();

  beforeAll(async () => {
    browser = await launchChromium(executable as string);
  });

  afterAll(async () => {
    await browser?.close();
    files.cleanup();
  });

  async function open(html: string, options: { width?: number; colorScheme?: "light" | "dark" } = {}) {
    const page = await browser.newPage({
      viewport: { width: options.width ?? 1400, height: 900 },
      colorScheme: options.colorScheme ?? "light",
    });
    const log = watch(page);
    const path = files.write(`page-${Math.random().toString(36).slice(2)}.html`, html);
    await page.goto(`file://${path}`);
    await ready(page);
    return { page, log };
  }

  it("pi's compacted session: the context view shows exactly the messages `context` has, the branch view every entry", async () => {
    const session = sessionFromBytes(readUpstreamFixture("before-compaction"));
    const context = buildSessionContext(session.entries, session.index.leafId, session.index);
    const { page, log } = await open(renderHtml(session));
    await setView(page, "context");
    await showAll(page);
    const items = await shownItems(page);
    expect(items.length).toBe(context.messages.length);
    expect(items.map((i) => i.kind)).toEqual(context.messages.map((m) => m.role));
    expect(await page.textContent("#transcript .status")).toContain(`${context.messages.length} messages`);
    await setView(page, "branch");
    await page.selectOption("select.filter", "all");
    await page.waitForSelector('#transcript[data-filter="all"]');
    await showAll(page);
    const branch = await shownItems(page);
    expect(branch.map((i) => i.id)).toEqual(session.index.activePath().map((e) => e.id));
    expect(log.errors).toEqual([]);
    await page.close();
  });

  it("switching branch shows the other branch, from the transcript and from the tree", async () => {
    const { page, log } = await open(renderHtml(createRenderSession(everyKindSession())));
    const main = (await shownItems(page)).map((i) => i.id);
    expect(main).toContain("e0000005");
    expect(main).not.toContain("e0000040");
    // e0000005 is child 1 of 3 of e0000004; the next branch is the abandoned Redis attempt.
    await page.click('article[data-entry-id="e0000005"] .branch-switch button[data-branch="next"]');
    await page.waitForSelector('#transcript[data-leaf="e0000043"]');
    const side = (await shownItems(page)).map((i) => i.id);
    expect(side).toEqual(expect.arrayContaining(["e0000040", "e0000041"]));
    expect(side).not.toContain("e0000005");
    expect(await page.textContent("#transcript")).toContain("Try a Redis counter instead.");
    // Back to the main line from the tree.
    await page.click('.tree-space .tree-row[data-entry-id="e0000023"]');
    await page.waitForSelector('#transcript[data-leaf="e0000023"]');
    // Rendered around the entry picked: the main line's end, none of the side branch.
    const back = (await shownItems(page)).map((i) => i.id);
    expect(back).toContain("e0000023");
    expect(back).not.toContain("e0000040");
    expect(await page.textContent('.tree-space .tree-row[data-entry-id="e0000023"]')).toContain("leaf");
    expect(log.errors).toEqual([]);
    await page.close();
  });

  it("each of pi's /tree filters changes what is shown, in the transcript and the tree", async () => {
    const { page, log } = await open(renderHtml(createRenderSession(everyKindSession())));
    const seen = new Map<string, { items: { kind: string; id: string }[]; rows: string[] }>();
    for (const filter of ["default", "no-tools", "user-only", "labeled-only", "all"]) {
      await page.selectOption("select.filter", filter);
      await page.waitForSelector(`#transcript[data-filter="${filter}"]`);
      await showAll(page);
      const rows = await page.$$eval(".tree-space .tree-row", (els) =>
        els.map((el) => el.getAttribute("data-entry-id") ?? ""),
      );
      seen.set(filter, { items: await shownItems(page), rows });
    }
    const kinds = (filter: string) => new Set(seen.get(filter)?.items.map((i) => i.kind));
    expect(kinds("default").has("modelChange")).toBe(false);
    expect(kinds("default").has("toolResult")).toBe(true);
    expect(kinds("all").has("modelChange")).toBe(true);
    expect(kinds("all").has("label")).toBe(true);
    expect(kinds("no-tools").has("toolResult")).toBe(false);
    expect([...kinds("user-only")]).toEqual(["user"]);
    expect(seen.get("labeled-only")?.items.map((i) => i.id)).toEqual(["e0000004"]);
    expect(seen.get("labeled-only")?.rows.sort()).toEqual(["e0000004", "e0000041"]);
    const signatures = [...seen.values()].map((v) => JSON.stringify(v));
    expect(new Set(signatures).size).toBe(5);
    expect(log.errors).toEqual([]);
    await page.close();
  });

  it("search finds a phrase planted deep in a tool output and scrolls to it", async () => {
    const big = largeSession(3000, 7);
    type ToolResult = AnyEntry & { message: { role: string; content: { text: string }[] } };
    const target = big.entries.find(
      (entry, i) => i > 2500 && (entry as ToolResult).message?.role === "toolResult",
    ) as ToolResult;
    expect(target).toBeDefined();
    (target.message.content[0] as { text: string }).text += "\nthe treasure is in Zanzibar, north shore";
    const { page, log } = await open(renderHtml(createRenderSession(big)));
    expect(await page.textContent("#transcript")).not.toContain("Zanzibar");
    await page.fill("input.search", "north   shore");
    await page.waitForSelector('.search-count[data-matches="1"]');
    await page.press("input.search", "Enter");
    const hit = page.locator(`article[data-entry-id="${target.id}"]`);
    await hit.waitFor();
    // The phrase, not each word: one mark, "north shore".
    expect(await hit.locator("mark").allTextContents()).toEqual(["north shore"]);
    expect(await hit.locator("mark").first().isVisible()).toBe(true);
    expect(await page.$$eval(".tree-space .tree-row", (els) => els.length)).toBe(1);
    expect(log.errors).toEqual([]);
    await page.close();
  });

  it("planted payloads stay text: nothing runs, nothing is fetched, no CSP violation", async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const log = watch(page);
    await page.addInitScript(() => {
      const w = window as { __violations: string[] };
      w.__violations = [];
      document.addEventListener(
        "securitypolicyviolation",
        (e: { violatedDirective: string; blockedURI: string }) =>
          w.__violations.push(`${e.violatedDirective}: ${e.blockedURI}`),
      );
    });
    const { url, blocked } = await serve(page, renderHtml(createRenderSession(payloadSession())));
    await page.goto(url);
    await ready(page);
    for (const view of ["branch", "all-branches", "context"]) {
      await setView(page, view);
      // The context view shows every message sent to the model: no filter there.
      expect(await page.isDisabled("select.filter")).toBe(view === "context");
      for (const filter of view === "context" ? [] : ["all", "default", "no-tools"]) {
        await page.selectOption("select.filter", filter);
        await page.waitForSelector(`#transcript[data-filter="${filter}"]`);
        await page.evaluate(() => {
          for (const d of document.querySelectorAll("details")) d.open = true;
        });
      }
      await page.evaluate(() => {
        for (const d of document.querySelectorAll("details")) d.open = true;
      });
    }
    await page.fill("input.search", "pwned");
    await page.press("input.search", "Enter");
    for (const span of await page.locator(".link-text").all()) await span.click();
    await page.waitForTimeout(200);
    const state = await page.evaluate(() => ({
      pwned: (window as unknown as { __pwned?: unknown }).__pwned,
      violations: (window as unknown as { __violations: string[] }).__violations,
      scripts: document.querySelectorAll("script").length,
      javascriptLinks: document.querySelectorAll('a[href^="javascript" i]').length,
      handlers: [...document.querySelectorAll("*")].filter((el) =>
        [...el.attributes].some((a) => a.name.startsWith("on")),
      ).length,
      foreign: document.querySelectorAll("#app svg, #app iframe, #app object, #app embed").length,
      images: [...document.querySelectorAll("img")].map((img) => img.getAttribute("src")?.slice(0, 22)),
      // What a reader sees (rendered text), not the DOM's text nodes.
      // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is the point
      text: document.body.innerText,
    }));
    expect(state.pwned).toBeUndefined();
    expect(state.violations).toEqual([]);
    expect(state.scripts).toBe(1);
    expect(state.javascriptLinks).toBe(0);
    expect(state.handlers).toBe(0);
    expect(state.foreign).toBe(0);
    // The SVG and the PNG whose data is not base64 are not shown at all.
    expect(state.images).toEqual([]);
    expect(state.text).toContain(PAYLOADS.script);
    expect(state.text).toContain(PAYLOADS.endScript);
    expect(state.text).toContain("\\x1b]0;title\\x07");
    expect(state.text).toContain("\\x1b[2J");
    expect(state.text).toContain("abc\\u202edcba");
    expect(state.text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    expect(blocked).toEqual([]);
    expect(log.requests.filter((r) => !r.startsWith("data:"))).toEqual([url]);
    expect(log.errors).toEqual([]);
    await page.close();
  });

  it("makes no request but for the page itself, whatever the reader does", async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const log = watch(page);
    const { url, blocked } = await serve(page, renderHtml(createRenderSession(everyKindSession())));
    await page.goto(url);
    await ready(page);
    for (const view of ["all-branches", "context", "branch"]) await setView(page, view);
    await page.click(".theme");
    await page.fill("input.search", "limit");
    await page.press("input.search", "Enter");
    // While searching the tree lists the matches only; Escape brings every entry back.
    await page.press("input.search", "Escape");
    await page.click('.tree-space .tree-row[data-entry-id="e0000041"]');
    await page.evaluate(() => {
      for (const d of document.querySelectorAll("details")) d.open = true;
    });
    expect(await page.locator("img.image").count()).toBeGreaterThan(0);
    await page.waitForTimeout(200);
    expect(blocked).toEqual([]);
    expect(log.requests.filter((r) => !r.startsWith("data:"))).toEqual([url]);
    expect(log.errors).toEqual([]);
    await page.close();
  });

  it("light and dark: the system preference, and the toggle over it", async () => {
    const { page } = await open(renderHtml(createRenderSession(everyKindSession())), { colorScheme: "dark" });
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(await background()).toBe("rgb(22, 24, 29)");
    await page.click(".theme"); // auto -> light
    expect(await page.getAttribute("html", "data-theme")).toBe("light");
    expect(await background()).toBe("rgb(255, 255, 255)");
    await page.click(".theme"); // light -> dark
    expect(await background()).toBe("rgb(22, 24, 29)");
    await page.close();
  });

  it("a narrow window hides the tree behind a toggle", async () => {
    const { page } = await open(renderHtml(createRenderSession(everyKindSession())), { width: 400 });
    expect(await page.locator(".sidebar").isVisible()).toBe(false);
    await page.click(".tree-toggle");
    expect(await page.locator(".sidebar").isVisible()).toBe(true);
    await page.click('.tree-space .tree-row[data-entry-id="e0000041"]');
    await page.waitForSelector('#transcript[data-leaf="e0000043"]');
    expect(await page.locator(".sidebar").isVisible()).toBe(false);
    await page.close();
  });

  it("a long transcript grows upward a batch at a time, keeping what is on screen in place", async () => {
    const long = largeSession(1_000);
    const session = createRenderSession(long);
    const ids = session.index.activePath().map((e) => e.id);
    const { page, log } = await open(renderHtml(session));
    await page.evaluate(() => (document.querySelector("button.more.jump") as HTMLButtonElement).click());
    await page.waitForSelector(
      '#transcript .items > article.item:last-child[data-entry-id="' + ids.at(-1) + '"]',
    );
    const before = await shownItems(page);
    // The one step, looked at and acted on in the page: where the first item is, the click, where it is then.
    const moved = await page.evaluate(() => {
      const first = document.querySelector("#transcript .items > article.item") as HTMLElement;
      const top = first.getBoundingClientRect().top;
      (document.querySelector("button.more.earlier") as HTMLButtonElement).click();
      return { id: first.getAttribute("data-entry-id"), shift: first.getBoundingClientRect().top - top };
    });
    const after = await shownItems(page);
    expect(moved.id).toBe(before[0]?.id);
    expect(Math.abs(moved.shift)).toBeLessThanOrEqual(1);
    expect(after.length).toBeGreaterThan(before.length);
    // What was shown is still there, below what was added, and all of it in the branch's order.
    expect(after.slice(after.length - before.length)).toEqual(before);
    const order = after.map((i) => ids.indexOf(i.id));
    expect(order.every((at, k) => at >= 0 && (k === 0 || at > (order[k - 1] as number)))).toBe(true);
    expect(after.at(-1)?.id).toBe(ids.at(-1));
    expect(log.errors).toEqual([]);
    await page.close();
  });

  // Order, not time: the first screen is drawn before the session's data is parsed (decision
  // 017); how long that takes is the machine's, logged here and measured in the bench.
  it("a 50,000-entry session draws its first screen before it parses the data", async () => {
    const big = largeSession(50_000);
    const html = renderHtml(createRenderSession(big));
    const path = files.write("large.html", html);
    const loads: { fcp: number; firstScreen: number; parsed: number; ready: number }[] = [];
    for (let i = 0; i < 3; i++) {
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      const log = watch(page);
      await page.goto(`file://${path}`, { timeout: 120_000 });
      await ready(page, 120_000);
      const marks = await page.evaluate(() => {
        const at = (name: string) => performance.getEntriesByName(name)[0]?.startTime ?? Number.NaN;
        return {
          fcp: at("first-contentful-paint"),
          firstScreen: at("pi-session:first-screen"),
          parsed: at("pi-session:parsed"),
          ready: at("pi-session:rendered"),
        };
      });
      expect(log.errors).toEqual([]);
      expect(await page.locator("#transcript .items > article.item").count()).toBeGreaterThan(0);
      loads.push(marks);
      await page.close();
    }
    const round = (n: number) => Math.round(n);
    console.log(
      `50,000 entries, ${(html.length / 1e6).toFixed(1)} MB page: ` +
        loads
          .map(
            (l) =>
              `FCP ${round(l.fcp)} ms, first screen ${round(l.firstScreen)} ms, all read ${round(l.ready)} ms`,
          )
          .join("; "),
    );
    for (const l of loads) {
      expect(l.firstScreen).toBeLessThanOrEqual(l.parsed);
      expect(l.parsed).toBeLessThanOrEqual(l.ready);
    }
  });
  describe("reading a session", () => {
    const reading = () => createRenderSession(readingSession());
    const mainLeaf = () => {
      const entries = readingSession().entries;
      return entries[entries.length - 2]?.id as string;
    };

    it("edits are coloured diffs with line numbers; results sit in their calls, parallel ones paired; colours, Markdown", async () => {
      const { page, log } = await open(renderHtml(reading(), { leafId: mainLeaf() }));
      const numbers = (callId: string, kind: string) =>
        page.$$eval(`.tool-call[data-call-id="${callId}"] .diff-line.${kind} .diff-num`, (els) =>
          els.map((el) => el.textContent),
        );
      // pi's diff: the file's line numbers; the older shape without one: computed, numbered in the edit.
      expect(await numbers("call_edit", "removed")).toEqual(["6"]);
      expect(await numbers("call_edit", "added")).toEqual(["6"]);
      expect(await numbers("call_legacy", "removed")).toEqual(["3"]);
      expect(await numbers("call_legacy", "added")).toEqual(["3"]);
      const colours = await page.$eval('.tool-call[data-call-id="call_edit"] .diff-line.added', (el) => [
        getComputedStyle(el).color,
        getComputedStyle(el).backgroundColor,
      ]);
      expect(colours[0]).not.toBe(colours[1]);
      // Two parallel reads answered in the other order: each result inside its own call.
      const inCall = (callId: string) =>
        page.$eval(
          `.tool-call[data-call-id="${callId}"] > article.call-result`,
          (el) => el.textContent ?? "",
        );
      expect(await inCall("call_a")).toContain("export const LIMIT");
      expect(await inCall("call_a")).toContain("← read src/limit.ts");
      expect(await inCall("call_b")).toContain("def greet");
      expect(await page.locator("#transcript .items > article.kind-toolResult").count()).toBe(0);
      // The tree names what each result answered.
      const rows = await page.$$eval(".tree-row.kind-tool .row-preview", (els) =>
        els.map((el) => el.textContent),
      );
      expect(rows).toEqual(
        expect.arrayContaining(["read src/limit.ts", "read src/greet.py", "edit src/limit.ts"]),
      );
      // The call folds with its result.
      await page.click('.tool-call[data-call-id="call_a"] > summary');
      expect(await page.locator('.tool-call[data-call-id="call_a"] > article.call-result').isVisible()).toBe(
        false,
      );
      // Colour codes as colours; the screen-clearing escape stays visible text.
      const ansi = await page.$eval('.tool-call[data-call-id="call_test"] code.ansi', (el) => ({
        green: el.querySelector(".ansi-fg-green")?.textContent,
        bold: el.querySelector(".ansi-bold.ansi-fg-red")?.textContent,
        color: getComputedStyle(el.querySelector(".ansi-fg-green")).color,
        text: el.textContent,
      }));
      expect(ansi.green).toBe("✓ 12 passed");
      expect(ansi.bold).toBe("✗ 1 failed");
      expect(ansi.color).not.toBe("rgb(0, 0, 0)");
      expect(ansi.text).toContain("\\x1b[2Jafter");
      expect(ansi.text).not.toMatch(/\u001b/);
      // A 117 KB line: folded, its content shown by size when opened, then whole on request.
      const long = page.locator('.tool-call[data-call-id="call_long"] details.output');
      expect(await long.getAttribute("open")).toBeNull();
      await long.locator("summary").click();
      expect((await long.locator("pre").textContent())?.length).toBe(20_000);
      await long.locator("button.more").click();
      expect((await long.locator("pre").textContent())?.length).toBe(117_000);
      // Markdown: a nested list, a link with parentheses.
      expect(await page.locator(".md ol > li > ul > li > ul > li").textContent()).toBe("tested");
      expect(await page.getAttribute('.md a:text("the docs (v2)")', "href")).toBe(
        "https://example.com/docs_(v2)",
      );
      expect(log.errors).toEqual([]);
      await page.close();
    });

    it("#<id> opens at that entry; each entry links to itself and copies the link; copy buttons copy", async () => {
      const session = reading();
      const target = session.entries.find(
        (e) => (e as { message?: { toolCallId?: string } }).message?.toolCallId === "call_edit",
      )?.id as string;
      const page = await browser.newPage({ viewport: { width: 1200, height: 700 } });
      await page.addInitScript(() => {
        const w = window as unknown as { __copied: string[] };
        w.__copied = [];
        Object.defineProperty(navigator, "clipboard", {
          value: { writeText: async (text: string) => void w.__copied.push(text) },
        });
      });
      const log = watch(page);
      const path = files.write("anchors.html", renderHtml(session, { leafId: mainLeaf() }));
      await page.goto(`file://${path}#${target}`);
      await ready(page);
      const hit = page.locator(`article[data-entry-id="${target}"]`);
      await hit.waitFor();
      expect(await hit.isVisible()).toBe(true);
      expect(await hit.evaluate((el) => el.closest(".tool-call")?.getAttribute("data-call-id"))).toBe(
        "call_edit",
      );
      const box = await hit.boundingBox();
      expect(box && box.y >= 0 && box.y < 700).toBe(true);
      expect(await hit.locator("a.entry-id").getAttribute("href")).toBe(`#${target}`);
      await hit.locator(".entry-ref button.copy").click();
      await hit.locator('.entry-ref button.copy[data-copied="true"]').waitFor();
      await page
        .locator(
          '.tool-call[data-call-id="call_b"] .code-block button.copy, .tool-call[data-call-id="call_b"] details.output > button.copy',
        )
        .first()
        .click();
      const copied = await page.evaluate(() => (window as unknown as { __copied: string[] }).__copied);
      expect(copied[0]).toBe(`file://${path}#${target}`);
      expect(copied[1]).toContain("def greet(name):");
      // Another entry by changing the hash.
      const user = session.entries[0]?.id as string;
      await page.evaluate((id) => {
        location.hash = id;
      }, user);
      await page.waitForSelector(`article.selected[data-entry-id="${user}"]`);
      expect(log.errors).toEqual([]);
      await page.close();
    });

    it("the header has the totals; the phrase is marked alone; the pressed view button keeps its colours on hover", async () => {
      const { page, log } = await open(renderHtml(reading(), { leafId: mainLeaf() }));
      const totals = await page.textContent(".facts.totals");
      expect(totals).toContain("anthropic/claude-sonnet-4-5");
      expect(totals).toMatch(/\d+ messages \(.*assistant/);
      expect(totals).toContain("6 tool calls");
      expect(totals).toMatch(/\$0\.\d+/);
      await page.fill("input.search", "is it");
      await page.waitForSelector('.search-count[data-matches="1"]');
      await page.press("input.search", "Enter");
      await page.waitForSelector("#transcript mark");
      expect(await page.$$eval("#transcript mark", (els) => els.map((el) => el.textContent))).toEqual([
        "is it",
      ]);
      const pressed = page.locator('button.seg[aria-pressed="true"]');
      const before = await pressed.evaluate((el) => getComputedStyle(el).backgroundColor);
      await pressed.hover();
      const hovered = await pressed.evaluate((el) => [
        getComputedStyle(el).backgroundColor,
        getComputedStyle(el).color,
      ]);
      expect(hovered[0]).toBe(before);
      expect(hovered[1]).not.toBe(hovered[0]);
      expect(log.errors).toEqual([]);
      await page.close();
    });

    it("the tree follows the transcript's scroll", async () => {
      const { page, log } = await open(renderHtml(createRenderSession(largeSession(400))));
      await page.evaluate(() => {
        document.querySelector("#transcript").scrollTop = 3000;
      });
      await page.waitForSelector(".tree-row.in-view");
      const top = await page.evaluate(() => {
        const transcript = document.querySelector("#transcript").getBoundingClientRect().top;
        for (const el of document.querySelectorAll("#transcript .items > article"))
          if (el.getBoundingClientRect().bottom > transcript) return el.getAttribute("data-pos");
        return null;
      });
      await page.waitForFunction(
        (pos) => document.querySelector(".tree-row.in-view")?.getAttribute("data-pos") === pos,
        top,
      );
      expect(await page.locator(".tree-row.in-view").isVisible()).toBe(true);
      expect(log.errors).toEqual([]);
      await page.close();
    });
  });
});
