/**
 * The kept-open writer: many appends share one descriptor, other processes' appends are still
 * absorbed, and the descriptor (and lock lease) is released without a call to `close()` — when
 * the manager is garbage-collected, and at process exit. Descriptors are counted through
 * `/proc/self/fd` (Linux, as CI).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { type AgentMessage, SessionManager } from "./index.js";

const cacheHome = mkdtempSync(join(tmpdir(), "pi-sdk-cache-"));
process.env.XDG_CACHE_HOME = cacheHome;
afterAll(() => rmSync(cacheHome, { recursive: true, force: true }));

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "pi-sdk-fd-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const U = (text: string): AgentMessage => ({ role: "user", content: text, timestamp: 1 });

/** Descriptor numbers of this process open on `path`. */
function fdsOn(path: string): string[] {
  return readdirSync("/proc/self/fd").filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === path;
    } catch {
      return false; // closed while listing (e.g. the listing's own descriptor)
    }
  });
}

const DIST = new URL("../dist/index.js", import.meta.url).href;

/** Runs an ES module script with node (async, so this process's lease timer can fire meanwhile). */
function runNode(script: string, args: string[] = []): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...args, "--input-type=module", "-e", script], {
      env: { ...process.env, XDG_CACHE_HOME: cacheHome },
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      err += d.toString();
    });
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve(out) : reject(new Error(`node exited ${code}: ${err}`)),
    );
  });
}

describe("one writer per manager", () => {
  it("many appends reuse one descriptor; close() releases it and the lock", () => {
    const sm = SessionManager.create(dir, dir);
    sm.appendMessage(U("first")); // creates the file (one exclusive write, closed)
    const path = sm.getSessionFile() as string;
    expect(fdsOn(path)).toEqual([]);
    const seen = new Set<string>();
    for (let i = 0; i < 300; i++) {
      sm.appendMessage(U(`m${i}`));
      const fds = fdsOn(path);
      expect(fds).toHaveLength(1);
      seen.add(fds[0] as string);
    }
    expect(seen.size).toBe(1);
    expect(readFileSync(path, "utf8").trim().split("\n")).toHaveLength(302);
    sm.close();
    expect(fdsOn(path)).toEqual([]);
    expect(existsSync(`${path}.lock`)).toBe(false);
    // Still usable after close(): the next append reopens.
    sm.appendMessage(U("after close"));
    expect(fdsOn(path)).toHaveLength(1);
    sm.close();
    expect(SessionManager.open(path).getEntries()).toHaveLength(302);
  });

  it("switching to another session closes the previous file's descriptor", () => {
    const sm = SessionManager.create(dir, dir);
    sm.appendMessage(U("a"));
    sm.appendMessage(U("b"));
    const path = sm.getSessionFile() as string;
    expect(fdsOn(path)).toHaveLength(1);
    sm.newSession();
    expect(fdsOn(path)).toEqual([]);
    sm.appendMessage(U("c"));
    sm.appendMessage(U("d"));
    const next = sm.getSessionFile() as string;
    expect(fdsOn(next)).toHaveLength(1);
    sm.setSessionFile(path);
    expect(fdsOn(next)).toEqual([]);
    sm.close();
  });

  it("changing durability reopens the writer, still one descriptor", () => {
    const sm = SessionManager.create(dir, dir);
    sm.appendMessage(U("a"));
    sm.appendMessage(U("b"));
    const path = sm.getSessionFile() as string;
    sm.setWriteOptions({ fsync: true });
    sm.appendMessage(U("c"));
    expect(fdsOn(path)).toHaveLength(1);
    sm.close();
    expect(SessionManager.open(path).getEntries()).toHaveLength(3);
  });

  it("a second manager appending between our appends (same process) is absorbed", () => {
    const first = SessionManager.create(dir, dir);
    first.appendMessage(U("one"));
    const two = first.appendMessage(U("two")); // first now holds an open writer and a lock lease
    const path = first.getSessionFile() as string;
    const second = SessionManager.open(path);
    const theirs = second.appendMessage(U("theirs")); // takes the lease over, no wait
    const seen: string[] = [];
    first.onForeignEntries((entries) => seen.push(...entries.map((e) => e.id)));
    const ours = first.appendMessage(U("three"));
    expect(seen).toEqual([theirs]);
    expect(first.getEntry(theirs)).toBeDefined();
    expect(first.getLeafId()).toBe(ours);
    expect(first.getEntry(ours)?.parentId).toBe(two); // the leaf stays ours
    const reopened = SessionManager.open(path);
    expect(reopened.getEntries().map((e) => e.id)).toEqual(first.getEntries().map((e) => e.id));
    first.close();
    second.close();
  });

  it("another process appending between our appends is absorbed", { tags: ["processes"] }, async () => {
    const sm = SessionManager.create(dir, dir);
    sm.appendMessage(U("one"));
    sm.appendMessage(U("two")); // open writer, lease held for a moment
    const path = sm.getSessionFile() as string;
    const seen: string[] = [];
    sm.onForeignEntries((entries) => seen.push(...entries.map((e) => e.id)));
    const out = await runNode(
      `import { SessionManager } from ${JSON.stringify(DIST)};
       const sm = SessionManager.open(${JSON.stringify(path)});
       const a = sm.appendMessage({ role: "user", content: "child 1", timestamp: 1 });
       const b = sm.appendMessage({ role: "user", content: "child 2", timestamp: 1 });
       console.log(JSON.stringify([a, b]));`,
    );
    const childIds = JSON.parse(out) as string[];
    const ours = sm.appendMessage(U("three"));
    expect(seen).toEqual(childIds);
    expect(
      sm
        .getEntries()
        .map((e) => e.id)
        .slice(2),
    ).toEqual([...childIds, ours]);
    expect(fdsOn(path)).toHaveLength(1);
    sm.close();
    const reopened = SessionManager.open(path);
    expect(reopened.getEntries().map((e) => e.id)).toEqual(sm.getEntries().map((e) => e.id));
  });
});

describe("releasing the descriptor without close()", { tags: ["processes"] }, () => {
  const fdsOnSource = `
    import { readdirSync, readlinkSync, existsSync } from "node:fs";
    const fdsOn = (path) => readdirSync("/proc/self/fd").filter((fd) => {
      try { return readlinkSync("/proc/self/fd/" + fd) === path; } catch { return false; }
    }).length;`;

  it("the descriptor is closed once a dropped manager is garbage-collected", async () => {
    const out = await runNode(
      `import { SessionManager } from ${JSON.stringify(DIST)};
       ${fdsOnSource}
       function work() {
         const sm = SessionManager.create(${JSON.stringify(dir)}, ${JSON.stringify(dir)});
         for (let i = 0; i < 50; i++) sm.appendMessage({ role: "user", content: "m" + i, timestamp: 1 });
         return sm.getSessionFile();
       }
       const path = work();
       const before = fdsOn(path);
       let after = before;
       for (let round = 0; round < 50 && after > 0; round++) {
         globalThis.gc();
         await new Promise((r) => setTimeout(r, 20));
         after = fdsOn(path);
       }
       console.log(JSON.stringify({ path, before, after, lock: existsSync(path + ".lock") }));`,
      ["--expose-gc"],
    );
    const result = JSON.parse(out) as { path: string; before: number; after: number; lock: boolean };
    expect(result.before).toBe(1);
    expect(result.after).toBe(0);
    expect(result.lock).toBe(false);
    expect(SessionManager.open(result.path).getEntries()).toHaveLength(50);
  });

  it("a process that exits right after appending leaves no lock file behind", async () => {
    const out = await runNode(
      `import { SessionManager } from ${JSON.stringify(DIST)};
       const sm = SessionManager.create(${JSON.stringify(dir)}, ${JSON.stringify(dir)});
       for (let i = 0; i < 5; i++) sm.appendMessage({ role: "user", content: "m" + i, timestamp: 1 });
       console.log(JSON.stringify(sm.getSessionFile()));`,
    );
    const path = JSON.parse(out) as string;
    expect(existsSync(path)).toBe(true);
    expect(existsSync(`${path}.lock`)).toBe(false);
    expect(SessionManager.open(path).getEntries()).toHaveLength(5);
  });
});
