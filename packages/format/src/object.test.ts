/** Tests of `isObject`: JSON objects only, not null, arrays or other values. */
import { describe, expect, it } from "vitest";
import { isObject } from "./object.js";

describe("isObject", () => {
  it("is true for objects and false for null, arrays and primitives", () => {
    expect(isObject({})).toBe(true);
    expect(isObject({ type: "message" })).toBe(true);
    expect(isObject(Object.create(null))).toBe(true);
    for (const value of [null, undefined, [], [1], "x", 1, true, Symbol("s")])
      expect(isObject(value)).toBe(false);
  });
});
