/**
 * The session database's secret marks: every planted kind, in every part of a session (user
 * text, thinking, tool arguments, tool output, a custom entry), marks its session; decoys mark
 * nothing; an append is scanned from
 * where the scan stopped; a rewrite is scanned again.
 */
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PLANTED_SECRETS, SECRET_DECOYS, tempDirs } from "@pi-session/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { openSearchDatabase } from "../search.js";
import { secretDetector } from "./detector.js";

const dirs = tempDirs("pi-search-secrets-");
afterEach(dirs.cleanup);

const detector = secretDetector();

/** An entry holding `text` in one of five places, by `where`. */
function holding(id: string, parentId: string | null, text: string, where: number): Record<string, unknown> {
  const timestamp = "2026-03-01T10:00:00.000Z";
  const message = (m: Record<string, unknown>) => ({ type: "message", id, parentId, timestamp, message: m });
  switch (where % 5) {
    case 0:
      return message({ role: "user", content: text, timestamp: 1 });
    case 1:
      return message({ role: "assistant", content: [{ type: "thinking", thinking: text }], timestamp: 1 });
    case 2:
      return message({
        role: "assistant",
        content: [{ type: "toolCall", id: `c-${id}`, name: "bash", arguments: { command: text } }],
        timestamp: 1,
      });
    case 3:
      return message({
        role: "toolResult",
        toolCallId: "c",
        toolName: "bash",
        content: [{ type: "text", text }],
        isError: false,
        timestamp: 1,
      });
    default:
      return { type: "custom", id, parentId, timestamp, customType: "notes", data: { saved: { text } } };
  }
}

function sessionFile(dir: string, id: string, texts: string[]): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `2026-03-01T10-00-00-000Z_${id}.jsonl`);
  const header = { type: "session", version: 3, id, timestamp: "2026-03-01T10:00:00.000Z", cwd: "/p" };
  const entries = texts.map((t, i) => holding(`${id}-${i}`, i === 0 ? null : `${id}-${i - 1}`, t, i));
  writeFileSync(path, `${[header, ...entries].map((e) => JSON.stringify(e)).join("\n")}\n`);
  return path;
}

describe("secret marks", () => {
  it("mark the sessions with secrets, by kind, in every part of an entry; decoys mark nothing", async () => {
    const root = dirs.make();
    const project = join(root, "--p--");
    for (const [i, p] of PLANTED_SECRETS.entries())
      sessionFile(project, `s${i}`, ["hello", p.text, "bye"].slice(0, 2 + (i % 2)));
    sessionFile(project, "decoys", [...SECRET_DECOYS]);
    const db = await openSearchDatabase({ root, cacheDir: dirs.make() });
    try {
      await db.sync({ workers: false });
      expect((await db.secretMarks()).every((m) => !m.complete)).toBe(true);
      const stats = await db.scanSecrets({ detector });
      expect(stats.left).toBe(0);
      const marks = await db.secretMarks();
      const byId = new Map(marks.map((m) => [m.path.replace(/.*_(.*)\.jsonl$/, "$1"), m]));
      expect(byId.has("decoys")).toBe(false);
      PLANTED_SECRETS.forEach((p, i) => {
        expect(byId.get(`s${i}`)?.kinds[p.kind], p.kind).toBeGreaterThan(0);
        expect(byId.get(`s${i}`)?.complete).toBe(true);
      });
    } finally {
      db.close();
    }
  });

  it("scan only what was appended, and a rewritten file again", async () => {
    const root = dirs.make();
    const project = join(root, "--p--");
    const path = sessionFile(project, "grows", ["nothing here", "still nothing"]);
    const db = await openSearchDatabase({ root, cacheDir: dirs.make() });
    try {
      await db.sync({ workers: false });
      expect((await db.scanSecrets({ detector })).entries).toBe(2);
      expect(await db.secretMarks()).toEqual([]);
      const planted = PLANTED_SECRETS[2] as (typeof PLANTED_SECRETS)[number];
      appendFileSync(path, `${JSON.stringify(holding("grows-2", "grows-1", planted.text, 3))}\n`);
      await db.sync({ workers: false });
      expect((await db.secretMarks()).map((m) => m.complete)).toEqual([false]);
      expect((await db.scanSecrets({ detector })).entries).toBe(1);
      expect(await db.secretMarks()).toEqual([{ path, kinds: { [planted.kind]: 1 }, complete: true }]);
      // Rewritten without it (a new file in its place): scanned again, no mark left.
      sessionFile(project, "grows", ["nothing here", "all clean", "really"]);
      await db.sync({ workers: false });
      expect((await db.scanSecrets({ detector })).entries).toBe(3);
      expect(await db.secretMarks()).toEqual([]);
    } finally {
      db.close();
    }
  });
});
