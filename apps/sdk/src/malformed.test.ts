/**
 * Sessions with many malformed lines (issue 16 item 7): opening one costs a bounded number of
 * `JSON.parse` calls, not a thrown one per line (counted with a spy, never timed), and every
 * malformed line is still in the file after appends, including when the file must be rewritten
 * (a migration reads it again, whole, before it writes).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type AgentMessage, SessionManager, loadEntriesFromFile } from "./index.js";

const realParse = JSON.parse;
const MILLION = 1_000_000;
const U = (text: string): AgentMessage => ({ role: "user", content: text, timestamp: 1 });

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "sdk-malformed-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function header(version: number): string {
  return JSON.stringify({
    type: "session",
    version,
    id: "s1",
    timestamp: "2025-01-01T00:00:00.000Z",
    cwd: dir,
  });
}
const message = (id: string, parentId: string | null, text: string) =>
  JSON.stringify({ type: "message", id, parentId, timestamp: "2025-01-01T00:00:01.000Z", message: U(text) });

/** Counts JSON.parse calls while `fn` runs. */
function countParses<T>(fn: () => T): { result: T; calls: number } {
  const spy = vi
    .spyOn(JSON, "parse")
    .mockImplementation((...args: Parameters<typeof JSON.parse>) => Reflect.apply(realParse, JSON, args));
  try {
    return { result: fn(), calls: spy.mock.calls.length };
  } finally {
    spy.mockRestore();
  }
}

describe("a session with a million malformed lines", { timeout: 120_000 }, () => {
  it("opens with a bounded number of JSON.parse calls and appends without rewriting", () => {
    for (const broken of ["{", '{"a":', "[]", "{x}"]) {
      const path = join(dir, `${broken.length}-${broken.charCodeAt(1) || 0}.jsonl`);
      const before = `${header(3)}\n${message("a1", null, "first")}\n${`${broken}\n`.repeat(MILLION)}${message("b2", "a1", "last")}\n`;
      writeFileSync(path, before);
      const { result: sm, calls } = countParses(() => SessionManager.open(path));
      expect(sm.getEntries().map((e) => e.id)).toEqual(["a1", "b2"]);
      // Header and two entries, read twice at most (the read and pi's header rule), and one
      // object-shaped line that JSON.parse rejects before the check takes over.
      expect(calls, broken).toBeLessThanOrEqual(8);
      expect(countParses(() => loadEntriesFromFile(path)).calls, broken).toBeLessThanOrEqual(8);
      sm.appendMessage(U("after"));
      const after = readFileSync(path, "utf8");
      expect(after.startsWith(before)).toBe(true);
      expect(after.split("\n")).toHaveLength(MILLION + 5);
    }
  });
});

describe("malformed lines of a file that must be rewritten", () => {
  const broken = ["{", '{"a":', "[1]", '"x"', "0", "{x}", "\u00a0"];

  it("are all written back in place when a migration rewrites the file", () => {
    const path = join(dir, "v2.jsonl");
    const lines = [
      header(2),
      message("a1", null, "first"),
      ...broken,
      message("b2", "a1", "last"),
      ...broken,
    ];
    writeFileSync(path, `${lines.join("\n")}\n`);
    const sm = SessionManager.open(path);
    expect(sm.getEntries().map((e) => e.id)).toEqual(["a1", "b2"]);
    sm.appendMessage(U("after"));
    const after = readFileSync(path, "utf8").split("\n");
    expect(JSON.parse(after[0] as string).version).toBe(3);
    expect(after.slice(2, 2 + broken.length)).toEqual(broken);
    expect(after.slice(3 + broken.length, 3 + 2 * broken.length)).toEqual(broken);
    expect(JSON.parse(after[3 + 2 * broken.length] as string).message.content).toBe("after");
  });

  it("are all kept when a torn last line is moved aside at the first append", () => {
    const path = join(dir, "torn.jsonl");
    const lines = [header(3), message("a1", null, "first"), ...broken, message("b2", "a1", "last")];
    writeFileSync(path, `${lines.join("\n")}\n{"type":"mess`);
    const sm = SessionManager.open(path);
    sm.appendMessage(U("after"));
    const after = readFileSync(path, "utf8").split("\n");
    expect(after.slice(2, 2 + broken.length)).toEqual(broken);
    expect(after.filter((l) => l.includes('"after"'))).toHaveLength(1);
  });
});
