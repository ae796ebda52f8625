/**
 * The tree as text: connectors at branch points, the leaf and labels marked, long runs
 * collapsed, deep levels folded behind their depth, and every line fitted to a width.
 */
import type { AnyEntry } from "@pi-session/format";
import { SessionIndex } from "@pi-session/tree";
import { describe, expect, it } from "vitest";
import { everyKindSession } from "../test/sessions.js";
import { renderTreeLines, textWidth } from "./index.js";

const message = (id: string, parentId: string | null, text: string, minute: number): AnyEntry =>
  ({
    type: "message",
    id,
    parentId,
    timestamp: new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString(),
    message: { role: "user", content: text, timestamp: Date.UTC(2026, 0, 1, 0, minute) },
  }) as AnyEntry;

const linesOf = (entries: AnyEntry[], options: Partial<Parameters<typeof renderTreeLines>[1]> = {}) => {
  const index = new SessionIndex<AnyEntry>(entries);
  return renderTreeLines(index.getTree(), { leafId: index.leafId, ...options });
};

/** A tree that branches `depth` times, each branch point with a short and a long child. */
function deepBranches(depth: number): AnyEntry[] {
  const entries: AnyEntry[] = [];
  let parent: string | null = null;
  let minute = 0;
  for (let d = 0; d < depth; d++) {
    const id = `n${String(d).padStart(7, "0")}`;
    entries.push(message(id, parent, `level ${d}`, minute++));
    entries.push(message(`s${String(d).padStart(7, "0")}`, id, `side ${d}`, minute++));
    parent = id;
  }
  return entries;
}

describe("renderTreeLines", () => {
  it("draws branch points, labels and the leaf", () => {
    const { entries } = everyKindSession();
    const lines = linesOf(entries, { collapseAfter: 0 });
    expect(lines.some((l) => l.startsWith("├─ "))).toBe(true);
    expect(lines.some((l) => l.includes("[plan]"))).toBe(true);
    expect(lines.filter((l) => l.endsWith("← leaf"))).toHaveLength(1);
  });

  it("collapses a long linear run to its ends", () => {
    const entries = Array.from({ length: 30 }, (_, i) =>
      message(
        `m${String(i).padStart(7, "0")}`,
        i === 0 ? null : `m${String(i - 1).padStart(7, "0")}`,
        `t${i}`,
        i,
      ),
    );
    const lines = linesOf(entries);
    expect(lines).toContain("┆ … 24 more entries …");
    expect(lines).toHaveLength(7);
    expect(linesOf(entries, { collapseAfter: 0 })).toHaveLength(30);
  });

  it("folds deep levels behind their depth, so indentation stays bounded", () => {
    const lines = linesOf(deepBranches(60));
    const widest = Math.max(...lines.map((l) => (l.indexOf("n0") >= 0 ? l.indexOf("n0") : l.indexOf("s0"))));
    // Without a width: 16 levels in full, then the depth as a number.
    expect(widest).toBeLessThan(16 * 3 + 8);
    expect(lines.some((l) => l.startsWith("‹17› "))).toBe(false);
    expect(lines.some((l) => l.startsWith("‹18› "))).toBe(true);
    expect(lines.some((l) => l.startsWith("‹59› "))).toBe(true);
    for (const width of [40, 60, 100]) {
      for (const line of linesOf(deepBranches(60), { width })) {
        expect(textWidth(line)).toBeLessThanOrEqual(width);
        // The entry itself is always on its line, after at most a third of it.
        expect(line.search(/[ns]0/)).toBeGreaterThanOrEqual(0);
        expect(line.search(/[ns]0/)).toBeLessThanOrEqual(Math.max(4 * 3 + 7, width / 3 + 7));
      }
    }
  });

  it("cuts the preview first; the label and leaf marker stay", () => {
    const entries = [
      message("a0000001", null, "a long first message that goes on and on and on", 0),
      {
        type: "label",
        id: "l0000001",
        parentId: "a0000001",
        timestamp: "2026-01-01T00:05:00.000Z",
        targetId: "a0000001",
        label: "start",
      } as AnyEntry,
    ];
    const lines = linesOf(entries, { width: 40 });
    expect(lines[0]).toBe("a0000001 user a long first mess… [start]");
    for (const line of lines) expect(textWidth(line)).toBeLessThanOrEqual(40);
  });

  it("shows session text on one line, inert", () => {
    const lines = linesOf([message("x0000001", null, "one\nline\x1b[2J", 0)]);
    expect(lines[0]).toBe("x0000001 user one line\\x1b[2J ← leaf");
  });
});
