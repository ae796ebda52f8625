/**
 * Tests of the serializer: pi's line shape, U+2028/9 escaping, raw records written back
 * byte for byte, torn tails, and parse(serialize(x)) = x for arbitrary entries.
 */
import { arbEntry, arbHeader, fcOptions } from "@pi-session/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseSessionBytes, parseSessionText } from "./codec/parse.js";
import type { JsonRecord } from "./records.js";
import { utf8 } from "./bytes.js";
import { serializeEntries, serializeEntry, serializeLine, serializeRecords } from "./serialize.js";

const dec = (b: Uint8Array) => new TextDecoder().decode(b);

describe("serializeEntry", () => {
  it("is JSON.stringify plus a newline, keys in the given order", () => {
    const e = {
      type: "label",
      id: "a1b2c3d4",
      parentId: null,
      timestamp: "t",
      targetId: "x",
      label: undefined,
    };
    expect(serializeEntry(e)).toBe(
      '{"type":"label","id":"a1b2c3d4","parentId":null,"timestamp":"t","targetId":"x"}\n',
    );
  });

  it("escapes U+2028 and U+2029, in values and keys", () => {
    const line = serializeEntry({ "k\u2028": "a\u2028b\u2029c" });
    expect(line).toBe('{"k\\u2028":"a\\u2028b\\u2029c"}\n');
    expect(JSON.parse(line)).toEqual({ "k\u2028": "a\u2028b\u2029c" });
    // Each alone, in a one-byte and in a two-byte string.
    expect(serializeLine({ a: "x\u2029" })).toBe('{"a":"x\\u2029"}');
    expect(serializeLine({ a: "\u2028" })).toBe('{"a":"\\u2028"}');
    expect(serializeLine({ a: "中\u2029文" })).toBe('{"a":"中\\u2029文"}');
    expect(serializeLine({ a: "中文" })).toBe('{"a":"中文"}');
  });

  it("keeps other characters as JSON.stringify writes them", () => {
    const v = { s: "é😀\r\n\t\u0000\ud800" };
    expect(serializeLine(v)).toBe(JSON.stringify(v));
    expect(dec(utf8(serializeEntry(v)))).toBe(`${JSON.stringify(v)}\n`);
  });
});

describe("serializeRecords", () => {
  it("writes raw records with their original bytes", () => {
    const input = new Uint8Array([...utf8('{"a":1}\nnot json\n{"b":"'), 0xff, ...utf8('"}\n[1]\n')]);
    const r = parseSessionBytes(input);
    expect(r.records.map((x) => x.kind)).toEqual(["json", "raw", "raw", "raw"]);
    expect(serializeRecords(r.records)).toEqual(input);
  });

  it("drops blank lines and normalises CRLF and a BOM", () => {
    const r = parseSessionText('\uFEFF{"a":1}\r\n\n{"b":2}\r\n');
    expect(dec(serializeRecords(r.records))).toBe('{"a":1}\n{"b":2}\n');
  });

  it("completes a torn tail by default and keeps it on request", () => {
    for (const text of ['{"a":1}\n{"b":2}', '{"a":1}\n{"b":']) {
      const r = parseSessionText(text);
      expect(dec(serializeRecords(r.records))).toBe(`${text}\n`);
      expect(dec(serializeRecords(r.records, { keepTornTail: true }))).toBe(text);
    }
  });

  it("adds a newline to an unterminated record that is not last", () => {
    const a = parseSessionText('{"a":1}').records;
    const b = parseSessionText('{"b":2}\n').records;
    expect(dec(serializeRecords([...a, ...b], { keepTornTail: true }))).toBe('{"a":1}\n{"b":2}\n');
  });

  it("writes an empty list as no bytes", () => {
    expect(serializeRecords([])).toEqual(new Uint8Array(0));
  });
});

describe("serializer properties", () => {
  const arbObject = fc.dictionary(fc.string({ unit: "binary" }), fc.jsonValue(), { maxKeys: 6 });
  const arbAnyEntry = fc.oneof(
    arbObject,
    arbEntry() as fc.Arbitrary<Record<string, unknown>>,
    arbHeader(3).map((header): Record<string, unknown> => ({ ...header })),
  );

  it("parse(serialize(x)) deep-equals x", () => {
    fc.assert(
      fc.property(fc.array(arbAnyEntry, { maxLength: 8 }), (values) => {
        const text = values.map(serializeEntry).join("");
        const r = parseSessionText(text);
        expect(r.diagnostics).toEqual([]);
        expect(r.blankLines).toBe(0);
        expect(r.records.map((x) => (x as JsonRecord).value)).toEqual(JSON.parse(JSON.stringify(values)));
        // The text has exactly one line per entry (no U+2028 splitting, no raw newlines).
        expect(text.split("\n").length - 1).toBe(values.length);
        expect(/[\u2028\u2029]/.test(text)).toBe(false);
      }),
      fcOptions(),
    );
  }, 60_000);

  it("serializeRecords(parse(bytes)) reproduces serialized entries byte for byte", () => {
    fc.assert(
      fc.property(fc.array(arbAnyEntry, { maxLength: 8 }), (values) => {
        const bytes = utf8(values.map(serializeEntry).join(""));
        // Compared as Buffers: vitest's element-wise Uint8Array diff is slow.
        expect(Buffer.from(serializeRecords(parseSessionBytes(bytes).records)).equals(bytes)).toBe(true);
      }),
      fcOptions(),
    );
  }, 60_000);

  it("serializeEntries writes each entry's serializeEntry line, and serializeLine is that line without its newline", () => {
    fc.assert(
      fc.property(fc.array(arbAnyEntry, { maxLength: 8 }), (values) => {
        const text = values.map(serializeEntry).join("");
        expect(Buffer.from(serializeEntries(values)).equals(utf8(text))).toBe(true);
        for (const value of values) expect(`${serializeLine(value)}\n`).toBe(serializeEntry(value));
      }),
      fcOptions(),
    );
  }, 60_000);
});

describe("entries nested deeper than JSON.stringify can go", () => {
  it("serialize to the line JSON.parse reads back", () => {
    let value: unknown = "x";
    for (let i = 0; i < 30_000; i++) value = [value];
    const entry = { type: "custom", id: "a", parentId: null, data: value };
    expect(() => JSON.stringify(entry)).toThrow(RangeError);
    const line = serializeEntry(entry);
    expect(line.endsWith("}\n")).toBe(true);
    expect(line.startsWith('{"type":"custom","id":"a","parentId":null,"data":[[[')).toBe(true);
    expect(JSON.parse(line).type).toBe("custom");
  });
});
