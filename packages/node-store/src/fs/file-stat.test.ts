import {
  appendFileSync,
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  statSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { tempDirs } from "@pi-session/testkit";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { StatProbe, fstatCounts, mtimeDate, statColumns, statFile } from "./file-stat.js";

const dirs = tempDirs("ns-stat-");
afterEach(dirs.cleanup);
const tmp = dirs.make;

describe("StatProbe", () => {
  it("gives statSync's size, mtimeMs, ctimeMs, inode and mtime, fractional times included", () => {
    const dir = tmp();
    const path = join(dir, "a.jsonl");
    const probe = new StatProbe();
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 4096 }),
        // Seconds with sub-millisecond parts, before and after 1970.
        fc.double({ min: -1e9, max: 4e9, noNaN: true }),
        (size, seconds) => {
          writeFileSync(path, "x".repeat(size));
          utimesSync(path, seconds, seconds);
          const want = statSync(path);
          expect(probe.stat(path)).toBe(true);
          expect([probe.size, probe.mtimeMs, probe.ctimeMs, probe.ino]).toEqual([
            want.size,
            want.mtimeMs,
            want.ctimeMs,
            want.ino,
          ]);
          expect(mtimeDate(probe.mtimeMs).getTime()).toBe(want.mtime.getTime());
          expect(statFile(path)).toEqual({
            size: want.size,
            mtimeMs: want.mtimeMs,
            ctimeMs: want.ctimeMs,
            ino: want.ino,
            mtime: want.mtime,
          });
        },
      ),
      { numRuns: 60 },
    );
  });

  it("follows links, and says false where statSync finds nothing or fails, or no regular file", () => {
    const dir = tmp();
    const file = join(dir, "f.jsonl");
    writeFileSync(file, "abc");
    const link = join(dir, "l.jsonl");
    symlinkSync(file, link);
    symlinkSync(join(dir, "l2.jsonl"), join(dir, "l1.jsonl"));
    symlinkSync(join(dir, "l1.jsonl"), join(dir, "l2.jsonl"));
    mkdirSync(join(dir, "d.jsonl"));
    const probe = new StatProbe();
    expect(probe.stat(link)).toBe(true);
    expect(probe.ino).toBe(statSync(file).ino);
    expect(probe.size).toBe(3);
    // Only regular files are sessions: a directory (or FIFO, socket, device) is not statted.
    expect(probe.stat(join(dir, "d.jsonl"))).toBe(false);
    expect(probe.stat(join(dir, "missing.jsonl"))).toBe(false);
    expect(probe.stat(join(file, "below-a-file"))).toBe(false);
    expect(probe.stat(join(dir, "l1.jsonl"))).toBe(false);
    // statSync rejects a NUL byte; the binding would cut the path there.
    expect(probe.stat(`${file}\0.jsonl`)).toBe(false);
    expect(statFile(join(dir, "missing.jsonl"))).toBeUndefined();
  });
});

describe("statColumns", () => {
  /** Files of every kind, the columns statSync gives them (-Infinity: no stat), and a runner. */
  const setup = () => {
    const dir = tmp();
    const file = join(dir, "f.jsonl");
    writeFileSync(file, "abcd");
    utimesSync(file, 1.2345678, 1000.5);
    symlinkSync(file, join(dir, "l.jsonl"));
    symlinkSync(join(dir, "l2.jsonl"), join(dir, "l1.jsonl"));
    symlinkSync(join(dir, "l1.jsonl"), join(dir, "l2.jsonl"));
    mkdirSync(join(dir, "d.jsonl"));
    const paths = ["f.jsonl", "l.jsonl", "d.jsonl", "missing.jsonl", "f.jsonl/below", "l1.jsonl"]
      .map((n) => join(dir, n))
      .concat(`${file}\0.jsonl`);
    const want = paths.map((p) => {
      try {
        const st = statSync(p);
        // Not a regular file (the directory): not statted, as if missing.
        if (st.isFile()) return [st.mtimeMs, st.ctimeMs, st.size, st.ino];
      } catch {
        // Missing, below a file, a loop of links, a NUL byte.
      }
      return [Number.NEGATIVE_INFINITY, 7, 7, 7];
    });
    return { paths, want };
  };
  /** statColumns over paths [1, n) into columns at 3 + j; the columns as [mtime, ctime, size, ino] rows. */
  const run = (paths: string[]) => {
    const n = paths.length + 3;
    const cols = [
      new Float64Array(n).fill(7),
      new Float64Array(n).fill(7),
      new Float64Array(n).fill(7),
      new Float64Array(n).fill(7),
    ] as const;
    statColumns(paths, 1, paths.length, 3, ...cols);
    return Array.from({ length: n }, (_, i) => cols.map((c) => c[i]));
  };

  it("fills the columns with statSync's numbers, -Infinity where it finds nothing, fails or finds no regular file, nothing else", () => {
    const { paths, want } = setup();
    const rows = run(paths);
    // Untouched: the three before `base + from`, and path 0 (before `from`).
    expect(rows.slice(0, 4)).toEqual([
      [7, 7, 7, 7],
      [7, 7, 7, 7],
      [7, 7, 7, 7],
      [7, 7, 7, 7],
    ]);
    expect(rows.slice(4)).toEqual(want.slice(1));
  });
});

describe("fstatCounts", () => {
  it("gives fstatSync's size, inode and link count as the file grows and is unlinked, and throws as it does", () => {
    const path = join(tmp(), "s.jsonl");
    writeFileSync(path, "{}\n");
    const fd = openSync(path, "a");
    try {
      const counts = () => {
        const st = fstatSync(fd);
        return { size: st.size, ino: st.ino, nlink: st.nlink };
      };
      expect(fstatCounts(fd)).toEqual(counts());
      appendFileSync(path, "x".repeat(1000));
      expect(fstatCounts(fd)).toEqual(counts());
      expect(fstatCounts(fd).size).toBe(1003);
      unlinkSync(path);
      expect(fstatCounts(fd)).toEqual(counts());
      expect(fstatCounts(fd).nlink).toBe(0);
    } finally {
      closeSync(fd);
    }
    const code = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return (e as { code?: string }).code;
      }
      return "no error";
    };
    expect(code(() => fstatCounts(fd))).toBe(code(() => fstatSync(fd)));
    expect(code(() => fstatCounts(fd))).toBe("EBADF");
  });
});
