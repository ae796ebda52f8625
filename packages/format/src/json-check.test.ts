/**
 * Tests of the JSON syntax check: it must accept exactly what `JSON.parse` accepts (property
 * tests over valid JSON, mutated JSON and random text of JSON's characters), at any depth,
 * and say where and why it stops.
 */
import { fcOptions, scaledRuns } from "@pi-session/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isJsonText, jsonSyntaxError } from "./json-check.js";

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Characters that matter to JSON's grammar, plus some that never may appear raw. */
const JSON_CHARS = [...'{}[]":,\\/ -+.eE0123456789tfnrulasbxu\t\r\n', "\u0000", "\u001f", "\u007f", "\u00a0"];
const JSON_CHARS_ALL = [...JSON_CHARS, "\u2028", "\ufeff", "\ud800", "\udc00", "é", "😀"];
const arbJsonChar = fc.constantFrom(...JSON_CHARS_ALL);

const arbWhitespace = fc.stringMatching(/^[ \t\r\n]{0,3}$/);

/** Valid JSON text with whitespace anywhere JSON allows it. */
const arbJsonText = fc
  .tuple(fc.jsonValue({ maxDepth: 4 }), arbWhitespace, arbWhitespace, fc.boolean())
  .map(
    ([value, before, after, pretty]) =>
      `${before}${JSON.stringify(value, null, pretty ? 1 : undefined)}${after}`,
  );

/** An edit of a text: delete, insert or replace one character, or cut it short. */
const arbMutated = fc
  .tuple(
    arbJsonText,
    fc.array(fc.tuple(fc.constantFrom("delete", "insert", "replace", "cut"), fc.nat(), arbJsonChar), {
      minLength: 1,
      maxLength: 3,
    }),
  )
  .map(([text, edits]) => {
    let out = text;
    for (const [op, at, ch] of edits) {
      const i = out.length === 0 ? 0 : at % (out.length + 1);
      if (op === "delete") out = out.slice(0, i) + out.slice(i + 1);
      else if (op === "insert") out = out.slice(0, i) + ch + out.slice(i);
      else if (op === "replace") out = out.slice(0, i) + ch + out.slice(i + 1);
      else out = out.slice(0, i);
    }
    return out;
  });

const arbRandom = fc.array(arbJsonChar, { maxLength: 30 }).map((chars) => chars.join(""));

/** Long strings (the check jumps through them), with escapes, quotes and control characters. */
const arbLongString = fc
  .tuple(
    fc.string({
      unit: fc.constantFrom("a", "é", "\\", '"', "\u0001", "n", "u", "0"),
      minLength: 50,
      maxLength: 300,
    }),
    fc.boolean(),
  )
  .map(([body, close]) => `["${body}${close ? '"' : ""}]`);

const arbAnyText = fc.oneof(
  arbJsonText,
  arbMutated,
  arbMutated,
  arbRandom,
  arbLongString,
  fc.string({ unit: "binary" }),
);

describe("jsonSyntaxError", { timeout: 60_000 }, () => {
  it("accepts exactly what JSON.parse accepts", () => {
    fc.assert(
      fc.property(arbAnyText, (text) => {
        const error = jsonSyntaxError(text);
        expect(error === undefined).toBe(parses(text));
        expect(isJsonText(text)).toBe(error === undefined);
        if (error) {
          expect(error.index).toBeGreaterThanOrEqual(0);
          expect(error.index).toBeLessThanOrEqual(text.length);
        }
      }),
      fcOptions({ numRuns: scaledRuns(3000) }),
    );
  }, 120_000);

  it("accepts every kind of value and what JSON allows in strings and numbers", () => {
    for (const text of [
      "{}",
      "[]",
      " \t{ } \r",
      '{"a":[1,-0.5e+10,2E-3,0,true,false,null,"x"],"b":{"c":{}}}',
      '"\\u00e9\\"\\\\\\/\\b\\f\\n\\r\\t"',
      '"\ud800 lone surrogate and \u007f and \u2028"',
      `"${"x".repeat(100)}\\"${"é".repeat(100)}\\n"`,
      '{"a":1,"a":2}',
      '{"__proto__":1}',
      "-0",
      "1e999",
      "0.0",
    ]) {
      expect(parses(text), text).toBe(true);
      expect(jsonSyntaxError(text), text).toBeUndefined();
    }
  });

  it("rejects what JSON.parse rejects, saying where and what was expected", () => {
    const cases: [string, number, string][] = [
      ["{", 1, "expected a property name or '}', found end of line"],
      ['{"a":', 5, "expected a JSON value, found end of line"],
      ['{"a":1,}', 7, 'expected a property name, found "}"'],
      ['{"a" 1}', 5, "expected ':' after a property name, found \"1\""],
      ['{"a":1 "b":2}', 7, "expected ',' or '}', found \"\\\"\""],
      ["[1,]", 3, 'expected a JSON value, found "]"'],
      ["[1 2]", 3, "expected ',' or ']', found \"2\""],
      ['"abc', 4, "unterminated string, found end of line"],
      [`"${"x".repeat(200)}`, 201, "unterminated string, found end of line"],
      [
        `"${"x".repeat(200)}\u0000"`,
        201,
        'expected a character of a string (a control character must be escaped), found "\\u0000"',
      ],
      [`"${"x".repeat(200)}\\x"`, 202, 'expected an escape character, found "x"'],
      ['"a\\qb"', 3, 'expected an escape character, found "q"'],
      ['"\\u12g4"', 5, 'expected a hex digit of a \\u escape, found "g"'],
      ['"a\tb"', 2, 'expected a character of a string (a control character must be escaped), found "\\t"'],
      ["01", 1, 'expected the end of the line after the JSON value, found "1"'],
      ["-", 1, "expected a digit, found end of line"],
      ["1.", 2, "expected a digit after the decimal point, found end of line"],
      ["1e+", 3, "expected a digit of the exponent, found end of line"],
      ["tru", 3, "expected a JSON value, found end of line"],
      ["nulL", 3, 'expected a JSON value, found "L"'],
      ["{}}", 2, 'expected the end of the line after the JSON value, found "}"'],
      ["\u00a0{}", 0, 'expected a JSON value, found "\u00a0"'],
      ["\ufeff{}", 0, 'expected a JSON value, found "\ufeff"'],
      ["😀", 0, 'expected a JSON value, found "😀"'],
      ["", 0, "expected a JSON value, found end of line"],
    ];
    for (const [text, index, message] of cases) {
      expect(parses(text), text).toBe(false);
      expect(jsonSyntaxError(text), text).toEqual({ index, message });
    }
  });

  it("handles any depth without recursion", () => {
    const depth = 200_000;
    const arrays = `${"[".repeat(depth)}${"]".repeat(depth)}`;
    expect(jsonSyntaxError(arrays)).toBeUndefined();
    const mixed = `${'{"a":['.repeat(depth)}${"]}".repeat(depth)}`;
    expect(jsonSyntaxError(mixed)).toBeUndefined();
    expect(jsonSyntaxError(`${'{"a":['.repeat(depth)}${"]}".repeat(depth - 1)}]]`)).toEqual({
      index: mixed.length - 1,
      message: "expected ',' or '}', found \"]\"",
    });
    expect(jsonSyntaxError("[".repeat(depth))?.message).toBe("expected a JSON value, found end of line");
  });
});
