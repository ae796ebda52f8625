/**
 * Where the shared test data lives: the repository root, the read-only upstream fixtures
 * beside the clone (`../shared/fixtures/upstream/`), the example sessions, and throw-away
 * temporary directories.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The real pi v1 files in `shared/fixtures/upstream/`. */
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

/** `<repoRoot>/../shared`: CI checks the shared data out beside the clone. */
export function sharedDir(): string {
  return resolve(repoRoot(), "..", "shared");
}

/** Absolute path of an upstream fixture file (`<shared>/fixtures/upstream/<name>.jsonl`). */
export function upstreamFixture(name: UpstreamFixtureName): string {
  if (!(upstreamFixtureNames as readonly string[]).includes(name)) {
    throw new Error(`testkit: unknown upstream fixture ${JSON.stringify(name)}`);
  }
  return join(sharedDir(), "fixtures", "upstream", `${name}.jsonl`);
}

/** The bytes of an upstream fixture. */
export function readUpstreamFixture(name: UpstreamFixtureName): Uint8Array {
  const buf = readFileSync(upstreamFixture(name));
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
}

/** `<repoRoot>/examples/sessions`. */
export function examplesDir(): string {
  return join(repoRoot(), "examples", "sessions");
}

export interface TempDir {
  /** Absolute path of the new, empty directory. */
  path: string;
  /** Removes the directory and everything in it; safe to call twice. */
  cleanup: () => void;
}

/** Creates a fresh directory under `os.tmpdir()` named `<prefix>XXXXXX`. */
export function tempDir(prefix = "pi-session-test-"): TempDir {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}
