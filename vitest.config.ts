/**
 * One root config for every test in the repository. Each workspace package is a project
 * (named as its package.json), plus `repo` for repository-wide rules (scripts/*.test.ts).
 *
 * Tests run on the TypeScript sources: an import of `@pi-session/<pkg>` or one of its
 * subpaths resolves to `src/<name>.ts` for every `exports` entry whose target is
 * `./dist/<name>.js`, so editing a lower layer needs no build before testing a higher one.
 * A new package gets this by following the layout (tsc's `src/` → `dist/`); nothing to add.
 * The mapping is `scripts/workspace-sources.ts`'s: type-checking and `pnpm pi-session` use it too.
 * The few tests that need built output (they spawn the CLI bundle or `dist/` modules, start
 * listing workers, or read the generated JSON Schema files) carry a tag and import `dist/`
 * themselves; see CONTRIBUTING.md "Test".
 *
 * Tests that need pi's two real session files (kept outside the repository) find them through
 * `@pi-session/testkit`'s `upstreamFixture`; without them those tests are skipped and the
 * run ends with a line that names them.
 *
 * `pnpm test:fast` leaves out the tests tagged `processes`, `compiler`, `big-file` and `dist`:
 * `--mode fast` here keeps files tagged as a whole (`@module-tag`) from being loaded at all,
 * and its `--tags-filter` options (the filter reaches the projects only from the command line)
 * leave out single tagged tests; so the fast loop needs no build. It also runs fewer cases per
 * property.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { type TestProjectInlineConfiguration, defineConfig } from "vitest/config";
import { LeftOutReporter } from "./packages/testkit/src/left-out-reporter.js";
import { readManifest, sourceEntries, workspaceDirs } from "./scripts/workspace-sources.js";

const root = fileURLToPath(new URL(".", import.meta.url));

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

/** `@pi-session/x[/sub]` → `<dir>/src/<name>.ts`, for each export built from a source file. */
function sourceAliases(): { find: RegExp; replacement: string }[] {
  return sourceEntries(root).map(({ specifier, source }) => ({
    find: new RegExp(`^${escapeRegExp(specifier)}$`),
    replacement: source,
  }));
}

/**
 * Projects whose test files each get a process of their own: postgres's start and stop a
 * PostgreSQL cluster per file. Elsewhere a test that changes process-wide state (the
 * environment, TZ, a spy on JSON.parse or Date, the SDK's open mode, the CLI's in-process runs)
 * puts it back before it ends, and a worker runs file after file.
 */
const ISOLATED = new Set(["@pi-session/postgres"]);

/** Runs per property in a fast run (testkit's `fcOptions`; 200 otherwise). */
const FAST_NUM_RUNS = 50;

/** Tags a fast run leaves out (also in the test:fast script's --tags-filter; CONTRIBUTING.md). */
const SLOW_TAGS = ["processes", "compiler", "big-file", "dist"];

/** Test files tagged as a whole with one of the slow tags (`@module-tag <tag>`). */
function slowFiles(dirs: string[]): string[] {
  const out: string[] = [];
  const tag = new RegExp(`(//|\\*)\\s*@module-tag\\s+(${SLOW_TAGS.join("|")})\\b`);
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === "node_modules" || entry.name === "dist") continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".test.ts") && tag.test(readFileSync(path, "utf8"))) out.push(path);
    }
  };
  for (const dir of [...dirs, join(root, "scripts")]) if (existsSync(dir)) walk(dir);
  return out;
}

export default defineConfig(({ mode }) => {
  const dirs = workspaceDirs(root);
  const fast = mode === "fast";
  const slow = fast ? slowFiles(dirs) : [];
  const project = (name: string, dir: string, include: string[]): TestProjectInlineConfiguration => ({
    extends: true,
    test: {
      name,
      root: dir,
      include,
      // A worker runs file after file, loading each module once (TypeBox, pi 1.6.0 for the
      // conformance tests, the layers) instead of once per file in a fresh process, which was
      // about half of the fast loop's time.
      isolate: ISOLATED.has(name),
      exclude: [
        "**/node_modules/**",
        "**/dist/**",
        ...slow.filter((f) => f.startsWith(`${dir}/`)).map((f) => relative(dir, f)),
      ],
    },
  });
  return {
    resolve: { alias: sourceAliases() },
    test: {
      // A busy 2-core CI machine runs a test several times slower than an idle one: vitest's
      // default of 5 s failed property tests there. No test asserts time; a hang still fails.
      testTimeout: 60_000,
      hookTimeout: 60_000,
      // The default output, then one line naming the tests left out for want of pi's real
      // session files (packages/testkit/src/upstream.ts says where they are looked for).
      reporters: ["default", new LeftOutReporter()],
      // The generated modules the sources import (the page's and the web app's bundles), written
      // from the sources before any test file loads: they are not committed.
      globalSetup: [join(root, "scripts", "generated-modules.mjs")],
      projects: [
        ...dirs.map((dir) => project(readManifest(dir).name ?? relative(root, dir), dir, ["**/*.test.ts"])),
        project("repo", root.replace(/\/$/, ""), ["scripts/**/*.test.ts"]),
      ],
      // Tagged tests start processes or write much: a busy 2-core CI machine needs time.
      tags: [
        {
          name: "processes",
          description: "spawns processes (on dist/, a browser) or worker threads",
          timeout: 120_000,
        },
        { name: "compiler", description: "runs a compiler (AssemblyScript, esbuild, tsc)", timeout: 120_000 },
        { name: "big-file", description: "writes a large file (PI_SESSION_BIG_TEST_MB)", timeout: 300_000 },
        { name: "dist", description: "reads built output (run pnpm build first)" },
      ],
      // The fast loop also runs each property FAST_NUM_RUNS times (not 200; FC_NUM_RUNS still
      // wins) and uses every core for test files (vitest's default leaves one to itself). The
      // whole suite keeps the default: with a file per core it took 410 s instead of 604 s on the
      // 2-core VM, but two clean-clone runs of five failed under that load (a pager test, since
      // fixed, and node-store's processes.test.ts, which races kills and writers).
      ...(fast
        ? {
            // biome-ignore lint/suspicious/noUndeclaredEnvVars: read by vitest, not by a turbo task.
            env: { FC_NUM_RUNS: process.env.FC_NUM_RUNS ?? String(FAST_NUM_RUNS) },
            maxWorkers: availableParallelism(),
          }
        : {}),
    },
  };
});
