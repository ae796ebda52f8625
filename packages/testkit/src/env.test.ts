/** Tests for the environment-driven fast-check settings and the fixture helpers. */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_NUM_RUNS, fcOptions, scaledRuns } from "./env.js";
import {
  examplesDir,
  readUpstreamFixture,
  repoRoot,
  tempDir,
  tempDirs,
  upstreamFixture,
  upstreamFixtureNames,
} from "./fixtures.js";

const saved = { runs: process.env.FC_NUM_RUNS, seed: process.env.FC_SEED, path: process.env.FC_PATH };
function restore(name: string, value: string | undefined) {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}
afterEach(() => {
  restore("FC_NUM_RUNS", saved.runs);
  restore("FC_SEED", saved.seed);
  restore("FC_PATH", saved.path);
});

describe("fcOptions", () => {
  it("defaults to 200 runs and no seed", () => {
    delete process.env.FC_NUM_RUNS;
    delete process.env.FC_SEED;
    expect(fcOptions()).toEqual({ numRuns: DEFAULT_NUM_RUNS });
    expect(DEFAULT_NUM_RUNS).toBe(200);
  });

  it("reads FC_NUM_RUNS, FC_SEED and FC_PATH, and merges extra options", () => {
    process.env.FC_NUM_RUNS = "1000";
    process.env.FC_SEED = "-42";
    process.env.FC_PATH = "3:1";
    expect(fcOptions({ verbose: 2 })).toEqual({ numRuns: 1000, seed: -42, path: "3:1", verbose: 2 });
    expect(fcOptions({ numRuns: 5 }).numRuns).toBe(5);
    expect(scaledRuns(20)).toBe(100);
  });

  it("ignores FC_PATH without a seed and rejects non-integers", () => {
    delete process.env.FC_SEED;
    process.env.FC_PATH = "1";
    expect(fcOptions()).not.toHaveProperty("path");
    process.env.FC_NUM_RUNS = "many";
    expect(() => fcOptions()).toThrow(/FC_NUM_RUNS/);
  });
});

describe("fixtures", () => {
  it("finds the repository root and the example sessions", () => {
    expect(existsSync(join(repoRoot(), "pnpm-workspace.yaml"))).toBe(true);
    expect(examplesDir()).toBe(join(repoRoot(), "examples", "sessions"));
  });

  it("reads the upstream fixtures, whose first line is a v1 header", () => {
    for (const name of upstreamFixtureNames) {
      expect(upstreamFixture(name)).toMatch(/fixtures[\\/]upstream[\\/].+\.jsonl$/);
      const bytes = readUpstreamFixture(name);
      expect(bytes).toBeInstanceOf(Uint8Array);
      const first = new TextDecoder().decode(bytes.subarray(0, bytes.indexOf(0x0a)));
      const header = JSON.parse(first);
      expect(header.type).toBe("session");
      expect(header.version).toBeUndefined();
    }
  });

  it("creates and removes temporary directories", () => {
    const dir = tempDir("testkit-");
    expect(existsSync(dir.path)).toBe(true);
    writeFileSync(join(dir.path, "x.jsonl"), "{}\n");
    dir.cleanup();
    expect(existsSync(dir.path)).toBe(false);
    dir.cleanup();
  });

  it("tempDirs removes every directory it made, and runs the deferred cleanups, at cleanup", () => {
    const dirs = tempDirs("testkit-dirs-");
    const a = dirs.make();
    const b = dirs.make();
    expect(a).not.toBe(b);
    writeFileSync(join(a, "f"), "x");
    let deferred = 0;
    dirs.defer(() => deferred++);
    dirs.cleanup();
    expect([existsSync(a), existsSync(b), deferred]).toEqual([false, false, 1]);
    dirs.cleanup();
    expect(deferred).toBe(1);
  });
});
