/**
 * The README's example runs: its code block, executed with node against the built package,
 * on a small store.
 * @module-tag processes
 */
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { tempDirs } from "@pi-session/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { writeVectorStore } from "./testing/vectors.js";

const dirs = tempDirs("pi-search-example-");
afterEach(dirs.cleanup);

describe("README example", () => {
  it("runs and finds the session", () => {
    const pkg = fileURLToPath(new URL("..", import.meta.url));
    const readme = readFileSync(join(pkg, "README.md"), "utf8");
    const code = /```js\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(code).toBeDefined();
    // Inside the package directory, so `@pi-session/search` resolves to itself (its exports).
    const script = join(pkg, `.readme-example-${process.pid}.mjs`);
    writeFileSync(script, code as string);
    const dir = dirs.make();
    try {
      const out = execFileSync(process.execPath, [script], {
        encoding: "utf8",
        env: { ...process.env, SESSIONS: writeVectorStore(dir), XDG_CACHE_HOME: join(dir, "cache") },
      });
      expect(out.trim().split("\n")).toEqual(["aaaa 3 In src/auth.ts: 日本語のテスト", "0.5"]);
    } finally {
      rmSync(script, { force: true });
    }
  });
});
