import { fcOptions } from "@pi-session/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_INDENTED_DEPTH, serializeJson, stringifyJson, writeJsonText } from "./json-text.js";

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

  it("agrees with JSON.stringify down to MAX_INDENTED_DEPTH; writeJsonText and stringifyJson wherever JSON.stringify works", () => {
    const value = nested(MAX_INDENTED_DEPTH - 1, "x");
    expect(serialized(value, 2)).toBe(JSON.stringify(value, null, 2));
    const deeper = nested(MAX_INDENTED_DEPTH + 500, "x");
    expect(serialized(deeper)).toBe(JSON.stringify(deeper));
    const pieces: string[] = [];
    writeJsonText(deeper, (p) => pieces.push(p), 2);
    expect(pieces.join("")).toBe(JSON.stringify(deeper, null, 2));
    expect(stringifyJson(deeper, 2)).toBe(JSON.stringify(deeper, null, 2));
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

describe("stringifyJson", () => {
  it("is JSON.stringify where that works, and the iterative text where it does not", () => {
    expect(stringifyJson({ a: [1, "x"] }, 2)).toBe(JSON.stringify({ a: [1, "x"] }, null, 2));
    expect(stringifyJson(undefined)).toBeUndefined();
    const deep = nested(20_000, 1);
    expect(() => JSON.stringify(deep)).toThrow(RangeError);
    expect(JSON.parse(stringifyJson(deep) as string)).toBeTruthy();
  });
});
