/**
 * Tests of `listSessionFilesUnder`: `.jsonl` regular files at any depth, in path order; links
 * to files followed, to directories not; what is no session passed by; what cannot be read
 * reported (or thrown).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDirs } from "@pi-session/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { listSessionFilesUnder } from "./files-under.js";

const temps = tempDirs("files-under-");
afterEach(() => temps.cleanup());

describe("listSessionFilesUnder", () => {
  it("finds .jsonl regular files at any depth, sorted by path", () => {
    const dir = temps.make();
    mkdirSync(join(dir, "b", "deep"), { recursive: true });
    mkdirSync(join(dir, "a"));
    for (const f of ["z.jsonl", "b/deep/x.jsonl", "a/y.jsonl", "a/notes.txt"])
      writeFileSync(join(dir, f), "");
    expect(listSessionFilesUnder(dir)).toEqual(
      ["a/y.jsonl", "b/deep/x.jsonl", "z.jsonl"].map((f) => join(dir, f)),
    );
  });

  it("follows a .jsonl link to a file, not a link to a directory; passes FIFOs by", {
    tags: ["processes"],
  }, () => {
    const dir = temps.make();
    const outside = temps.make();
    writeFileSync(join(outside, "real.jsonl"), "");
    symlinkSync(join(outside, "real.jsonl"), join(dir, "linked.jsonl"));
    symlinkSync(outside, join(dir, "dirlink"));
    expect(spawnSync("mkfifo", [join(dir, "fifo.jsonl")]).status).toBe(0);
    expect(listSessionFilesUnder(dir)).toEqual([join(dir, "linked.jsonl")]);
    // What is passed by is told to onNotRegular: the FIFO and a .jsonl link to a directory.
    symlinkSync(outside, join(dir, "dir-link.jsonl"));
    const notRegular: string[] = [];
    expect(listSessionFilesUnder(dir, { onNotRegular: (path) => notRegular.push(path) })).toEqual([
      join(dir, "linked.jsonl"),
    ]);
    expect(notRegular.sort()).toEqual([join(dir, "dir-link.jsonl"), join(dir, "fifo.jsonl")]);
  });

  it("a dangling .jsonl link is reported and the walk goes on; without a callback it is thrown", () => {
    const dir = temps.make();
    writeFileSync(join(dir, "ok.jsonl"), "");
    symlinkSync(join(dir, "gone"), join(dir, "dangling.jsonl"));
    const reported: string[] = [];
    const found = listSessionFilesUnder(dir, {
      onUnreadable: (path, error) => reported.push(`${path} ${(error as { code?: string }).code}`),
    });
    expect(found).toEqual([join(dir, "ok.jsonl")]);
    expect(reported).toEqual([`${join(dir, "dangling.jsonl")} ENOENT`]);
    expect(() => listSessionFilesUnder(dir)).toThrow(/ENOENT/);
  });

  it("a missing directory is reported as unreadable", () => {
    const reported: string[] = [];
    const missing = join(temps.make(), "missing");
    expect(listSessionFilesUnder(missing, { onUnreadable: (path) => reported.push(path) })).toEqual([]);
    expect(reported).toEqual([missing]);
  });
});
