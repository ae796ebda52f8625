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
import { SessionFileChangedError, SessionLockTimeoutError } from "../errors.js";
import { acquireLock } from "../lock/lock.js";
import { removeSession } from "./remove.js";
import { SessionWriter } from "../write/appender.js";
import { createSessionFile } from "../write/create.js";

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
const fixedNow = () => new Date("2025-06-01T12:00:00.000Z");

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
  it("refuses a directory, and touches nothing in it", () => {
    const { path, home, dataHome, trash } = setup();
    const dir = join(home, "sessions");
    expect(
      errorOf(() => removeSession(dir, { env: { XDG_DATA_HOME: dataHome }, home, platform: "linux" })),
    ).toMatchObject({
      code: "EISDIR",
    });
    expect(readdirSync(dir)).toEqual(["s.jsonl"]);
    expect(lstatSync(path).isFile()).toBe(true);
    expect(readdirSync(trash)).toEqual([]);
  });

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

describe("removeSession and the session's companion files", () => {
  /** Every kind of companion file our writers, the CLI and the SDK leave next to a session. */
  const companionNames = [
    "s.jsonl.bak-2025-06-01T12-00-00-000Z", // rewriteSessionFile / CLI name, label: backup
    "s.jsonl.bak-2025-06-01T12-00-00-000Z-1", // ... a second one in the same millisecond
    "s.jsonl.torn-2025-06-01T12-00-00-000Z", // a torn tail's fragment
    "s.jsonl.torn-2025-06-01T12-00-00-000Z-2",
    "s.jsonl.removed-2025-06-01T12-00-00-000Z", // CLI repair: the cut bytes
    "s.jsonl.v1.bak", // SDK migration backups
    "s.jsonl.v2.1.bak",
  ];
  /** Names that look alike but are not ours: never touched. */
  const strangers = [
    "s.jsonl.bak",
    "s.jsonl.bak-notes",
    "s.jsonl.bak-2025-06-01T12-00-00-000Z.txt",
    "s.jsonl.torn-2025-06-01",
    "s.jsonl.vx.bak",
    "s.jsonl.lock.break",
    "xs.jsonl.bak-2025-06-01T12-00-00-000Z",
    "t.jsonl.v1.bak",
    ".s.jsonl.tmp-1-abc",
  ];
  const sessionsDir = (path: string) => join(path, "..");
  function withCompanions(path: string): void {
    for (const name of [...companionNames, ...strangers])
      writeFileSync(join(sessionsDir(path), name), `${name}\n`);
  }

  it("moves them to the trash with the session, each with its own .trashinfo, and reports them", () => {
    const { path, home, dataHome, trash } = setup();
    withCompanions(path);
    const r = removeSession(path, { env: { XDG_DATA_HOME: dataHome }, home, platform: "linux" });
    expect(r.method).toBe("trash");
    expect(r.companions.map((c) => c.path)).toEqual(
      [...companionNames].sort().map((n) => join(sessionsDir(path), n)),
    );
    for (const c of r.companions) {
      expect(existsSync(c.path)).toBe(false);
      expect(readFileSync(c.trashPath ?? "", "utf8")).toBe(`${c.path.slice(sessionsDir(path).length + 1)}\n`);
      const name = c.trashPath?.slice(join(trash, "files").length + 1);
      expect(readFileSync(join(trash, "info", `${name}.trashinfo`), "utf8")).toContain(`Path=${c.path}\n`);
    }
    expect(readdirSync(sessionsDir(path)).sort()).toEqual([...strangers].sort());
    expect(r.failed).toBeUndefined();
  });

  it("unlinks them in unlink mode", () => {
    const { path, home } = setup();
    withCompanions(path);
    const r = removeSession(path, { home, platform: "linux", trash: false });
    expect(r).toMatchObject({ method: "unlink" });
    expect(r.companions).toHaveLength(companionNames.length);
    expect(r.companions.every((c) => c.trashPath === undefined)).toBe(true);
    expect(readdirSync(sessionsDir(path)).sort()).toEqual([...strangers].sort());
  });

  it("keeps them with keepCompanions", () => {
    const { path, home } = setup();
    withCompanions(path);
    const r = removeSession(path, { home, platform: "linux", trash: false, keepCompanions: true });
    expect(r).toEqual({ method: "unlink", companions: [] });
    expect(readdirSync(sessionsDir(path)).sort()).toEqual([...companionNames, ...strangers].sort());
  });

  it("removes the backups a rewrite made", () => {
    const { path, home } = setup();
    const w = SessionWriter.open(path);
    w.rewrite([header, entry("a")], { backup: true, now: fixedNow });
    w.rewrite([header, entry("b")], { backup: true, now: fixedNow });
    w.close();
    expect(readdirSync(sessionsDir(path)).length).toBe(3);
    const r = removeSession(path, { home, platform: "linux", trash: false });
    expect(r.companions).toHaveLength(2);
    expect(readdirSync(sessionsDir(path))).toEqual([]);
  });

  it("leaves a companion that is not a regular file", () => {
    const { path, home } = setup();
    mkdirSync(join(sessionsDir(path), "s.jsonl.v1.bak"));
    symlinkSync(path, join(sessionsDir(path), "s.jsonl.v2.bak"));
    const r = removeSession(path, { home, platform: "linux", trash: false });
    expect(r.companions).toEqual([]);
    expect(readdirSync(sessionsDir(path)).sort()).toEqual(["s.jsonl.v1.bak", "s.jsonl.v2.bak"]);
  });

  it("reports a companion it could not remove, after removing the session", () => {
    const { path, home } = setup();
    withCompanions(path);
    const stuck = join(sessionsDir(path), "s.jsonl.v1.bak");
    const r = removeSession(path, {
      home,
      platform: "linux",
      trash: false,
      fs: {
        unlinkSync: (p) => {
          if (p === stuck)
            throw Object.assign(new Error("EPERM: operation not permitted"), { code: "EPERM" });
          nodeFs.unlinkSync(p);
        },
      },
    });
    expect(existsSync(path)).toBe(false);
    expect(r.companions).toHaveLength(companionNames.length - 1);
    expect(r.failed?.map((f) => [f.path, (f.error as { code?: unknown }).code])).toEqual([[stuck, "EPERM"]]);
    expect(existsSync(stuck)).toBe(true);
  });

  it("removes no companions of the file a link points to", () => {
    const { path, home } = setup();
    withCompanions(path);
    const link = join(home, "s.jsonl");
    symlinkSync(path, link);
    const r = removeSession(link, { home, platform: "linux", trash: false });
    expect(r.companions).toEqual([]);
    expect(readdirSync(sessionsDir(path)).length).toBe(1 + companionNames.length + strangers.length);
  });
});
