/**
 * Tests of the positional-read core: `readFully` fills a buffer across short reads and stops
 * at the end of the file, the same under the synchronous and the asynchronous driver, and the
 * asynchronous driver checks its abort signal before every read.
 */
import { closeSync, openSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fcOptions, tempDirs } from "@pi-session/testkit";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { type ReadAsync, type ReadSync, readFully, runReader, runReaderSync } from "./positional-reads.js";

const dirs = tempDirs("ns-reads-");
afterEach(dirs.cleanup);

/** Reads of `data` that return at most `most` bytes each, counted in `calls`. */
function shortReads(data: Uint8Array, most: number): { sync: ReadSync; async: ReadAsync; calls: number[] } {
  const calls: number[] = [];
  const readAt = (buffer: Uint8Array, offset: number, length: number, position: number): number => {
    const n = Math.max(0, Math.min(length, most, data.length - position));
    buffer.set(data.subarray(position, position + n), offset);
    calls.push(n);
    return n;
  };
  return {
    sync: (_fd, buffer, offset, length, position) => readAt(buffer, offset, length, position),
    async: async (buffer, offset, length, position) => readAt(buffer, offset, length, position),
    calls,
  };
}

describe("readFully", () => {
  it("fills the buffer across short reads, up to the end of the data, the same sync and async", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 300 }),
        fc.nat(320),
        fc.nat(320),
        fc.integer({ min: 1, max: 64 }),
        async (data, length, position, most) => {
          const want = Math.max(0, Math.min(length, data.length - position));
          const reads = shortReads(data, most);
          const syncBuffer = new Uint8Array(length);
          const got = runReaderSync(readFully(syncBuffer, length, position), -1, reads.sync);
          expect(got).toBe(want);
          expect(syncBuffer.subarray(0, got)).toEqual(data.subarray(position, position + want));
          const asyncBuffer = new Uint8Array(length);
          expect(await runReader(readFully(asyncBuffer, length, position), reads.async)).toBe(got);
          expect(asyncBuffer.subarray(0, got)).toEqual(syncBuffer.subarray(0, got));
          // Reads until the buffer is full, or one more (returning 0) finds the end: per driver.
          const perRun = Math.ceil(want / most) + (want < length ? 1 : 0);
          expect(reads.calls.length).toBe(2 * perRun);
        },
      ),
      fcOptions(),
    );
  });

  it("reads a real file with readSync by default", () => {
    const path = join(dirs.make(), "f");
    writeFileSync(path, "0123456789");
    const fd = openSync(path, "r");
    try {
      const buffer = Buffer.alloc(6);
      expect(runReaderSync(readFully(buffer, 6, 7), fd)).toBe(3);
      expect(buffer.subarray(0, 3).toString()).toBe("789");
    } finally {
      closeSync(fd);
    }
  });
});

describe("runReader", () => {
  it("checks the abort signal before every read", async () => {
    const controller = new AbortController();
    const data = new Uint8Array(100);
    let reads = 0;
    const read: ReadAsync = async (buffer, offset, length, position) => {
      reads++;
      controller.abort();
      const n = Math.min(length, 10);
      buffer.set(data.subarray(position, position + n), offset);
      return n;
    };
    await expect(runReader(readFully(new Uint8Array(100), 100, 0), read, controller.signal)).rejects.toThrow(
      /abort/i,
    );
    expect(reads).toBe(1);
  });
});
