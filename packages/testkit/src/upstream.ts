/**
 * pi's two real session files, the only test data that is not made inside the repository
 * (they are pi's data, not ours, so they stay outside it). This module is the one place that
 * knows where they are: `PI_SESSION_UPSTREAM_FIXTURES` if set, else
 * `<repo>/../shared/fixtures/upstream/`, which CI checks out beside the clone. Use
 * `upstreamFixture` (from the package root) in tests: it skips the running test, naming the
 * missing file, when they are not there. This module has no test-runner imports, so the
 * benchmark uses it too (`@pi-session/testkit/upstream`).
 */
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The real pi v1 files: `before-compaction` (two compactions) and `large-session`. */
export const upstreamFixtureNames = ["before-compaction", "large-session"] as const;
export type UpstreamFixtureName = (typeof upstreamFixtureNames)[number];

let cachedRoot: string | undefined;

/** The monorepo root: the nearest ancestor of this module holding `pnpm-workspace.yaml`. */
export function repoRoot(): string {
  if (cachedRoot !== undefined) return cachedRoot;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, "pnpm-workspace.yaml"))) {
      cachedRoot = dir;
      return dir;
    }
    const up = dirname(dir);
    if (up === dir)
      throw new Error(`testkit: no pnpm-workspace.yaml above ${fileURLToPath(import.meta.url)}`);
    dir = up;
  }
}

/** The directory the upstream fixtures are looked for in (it may not exist). */
export function upstreamFixtureDir(): string {
  const override = process.env.PI_SESSION_UPSTREAM_FIXTURES;
  if (override) return resolve(override);
  return resolve(repoRoot(), "..", "shared", "fixtures", "upstream");
}

/** Where an upstream fixture would be (`<dir>/<name>.jsonl`), whether or not it is there. */
export function upstreamFixturePath(name: UpstreamFixtureName): string {
  if (!(upstreamFixtureNames as readonly string[]).includes(name)) {
    throw new Error(`testkit: unknown upstream fixture ${JSON.stringify(name)}`);
  }
  return join(upstreamFixtureDir(), `${name}.jsonl`);
}

/** The upstream fixtures that are not there. */
export function missingUpstreamFixtures(): UpstreamFixtureName[] {
  return upstreamFixtureNames.filter((name) => !existsSync(upstreamFixturePath(name)));
}

/** The skip note of a test that needs `name`: what is missing, where it was looked for. */
export function upstreamSkipNote(name: UpstreamFixtureName): string {
  return `needs pi's real session ${name}.jsonl, not found in ${upstreamFixtureDir()}`;
}
