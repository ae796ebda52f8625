import { describe, expect, it } from "vitest";
import { escapeTerminalUnsafe, jsonText, writeJson } from "./json.js";

/** An array nested `depth` deep around `inner`, built without recursion. */
function nested(depth: number, inner: unknown = 1): unknown {
  let v: unknown = inner;
  for (let i = 0; i < depth; i++) v = i % 2 === 0 ? [v] : { k: v, n: null };
  return v;
}

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
