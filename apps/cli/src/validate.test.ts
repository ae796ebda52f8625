/**
 * End-to-end tests of `validate` on files with many problems (issue 16 item 7): every problem
 * is counted, at most `--max-diagnostics` per file are listed (1,000 by default), and the
 * output says how many were left out; and the other readers on a million broken lines. The
 * program runs in this process (`test/in-process.ts`).
 */
// biome-ignore-all lint/suspicious/noExplicitAny: the tests read parsed --json output.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { runInProcess } from "../test/in-process.js";

// A million broken lines on a loaded CI machine take far more than vitest's default 5 s.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 60_000 });

let home: string;
beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), "cli-validate-"));
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return runInProcess(args, { env: { PATH: process.env.PATH ?? "", HOME: home, TZ: "UTC" }, cwd: home });
}

const HEADER = JSON.stringify({
  type: "session",
  version: 3,
  id: "0199aaaa-0000-7000-8000-000000000001",
  timestamp: "2026-11-02T09:00:00.000Z",
  cwd: "/home/dev/p",
});
const ENTRY = JSON.stringify({
  type: "message",
  id: "a1b2c3d4",
  parentId: null,
  timestamp: "2026-11-02T09:00:01.000Z",
  message: { role: "user", content: [{ type: "text", text: "hi" }], timestamp: 1 },
});
// A schema problem after the broken lines: it sorts last.
const BAD_ENTRY = JSON.stringify({
  type: "message",
  id: "e5f6a7b8",
  parentId: "a1b2c3d4",
  timestamp: "2026-11-02T09:00:02.000Z",
  message: { role: "user", content: 7, timestamp: 2 },
});

function brokenFile(name: string, broken: number): string {
  const path = join(home, name);
  writeFileSync(path, `${HEADER}\n${ENTRY}\n${"{\n".repeat(broken)}${BAD_ENTRY}\n`);
  return path;
}

describe("validate on a file with many problems", async () => {
  it("counts every problem, lists the first 1000 and says how many are not listed", async () => {
    const path = brokenFile("many.jsonl", 5000);
    const r = await run(["validate", path]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("");
    const out = r.stdout.trimEnd().split("\n");
    expect(out[0]).toBe(`${path}: errors (v3, 2 entries, 5001 errors, 0 warnings)`);
    expect(out.slice(1, 1001).every((l) => l.includes("[invalid-json]"))).toBe(true);
    expect(out[1]).toContain(`${path}:3 (byte `);
    expect(out[1001]).toBe(
      "  … 4001 more not listed (counted above; `--max-diagnostics all` lists every one)",
    );
    expect(out[1002]).toBe("1 session checked: 0 valid, 1 has errors (5001 diagnostics)");
    expect(out).toHaveLength(1003);
  });

  it("--json says the same, and --max-diagnostics sets the limit (all, or none)", async () => {
    const path = brokenFile("json.jsonl", 5000);
    const some = JSON.parse((await run(["validate", path, "--json", "--max-diagnostics", "3"])).stdout);
    const [file] = some.files;
    expect(file).toMatchObject({ errors: 5001, warnings: 0, omittedDiagnostics: 4998 });
    expect(file.diagnostics.map((d: any) => d.line)).toEqual([3, 4, 5]);
    expect(some.errors).toBe(5001);

    const all = JSON.parse((await run(["validate", path, "--json", "--max-diagnostics", "all"])).stdout);
    expect(all.files[0].diagnostics).toHaveLength(5001);
    expect(all.files[0].omittedDiagnostics).toBe(0);
    expect(all.files[0].diagnostics.at(-1)).toMatchObject({ code: "schema", line: 5003 });

    const none = await run(["validate", path, "--max-diagnostics", "0"]);
    expect(none.stdout.trimEnd().split("\n")).toEqual([
      `${path}: errors (v3, 2 entries, 5001 errors, 0 warnings)`,
      "  … 5001 more not listed (counted above; `--max-diagnostics all` lists every one)",
      "1 session checked: 0 valid, 1 has errors (5001 diagnostics)",
    ]);

    const bad = await run(["validate", path, "--max-diagnostics", "some"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--max-diagnostics needs a whole number or `all`, got `some`");
  });

  it("show, tree, context and stats read a file of a million broken lines between entries", async () => {
    const path = brokenFile("million-read.jsonl", 1_000_000);
    const show = await run(["show", path]);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain("hi");
    const context = JSON.parse((await run(["context", path, "--json"])).stdout);
    expect(context.messages.map((m: any) => m.content)).toEqual([[{ type: "text", text: "hi" }], 7]);
    expect((await run(["tree", path])).stdout).toContain("e5f6a7b8".slice(0, 4));
    expect(JSON.parse((await run(["stats", path, "--json"])).stdout)).toBeTruthy();
  });

  it("checks a file of a million broken lines", async () => {
    const path = brokenFile("million.jsonl", 1_000_000);
    const report = JSON.parse((await run(["validate", path, "--json", "--max-diagnostics", "2"])).stdout);
    expect(report.files[0]).toMatchObject({ entries: 2, errors: 1_000_001, omittedDiagnostics: 999_999 });
    expect(report.files[0].diagnostics[0].reason).toBe(
      "invalid JSON (expected a property name or '}', found end of line, at byte 1 of the line): \"{\"",
    );
  });
});
