/** Tests of `readByteRanges`: the bytes of each range from one open; a shrunk file is an error. */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDirs } from "@pi-session/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { SessionFileChangedError, SessionFileNotRegularError } from "../errors.js";
import { readByteRanges } from "./byte-ranges.js";

const temps = tempDirs("byte-ranges-");
afterEach(() => temps.cleanup());

describe("readByteRanges", () => {
  it("reads each range, in the order given, empty ones too", () => {
    const path = join(temps.make(), "a.jsonl");
    writeFileSync(path, "0123456789");
    const parts = readByteRanges(path, [
      { start: 7, end: 10 },
      { start: 0, end: 3 },
      { start: 5, end: 5 },
    ]);
    expect(parts.map((b) => b.toString())).toEqual(["789", "012", ""]);
  });

  it("a range past the end: SessionFileChangedError (truncated)", () => {
    const path = join(temps.make(), "a.jsonl");
    writeFileSync(path, "0123");
    let error: unknown;
    try {
      readByteRanges(path, [{ start: 2, end: 6 }]);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SessionFileChangedError);
    expect((error as SessionFileChangedError).reason).toBe("truncated");
  });

  it("never reads a FIFO", { tags: ["processes"] }, () => {
    const fifo = join(temps.make(), "f.jsonl");
    expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
    expect(() => readByteRanges(fifo, [{ start: 0, end: 1 }])).toThrow(SessionFileNotRegularError);
  });
});
