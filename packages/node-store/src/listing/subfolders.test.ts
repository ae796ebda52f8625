/**
 * Sessions in subfolders of project directories (subagent sessions): found by the store's
 * file list and, when asked, by the listing (cold and warm alike, the cache keyed by their
 * paths), never by pi's own listing rules; and the rules that put a session under its parent.
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDirs } from "@pi-session/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { isInSubfolder, layoutParentOf, sessionParentOf } from "../layout/subagents.js";
import { listAllSessions } from "./list.js";
import { listStoreFiles } from "./store-files.js";

const dirs = tempDirs("ns-sub-");
afterEach(dirs.cleanup);

const session = (id: string, cwd: string, extra: object = {}) =>
  `${JSON.stringify({ type: "session", version: 3, id, timestamp: "2026-01-01T00:00:00.000Z", cwd, ...extra })}\n${JSON.stringify(
    {
      type: "message",
      id: `${id}-m`,
      parentId: null,
      timestamp: "2026-01-01T00:00:01.000Z",
      message: { role: "user", content: `task of ${id}`, timestamp: 1 },
    },
  )}\n`;

/** A store with a parent, its pi-subagents child, a grandchild, a `subagents` folder and a link loop. */
function store() {
  const root = dirs.make();
  const project = join(root, "--work-app--");
  const parentBase = "2026-01-01T00-00-00-000Z_p1";
  const parent = join(project, `${parentBase}.jsonl`);
  const child = join(project, parentBase, "run7", "run-0", "session.jsonl");
  const grandchild = join(project, parentBase, "run7", "run-0", "session", "run9", "run-0", "session.jsonl");
  const loose = join(project, "subagents", "x.jsonl");
  mkdirSync(join(project, parentBase, "run7", "run-0", "session", "run9", "run-0"), { recursive: true });
  mkdirSync(join(project, "subagents"), { recursive: true });
  writeFileSync(parent, session("p1", "/work/app"));
  writeFileSync(child, session("c1", "/work/app"));
  writeFileSync(grandchild, session("g1", "/work/app"));
  writeFileSync(loose, session("l1", "/work/app"));
  // A link back up must not make the walk loop.
  symlinkSync(project, join(project, parentBase, "loop"));
  return { root, project, parent, child, grandchild, loose };
}

describe("sessions in subfolders", () => {
  it("the store's files include them (any depth, links not followed); pi's rule does not", () => {
    const s = store();
    const all = listStoreFiles(s.root)
      .map((f) => f.path)
      .sort();
    expect(all).toEqual([s.parent, s.child, s.grandchild, s.loose].sort());
    expect(listStoreFiles(s.root, { subfolders: false }).map((f) => f.path)).toEqual([s.parent]);
  });

  it("the listing includes them when asked, cold and warm", async () => {
    const s = store();
    const cache = { dir: dirs.make() };
    expect((await listAllSessions(s.root, { cache })).map((i) => i.id)).toEqual(["p1"]);
    for (const round of ["cold", "warm"]) {
      const ids = (await listAllSessions(s.root, { cache, subfolders: true })).map((i) => i.id).sort();
      expect(ids, round).toEqual(["c1", "g1", "l1", "p1"]);
    }
    const progressed: string[] = [];
    await listAllSessions(s.root, { subfolders: true, cache: false, onProgress: () => progressed.push("x") });
    expect(progressed.length).toBeGreaterThan(0);
  });

  it("puts a subagent under the session its folder is named after, a fork under its header's parent", () => {
    const s = store();
    const known = new Set([s.parent, s.child, s.grandchild, s.loose]);
    const isSession = (p: string) => known.has(p);
    expect(isInSubfolder(s.root, s.parent)).toBe(false);
    expect(isInSubfolder(s.root, s.child)).toBe(true);
    expect(layoutParentOf(s.root, s.child, isSession)).toBe(s.parent);
    expect(layoutParentOf(s.root, s.grandchild, isSession)).toBe(s.child);
    expect(sessionParentOf(s.root, { path: s.child, headerParent: undefined }, isSession)).toEqual({
      path: s.parent,
      kind: "subagent",
    });
    // A subagent whose folder names no session of the store: its header's parent, still a subagent.
    expect(sessionParentOf(s.root, { path: s.loose, headerParent: "/x/p.jsonl" }, isSession)).toEqual({
      path: "/x/p.jsonl",
      kind: "subagent",
    });
    expect(sessionParentOf(s.root, { path: s.loose, headerParent: null }, isSession)).toBeUndefined();
    const fork = join(s.project, "f.jsonl");
    expect(sessionParentOf(s.root, { path: fork, headerParent: s.parent }, isSession)).toEqual({
      path: s.parent,
      kind: "fork",
    });
    expect(sessionParentOf(s.root, { path: s.parent, headerParent: undefined }, isSession)).toBeUndefined();
  });
});
