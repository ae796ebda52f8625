/** Tests of `statPath`: what is at a path, links followed; nothing there is null, not an error. */
import { spawnSync } from "node:child_process";
import { mkdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDirs } from "@pi-session/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { statPath } from "./path-stat.js";

const temps = tempDirs("path-stat-");
afterEach(() => temps.cleanup());

describe("statPath", () => {
  it("a file: its kind, size and inode; a link to it: the same", () => {
    const dir = temps.make();
    const file = join(dir, "a.jsonl");
    writeFileSync(file, "12345");
    symlinkSync(file, join(dir, "link.jsonl"));
    const expected = { kind: "file", size: 5, ino: statSync(file).ino, mtimeMs: statSync(file).mtimeMs };
    expect(statPath(file)).toEqual(expected);
    expect(statPath(join(dir, "link.jsonl"))).toEqual(expected);
  });

  it("a directory and a FIFO say what they are", { tags: ["processes"] }, () => {
    const dir = temps.make();
    mkdirSync(join(dir, "d"));
    expect(spawnSync("mkfifo", [join(dir, "f")]).status).toBe(0);
    expect(statPath(join(dir, "d"))?.kind).toBe("a directory");
    expect(statPath(join(dir, "f"))?.kind).toBe("a FIFO");
  });

  it("nothing there (or a dangling link): null", () => {
    const dir = temps.make();
    symlinkSync(join(dir, "gone"), join(dir, "dangling"));
    expect(statPath(join(dir, "missing"))).toBeNull();
    expect(statPath(join(dir, "dangling"))).toBeNull();
  });

  it("other failures are thrown", () => {
    const dir = temps.make();
    writeFileSync(join(dir, "file"), "");
    expect(() => statPath(join(dir, "file", "below"))).toThrow(/ENOTDIR/);
  });
});
