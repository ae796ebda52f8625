/**
 * Tests of `removeSession`: it takes the session lock (a writer holding a lease cannot append
 * into a trashed file), removes the session's companion files with it, cleans up after a
 * failed cross-filesystem move, and removes a dangling link.
 */
import * as nodeFs from "node:fs";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { tempDirs } from "@pi-session/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { SessionFileChangedError, SessionLockTimeoutError } from "./errors.js";
import { acquireLock } from "./lock.js";
import { removeSession } from "./remove.js";
import { SessionWriter, createSessionFile } from "./write.js";

const dirs = tempDirs("ns-remove-");
afterEach(dirs.cleanup);
const tmp = dirs.make;

const header = { type: "session", version: 3, id: "abc", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/p" };
const entry = (id: string) => ({
  type: "message",
  id,
  parentId: null,
  timestamp: "2025-01-01T00:00:01.000Z",
  message: { role: "user", content: `text ${id}`, timestamp: 1 },
});
const line = (v: unknown) => `${JSON.stringify(v)}\n`;

/** A session file and a home with an existing freedesktop trash. */
function setup(): { path: string; home: string; dataHome: string; trash: string } {
  const home = tmp();
  const dataHome = join(home, "data");
  const trash = join(dataHome, "Trash");
  mkdirSync(trash, { recursive: true });
  const path = join(home, "sessions", "s.jsonl");
  createSessionFile(path, [header]);
  return { path, home, dataHome, trash };
}

function errorOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

describe("removeSession and a writer's lease", () => {
  it("a writer holding a lease cannot append into the trashed file", () => {
    const { path, home, dataHome } = setup();
    // A long lease: the second append comes well within it.
    const writer = SessionWriter.open(path, { leaseMs: 60_000, maxHoldMs: 60_000 });
    try {
      writer.append(entry("a"));
      const r = removeSession(path, { env: { XDG_DATA_HOME: dataHome }, home, platform: "linux" });
      expect(r.method).toBe("trash");
      const error = errorOf(() => writer.append(entry("b")));
      expect(error).toBeInstanceOf(SessionFileChangedError);
      expect((error as SessionFileChangedError).reason).toBe("deleted");
      expect(readFileSync(r.trashPath ?? "", "utf8")).toBe(line(header) + line(entry("a")));
      expect(existsSync(path)).toBe(false);
    } finally {
      writer.close();
    }
  });

  it("does so in unlink mode too, and leaves no lock file behind", () => {
    const { path, home } = setup();
    const writer = SessionWriter.open(path, { leaseMs: 60_000, maxHoldMs: 60_000 });
    try {
      writer.append(entry("a"));
      expect(removeSession(path, { home, platform: "linux", trash: false }).method).toBe("unlink");
      const error = errorOf(() => writer.append(entry("b")));
      expect((error as SessionFileChangedError).reason).toBe("deleted");
    } finally {
      writer.close();
    }
    expect(readdirSync(join(path, ".."))).toEqual([]);
  });

  it("waits for the lock (and removes nothing when it cannot get it)", () => {
    const { path, home, dataHome } = setup();
    const lock = acquireLock(path);
    try {
      expect(() =>
        removeSession(path, {
          env: { XDG_DATA_HOME: dataHome },
          home,
          platform: "linux",
          lockOptions: { timeoutMs: 30 },
        }),
      ).toThrow(SessionLockTimeoutError);
      expect(existsSync(path)).toBe(true);
    } finally {
      lock.release();
    }
  });
});

describe("removeSession across filesystems (EXDEV: copy, then unlink)", () => {
  const exdev = () => {
    throw Object.assign(new Error("EXDEV: cross-device link not permitted"), { code: "EXDEV" });
  };

  it("a copy that fails part way leaves nothing in the trash", () => {
    const { path, home, dataHome, trash } = setup();
    const before = readFileSync(path);
    const error = errorOf(() =>
      removeSession(path, {
        env: { XDG_DATA_HOME: dataHome },
        home,
        platform: "linux",
        fs: {
          renameSync: exdev,
          copyFileSync: (_from, to) => {
            // A copy that wrote part of the file, then ran out of space.
            writeFileSync(to as string, before.subarray(0, 10));
            throw Object.assign(new Error("ENOSPC: no space left on device"), { code: "ENOSPC" });
          },
        },
      }),
    );
    expect((error as { code?: unknown }).code).toBe("ENOSPC");
    expect(readdirSync(join(trash, "files"))).toEqual([]);
    expect(readdirSync(join(trash, "info"))).toEqual([]);
    expect(readFileSync(path)).toEqual(before);
  });

  it("an unlink that fails after the copy leaves no copy in the trash", () => {
    const { path, home, dataHome, trash } = setup();
    const before = readFileSync(path);
    const error = errorOf(() =>
      removeSession(path, {
        env: { XDG_DATA_HOME: dataHome },
        home,
        platform: "linux",
        fs: {
          renameSync: exdev,
          unlinkSync: (p) => {
            if (p === path)
              throw Object.assign(new Error("EPERM: operation not permitted"), { code: "EPERM" });
            nodeFs.unlinkSync(p);
          },
        },
      }),
    );
    expect((error as { code?: unknown }).code).toBe("EPERM");
    expect(readdirSync(join(trash, "files"))).toEqual([]);
    expect(readdirSync(join(trash, "info"))).toEqual([]);
    expect(readFileSync(path)).toEqual(before);
  });

  it("moves a link as a link", () => {
    const { path, home, dataHome, trash } = setup();
    const link = join(path, "..", "l.jsonl");
    symlinkSync("s.jsonl", link);
    const r = removeSession(link, {
      env: { XDG_DATA_HOME: dataHome },
      home,
      platform: "linux",
      fs: { renameSync: exdev },
    });
    expect(r.trashPath).toBe(join(trash, "files", "l.jsonl"));
    expect(readlinkSync(r.trashPath ?? "")).toBe("s.jsonl");
    expect(existsSync(link)).toBe(false);
    expect(readFileSync(path, "utf8")).toBe(line(header));
  });
});

describe("removeSession and links", () => {
  it("removes a dangling link (it is there, only its target is not)", () => {
    const { home, dataHome, trash } = setup();
    const link = join(home, "sessions", "gone.jsonl");
    symlinkSync(join(home, "nowhere", "x.jsonl"), link);
    const r = removeSession(link, { env: { XDG_DATA_HOME: dataHome }, home, platform: "linux" });
    expect(r.method).toBe("trash");
    expect(lstatSync(r.trashPath ?? "").isSymbolicLink()).toBe(true);
    expect(readdirSync(join(trash, "info"))).toEqual(["gone.jsonl.trashinfo"]);
    expect(() => lstatSync(link)).toThrow();
    const link2 = join(home, "sessions", "gone2.jsonl");
    symlinkSync(join(home, "nowhere", "x.jsonl"), link2);
    expect(removeSession(link2, { home, platform: "linux", trash: false }).method).toBe("unlink");
    expect(() => lstatSync(link2)).toThrow();
  });

  it("does not move a new file over a dangling link already in the trash", () => {
    const { path, home, dataHome, trash } = setup();
    mkdirSync(join(trash, "files"));
    symlinkSync(join(home, "nowhere"), join(trash, "files", "s.jsonl"));
    const r = removeSession(path, { env: { XDG_DATA_HOME: dataHome }, home, platform: "linux" });
    expect(r.trashPath).toBe(join(trash, "files", "s.2.jsonl"));
    expect(lstatSync(join(trash, "files", "s.jsonl")).isSymbolicLink()).toBe(true);
  });

  it("removes the link, not the file it points to", () => {
    const { path, home } = setup();
    const link = join(home, "l.jsonl");
    symlinkSync(path, link);
    expect(removeSession(link, { home, platform: "linux", trash: false }).method).toBe("unlink");
    expect(existsSync(link)).toBe(false);
    expect(readFileSync(path, "utf8")).toBe(line(header));
  });
});
