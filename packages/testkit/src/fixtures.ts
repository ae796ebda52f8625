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

/** Temp directories made by {@link TempDirs.make}, all removed by one {@link TempDirs.cleanup}. */
export interface TempDirs {
  /** A fresh directory (see {@link tempDir}). */
  make: () => string;
  /** Removes every directory made so far, and runs the extra cleanups added with `defer`. */
  cleanup: () => void;
  /** Runs `fn` at the next cleanup too (e.g. to restore a setting a test changed). */
  defer: (fn: () => void) => void;
}

/**
 * A test file's temp directories: `const dirs = tempDirs("x-"); afterEach(dirs.cleanup);`
 * then `dirs.make()` in each test.
 */
export function tempDirs(prefix?: string): TempDirs {
  const pending: (() => void)[] = [];
  return {
    make: () => {
      const t = tempDir(prefix);
      pending.push(t.cleanup);
      return t.path;
    },
    cleanup: () => {
      for (const c of pending.splice(0)) c();
    },
    defer: (fn) => {
      pending.push(fn);
    },
  };
}
