/**
 * Tests of the line codec: unit cases for every line rule, and properties (any bytes parse
 * without throwing, every byte is accounted for, chunking never changes the result).
 */
import { fcOptions } from "@pi-session/testkit";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { jsonSyntaxError } from "../json-check.js";
import type { JsonRecord, RawRecord, SessionRecord } from "../records.js";
import { serializeRecords } from "../serialize.js";
import { SessionLineDecoder, codecTesting } from "./decoder.js";
import { type ParseResult, parseSessionBytes, parseSessionText, resultOf } from "./parse.js";

const enc = (s: string) => new TextEncoder().encode(s);
const realParse = JSON.parse;
const bytesOf = (...parts: (string | number[])[]) => {
  const chunks = parts.map((p) => (typeof p === "string" ? enc(p) : new Uint8Array(p)));
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
};

function json(r: SessionRecord | undefined): JsonRecord {
  expect(r?.kind).toBe("json");
  return r as JsonRecord;
}
function raw(r: SessionRecord | undefined): RawRecord {
  expect(r?.kind).toBe("raw");
  return r as RawRecord;
}

/** Parses `bytes` pushed in pieces cut at `cuts` (sorted positions). */
function parseChunked(bytes: Uint8Array, cuts: number[]): ParseResult {
  const dec = new SessionLineDecoder();
  const records: SessionRecord[] = [];
  let from = 0;
  for (const c of [...cuts, bytes.length]) {
    records.push(...dec.push(bytes.subarray(from, c)));
    from = c;
  }
  records.push(...dec.end());
  return resultOf(dec, records);
}

describe("parseSessionBytes: line rules", () => {
  it("parses an empty input to nothing", () => {
    const r = parseSessionBytes(new Uint8Array(0));
    expect(r).toEqual({
      records: [],
      diagnostics: [],
      omittedDiagnostics: 0,
      omittedRecords: 0,
      blankLines: 0,
      lines: 0,
      bytes: 0,
    });
  });

  it("parses a header-only file", () => {
    const line = '{"type":"session","version":3,"id":"abc","timestamp":"2025-01-01T00:00:00.000Z"}';
    const r = parseSessionText(`${line}\n`);
    expect(r.records).toHaveLength(1);
    const rec = json(r.records[0]);
    expect(rec).toMatchObject({ line: 1, offset: 0, byteLength: line.length, terminated: true });
    expect(rec.value).toEqual(JSON.parse(line));
    expect(r.diagnostics).toEqual([]);
    expect(r.tornTail).toBeUndefined();
    expect(r.lines).toBe(1);
  });

  it("records line numbers and byte offsets, counting multi-byte characters as bytes", () => {
    const r = parseSessionText('{"a":"é"}\n{"b":"😀"}\n{"c":1}\n');
    expect(r.records.map((x) => [x.line, x.offset, x.byteLength])).toEqual([
      [1, 0, 10],
      [2, 11, 12],
      [3, 24, 7],
    ]);
  });

  it("strips a BOM on line 1 only, keeping it in byteLength", () => {
    const r = parseSessionBytes(bytesOf([0xef, 0xbb, 0xbf], '{"a":1}\n', [0xef, 0xbb, 0xbf], '{"b":2}\n'));
    const first = json(r.records[0]);
    expect(first.value).toEqual({ a: 1 });
    expect(first.byteLength).toBe(10);
    // A BOM anywhere else is content: U+FEFF is not JSON whitespace.
    const second = raw(r.records[1]);
    expect(second.offset).toBe(11);
    expect(r.diagnostics.map((d) => d.code)).toEqual(["invalid-json"]);
  });

  it("drops a line-1 BOM from the text of an invalid UTF-8 line too (its bytes keep it)", () => {
    const bytes = bytesOf(
      [0xef, 0xbb, 0xbf],
      '{"a":"',
      [0xff],
      '"}\n',
      [0xef, 0xbb, 0xbf],
      '{"b":"',
      [0xff],
      '"}\n',
    );
    const [first, second] = parseSessionBytes(bytes).records.map(raw);
    expect(first?.text).toBe('{"a":"\ufffd"}');
    expect(first?.bytes).toEqual(bytes.subarray(0, 12));
    expect(second?.text).toBe('\ufeff{"b":"\ufffd"}');
  });

  it("keeps a BOM on the first pushed line when it is not the file start", () => {
    const bom = bytesOf([0xef, 0xbb, 0xbf], '{"a":1}\n');
    expect(parseSessionBytes(bom, { startOffset: 100 }).records[0]?.kind).toBe("raw");
    expect(parseSessionBytes(bom, { startOffset: 100, firstLineIsFileStart: true }).records[0]?.kind).toBe(
      "json",
    );
    expect(parseSessionBytes(bom, { firstLineIsFileStart: false }).records[0]?.kind).toBe("raw");
  });

  it("strips one trailing CR per line (CRLF files)", () => {
    const r = parseSessionText('{"a":1}\r\n{"b":"x"}\r\n');
    expect(r.records.map((x) => json(x).value)).toEqual([{ a: 1 }, { b: "x" }]);
    expect(r.records.map((x) => x.byteLength)).toEqual([8, 10]);
    expect(r.diagnostics).toEqual([]);
  });

  it("never splits on a lone CR, U+2028 or U+2029", () => {
    const r = parseSessionText('{"a":"x\\ry"}\r{"b":1}\n{"c":"\u2028\u2029"}\n');
    expect(r.lines).toBe(2);
    // The lone CR between the objects stays in line 1, which is therefore not valid JSON.
    expect(raw(r.records[0]).text).toBe('{"a":"x\\ry"}\r{"b":1}');
    expect(json(r.records[1]).value).toEqual({ c: "\u2028\u2029" });
  });

  it("keeps a CR that is not the last character (only one is stripped)", () => {
    const r = parseSessionText('{"a":1}\r\r\n');
    // `{"a":1}\r` is valid JSON (CR is whitespace), and byteLength keeps both CRs.
    expect(json(r.records[0]).byteLength).toBe(9);
  });

  it("counts blank and whitespace-only lines without records", () => {
    const r = parseSessionText('\n{"a":1}\n   \n\t\r\n\n{"b":2}\n\n');
    expect(r.blankLines).toBe(5);
    expect(r.lines).toBe(7);
    expect(r.records.map((x) => x.line)).toEqual([2, 6]);
    expect(r.diagnostics).toEqual([]);
  });

  it("counts only lines of JSON whitespace as blank: other white space is a raw record, kept by a rewrite", () => {
    // `trim()` strips all of these; none is JSON whitespace, so none of these lines is JSON.
    const others = [
      "\u00a0",
      "\u2028",
      "\u2029",
      "\ufeff",
      "\u3000",
      "\u000b",
      "\u000c",
      "\u0085",
      " \u00a0\t",
    ];
    const text = `{"a":1}\n${others.join("\n")}\n \t\r\n\n`;
    const r = parseSessionText(text);
    expect(r.blankLines).toBe(2);
    expect(r.records.map((x) => x.kind)).toEqual(["json", ...others.map(() => "raw")]);
    expect(r.records.slice(1).map((x) => raw(x).text)).toEqual(others);
    expect(r.diagnostics.map((d) => [d.code, d.line])).toEqual(others.map((_, i) => ["invalid-json", i + 2]));
    // Nothing of them is lost by a rewrite (only the blank lines are dropped).
    expect(new TextDecoder().decode(serializeRecords(r.records))).toBe(`{"a":1}\n${others.join("\n")}\n`);
  });

  it("turns arrays, numbers, strings and null into raw records with not-an-object", () => {
    const r = parseSessionText('[1,2]\n42\n"s"\nnull\ntrue\n');
    expect(r.records.map((x) => x.kind)).toEqual(["raw", "raw", "raw", "raw", "raw"]);
    expect(r.diagnostics.map((d) => [d.code, d.line])).toEqual([
      ["not-an-object", 1],
      ["not-an-object", 2],
      ["not-an-object", 3],
      ["not-an-object", 4],
      ["not-an-object", 5],
    ]);
    expect(r.diagnostics[0]?.reason).toContain("array");
  });

  it("reports invalid JSON with the line, byte offset, where in the line, why, and an excerpt", () => {
    const r = parseSessionText('{"a":1}\n{"b": oops}\n');
    const rec = raw(r.records[1]);
    expect(rec.text).toBe('{"b": oops}');
    expect(rec.bytes).toEqual(enc('{"b": oops}'));
    const d = r.diagnostics[0];
    expect(d).toMatchObject({ code: "invalid-json", severity: "error", line: 2, offset: 8 });
    expect(d?.reason).toBe(
      'invalid JSON (expected a JSON value, found "o", at byte 6 of the line): "{\\"b\\": oops}"',
    );
    expect(rec.reason).toBe(d?.reason);
  });

  it("counts the place of invalid JSON in bytes, after non-ASCII text and a BOM", () => {
    const r = parseSessionText('\ufeff{"é😀":1,}\n{"é😀":1,}\r\n');
    expect(r.diagnostics.map((d) => d.reason)).toEqual([
      'invalid JSON (expected a property name, found "}", at byte 15 of the line): "{\\"é😀\\":1,}"',
      'invalid JSON (expected a property name, found "}", at byte 12 of the line): "{\\"é😀\\":1,}"',
    ]);
    expect(r.records.map((x) => raw(x).bytes)).toEqual([enc('\ufeff{"é😀":1,}'), enc('{"é😀":1,}\r')]);
  });

  it("says the same of a broken line whichever way it was found broken", () => {
    // The first line fails in JSON.parse, the others in the check that follows such a line.
    const line = '{"a":[1,2}';
    const r = parseSessionText(`${line}\n${line}\n{"b":1}\n${line}\n`);
    expect(r.records.map((x) => x.kind)).toEqual(["raw", "raw", "json", "raw"]);
    const reasons = r.diagnostics.map((d) => d.reason);
    expect(new Set(reasons).size).toBe(1);
    expect(reasons[0]).toContain(jsonSyntaxError(line)?.message);
  });

  it("keeps at most maxDiagnostics diagnostics and counts the others", () => {
    const text = `${"{\n".repeat(5)}[1]\n{"a":1}\n{`;
    const all = parseSessionText(text);
    expect(all.diagnostics).toHaveLength(8);
    expect(all.omittedDiagnostics).toBe(0);
    const some = parseSessionText(text, { maxDiagnostics: 2 });
    expect(some.records).toEqual(all.records);
    // The torn tail's diagnostic is always kept.
    expect(some.diagnostics).toEqual([all.diagnostics[0], all.diagnostics[1], all.diagnostics[7]]);
    expect(some.omittedDiagnostics).toBe(5);
    const none = parseSessionText(text, { maxDiagnostics: 0 });
    expect(none.diagnostics.map((d) => d.code)).toEqual(["torn-tail"]);
    expect(none.omittedDiagnostics).toBe(7);
  });

  it("calls JSON.parse a bounded number of times on a million broken lines", () => {
    const parse = vi.spyOn(JSON, "parse");
    let thrown = 0;
    parse.mockImplementation(function (this: unknown, ...args: Parameters<typeof JSON.parse>) {
      try {
        return Reflect.apply(realParse, JSON, args);
      } catch (error) {
        thrown++;
        throw error;
      }
    });
    try {
      const n = 1_000_000;
      const shapes = [
        "{",
        "[]",
        // All different, so no reason can be shared; shaped like an object or not.
        (i: number) => `{"n":${i}`,
        (i: number) => `{${i}}`,
      ];
      for (const shape of shapes) {
        parse.mockClear();
        thrown = 0;
        let text: string;
        if (typeof shape === "string") text = `${shape}\n`.repeat(n);
        else {
          const lines: string[] = [];
          for (let i = 0; i < n; i++) lines.push(shape(i));
          text = `${lines.join("\n")}\n`;
        }
        // Nothing kept: the test counts calls, not memory.
        const r = parseSessionText(text, { maxDiagnostics: 0, keepRecord: () => false });
        expect(r.omittedRecords).toBe(n);
        expect(r.omittedDiagnostics).toBe(n);
        // At most a first failure, then the check; "[]" parses (once: the reason is shared).
        expect(thrown, String(shape)).toBeLessThanOrEqual(1);
        expect(parse.mock.calls.length, String(shape)).toBeLessThanOrEqual(1);
      }
    } finally {
      parse.mockRestore();
    }
  }, 120_000);

  it("keeps the exact bytes of a line with invalid UTF-8", () => {
    const bad = bytesOf('{"a":"', [0xff, 0xc3], '"}');
    const r = parseSessionBytes(bytesOf('{"x":1}\n', Array.from(bad), "\n"));
    const rec = raw(r.records[1]);
    expect(rec.bytes).toEqual(bad);
    expect(rec.byteLength).toBe(bad.length);
    expect(rec.text).toContain("\uFFFD");
    expect(r.diagnostics).toHaveLength(1);
    expect(r.diagnostics[0]).toMatchObject({ code: "invalid-utf8", line: 2, offset: 8 });
    expect(r.diagnostics[0]?.reason).toContain("byte 6 of the line");
  });

  it("accepts a genuine U+FFFD character", () => {
    const r = parseSessionText('{"a":"\uFFFD"}\n');
    expect(json(r.records[0]).value).toEqual({ a: "\uFFFD" });
    expect(r.diagnostics).toEqual([]);
  });

  it("rejects encoded surrogates and overlong forms as invalid UTF-8", () => {
    for (const seq of [
      [0xed, 0xa0, 0x80],
      [0xc0, 0xaf],
      [0xe0, 0x80, 0xaf],
      [0xf4, 0x90, 0x80, 0x80],
    ]) {
      const r = parseSessionBytes(bytesOf('{"a":"', seq, '"}\n'));
      expect(r.diagnostics.map((d) => d.code)).toEqual(["invalid-utf8"]);
    }
  });

  it("reports a torn tail that is complete JSON as a warning", () => {
    const r = parseSessionText('{"a":1}\n{"b":2}');
    const last = json(r.records[1]);
    expect(last.terminated).toBe(false);
    expect(r.tornTail).toEqual({ kind: "json", line: 2, offset: 8, byteLength: 7 });
    expect(r.diagnostics).toEqual([
      expect.objectContaining({ code: "torn-tail", severity: "warning", line: 2 }),
    ]);
  });

  it("reports a torn tail fragment as an error, keeping its bytes", () => {
    const r = parseSessionText('{"a":1}\n{"b":2,"c":[');
    const last = raw(r.records[1]);
    expect(last.terminated).toBe(false);
    expect(last.bytes).toEqual(enc('{"b":2,"c":['));
    expect(r.tornTail).toEqual({ kind: "fragment", line: 2, offset: 8, byteLength: 12 });
    expect(r.diagnostics.map((d) => [d.code, d.severity])).toEqual([
      ["invalid-json", "error"],
      ["torn-tail", "error"],
    ]);
  });

  it("does not report a torn tail for trailing whitespace without a newline", () => {
    const r = parseSessionText('{"a":1}\n  ');
    expect(r.tornTail).toBeUndefined();
    expect(r.blankLines).toBe(1);
    expect(r.lines).toBe(2);
  });

  it("resumes mid-file with startOffset and startLine", () => {
    const r = parseSessionText('{"a":1}\n{"b":2}\n', { startOffset: 500, startLine: 10 });
    expect(r.records.map((x) => [x.line, x.offset])).toEqual([
      [10, 500],
      [11, 508],
    ]);
  });
});

describe("SessionLineDecoder", () => {
  it("returns records as lines complete and exposes progress", () => {
    const dec = new SessionLineDecoder();
    expect(dec.push(enc('{"a":'))).toEqual([]);
    expect(dec.pendingBytes).toBe(5);
    expect(dec.committedOffset).toBe(0);
    const got = dec.push(enc('1}\n{"b":2}\n{"c"'));
    expect(got.map((r) => json(r).value)).toEqual([{ a: 1 }, { b: 2 }]);
    expect(dec.lines).toBe(2);
    expect(dec.bytes).toBe(20);
    expect(dec.committedOffset).toBe(16);
    expect(dec.nextLine).toBe(3);
    const tail = dec.end();
    expect(tail).toHaveLength(1);
    expect(dec.tornTail?.kind).toBe("fragment");
    expect(dec.end()).toEqual([]);
  });

  it("joins a line split inside a multi-byte character and between CR and LF", () => {
    const bytes = enc('{"a":"😀é"}\r\n{"b":1}\n');
    const whole = parseSessionBytes(bytes);
    for (let cut = 1; cut < bytes.length; cut++) {
      expect(parseChunked(bytes, [cut])).toEqual(whole);
    }
  });

  it("handles a single line far longer than a decode window", () => {
    const big = "x".repeat(200_000);
    const bytes = enc(`{"a":1}\n{"big":"${big}"}\n{"c":"é"}\n`);
    const r = parseSessionBytes(bytes);
    expect(r.records.map((x) => x.line)).toEqual([1, 2, 3]);
    expect((json(r.records[1]).value.big as string).length).toBe(200_000);
    expect(r.diagnostics).toEqual([]);
  });

  it("decodes runs of non-ASCII lines line by line and ASCII stretches in windows, with the same records", () => {
    // ASCII stretches longer than a window and than the one-by-one run, non-ASCII lines
    // (one with invalid UTF-8) alone and in runs: every way of decoding meets here.
    const lines: string[] = [];
    const ascii = (n: number) => {
      for (let i = 0; i < n; i++) lines.push(JSON.stringify({ i: lines.length, pad: "a".repeat(i % 90) }));
    };
    ascii(400);
    lines.push(JSON.stringify({ t: "é 中文 😀" }));
    ascii(3);
    // Long lines are decoded alone, short ones a few together.
    lines.push(JSON.stringify({ long: "b".repeat(3000) }), JSON.stringify({ long: "ü".repeat(700) }));
    ascii(300);
    for (let i = 0; i < 5; i++) lines.push(JSON.stringify({ t: "ü".repeat(i * 50), i }));
    ascii(20);
    lines.push("BAD");
    ascii(200);
    const text = `${lines.join("\n")}\n`;
    const bytes = enc(text);
    // One line with a stray 0xff byte, which must stay a raw record with its exact bytes.
    bytes[enc(text.slice(0, text.indexOf("BAD"))).length] = 0xff;
    const r = parseSessionBytes(bytes);
    expect(r.records).toHaveLength(lines.length);
    let offset = 0;
    r.records.forEach((rec, k) => {
      expect(rec.line).toBe(k + 1);
      expect(rec.offset).toBe(offset);
      offset += enc(lines[k] as string).length + 1;
      if (k === lines.indexOf("BAD")) expect(rec.kind).toBe("raw");
      else expect(json(rec).value).toEqual(JSON.parse(lines[k] as string));
    });
    expect(r.diagnostics.map((d) => d.line)).toEqual([lines.indexOf("BAD") + 1]);
    // Any chunking: the one-by-one run carries over from one chunk to the next.
    for (const size of [1000, 4096, 20_000, 65_536]) {
      const cuts: number[] = [];
      for (let at = size; at < bytes.length; at += size) cuts.push(at);
      expect(parseChunked(bytes, cuts)).toEqual(r);
    }
  });
});

// ---------------------------------------------------------------------------------------
// Properties

/** Bytes that are mostly line-shaped: JSON objects, junk, CR/LF, BOMs, broken UTF-8. */
const arbLineBytes: fc.Arbitrary<Uint8Array> = fc
  .array(
    fc.oneof(
      fc
        .dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 })
        .map((o) => enc(JSON.stringify(o))),
      fc.string({ unit: "binary", maxLength: 12 }).map(enc),
      fc
        .constantFrom(
          [10],
          [13, 10],
          [13],
          [0xef, 0xbb, 0xbf],
          [0xff],
          [0xe2, 0x82],
          [0xe2, 0x80, 0xa8],
          [32, 9],
          [0x7b],
          [0x5b, 0x31, 0x5d],
        )
        .map((b) => new Uint8Array(b)),
      fc.uint8Array({ maxLength: 8 }),
    ),
    { maxLength: 30 },
  )
  .map((parts) => {
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  });

const arbBytes = fc.oneof(arbLineBytes, fc.uint8Array({ maxLength: 200 }));

/** JSON text, mostly objects, sometimes broken by an edit. */
const arbMaybeBrokenJson: fc.Arbitrary<string> = fc
  .tuple(
    fc.oneof(
      {
        weight: 3,
        arbitrary: fc.dictionary(fc.string({ maxLength: 3 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
      },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
    ),
    fc.option(
      fc.tuple(fc.nat(), fc.constantFrom("", "{", "}", "[", "]", ",", ":", '"', "\\", "x", "é", "\u00a0")),
    ),
  )
  .map(([value, edit]) => {
    const text = JSON.stringify(value);
    if (edit === null) return text;
    const [at, ch] = edit;
    const i = at % (text.length + 1);
    return text.slice(0, i) + ch + text.slice(i + 1);
  });

/** Files of lines, broken ones often repeated in runs, with CRs, blanks, a BOM, bad UTF-8. */
const arbBrokenFile: fc.Arbitrary<Uint8Array> = fc
  .tuple(
    fc.boolean(),
    fc.array(
      fc.tuple(
        fc.oneof(
          { weight: 4, arbitrary: arbMaybeBrokenJson.map(enc) },
          { weight: 1, arbitrary: arbLineBytes },
          { weight: 1, arbitrary: fc.constantFrom(enc("   "), enc(""), bytesOf('{"a":"', [0xff], '"}')) },
        ),
        // Runs longer than the codec's check run (64) now and then.
        fc.oneof({ weight: 6, arbitrary: fc.integer({ min: 1, max: 3 }) }, fc.integer({ min: 60, max: 70 })),
        fc.constantFrom("\n", "\r\n", ""),
      ),
      { maxLength: 8 },
    ),
  )
  .map(([bom, lines]) => {
    const parts: (string | number[])[] = bom ? [[0xef, 0xbb, 0xbf]] : [];
    for (const [line, times, end] of lines) {
      for (let k = 0; k < times; k++) parts.push(Array.from(line), end || "\n");
    }
    const last = lines.at(-1);
    if (last !== undefined && last[2] === "") parts.pop();
    return bytesOf(...parts);
  });

/**
 * A parse result as plain data, each record one string (fast to compare), a raw record's
 * bytes included (they are a getter).
 */
function withBytes(r: ParseResult): unknown {
  const records = r.records.map((x) =>
    JSON.stringify(x.kind === "raw" ? { ...x, bytes: Array.from(x.bytes).join(",") } : x),
  );
  return { ...r, records, diagnostics: r.diagnostics.map((d) => JSON.stringify(d)) };
}

/** Sorted cut positions within [0, len]. */
const arbCuts = (len: number) =>
  fc.uniqueArray(fc.integer({ min: 0, max: len }), { maxLength: 12 }).map((c) => c.sort((a, b) => a - b));

describe("codec properties", () => {
  it("never throws and accounts for every byte", () => {
    fc.assert(
      fc.property(arbBytes, (bytes) => {
        const r = parseSessionBytes(bytes);
        expect(r.bytes).toBe(bytes.length);
        // Walk the lines: each is a record or a blank line; `\n` separates them.
        let pos = 0;
        let line = 1;
        let blank = 0;
        let ri = 0;
        while (pos < bytes.length) {
          const nl = bytes.indexOf(10, pos);
          const end = nl < 0 ? bytes.length : nl;
          const rec = r.records[ri];
          if (rec !== undefined && rec.line === line) {
            expect(rec.offset).toBe(pos);
            expect(rec.byteLength).toBe(end - pos);
            expect(rec.terminated).toBe(nl >= 0);
            if (rec.kind === "raw") expect(rec.bytes).toEqual(bytes.subarray(pos, end));
            ri++;
          } else {
            // Blank: only JSON whitespace (after a BOM on line 1). Any other line is a record.
            let text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes.subarray(pos, end));
            if (line === 1 && text.startsWith("\ufeff")) text = text.slice(1);
            expect(text).toMatch(/^[ \t\r]*$/);
            blank++;
          }
          line++;
          pos = end + 1;
        }
        expect(ri).toBe(r.records.length);
        expect(blank).toBe(r.blankLines);
        expect(r.lines).toBe(line - 1);
        // A raw record always has exactly one line diagnostic.
        const lineDiags = r.diagnostics.filter((d) => d.code !== "torn-tail");
        expect(lineDiags.map((d) => d.line)).toEqual(
          r.records.filter((x) => x.kind === "raw").map((x) => x.line),
        );
      }),
      fcOptions(),
    );
  }, 60_000);

  it("gives the same records and diagnostics for any chunking", () => {
    fc.assert(
      fc.property(
        arbBytes.chain((b) => fc.tuple(fc.constant(b), arbCuts(b.length))),
        ([bytes, cuts]) => {
          expect(parseChunked(bytes, cuts)).toEqual(parseSessionBytes(bytes));
        },
      ),
      fcOptions(),
    );
  }, 60_000);

  it("gives what parsing every line with JSON.parse gives (the fast path held to the plain one)", () => {
    const plain = (bytes: Uint8Array, opts?: { maxDiagnostics: number }) => {
      codecTesting.parseEveryLine = true;
      try {
        return withBytes(parseSessionBytes(bytes, opts));
      } finally {
        codecTesting.parseEveryLine = false;
      }
    };
    fc.assert(
      fc.property(
        arbBrokenFile.chain((b) => fc.tuple(fc.constant(b), arbCuts(b.length), fc.nat({ max: 5 }))),
        ([bytes, cuts, max]) => {
          const expected = plain(bytes);
          expect(withBytes(parseChunked(bytes, cuts))).toEqual(expected);
          expect(withBytes(parseSessionBytes(bytes, { maxDiagnostics: max }))).toEqual(
            plain(bytes, { maxDiagnostics: max }),
          );
        },
      ),
      fcOptions(),
    );
  }, 60_000);

  it("parses JSON-object lines back to the same values", () => {
    fc.assert(
      fc.property(fc.array(fc.dictionary(fc.string(), fc.jsonValue()), { maxLength: 10 }), (objs) => {
        const text = objs.map((o) => `${JSON.stringify(o)}\n`).join("");
        const r = parseSessionText(text);
        expect(r.diagnostics).toEqual([]);
        // Compared with a JSON round trip: -0 is written as 0.
        expect(r.records.map((x) => json(x).value)).toEqual(JSON.parse(JSON.stringify(objs)));
      }),
      fcOptions(),
    );
  }, 60_000);
});
