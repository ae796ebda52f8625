/**
 * The fast test loop (`pnpm test:fast`, vitest.config.ts) runs on the sources and leaves out
 * tests tagged `processes`, `compiler`, `big-file` or `dist`. This keeps the tags honest: a
 * test file that reaches into built output (a `dist/` path) or starts processes or worker
 * threads must tag the tests that do, or the fast loop would run them on a stale or missing
 * build.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));

/** Files that start a process for a reason that needs no build, and why. */
const ALLOWED: Record<string, string> = {
  "packages/node-store/src/lock/lock.test.ts":
    "spawns `node -e` only to get the pid of a process that has exited",
  "scripts/sources.test.ts":
    "runs the CLI from its TypeScript sources (`pnpm pi-session`), which needs no build",
};

function testFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name === "dist" || entry.name.startsWith(".")) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) testFiles(path, out);
    else if (entry.name.endsWith(".test.ts")) out.push(path);
  }
  return out;
}

const files = ["packages", "apps", "bench", "scripts"].flatMap((d) => {
  try {
    return testFiles(join(root, d));
  } catch {
    return [];
  }
});

/** A path into one of our packages' built output (pi's own `dist/` in node_modules aside). */
const REACHES_DIST = /["'`]\.\.["'`],\s*["'`]dist["'`]|[/"'`]dist\//;
const STARTS_PROCESSES = /from "node:(child_process|worker_threads)"/;
const TAGGED =
  /@module-tag\s+(processes|dist|compiler|big-file)\b|tags:\s*\[[^\]]*"(processes|dist|compiler|big-file)"/;

describe("test tags", () => {
  it("finds the test files", () => {
    expect(files.length).toBeGreaterThan(20);
  });

  it("pnpm test:fast leaves out every slow tag (the filter reaches projects only from the command line)", () => {
    const script: string = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).scripts["test:fast"];
    expect(script).toContain("--mode fast");
    for (const tag of ["processes", "compiler", "big-file", "dist"])
      expect(script, tag).toContain(`--tags-filter=!${tag}`);
  });

  it("every test file that uses built output or starts processes tags those tests", () => {
    const untagged: string[] = [];
    for (const path of files) {
      const name = relative(root, path).split("\\").join("/");
      const text = readFileSync(path, "utf8").replaceAll("pi-coding-agent/dist", "");
      if (!REACHES_DIST.test(text) && !STARTS_PROCESSES.test(text)) continue;
      if (TAGGED.test(text) || name in ALLOWED) continue;
      untagged.push(name);
    }
    expect(
      untagged,
      'tag them `{ tags: ["processes"] }` (or "dist"), or the whole file with `@module-tag processes` in its header',
    ).toEqual([]);
  });
});
