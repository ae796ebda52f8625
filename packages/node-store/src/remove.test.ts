/**
 * Tests of `removeSession`: it takes the session lock (a writer holding a lease cannot append
 * into a trashed file), removes the session's companion files with it, cleans up after a
 * failed cross-filesystem move, and removes a dangling link.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync } from "node:fs";
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
