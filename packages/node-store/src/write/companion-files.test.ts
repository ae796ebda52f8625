/**
 * Tests of the files kept beside a session: their names (`companionPaths`,
 * `migrationBackupPath`), the backup copy the CLI's `name` and `label` take, and the cut bytes
 * a rewrite keeps aside (`removedBytes`). Every name made here is one `removeSession` takes
 * along with its session.
 */
import { spawnSync } from "node:child_process";
import { appendFileSync, chmodSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { tempDirs } from "@pi-session/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { SessionFileChangedError, SessionFileNotRegularError } from "../errors.js";
import { isCompanionSuffix } from "./companion-names.js";
import { backupSessionFile } from "./companion-files.js";
import { companionPaths, fileTimestamp, migrationBackupPath } from "./companion-names.js";
import { rewriteSessionFile } from "./rewrite.js";

const temps = tempDirs("companions-");
afterEach(() => temps.cleanup());

const NOW = new Date("2025-03-04T05:06:07.089Z");

function sessionIn(dir: string, text = '{"type":"session","version":3,"id":"s1"}\n'): string {
  const path = join(dir, "2025-03-04T05-06-07-089Z_s1.jsonl");
  writeFileSync(path, text);
  return path;
}

describe("companion names", () => {
  it("a timestamped name, then -1, -2 ... for the same millisecond", () => {
    const names = companionPaths("/d/f.jsonl", "removed", NOW);
    expect([names.next().value, names.next().value, names.next().value]).toEqual([
      "/d/f.jsonl.removed-2025-03-04T05-06-07-089Z",
      "/d/f.jsonl.removed-2025-03-04T05-06-07-089Z-1",
      "/d/f.jsonl.removed-2025-03-04T05-06-07-089Z-2",
    ]);
    expect(fileTimestamp(NOW)).toBe("2025-03-04T05-06-07-089Z");
  });

  it("every kind of name is one a removal takes along", () => {
    for (const kind of ["bak", "torn", "removed"] as const) {
      const names = companionPaths("f.jsonl", kind, NOW);
      for (const name of [names.next().value, names.next().value])
        expect(isCompanionSuffix((name as string).slice("f.jsonl".length)), name).toBe(true);
    }
    expect(isCompanionSuffix(".v1.bak")).toBe(true);
    expect(isCompanionSuffix(".v2.1.bak")).toBe(true);
  });

  it("a migration backup takes the first free .v<N>[.<n>].bak", () => {
    const path = sessionIn(temps.make());
    expect(migrationBackupPath(path, 1)).toBe(`${path}.v1.bak`);
    writeFileSync(`${path}.v1.bak`, "");
    expect(migrationBackupPath(path, 1)).toBe(`${path}.v1.1.bak`);
    writeFileSync(`${path}.v1.1.bak`, "");
    expect(migrationBackupPath(path, 1)).toBe(`${path}.v1.2.bak`);
    expect(migrationBackupPath(path, 2)).toBe(`${path}.v2.bak`);
  });
});

describe("backupSessionFile", () => {
  it("copies the bytes and the permissions, and keeps them while the session grows", () => {
    const path = sessionIn(temps.make());
    chmodSync(path, 0o640);
    const backup = backupSessionFile(path, { now: NOW });
    expect(backup.path).toBe(`${path}.bak-2025-03-04T05-06-07-089Z`);
    appendFileSync(path, '{"type":"label"}\n');
    expect(readFileSync(backup.path, "utf8")).toBe('{"type":"session","version":3,"id":"s1"}\n');
    expect(statSync(backup.path).mode & 0o777).toBe(0o640);
    expect(statSync(backup.path).ino).not.toBe(statSync(path).ino);
  });

  it("never over an existing file: a second backup in the same millisecond is -1", () => {
    const path = sessionIn(temps.make());
    const first = backupSessionFile(path, { now: NOW });
    const second = backupSessionFile(path, { now: NOW });
    expect(second.path).toBe(`${first.path}-1`);
  });

  it("discard removes the backup (twice is fine)", () => {
    const dir = temps.make();
    const path = sessionIn(dir);
    const backup = backupSessionFile(path, { now: NOW });
    backup.discard();
    backup.discard();
    expect(readdirSync(dir)).toEqual([basename(path)]);
  });

  it("refuses what is not a regular file, and leaves nothing behind", { tags: ["processes"] }, () => {
    const dir = temps.make();
    const fifo = join(dir, "f.jsonl");
    expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
    expect(() => backupSessionFile(fifo)).toThrow(SessionFileNotRegularError);
    expect(() => backupSessionFile(join(dir, "missing.jsonl"))).toThrow(/ENOENT/);
    expect(readdirSync(dir)).toEqual(["f.jsonl"]);
  });
});

describe("rewriteSessionFile removedBytes", () => {
  it("keeps the cut bytes in a .removed-<time> file (0600) and says where", () => {
    const path = sessionIn(temps.make());
    const result = rewriteSessionFile(path, [{ type: "session", version: 3, id: "s1" }], {
      removedBytes: Buffer.from("broken line\n"),
      now: () => NOW,
    });
    expect(result.removedPath).toBe(`${path}.removed-2025-03-04T05-06-07-089Z`);
    expect(readFileSync(result.removedPath as string, "utf8")).toBe("broken line\n");
    expect(statSync(result.removedPath as string).mode & 0o777).toBe(0o600);
  });

  it("no bytes, no file", () => {
    const dir = temps.make();
    const path = sessionIn(dir);
    const result = rewriteSessionFile(path, [{ type: "session", version: 3, id: "s1" }], {
      removedBytes: new Uint8Array(0),
    });
    expect(result.removedPath).toBeUndefined();
    expect(readdirSync(dir)).toEqual([basename(path)]);
  });

  it("a rewrite that is refused removes them again (they are still in the file)", () => {
    const dir = temps.make();
    const path = sessionIn(dir);
    const before = readFileSync(path);
    expect(() =>
      rewriteSessionFile(path, [{ type: "session", version: 3, id: "s1" }], {
        removedBytes: Buffer.from("x\n"),
        expectedSize: before.length + 1,
      }),
    ).toThrow(SessionFileChangedError);
    expect(readdirSync(dir)).toEqual([basename(path)]);
    expect(readFileSync(path)).toEqual(before);
  });
});
