/**
 * Test data helpers: pi's real sessions (found through `upstream.ts`, skipping the running
 * test when they are not there), the example sessions, and throw-away temporary directories.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TestRunner } from "vitest";
import { type UpstreamFixtureName, repoRoot, upstreamFixturePath, upstreamSkipNote } from "./upstream.js";

export {
  type UpstreamFixtureName,
  missingUpstreamFixtures,
  repoRoot,
  upstreamFixtureDir,
  upstreamFixtureNames,
  upstreamFixturePath,
} from "./upstream.js";

/**
 * Absolute path of an upstream fixture. When the file is not there, the running test is
 * skipped with a note naming it (the assertions before the call have run); outside a test
 * (at collection) it throws, so call it inside tests.
 */
export function upstreamFixture(name: UpstreamFixtureName): string {
  const path = upstreamFixturePath(name);
  if (existsSync(path)) return path;
  const note = upstreamSkipNote(name);
  TestRunner.getCurrentTest()?.context.skip(note);
  throw new Error(`testkit: ${note} (call upstreamFixture inside a test, so it can skip it)`);
}

/** The bytes of an upstream fixture (skips the running test as {@link upstreamFixture} does). */
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
