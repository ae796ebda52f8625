/**
 * File activity in the session database: three sessions read, edit and write one file (by a
 * relative path from two cwds and by an absolute one) and a fourth only mentions it; the
 * database lists exactly those three with the right actions, and stays right after appends (a
 * new branch that leaves a touch behind), rewrites and removals, equal to a database built
 * from nothing.
 */
import { appendFileSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDirs } from "@pi-session/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { type SearchDatabase, openSearchDatabase } from "./search.js";

const dirs = tempDirs("pi-search-files-");
afterEach(dirs.cleanup);

const FILE = "/work/proj/src/app.ts";

interface Line {
  id: string;
  parentId: string | null;
  call?: { name: string; arguments: Record<string, unknown> };
  text?: string;
  minute: number;
}

function entryLine(l: Line): string {
  const timestamp = new Date(Date.UTC(2026, 2, 1, 10, l.minute)).toISOString();
  const message = l.call
    ? {
        role: "assistant",
        content: [{ type: "toolCall", id: `call-${l.id}`, name: l.call.name, arguments: l.call.arguments }],
        provider: "p",
        model: "m",
        stopReason: "toolUse",
        timestamp: Date.parse(timestamp),
      }
    : { role: "user", content: l.text ?? "hello", timestamp: Date.parse(timestamp) };
  return JSON.stringify({ type: "message", id: l.id, parentId: l.parentId, timestamp, message });
}

function session(id: string, cwd: string, lines: Line[]): string {
  const header = { type: "session", version: 3, id, timestamp: "2026-03-01T10:00:00.000Z", cwd };
  return `${[JSON.stringify(header), ...lines.map(entryLine)].join("\n")}\n`;
}

function write(root: string, name: string, text: string): string {
  const dir = join(root, "--work-proj--");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

async function open(root: string): Promise<SearchDatabase> {
  const db = await openSearchDatabase({ root, cacheDir: dirs.make() });
  await db.sync({ workers: false });
  return db;
}

/** Session id, action and branch flag of each touch of `path`, sessions newest first. */
async function activity(db: SearchDatabase, path: string, allBranches = false) {
  const sessions = await db.fileActivity(path, { allBranches });
  return sessions.map((s) => ({
    id: s.meta.sessionId,
    touches: s.touches.map((t) => `${t.action}:${t.tool}:${t.path}${t.onBranch ? "" : ":off"}`),
  }));
}

function store(root: string) {
  const reader = write(
    root,
    "2026-03-01T10-00-00-000Z_reader.jsonl",
    session("reader", "/work/proj", [
      { id: "r1", parentId: null, text: "look at the app", minute: 1 },
      { id: "r2", parentId: "r1", call: { name: "read", arguments: { path: "src/app.ts" } }, minute: 2 },
    ]),
  );
  const editor = write(
    root,
    "2026-03-01T10-00-00-000Z_editor.jsonl",
    session("editor", "/work/proj/src", [
      { id: "e1", parentId: null, text: "fix it", minute: 3 },
      {
        id: "e2",
        parentId: "e1",
        call: { name: "edit", arguments: { path: "./app.ts", oldText: "a", newText: "b" } },
        minute: 4,
      },
    ]),
  );
  const writer = write(
    root,
    "2026-03-01T10-00-00-000Z_writer.jsonl",
    session("writer", "/somewhere/else", [
      { id: "w1", parentId: null, text: "write it", minute: 5 },
      {
        id: "w2",
        parentId: "w1",
        call: { name: "write", arguments: { path: FILE, content: "x" } },
        minute: 6,
      },
    ]),
  );
  const bystander = write(
    root,
    "2026-03-01T10-00-00-000Z_bystander.jsonl",
    session("bystander", "/work/proj", [
      { id: "b1", parentId: null, text: `what is in ${FILE} and src/app.ts?`, minute: 7 },
      { id: "b2", parentId: "b1", call: { name: "read", arguments: { path: "src/other.ts" } }, minute: 8 },
      {
        id: "b3",
        parentId: "b2",
        call: { name: "grep", arguments: { path: "src/app.ts", pattern: "x" } },
        minute: 9,
      },
    ]),
  );
  return { reader, editor, writer, bystander };
}

describe("file activity", () => {
  it("lists exactly the sessions that read, edited and wrote a file, newest first, with what they did", async () => {
    const root = dirs.make();
    store(root);
    const db = await open(root);
    try {
      expect(await activity(db, FILE)).toEqual([
        { id: "writer", touches: [`write:write:${FILE}`] },
        { id: "editor", touches: [`edit:edit:${FILE}`] },
        { id: "reader", touches: [`read:read:${FILE}`] },
      ]);
      // A directory: what was touched under it.
      expect(await activity(db, "/work/proj/src")).toEqual([
        { id: "bystander", touches: ["read:read:/work/proj/src/other.ts"] },
        { id: "writer", touches: [`write:write:${FILE}`] },
        { id: "editor", touches: [`edit:edit:${FILE}`] },
        { id: "reader", touches: [`read:read:${FILE}`] },
      ]);
      expect(await activity(db, "/work/proj/sr")).toEqual([]);
      const [first] = await db.fileActivity(FILE);
      expect(first?.touches[0]).toMatchObject({
        entryId: "w2",
        line: 3,
        timeMs: Date.UTC(2026, 2, 1, 10, 6),
      });
    } finally {
      db.close();
    }
  });

  it("stays right after appends (a new branch leaves a touch behind), rewrites and removals", async () => {
    const root = dirs.make();
    const files = store(root);
    const db = await open(root);
    try {
      await activity(db, FILE);
      // The reader goes back to its first message: its read is on an abandoned branch now.
      appendFileSync(
        files.reader,
        `${entryLine({ id: "r3", parentId: "r1", text: "never mind", minute: 20 })}\n`,
      );
      // The bystander edits the file at last (an append on its branch).
      appendFileSync(
        files.bystander,
        `${entryLine({ id: "b4", parentId: "b3", call: { name: "Edit", arguments: { file_path: "src/app.ts" } }, minute: 21 })}\n`,
      );
      // The editor's file is rewritten (a new inode): it now writes the file instead.
      const replaced = `${files.editor}.tmp`;
      writeFileSync(
        replaced,
        session("editor", "/work/proj/src", [
          { id: "e1", parentId: null, text: "fix it", minute: 3 },
          {
            id: "e9",
            parentId: "e1",
            call: { name: "write_file", arguments: { path: "app.ts" } },
            minute: 22,
          },
        ]),
      );
      renameSync(replaced, files.editor);
      // The writer's file is removed.
      rmSync(files.writer);
      const stats = await db.sync({ workers: false });
      expect(stats).toMatchObject({ resumed: 2, indexed: 1, removed: 1 });
      const expected = [
        { id: "editor", touches: [`write:write_file:${FILE}`] },
        { id: "bystander", touches: [`edit:Edit:${FILE}`] },
      ];
      expect(await activity(db, FILE)).toEqual(expected);
      expect(await activity(db, FILE, true)).toEqual([
        ...expected,
        { id: "reader", touches: [`read:read:${FILE}:off`] },
      ]);
      // The same as a database built from nothing.
      const fresh = await open(root);
      try {
        expect(await activity(fresh, FILE, true)).toEqual(await activity(db, FILE, true));
      } finally {
        fresh.close();
      }
      // The reader's branch comes back (a new leaf under its read): its touch is on the branch again.
      appendFileSync(files.reader, `${entryLine({ id: "r4", parentId: "r2", text: "back", minute: 30 })}\n`);
      await db.sync({ workers: false });
      expect((await activity(db, FILE)).map((s) => s.id)).toEqual(["editor", "bystander", "reader"]);
    } finally {
      db.close();
    }
  });

  it("lists one session's files, changes first", async () => {
    const root = dirs.make();
    const path = write(
      root,
      "2026-03-01T10-00-00-000Z_many.jsonl",
      session("many", "/p", [
        { id: "m1", parentId: null, call: { name: "read", arguments: { path: "a.ts" } }, minute: 1 },
        { id: "m2", parentId: "m1", call: { name: "read", arguments: { path: "b.ts" } }, minute: 2 },
        { id: "m3", parentId: "m2", call: { name: "edit", arguments: { path: "a.ts" } }, minute: 3 },
        { id: "m4", parentId: "m3", call: { name: "write", arguments: { path: "c.ts" } }, minute: 4 },
        { id: "m5", parentId: "m4", call: { name: "read", arguments: { path: "d.ts" } }, minute: 5 },
      ]),
    );
    const db = await open(root);
    try {
      const files = await db.sessionFiles(path);
      expect(files.map((f) => [f.path, f.counts])).toEqual([
        ["/p/c.ts", { read: 0, edit: 0, write: 1 }],
        ["/p/a.ts", { read: 1, edit: 1, write: 0 }],
        ["/p/d.ts", { read: 1, edit: 0, write: 0 }],
        ["/p/b.ts", { read: 1, edit: 0, write: 0 }],
      ]);
    } finally {
      db.close();
    }
  });
});
