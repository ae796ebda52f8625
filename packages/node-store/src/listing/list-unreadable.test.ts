/**
 * What the listings (`listAllSessions`, `listSessionDir`, `listStoreFiles`) leave out because
 * they cannot read it is reported through `onUnreadable`, with why; what is no session (a FIFO
 * or a directory named like one) is passed by unreported. Tagged `processes` because mkfifo(1)
 * makes the FIFO (Node has no mkfifo).
 * @module-tag processes
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDirs } from "@pi-session/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { listAllSessions, listSessionDir } from "./list.js";
import { listStoreFiles } from "./store-files.js";

const dirs = tempDirs("ns-unreadable-");
afterEach(dirs.cleanup);

const session = (id: string) =>
  `${JSON.stringify({ type: "session", version: 3, id, timestamp: "2026-01-01T00:00:00.000Z", cwd: "/p" })}\n${JSON.stringify({ type: "message", id: "a1", parentId: null, timestamp: "2026-01-01T00:00:01.000Z", message: { role: "user", content: "hi", timestamp: 1 } })}\n`;

/**
 * A store with one good session and, in its project directory, what cannot be read: a dangling
 * link, a directory and a FIFO named like sessions. (Unreadable for lack of permission is tested
 * through the CLI, which can run as another user when the tests run as root.)
 */
function store(): { root: string; project: string } {
  const root = dirs.make();
  const project = join(root, "--p--");
  mkdirSync(project);
  writeFileSync(join(project, "good.jsonl"), session("good"));
  symlinkSync(join(project, "gone.jsonl"), join(project, "dangling.jsonl"));
  mkdirSync(join(project, "dir.jsonl"));
  expect(spawnSync("mkfifo", [join(project, "fifo.jsonl")]).status).toBe(0);
  return { root, project };
}

describe("onUnreadable", () => {
  for (const progress of [false, true]) {
    it(`listAllSessions reports each unreadable candidate with its error, not what is no session, lists the rest${progress ? " (with progress)" : ""}`, async () => {
      const { root, project } = store();
      const seen: [string, string | undefined][] = [];
      const infos = await listAllSessions(root, {
        cache: false,
        onUnreadable: (path, error) => seen.push([path, (error as { code?: string }).code]),
        ...(progress ? { onProgress: () => {} } : {}),
      });
      expect(infos.map((i) => i.id)).toEqual(["good"]);
      expect(seen.sort()).toEqual([[join(project, "dangling.jsonl"), "ENOENT"]]);
    });
  }

  it("listSessionDir reports them too; a missing directory is not reported", async () => {
    const { project } = store();
    const seen: string[] = [];
    const onUnreadable = (path: string) => seen.push(path);
    expect((await listSessionDir(project, { cache: false, onUnreadable })).map((i) => i.id)).toEqual([
      "good",
    ]);
    expect(seen).toEqual([join(project, "dangling.jsonl")]);
    seen.length = 0;
    expect(await listSessionDir(join(project, "nope"), { cache: false, onUnreadable })).toEqual([]);
    expect(await listAllSessions(join(project, "nope"), { cache: false, onUnreadable })).toEqual([]);
    expect(seen).toEqual([]);
  });
});

describe("listStoreFiles onUnreadable", () => {
  it("reports what it cannot read, not what is no session", () => {
    const { root, project } = store();
    mkdirSync(join(root, "odd.jsonl"));
    const seen: [string, string | undefined][] = [];
    const files = listStoreFiles(root, {
      onUnreadable: (path, e) => seen.push([path, (e as { code?: string }).code]),
    });
    expect(files.map((f) => f.path)).toEqual([join(project, "good.jsonl")]);
    expect(seen).toEqual([[join(project, "dangling.jsonl"), "ENOENT"]]);
  });
});

describe("listStoreFiles onNotRegular", () => {
  it("tells each .jsonl entry that is no regular file (directory, FIFO), in the root and the projects", () => {
    const { root, project } = store();
    mkdirSync(join(root, "odd.jsonl"));
    const notRegular: string[] = [];
    const unreadable: string[] = [];
    const files = listStoreFiles(root, {
      onNotRegular: (path) => notRegular.push(path),
      onUnreadable: (path) => unreadable.push(path),
    });
    expect(files.map((f) => f.path)).toEqual([join(project, "good.jsonl")]);
    expect(notRegular.sort()).toEqual(
      [join(root, "odd.jsonl"), join(project, "dir.jsonl"), join(project, "fifo.jsonl")].sort(),
    );
    // The dangling link is unreadable, not "no regular file"; without onUnreadable it is still not told here.
    expect(unreadable).toEqual([join(project, "dangling.jsonl")]);
    const alone: string[] = [];
    listStoreFiles(root, { onNotRegular: (path) => alone.push(path) });
    expect(alone.sort()).toEqual(notRegular.sort());
  });
});
