/**
 * Tests of the session view: pi's header rule (first JSON line is `type:"session"` with a
 * string id), duplicate headers, headers after entries, and version detection.
 */
import { describe, expect, it } from "vitest";
import { parseSessionText } from "./codec/parse.js";
import { detectVersion, splitSession } from "./session.js";

const H = '{"type":"session","version":3,"id":"s1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/p"}';
const E1 =
  '{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"user","content":"hi","timestamp":1}}';
const E2 = '{"type":"label","id":"b","parentId":"a","timestamp":"t","targetId":"a","label":"x"}';
const view = (...lines: string[]) => splitSession(parseSessionText(`${lines.join("\n")}\n`).records);

describe("splitSession", () => {
  it("splits a well-formed file into header and entries", () => {
    const v = view(H, E1, E2);
    expect(v.header?.line).toBe(1);
    expect(v.header?.value.id).toBe("s1");
    expect(v.entries.map((e) => e.value.id)).toEqual(["a", "b"]);
    expect(v.raw).toEqual([]);
    expect(v.extraHeaders).toEqual([]);
    expect(v.diagnostics).toEqual([]);
  });

  it("accepts a header-only file", () => {
    const v = view(H);
    expect(v.header).toBeDefined();
    expect(v.entries).toEqual([]);
    expect(v.diagnostics).toEqual([]);
  });

  it("accepts malformed lines before the header (pi skips them) and keeps them as raw", () => {
    const v = view("garbage", H, E1);
    expect(v.header?.line).toBe(2);
    expect(v.raw.map((r) => r.line)).toEqual([1]);
    expect(v.diagnostics).toEqual([]);
  });

  it("reports missing-header for an empty input and for entries without a header", () => {
    expect(splitSession([]).diagnostics).toEqual([
      expect.objectContaining({ code: "missing-header", line: 0 }),
    ]);
    const v = view(E1, E2);
    expect(v.header).toBeUndefined();
    expect(v.entries).toHaveLength(2);
    expect(v.diagnostics).toEqual([
      expect.objectContaining({ code: "missing-header", severity: "error", line: 1 }),
    ]);
  });

  it("reports missing-header when the first session line has no string id", () => {
    const v = view('{"type":"session","id":7}', E1, H);
    expect(v.header).toBeUndefined();
    expect(v.extraHeaders.map((r) => r.line)).toEqual([1, 3]);
    expect(v.diagnostics.map((d) => [d.code, d.line])).toEqual([
      ["missing-header", 1],
      ["duplicate-header", 3],
    ]);
  });

  it("reports header-not-first when a JSON entry precedes the header", () => {
    const v = view(E1, H, E2);
    expect(v.header?.line).toBe(2);
    expect(v.entries.map((e) => e.line)).toEqual([1, 3]);
    expect(v.diagnostics).toEqual([
      expect.objectContaining({ code: "header-not-first", severity: "error", line: 2 }),
    ]);
  });

  it("excludes later session lines from the entries with duplicate-header warnings", () => {
    const v = view(H, E1, H.replace("s1", "s2"), E2);
    expect(v.header?.value.id).toBe("s1");
    expect(v.entries.map((e) => e.line)).toEqual([2, 4]);
    expect(v.extraHeaders.map((e) => e.line)).toEqual([3]);
    expect(v.diagnostics).toEqual([
      expect.objectContaining({ code: "duplicate-header", severity: "warning", line: 3 }),
    ]);
  });

  it("places every record in exactly one bucket", () => {
    const records = parseSessionText(`x\n${E1}\n${H}\n[1]\n${H}\n${E2}\n`).records;
    const v = splitSession(records);
    const placed = [v.header, ...v.entries, ...v.extraHeaders, ...v.raw].filter((r) => r !== undefined);
    expect(placed.map((r) => r.line).sort()).toEqual(records.map((r) => r.line).sort());
  });
});

describe("detectVersion", () => {
  it("reads a numeric version and defaults to 1", () => {
    expect(detectVersion({ version: 3 })).toBe(3);
    expect(detectVersion({ version: 2 })).toBe(2);
    expect(detectVersion({ version: 9 })).toBe(9);
    expect(detectVersion({})).toBe(1);
    expect(detectVersion({ version: "3" })).toBe(1);
    expect(detectVersion(undefined)).toBe(1);
  });
});
