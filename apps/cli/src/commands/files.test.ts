/**
 * `pi-session files`, in-process: the sessions that read, edited and wrote a file (relative
 * and absolute paths, from several cwds) and not the one that only mentions it, newest first;
 * a directory; `--all` for abandoned branches; `--session`; `--json`; the database kept
 * up to date across runs (an append on a new branch).
 */
import { appendFileSync } from "node:fs";
import { tempDirs } from "@pi-session/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { assistantEntry, sandbox, sessionText, userEntry } from "../in-process.test.helper.js";

const dirs = tempDirs("pi-cli-files-");
afterEach(dirs.cleanup);

const FILE = "/work/proj/src/app.ts";

function store() {
  const box = sandbox(dirs.make());
  const call = (name: string, args: Record<string, unknown>) => [{ name, arguments: args }];
  const reader = box.write(
    "2026-03-01T10-00-00-000Z_aaaa1111.jsonl",
    sessionText("aaaa1111-reader", "/work/proj", [
      userEntry("r1", null, "look", 1),
      assistantEntry("r2", "r1", { calls: call("read", { path: "src/app.ts" }), minute: 2 }),
    ]),
  );
  box.write(
    "2026-03-01T10-00-00-000Z_bbbb2222.jsonl",
    sessionText("bbbb2222-editor", "/work/proj/src", [
      userEntry("e1", null, "fix", 3),
      assistantEntry("e2", "e1", { calls: call("edit", { path: "app.ts", edits: [] }), minute: 4 }),
    ]),
  );
  box.write(
    "2026-03-01T10-00-00-000Z_cccc3333.jsonl",
    sessionText("cccc3333-writer", "/elsewhere", [
      userEntry("w1", null, "write", 5),
      assistantEntry("w2", "w1", { calls: call("write", { path: FILE, content: "x" }), minute: 6 }),
    ]),
  );
  box.write(
    "2026-03-01T10-00-00-000Z_dddd4444.jsonl",
    sessionText("dddd4444-bystander", "/work/proj", [
      userEntry("b1", null, `what is in ${FILE}?`, 7),
      assistantEntry("b2", "b1", {
        text: "src/app.ts is the app",
        calls: call("grep", { path: FILE }),
        minute: 8,
      }),
    ]),
  );
  return { box, reader };
}

describe("pi-session files", () => {
  it("lists the three sessions that touched the file, newest first, with what they did", async () => {
    const { box } = store();
    const r = await box.run(["files", "src/app.ts", "--json"], { cwd: "/work/proj" });
    expect(r.code).toBe(0);
    const sessions = JSON.parse(r.out) as { sessionId: string; cwd: string; touches: { action: string }[] }[];
    expect(sessions.map((s) => [s.sessionId, s.touches.map((t) => t.action)])).toEqual([
      ["cccc3333-writer", ["write"]],
      ["bbbb2222-editor", ["edit"]],
      ["aaaa1111-reader", ["read"]],
    ]);
    expect(sessions[0]).toMatchObject({
      cwd: "/elsewhere",
      touches: [
        {
          entryId: "w2",
          tool: "write",
          action: "write",
          timestamp: "2026-03-01T10:06:00.000Z",
          file: FILE,
          onBranch: true,
        },
      ],
    });
    // The same through an absolute path, as text: a line per session, one per touch.
    const text = await box.run(["files", FILE]);
    expect(text.code).toBe(0);
    const lines = text.out.trimEnd().split("\n");
    expect(lines.filter((l) => /^\d{4}-/.test(l)).map((l) => l.split(/\s{2,}/)[1])).toEqual([
      "write",
      "edit",
      "read",
    ]);
    expect(text.out).toContain("  w2  write  (write)");
    expect(text.out).not.toContain("bystander");
  });

  it("lists a directory's files, and abandoned branches with --all", async () => {
    const { box, reader } = store();
    const dir = await box.run(["files", "/work/proj", "--json"]);
    expect((JSON.parse(dir.out) as { sessionId: string }[]).map((s) => s.sessionId)).toEqual([
      "cccc3333-writer",
      "bbbb2222-editor",
      "aaaa1111-reader",
    ]);
    appendFileSync(reader, `${JSON.stringify(userEntry("r3", "r1", "start over", 20))}\n`);
    const after = await box.run(["files", FILE, "--json"]);
    expect((JSON.parse(after.out) as { sessionId: string }[]).map((s) => s.sessionId)).toEqual([
      "cccc3333-writer",
      "bbbb2222-editor",
    ]);
    const all = await box.run(["files", FILE, "--all"]);
    expect(all.out).toContain("  r2  read  (read, abandoned branch)");
    const none = await box.run(["files", "/work/proj/README.md"]);
    expect(none.code).toBe(1);
    expect(none.err).toContain("no session read, edited or wrote /work/proj/README.md");
  });

  it("lists one session's files, changes first", async () => {
    const box = sandbox(dirs.make());
    const path = box.write(
      "2026-03-01T10-00-00-000Z_eeee5555.jsonl",
      sessionText("eeee5555", "/p", [
        assistantEntry("m1", null, { calls: [{ name: "read", arguments: { path: "a.ts" } }], minute: 1 }),
        assistantEntry("m2", "m1", { calls: [{ name: "edit", arguments: { path: "a.ts" } }], minute: 2 }),
        assistantEntry("m3", "m2", { calls: [{ name: "read", arguments: { path: "b.ts" } }], minute: 3 }),
        assistantEntry("m4", "m3", { calls: [{ name: "write", arguments: { path: "c.ts" } }], minute: 4 }),
      ]),
    );
    const r = await box.run(["files", "--session", path]);
    expect(r.code).toBe(0);
    expect(r.out).toBe("write       /p/c.ts\nedit, read  /p/a.ts\nread        /p/b.ts\n");
    const json = await box.run(["files", "--session", "eeee5555", "--json"]);
    expect(JSON.parse(json.out)[1]).toMatchObject({
      path: "/p/a.ts",
      counts: { read: 1, edit: 1, write: 0 },
    });
    const bad = await box.run(["files", "x", "--session", path]);
    expect(bad.code).toBe(2);
  });
});
