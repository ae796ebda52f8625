/**
 * Tests of listing in worker threads: the same results as in-process listing (generated,
 * corrupted and unreadable files), abort, and no worker left running. Workers need the built
 * script, so these tests use the package's `dist` (run the build first).
 * @module-tag processes
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { arbCorruptedFile, arbSessionV3, fcOptions, tempDirs, toBytes } from "@pi-session/testkit";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";

type Api = typeof import("../index.js");
type Pool = typeof import("./pool.js");
type Options = typeof import("./options.js");
const dist = (name: string) => new URL(`../../dist/${name}`, import.meta.url).href;
const api = (await import(dist("index.js"))) as Api;
const pool = (await import(dist("listing/pool.js"))) as Pool;
const options = (await import(dist("listing/options.js"))) as Options;

const dirs = tempDirs("ns-pool-");
afterEach(() => {
  dirs.cleanup();
  // Every listing closes its pool before it returns or throws.
  expect(pool.liveListWorkers()).toBe(0);
});
const tmp = dirs.make;

/** A store of generated and damaged sessions in two per-cwd dirs, plus two unreadable entries. */
function writeStore(root: string, files: Uint8Array[]): void {
  for (const d of ["--p0--", "--p1--"]) mkdirSync(join(root, d), { recursive: true });
  files.forEach((bytes, k) => {
    const d = join(root, `--p${k % 2}--`);
    mkdirSync(d, { recursive: true });
    writeFileSync(join(d, `2025-01-01T00-00-0${k % 10}-000Z_f${k}.jsonl`), bytes);
  });
  // A directory named like a session (reading it fails: skipped) and an empty file.
  mkdirSync(join(root, "--p0--", "dir.jsonl"), { recursive: true });
  writeFileSync(join(root, "--p1--", "empty.jsonl"), "");
}

const arbStore = fc.array(
  fc.oneof(
    arbSessionV3().map(toBytes),
    arbCorruptedFile().map((c) => c.bytes),
  ),
  { minLength: 1, maxLength: 6 },
);

describe("listing in workers", () => {
  it("gives exactly the in-process results, cold and warm, on generated and corrupted stores", async () => {
    await fc.assert(
      fc.asyncProperty(arbStore, fc.integer({ min: 1, max: 10 }), async (files, concurrency) => {
        const root = tmp();
        writeStore(root, files);
        const cacheDir = join(tmp(), "cache");
        const inProcess = await api.listAllSessions(root, { cache: false, workers: 0 });
        const stats = options.newListStats();
        const cold = await api.listAllSessions(root, {
          cache: { dir: cacheDir },
          workers: 2,
          concurrency,
          stats,
        });
        expect(cold).toEqual(inProcess);
        // Every readable file went to a worker (the directory fails there and is skipped).
        expect(stats.filesInWorkers).toBe(files.length + 1);
        const warm = await api.listAllSessions(root, { cache: { dir: cacheDir }, workers: 2 });
        expect(warm).toEqual(inProcess);
      }),
      fcOptions({ numRuns: Math.min(25, fcOptions().numRuns) }),
    );
  }, 120_000);

  it("resumes grown files in workers from the cache", async () => {
    const root = tmp();
    const cacheDir = join(tmp(), "cache");
    const header = {
      type: "session",
      version: 3,
      id: "s1",
      timestamp: "2025-01-01T00:00:00.000Z",
      cwd: "/p",
    };
    const msg = (i: number, role: string) => ({
      type: "message",
      id: `m${i}`,
      parentId: null,
      timestamp: "2025-01-01T00:00:01.000Z",
      message: { role, content: [{ type: "text", text: `text ${i}` }], timestamp: 1000 + i },
    });
    const d = join(root, "--p--");
    mkdirSync(d, { recursive: true });
    const file = join(d, "s1.jsonl");
    let text = `${JSON.stringify(header)}\n`;
    for (let i = 0; i < 200; i++) text += `${JSON.stringify(msg(i, i % 3 === 2 ? "toolResult" : "user"))}\n`;
    writeFileSync(file, text);
    await api.listAllSessions(root, { cache: { dir: cacheDir }, workers: 1 });
    writeFileSync(file, `${text}${JSON.stringify(msg(999, "assistant"))}\n`);
    const stats = options.newListStats();
    const grown = await api.listAllSessions(root, { cache: { dir: cacheDir }, workers: 1, stats });
    expect(stats.filesResumed).toBe(1);
    expect(stats.filesInWorkers).toBe(1);
    expect(grown).toEqual(await api.listAllSessions(root, { cache: false, workers: 0 }));
    expect(grown[0]?.messageCount).toBe(201);
    expect(grown[0]?.allMessagesText.endsWith("text 999")).toBe(true);
  });

  it("stops on abort and leaves no worker running", async () => {
    const root = tmp();
    const big = `${JSON.stringify({ type: "session", version: 3, id: "x", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/p" })}\n${`${JSON.stringify({ type: "custom", id: "c", parentId: null, timestamp: "t", data: "z".repeat(4000) })}\n`.repeat(200)}`;
    writeStore(
      root,
      Array.from({ length: 40 }, () => new TextEncoder().encode(big)),
    );
    const controller = new AbortController();
    const listing = api.listAllSessions(root, {
      cache: false,
      workers: 2,
      concurrency: 2,
      signal: controller.signal,
      onProgress: (loaded) => {
        if (loaded === 3) controller.abort();
      },
    });
    await expect(listing).rejects.toThrow(/abort/i);
    expect(pool.liveListWorkers()).toBe(0);
  });

  it('"auto" opens its pool during the stat pass of a large listing, and closes it (also on abort)', async () => {
    // "auto" needs three cores; this machine may have fewer.
    pool.autoPool.minCores = 1;
    dirs.defer(() => {
      pool.autoPool.minCores = pool.WORKER_MIN_CORES;
    });
    const root = tmp();
    const head = JSON.stringify({
      type: "session",
      version: 3,
      id: "x",
      timestamp: "2025-01-01T00:00:00.000Z",
      cwd: "/p",
    });
    const msg = JSON.stringify({
      type: "message",
      id: "m",
      parentId: null,
      timestamp: "2025-01-01T00:00:01.000Z",
      message: { role: "toolResult", content: [{ type: "text", text: "y".repeat(100_000) }] },
    });
    // 10 files of ~2 MB: past the "auto" thresholds (8 files, 16 MiB).
    const bytes = new TextEncoder().encode(`${head}\n${`${msg}\n`.repeat(20)}`);
    writeStore(
      root,
      Array.from({ length: 10 }, () => bytes),
    );
    const stats = options.newListStats();
    const list = await api.listAllSessions(root, { cache: false, stats });
    expect(stats.filesInWorkers).toBeGreaterThanOrEqual(10);
    expect(list).toEqual(await api.listAllSessions(root, { cache: false, workers: 0 }));
    expect(list[0]?.messageCount).toBe(20);
    const controller = new AbortController();
    const aborted = api.listAllSessions(root, {
      cache: false,
      signal: controller.signal,
      onProgress: (loaded) => {
        if (loaded === 1) controller.abort();
      },
    });
    await expect(aborted).rejects.toThrow(/abort/i);
    expect(pool.liveListWorkers()).toBe(0);
  });

  it("uses no workers for small listings by default", async () => {
    const root = tmp();
    await fc.assert(
      fc.asyncProperty(arbSessionV3().map(toBytes), async (bytes) => {
        writeStore(root, [bytes]);
        const stats = options.newListStats();
        await api.listAllSessions(root, { cache: false, stats });
        expect(stats.filesInWorkers).toBeUndefined();
      }),
      fcOptions({ numRuns: 5 }),
    );
  });
});
