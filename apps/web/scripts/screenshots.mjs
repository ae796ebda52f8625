// Screenshots of every view, light and dark, wide and narrow, to look at before calling a
// change done (run by hand; `pnpm build` first):
//
//   node apps/web/scripts/screenshots.mjs --root <sessions root> [--out /tmp/web-shots]
//   node apps/web/scripts/screenshots.mjs --db <postgresql URL> [--source NAME]... [--out DIR]
//
// Serves the store with the built server (an in-memory session database), or a team's
// PostgreSQL database (read-only; `--source` keeps some sources), and saves
// <view>-<theme>-<width>.png for the sessions list, search, a session (branch and context, and
// its tree drawer when narrow) and the usage charts.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { openPostgresDatabase } from "@pi-session/postgres";
import { chromium } from "playwright-core";
import { startServer } from "../dist/index.js";

const { values } = parseArgs({
  options: {
    root: { type: "string" },
    db: { type: "string" },
    source: { type: "string", multiple: true },
    out: { type: "string", default: "/tmp/web-shots" },
    query: { type: "string", default: "parse" },
    session: { type: "string" },
  },
});
if (!values.root === !values.db) {
  console.error(
    "usage: screenshots.mjs (--root <sessions root> | --db <URL> [--source NAME]...) [--out DIR] [--query Q] [--session KEY]",
  );
  process.exit(2);
}
mkdirSync(values.out, { recursive: true });
const server = values.db
  ? await startServer({
      database: await openPostgresDatabase({ url: values.db, readOnly: true }),
      ...(values.source ? { sources: values.source } : {}),
    })
  : await startServer({ root: values.root, persistent: false });
const sessions = server.source.sessions();
// The session with the most entries among the first ones: branches and tools show.
const key =
  values.session ?? [...sessions.slice(0, 40)].sort((a, b) => b.entryCount - a.entryCount)[0]?.key ?? "";
const browser = await chromium.launch({
  executablePath: process.env.PI_SESSION_CHROMIUM ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking"],
});
const views = [
  ["sessions", "#/", ".list-view[data-loaded='true']"],
  ["search", `#/search?q=${encodeURIComponent(values.query)}`, ".search-view[data-results]"],
  ["session", `#/s/${encodeURIComponent(key)}`, ".session-view[data-loaded='true']"],
  ["context", `#/s/${encodeURIComponent(key)}?view=context`, ".session-view[data-loaded='true']"],
  ["usage", "#/usage?period=day&split=model", ".usage-view[data-loaded='true']"],
  ["usage-project", "#/usage?period=week&split=project&metric=tokens", ".usage-view[data-loaded='true']"],
];
const errors = [];
for (const theme of ["light", "dark"])
  for (const width of [1400, 400]) {
    const page = await browser.newPage({ viewport: { width, height: 900 }, colorScheme: theme });
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(server.url);
    for (const [name, hash, ready] of views) {
      await page.goto(`${server.origin}/${hash}`);
      await page.waitForSelector(ready, { timeout: 60_000 });
      await page.waitForTimeout(300);
      await page.screenshot({ path: join(values.out, `${name}-${theme}-${width}.png`) });
      if (name === "session" && width < 700) {
        await page.click(".tree-toggle");
        await page.waitForTimeout(200);
        await page.screenshot({ path: join(values.out, `tree-${theme}-${width}.png`) });
      }
    }
    await page.close();
  }
await browser.close();
await server.close();
console.log(`screenshots in ${values.out}${errors.length ? `; page errors: ${errors.join("; ")}` : ""}`);
