import { fcOptions } from "@pi-session/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_INDENTED_DEPTH, escapeTerminalUnsafe, jsonText, serializeJson, writeJson } from "./json.js";

function serialized(value: unknown, indent = 0): string | undefined {
  const pieces: string[] = [];
  serializeJson(value, (p) => pieces.push(p), indent);
  return pieces.length === 0 ? undefined : pieces.join("");
}

/** Values as the CLI prints them: parsed JSON, plus what JS objects add (undefined, Dates, -0, NaN). */
const values = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.jsonValue(),
    fc.constantFrom(undefined, Number.NaN, Number.POSITIVE_INFINITY, -0, 1e21, 5e-324, () => 1),
    fc.date({ noInvalidDate: true }),
    fc.string({ unit: "binary" }),
    fc.array(tie("value"), { maxLength: 5 }),
    fc.dictionary(fc.string({ unit: "binary" }), tie("value"), { maxKeys: 5 }),
  ),
})).value;

/** An array nested `depth` deep around `inner`, built without recursion. */
function nested(depth: number, inner: unknown = 1): unknown {
  let v: unknown = inner;
  for (let i = 0; i < depth; i++) v = i % 2 === 0 ? [v] : { k: v, n: null };
  return v;
}

describe("serializeJson", () => {
  it("writes exactly what JSON.stringify writes, compact and indented", () => {
    fc.assert(
      fc.property(values, fc.constantFrom(0, 2, 4), (value, indent) => {
        expect(serialized(value, indent)).toBe(JSON.stringify(value, null, indent));
      }),
      fcOptions(),
    );
  });

  it("agrees with JSON.stringify down to MAX_INDENTED_DEPTH; writeJson wherever JSON.stringify works", () => {
    const value = nested(MAX_INDENTED_DEPTH - 1, "x");
    expect(serialized(value, 2)).toBe(JSON.stringify(value, null, 2));
    const deeper = nested(MAX_INDENTED_DEPTH + 500, "x");
    expect(serialized(deeper)).toBe(JSON.stringify(deeper));
    const pieces: string[] = [];
    writeJson(deeper, (p) => pieces.push(p), 2);
    expect(pieces.join("")).toBe(JSON.stringify(deeper, null, 2));
  });

  it("prints a value nested 100,000 deep in linear size, and it parses back", () => {
    const value = nested(100_000, "deep");
    expect(() => JSON.stringify(value)).toThrow(RangeError);
    const text = serialized(value, 2) as string;
    expect(text.length).toBeLessThan(20_000_000);
    let back: unknown = JSON.parse(text);
    for (let i = 100_000 - 1; i >= 0; i--)
      back = i % 2 === 0 ? (back as unknown[])[0] : (back as { k: unknown }).k;
    expect(back).toBe("deep");
    expect(JSON.parse(serialized(value) as string)).toBeTruthy();
  });

  it("throws as JSON.stringify does on cycles and BigInt, and keeps sibling reuse", () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => serialized(cycle)).toThrow(TypeError);
    expect(() => serialized({ n: 1n })).toThrow(TypeError);
    const shared = { a: 1 };
    expect(serialized([shared, shared])).toBe(JSON.stringify([shared, shared]));
    expect(serialized(undefined)).toBeUndefined();
  });
});

describe("writeJson and jsonText", () => {
  it("escape DEL, C1 and bidi controls and leave the value as it was", () => {
    const value = { text: "a\x7fb\x9bc\u202ed\u2069e\x1b" };
    const pieces: string[] = [];
    writeJson(value, (p) => pieces.push(p));
    const text = pieces.join("");
    expect(text).not.toMatch(/[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/);
    expect(text).toContain("\\u007f");
    expect(JSON.parse(text)).toEqual(value);
    expect(escapeTerminalUnsafe(JSON.stringify(value))).toBe(text);
  });

  it("write deep values through the iterative serializer", () => {
    const value = nested(50_000);
    const pieces: string[] = [];
    writeJson(value, (p) => pieces.push(p));
    expect(pieces.length).toBeGreaterThan(1);
    expect(JSON.parse(pieces.join(""))).toBeTruthy();
    expect(jsonText(value).length).toBe(pieces.join("").length);
    expect(jsonText({ a: 1 })).toBe('{"a":1}');
    expect(jsonText(undefined)).toBe("");
  });
});
