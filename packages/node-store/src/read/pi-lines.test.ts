import { parseSessionBytes } from "@pi-session/format";
import { describe, expect, it } from "vitest";
import { readLinesAsPi, recordObject } from "./pi-lines.js";

const bytes = (...lines: (string | number[])[]) =>
  Uint8Array.from(lines.flatMap((l) => [...(typeof l === "string" ? Buffer.from(l) : Buffer.from(l)), 0x0a]));

const HEADER = '{"type":"session","version":3,"id":"s1","timestamp":"t","cwd":"/p"}';

describe("readLinesAsPi", () => {
  it("reads a line with invalid UTF-8 inside a string as an entry, and writes back its bytes", () => {
    const bad = [
      ...Buffer.from('{"type":"custom","id":"a","parentId":null,"text":"'),
      0xff,
      ...Buffer.from('"}'),
    ];
    const { records } = parseSessionBytes(bytes(HEADER, bad, "[1]", "not json"));
    expect(records.map((r) => r.kind)).toEqual(["json", "raw", "raw", "raw"]);
    const lines = readLinesAsPi(records);
    expect(lines.isSession).toBe(true);
    expect(lines.records.map((r) => r.kind)).toEqual(["json", "json", "raw", "raw"]);
    expect(lines.values[1]).toEqual({ type: "custom", id: "a", parentId: null, text: "\uFFFD" });
    expect(lines.original(lines.records[1] as never)).toBe(records[1]);
    expect(lines.original(lines.records[0] as never)).toBe(records[0]);
    expect(recordObject(records[1] as never)).toEqual(lines.values[1]);
    expect(recordObject(records[2] as never)).toBeUndefined();
  });

  it("leaves the record at keepRaw as it is, and decides the header as pi does", () => {
    const bad = [...Buffer.from('{"type":"custom","id":"a","x":"'), 0x80, ...Buffer.from('"}')];
    const { records } = parseSessionBytes(bytes(HEADER, bad));
    expect(readLinesAsPi(records, records[1]?.offset).records[1]?.kind).toBe("raw");
    // A truthy non-object first line makes the file not a session; falsy lines are skipped.
    expect(readLinesAsPi(parseSessionBytes(bytes("0", "null", HEADER)).records).isSession).toBe(true);
    expect(readLinesAsPi(parseSessionBytes(bytes("[1]", HEADER)).records).isSession).toBe(false);
  });
});
