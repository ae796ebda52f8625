/**
 * End-to-end: output fitted to the terminal's width, on a pseudo-terminal 60 and 100 columns
 * wide: no line of `show`, `context` or `tree` is wider than the terminal (wide CJK
 * counted twice), bodies keep their indent, deep trees fold their indentation; on a pipe
 * nothing is cut; colours on the terminal only (never with NO_COLOR or --no-color).
 */
import { textWidth } from "@pi-session/render";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CliHome, chat, message, plain } from "./harness.js";

let cli: CliHome;
let project: string;
const CJK = "c1c1c1c1-0000-4000-8000-000000000001";
const DEEP = "dee9dee9-0000-4000-8000-000000000002";
const LONG_TEXT =
  "日本語のテキストがとても長く続きます。 The quick brown fox jumps over the lazy dog again and again until the line is much wider than any terminal.";

beforeAll(() => {
  cli = new CliHome();
  project = cli.dir("work", "a-project-with-a-rather-long-directory-name", "サブ");
  cli.write({
    id: CJK,
    cwd: project,
    created: "2026-03-01T10:00:00.000Z",
    entries: chat("c", "2026-03-01T10:00:00.000Z", 3, (i) => `${i}: ${LONG_TEXT}`),
  });
  // Forty nested branch points: each entry has a side child and the next level.
  const entries: Record<string, unknown>[] = [];
  let parent: string | null = null;
  for (let d = 0; d < 40; d++) {
    const id = `d${String(d).padStart(7, "0")}`;
    const t = new Date(Date.UTC(2026, 2, 2, 10, d * 2)).toISOString();
    const side = new Date(Date.UTC(2026, 2, 2, 10, d * 2 + 1)).toISOString();
    entries.push(message(id, parent, t, { role: "user", content: `level ${d} ${LONG_TEXT}` }));
    entries.push(message(`s${String(d).padStart(7, "0")}`, id, side, { role: "user", content: `side ${d}` }));
    parent = id;
  }
  cli.write({ id: DEEP, cwd: project, created: "2026-03-02T10:00:00.000Z", entries });
});

afterAll(() => cli.cleanup());

function widest(out: string): number {
  return Math.max(...plain(out).split("\n").map(textWidth));
}

describe.each([60, 100])("at %i columns", (cols) => {
  for (const args of [
    ["show", CJK],
    ["show", CJK, "--full"],
    ["context", CJK],
    ["tree", CJK],
    ["tree", DEEP],
  ]) {
    it(`${args.join(" ")} fits`, { tags: ["processes"] }, () => {
      const r = cli.runTty(args, { cols, cwd: project });
      expect(r.code, r.out).toBe(0);
      expect(widest(r.out), r.out).toBeLessThanOrEqual(cols);
    });
  }

  it("show folds a body under its indent, the words all there", { tags: ["processes"] }, () => {
    const out = plain(cli.runTty(["show", CJK, "--full"], { cols, cwd: project }).out);
    const body = out.split("\n").filter((l) => l.startsWith("  "));
    expect(body.length).toBeGreaterThan(6);
    expect(body.join(" ").replace(/\s+/g, " ")).toContain("until the line is much wider than any terminal.");
  });
});

describe("deep trees and pipes", () => {
  it("tree folds deep levels behind their depth, on a terminal and on a pipe", {
    tags: ["processes"],
  }, () => {
    const tty = plain(cli.runTty(["tree", DEEP], { cols: 60, cwd: project }).out);
    expect(tty).toMatch(/^‹39› .*d0000039 user level 39/m);
    const pipe = cli.run(["tree", DEEP], { cwd: project });
    expect(pipe.stdout).toMatch(/^‹39› .*d0000039 user level 39/m);
    // 16 levels in full on a pipe: no line starts more than 16 * 3 + 8 columns in.
    for (const line of pipe.stdout.trimEnd().split("\n")) expect(line.search(/[ds]0/)).toBeLessThan(56);
  });

  it("a pipe gets whole lines", async () => {
    const r = await cli.runInProcess(["show", CJK], { cwd: project });
    expect(r.stdout).toContain(`0: ${LONG_TEXT}`);
  });
});

describe("colours", () => {
  const ESC = "\x1b[";
  it("a terminal gets colours; NO_COLOR, --no-color and a pipe get none", { tags: ["processes"] }, () => {
    for (const args of [["ls"], ["show", CJK], ["tree", DEEP]]) {
      expect(cli.runTty(args, { cwd: project }).out, args.join(" ")).toContain(ESC);
      expect(cli.runTty(args, { cwd: project, env: { NO_COLOR: "1" } }).out, args.join(" ")).not.toContain(
        ESC,
      );
      expect(cli.runTty([...args, "--no-color"], { cwd: project }).out, args.join(" ")).not.toContain(ESC);
      const piped = cli.run(args, { cwd: project });
      expect(piped.code, args.join(" ")).toBe(0);
      expect(piped.stdout + piped.stderr, args.join(" ")).not.toContain(ESC);
    }
  });
});
