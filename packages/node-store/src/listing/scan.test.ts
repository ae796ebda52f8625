/**
 * The WebAssembly scanner path of listing (`scan.ts`) must give exactly the state the codec
 * path gives. Property tests build session files line by line with a serializer of our own
 * that varies what JSON.stringify never varies (whitespace, escapes in keys and values,
 * duplicate keys, number spellings, deep nesting) and then corrupts some lines (truncation,
 * stray bytes, invalid UTF-8, control bytes); both readers get the same bytes in random
 * chunks and must agree on every field of the state and on the resume point.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { fcOptions } from "@pi-session/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type InfoState, emptyInfoState } from "./info.js";
import { CodecInfoReader, InfoReader, type StateReader } from "./scan.js";
import { LineCode, lineScanner } from "./line-scanner.js";

const scanner = lineScanner();

// ---------------------------------------------------------------------------------------
// A JSON writer with knobs

type J = null | boolean | number | string | J[] | { [k: string]: J } | Dup | Num;
/** An object written with the given key/value pairs in order (keys may repeat). */
class Dup {
  constructor(readonly pairs: [string, J][]) {}
}
/** A number written with this exact spelling (must be valid JSON). */
class Num {
  constructor(readonly text: string) {}
}

interface Style {
  /** Whitespace to put between tokens, cycled. */
  ws: string[];
  /** Escape every n-th character of strings (0: never). */
  escapeEvery: number;
  /** Escape keys too. */
  escapeKeys: boolean;
}

function hex4(n: number): string {
  return n.toString(16).padStart(4, "0");
}

function writeString(s: string, style: Style, isKey: boolean, counter: { n: number }): string {
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0) as number;
    counter.n++;
    const force =
      style.escapeEvery > 0 && (!isKey || style.escapeKeys) && counter.n % style.escapeEvery === 0;
    if (ch === '"') out += force ? "\\u0022" : '\\"';
    else if (ch === "\\") out += force ? "\\u005C" : "\\\\";
    else if (code < 0x20) {
      const short: Record<number, string> = { 8: "\\b", 9: "\\t", 10: "\\n", 12: "\\f", 13: "\\r" };
      out += !force && short[code] ? short[code] : `\\u${hex4(code)}`;
    } else if (force) {
      if (ch === "/") out += "\\/";
      else if (code > 0xffff) {
        const v = code - 0x10000;
        out += `\\u${hex4(0xd800 + (v >> 10))}\\u${hex4(0xdc00 + (v & 0x3ff))}`;
      } else out += `\\u${counter.n % 2 ? hex4(code) : hex4(code).toUpperCase()}`;
    } else out += ch;
  }
  return `${out}"`;
}

function write(v: J, style: Style, counter: { n: number } = { n: 0 }, depth = 0): string {
  const w = (): string => style.ws[(counter.n++ + depth) % style.ws.length] as string;
  if (v === null) return "null";
  if (v === true) return "true";
  if (v === false) return "false";
  if (typeof v === "number") return JSON.stringify(v);
  if (v instanceof Num) return v.text;
  if (typeof v === "string") return writeString(v, style, false, counter);
  if (Array.isArray(v))
    return `[${w()}${v.map((x) => write(x, style, counter, depth + 1)).join(`${w()},${w()}`)}${w()}]`;
  const pairs = v instanceof Dup ? v.pairs : Object.entries(v);
  const body = pairs
    .map(
      ([k, x]) =>
        `${writeString(k, style, true, counter)}${w()}:${w()}${write(x, style, counter, depth + 1)}`,
    )
    .join(`${w()},${w()}`);
  return `{${w()}${body}${w()}}`;
}

// ---------------------------------------------------------------------------------------
// Lines

const texts = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: "grapheme", maxLength: 20 }),
  fc.string({ unit: "binary", maxLength: 12 }),
  fc.constantFrom(
    "",
    " ",
    "hello world",
    'quote " and \\ slash',
    "line\nbreak\ttab",
    "é ü 中文 😀",
    "\u2028",
  ),
  fc.string({ minLength: 40, maxLength: 300, unit: fc.constantFrom("a", "b", " ", "\n", '"', "é", "😀") }),
);

const numbers = fc.oneof(
  fc.integer({ min: 1_600_000_000_000, max: 1_900_000_000_000 }).map((n) => n as J),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => n as J),
  fc.constantFrom("1E3", "-0", "0.5e-3", "1e+2", "12.50", "-1.0E-0").map((t) => new Num(t) as J),
);

const jsonValue: fc.Arbitrary<J> = fc.letrec<{ v: J }>((tie) => ({
  v: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom<J>(null, true, false, 0, -1.5),
    texts,
    numbers,
    fc.array(tie("v"), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom("a", "type", "text", "role", "x y", "é"), tie("v"), { maxKeys: 3 }),
  ),
})).v;

/** JSON values no `String()` or `new Date()` takes: an object whose own `toString` is not a function. */
const unconvertible = fc.constantFrom<J>(
  new Dup([["toString", 1]]),
  new Dup([
    ["valueOf", 1],
    ["toString", null],
  ]),
  [1, new Dup([["toString", "x"]])],
);

const block: fc.Arbitrary<J> = fc.oneof(
  fc.record({ type: fc.constant("text"), text: texts }),
  fc.record({ type: fc.constant("text"), text: fc.oneof(fc.constant(null), numbers, fc.constant(true)) }),
  fc.record({ type: fc.constant("text"), text: fc.oneof(jsonValue, unconvertible) }),
  fc.constant({ type: "text" }),
  fc.record({ text: texts, type: fc.constant("text") }),
  fc.record({ type: fc.constantFrom("image", "thinking", "toolCall", "Text", "text "), text: texts }),
  fc.record({ type: fc.constant("thinking"), thinking: texts }),
  jsonValue,
);

const content: fc.Arbitrary<J | undefined> = fc.oneof(
  texts,
  fc.array(block, { maxLength: 4 }),
  fc.constantFrom<J | undefined>(null, 5, {}, [], undefined),
);

const roles = fc.constantFrom<J | undefined>(
  "user",
  "assistant",
  "user",
  "assistant",
  "toolResult",
  "bashExecution",
  "custom",
  "User",
  "",
  "assistantx",
  7,
  undefined,
);

function compact(pairs: [string, J | undefined][]): [string, J][] {
  return pairs.filter((p): p is [string, J] => p[1] !== undefined);
}

const messageEntry: fc.Arbitrary<J> = fc
  .record({
    role: roles,
    content,
    mts: fc.option(fc.oneof(numbers, texts), { nil: undefined }),
    ets: fc.option(
      fc.oneof(
        fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
        texts,
        numbers,
        // pi takes `new Date()` of whatever the entry's timestamp is.
        fc.constantFrom<J>(
          true,
          false,
          null,
          [],
          [1],
          ["2025-02-01T00:00:00.000Z"],
          [[]],
          {},
          0,
          -1,
          8.64e15,
        ),
        jsonValue,
        unconvertible,
      ),
      {
        nil: undefined,
      },
    ),
    extra: fc.dictionary(fc.constantFrom("id", "parentId", "usage", "details"), jsonValue, { maxKeys: 2 }),
    order: fc.boolean(),
  })
  .map(({ role, content, mts, ets, extra, order }) => {
    const message = compact([
      ["role", role],
      ["content", content],
      ["timestamp", mts],
    ]);
    if (order) message.reverse();
    return new Dup(
      compact([
        ["type", "message"],
        ...Object.entries(extra),
        ["timestamp", ets],
        ["message", new Dup(message)],
      ]),
    );
  });

const otherEntry: fc.Arbitrary<J> = fc.oneof(
  fc.record({ type: fc.constant("session_info"), name: fc.oneof(texts, fc.constant(null)) }),
  fc.record({ type: fc.constant("session"), id: texts, cwd: texts, timestamp: texts }),
  fc.record({
    type: fc.constantFrom("custom", "label", "compaction", "model_change", "messages", "sess", "", "Message"),
    message: jsonValue,
  }),
  fc.record({ type: numbers, message: fc.constant({ role: "user", content: "x" }) }),
  fc.constant({ message: { role: "user", content: "no type" } }),
);

/** Lines that only duplicate or escape their way into ambiguity. */
const trickyLine = fc.constantFrom(
  '{"type":"message","type":"custom","message":{"role":"user","content":"dup type"}}',
  '{"type":"custom","type":"message","message":{"role":"user","content":"dup type 2"}}',
  '{"type":"message","message":{"role":"user","content":"a"},"message":{"role":"toolResult"}}',
  '{"type":"message","message":{"role":"toolResult","role":"user","content":"dup role"}}',
  '{"typ\\u0065":"message","message":{"role":"user","content":"escaped key"}}',
  '{"type":"m\\u0065ssage","message":{"role":"user","content":"escaped type"}}',
  '{"type":"message","message":{"r\\u006fle":"user","content":"escaped role key"}}',
  '{"type":"message","message":{"role":"\\u0075ser","content":"escaped role"}}',
  '{"type":"message","message":{"role":"user","cont\\u0065nt":"escaped content key"}}',
  '{"type":"message","message":{"role":"user","content":[{"t\\u0065xt":"k","type":"text"}]}}',
  '{"type":"message","message":{"role":"user","content":[{"type":"t\\u0065xt","text":"v"}]}}',
  '{"type":"message","message":{"role":"user","content":[{"type":"text","text":"a","text":"b"}]}}',
  '{"type":"message","message":{"role":"user","content":"x","timestamp":1,"timestamp":"s"}}',
  '{"type":"message","timestamp":"2025-01-01T00:00:00.000Z","timestamp":"x","message":{"role":"user","content":"x"}}',
  '{"type":"message","timestamp":"2025-01-01T00:00:00.000\\u005A","message":{"role":"user","content":"x"}}',
  '{"type":"message","timestamp":1735689600000,"message":{"role":"user","content":"numeric entry time"}}',
  '{"type":"message","timestamp":true,"message":{"role":"assistant","content":[]}}',
  '{"type":"message","timestamp":[1],"message":{"role":"user","content":"array entry time"}}',
  '{"type":"message","timestamp":{"toString":1},"message":{"role":"user","content":"new Date throws"}}',
  '{"type":"message","timestamp":{"toString":1},"message":{"role":"user","content":"ignored","timestamp":5}}',
  '{"type":"message","timestamp":{"toString":1},"message":{"role":"toolResult","content":"ignored"}}',
  '{"type":"message","message":{"role":"user","content":[{"type":"text","text":{"toString":1}}]}}',
  '{"type":"message","message":{"role":"user","content":"x"}}\t \r',
  ' {"type":"message","message":{"role":"user","content":"leading space"}}',
  '\uFEFF{"type":"message","message":{"role":"user","content":"bom"}}',
  '{"type":"message","message":{"role":"user","content":"x"}} x',
  '{"type":"message","message":{"role":"user","content":"x"},}',
  '{"type":"message","message":{"role":"user","content":"x"}',
  '{"type":"message","message":{"role":"user","content":"x"}}}',
  '{"type":"message","n":01,"message":{"role":"user","content":"x"}}',
  '{"type":"message","n":1.,"message":{"role":"user","content":"x"}}',
  '{"type":"message","n":-,"message":{"role":"user","content":"x"}}',
  '{"type":"message","n":tru,"message":{"role":"user","content":"x"}}',
  '{"type":"message","s":"\\x","message":{"role":"user","content":"bad escape"}}',
  '{"type":"message","s":"\\u12G4","message":{"role":"user","content":"bad hex"}}',
  '{"type":"message","message":{"role":"user","content":"\\ud83d\\ude00 \\ud800 lone"}}',
  '{"type":"message","message":{"role":"user","content":[1,"s",null,[],{"type":"text","text":"ok"}]}}',
  '{"type":"message","message":{"role":"user","content":[{"type":"text","text":{"a":1}}]}}',
  '{"type":"message","message":{"role":"user","content":[{"type":"text","text":[]}]}}',
  '{"type":"message","message":{"role":"user","content":[{"type":"text","text":"","type":"x"}]}}',
  '{"type":"message","message":{"role":"user","__proto__":{"content":"proto"}}}',
  '{"__proto__":{"type":"message"},"message":{"role":"user","content":"proto type"}}',
  '{"type":"message","message":{"role":"user","content":"x"},"message2":{"role":"assistant"}}',
  '{"type":"message","message":[{"role":"user","content":"array message"}]}',
  '{"type":"message","message":"string message"}',
  '{"type":"message"}',
  "[1,2]",
  '"string"',
  "42",
  "null",
  "{}",
  "",
  "   ",
  "\t\r",
  "true",
  "[]",
  "0",
  '""',
  "\u00a0",
  "\u2028",
  "\ufeff",
  `{"type":"message","deep":${"[".repeat(1100)}${"]".repeat(1100)},"message":{"role":"toolResult"}}`,
  `{"type":"message","deep":${"[".repeat(990)}${"]".repeat(990)},"message":{"role":"user","content":"deep"}}`,
  `{"type":"message","message":{"role":"user","content":[${Array.from({ length: 1100 }, (_, i) => `{"type":"text","text":"t${i}"}`).join(",")}]}}`,
);

const style: fc.Arbitrary<Style> = fc.record({
  ws: fc.array(fc.constantFrom("", "", "", " ", "\t", "\r", "  "), { minLength: 1, maxLength: 4 }),
  escapeEvery: fc.constantFrom(0, 0, 0, 1, 3, 7),
  escapeKeys: fc.boolean(),
});

const enc = new TextEncoder();

/** A corruption of a line's bytes. */
const corruption = fc.oneof(
  fc.constant((b: Uint8Array) => b),
  fc.constant((b: Uint8Array) => b),
  fc.constant((b: Uint8Array) => b),
  fc.nat().map((n) => (b: Uint8Array) => b.subarray(0, b.length === 0 ? 0 : n % b.length)),
  fc
    .tuple(
      fc.nat(),
      fc.constantFrom(0x00, 0x01, 0x1f, 0x22, 0x5c, 0x7f, 0x80, 0xbf, 0xc0, 0xe0, 0xed, 0xf4, 0xf5, 0xff),
    )
    .map(([n, byte]) => (b: Uint8Array) => {
      const at = b.length === 0 ? 0 : n % b.length;
      const out = new Uint8Array(b.length + 1);
      out.set(b.subarray(0, at));
      out[at] = byte;
      out.set(b.subarray(at), at + 1);
      return out;
    }),
  fc.nat().map((n) => (b: Uint8Array) => {
    if (b.length === 0) return b;
    const at = n % b.length;
    const out = new Uint8Array(b.length - 1);
    out.set(b.subarray(0, at));
    out.set(b.subarray(at + 1), at);
    return out;
  }),
);

const line: fc.Arbitrary<Uint8Array> = fc.oneof(
  { arbitrary: fc.tuple(messageEntry, style).map(([e, s]) => enc.encode(write(e, s))), weight: 6 },
  { arbitrary: fc.tuple(otherEntry, style).map(([e, s]) => enc.encode(write(e, s))), weight: 2 },
  { arbitrary: trickyLine.map((l) => enc.encode(l)), weight: 2 },
);

const header: fc.Arbitrary<Uint8Array> = fc.oneof(
  fc
    .constantFrom(
      '{"type":"session","version":3,"id":"abc","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/p"}',
      '\uFEFF{"type":"session","id":"bom","timestamp":"2025-01-02T00:00:00.000Z","cwd":"/b"}',
      '{"type":"session","id":7}',
      "",
      "not json",
      '{"type":"message","message":{"role":"user","content":"no header"}}',
      // Falsy values are skipped (the next line may be the header); truthy ones are not headers.
      "0",
      "null",
      '""',
      "false",
      "[1]",
      "7",
      '"x"',
      "true",
      "\u00a0",
    )
    .map((h) => enc.encode(h)),
  // Invalid UTF-8 in the header's strings: pi decodes it as U+FFFD and reads the header.
  fc.constantFrom(
    Uint8Array.from([...enc.encode('{"type":"session","id":"u","cwd":"/'), 0xff, ...enc.encode('"}')]),
    Uint8Array.from([
      0xef,
      0xbb,
      0xbf,
      ...enc.encode('{"type":"session","id":"u","name":"'),
      0xc3,
      0x22,
      0x7d,
    ]),
  ),
);

interface FileCase {
  bytes: Uint8Array;
  cuts: number[];
}

const file: fc.Arbitrary<FileCase> = fc
  .record({
    header,
    lines: fc.array(fc.tuple(line, corruption), { maxLength: 25 }),
    crlf: fc.boolean(),
    torn: fc.boolean(),
    cuts: fc.array(fc.nat(), { maxLength: 6 }),
  })
  .map(({ header, lines, crlf, torn, cuts }) => {
    const nl = enc.encode(crlf ? "\r\n" : "\n");
    const parts: Uint8Array[] = [header, nl];
    for (const [l, corrupt] of lines) parts.push(corrupt(l), nl);
    if (torn && parts.length > 2) parts.pop();
    let length = 0;
    for (const p of parts) length += p.length;
    const bytes = new Uint8Array(length);
    let at = 0;
    for (const p of parts) {
      bytes.set(p, at);
      at += p.length;
    }
    return {
      bytes,
      cuts: [...new Set(cuts.map((c) => (length === 0 ? 0 : c % length)))].sort((a, b) => a - b),
    };
  });

// ---------------------------------------------------------------------------------------
// Running both readers

function feed(
  reader: StateReader,
  bytes: Uint8Array,
  cuts: readonly number[],
): { offset: number; line: number } {
  // One Buffer reused for every chunk and scribbled over after each push, as a file reader
  // does: a reader must copy what it keeps.
  const buf = Buffer.alloc(bytes.length + 1);
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    buf.set(bytes.subarray(from, cut));
    reader.push(buf.subarray(0, cut - from));
    buf.fill(0x7b);
    from = cut;
  }
  const before = { offset: reader.committedOffset, line: reader.nextLine };
  reader.end();
  return before;
}

function both(
  bytes: Uint8Array,
  cuts: readonly number[],
  start: { startOffset?: number; startLine?: number } = {},
  maxScanBytes?: number,
) {
  if (!scanner) throw new Error("the WebAssembly scanner did not load");
  const a = emptyInfoState();
  const b = emptyInfoState();
  const fast = feed(
    new InfoReader(scanner, a, start, maxScanBytes === undefined ? {} : { maxScanBytes }),
    bytes,
    cuts,
  );
  const exact = feed(new CodecInfoReader(b, start), bytes, cuts);
  return { fast: { state: a, ...fast }, exact: { state: b, ...exact } };
}

function expectSame(bytes: Uint8Array, cuts: readonly number[], maxScanBytes?: number): InfoState {
  const { fast, exact } = both(bytes, cuts, {}, maxScanBytes);
  expect(fast.state).toEqual(exact.state);
  // Not a session: listing stops reading, so where each reader stopped does not matter.
  if (fast.state.header !== false) expect(fast).toEqual(exact);
  return fast.state;
}

describe("the WebAssembly line scanner", () => {
  it("loads here (Node has WebAssembly SIMD)", () => {
    expect(scanner).not.toBeNull();
  });

  it("is built from the current AssemblyScript source (scripts/build-wasm.mjs --check)", {
    tags: ["compiler"],
  }, () => {
    const pkg = fileURLToPath(new URL("../..", import.meta.url));
    const run = spawnSync(process.execPath, ["scripts/build-wasm.mjs", "--check"], {
      cwd: pkg,
      encoding: "utf8",
    });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
  });

  it("gives the codec path's state on generated files with tricky and corrupt lines, in any chunks", () => {
    fc.assert(
      fc.property(
        file,
        fc.option(fc.integer({ min: 1, max: 400 }), { nil: undefined }),
        ({ bytes, cuts }, max) => {
          // A small `maxScanBytes` sends some regions (whole lines) through the codec path.
          expectSame(bytes, cuts, max);
        },
      ),
      fcOptions(),
    );
  });

  it("agrees with JSON.parse whenever it vouches for a line", () => {
    if (!scanner) throw new Error("no scanner");
    /** The scanner's code for one line (without its newline). */
    const codeOf = (bytes: Uint8Array): number => {
      const mem = scanner.ensure(bytes.length + 1);
      mem.set(bytes, scanner.input);
      mem[scanner.input + bytes.length] = 10;
      const seen: number[] = [];
      const { lines, messages } = scanner.scan(scanner.input, scanner.input + bytes.length + 1, (k) =>
        seen.push(scanner.memoryWords[k + 2] as number),
      );
      expect(lines).toBe(1);
      return messages === 1 ? LineCode.MessageOther : (seen[0] ?? LineCode.Other);
    };
    fc.assert(
      fc.property(fc.tuple(line, corruption), ([l, corrupt]) => {
        const bytes = corrupt(l);
        if (bytes.includes(10)) return;
        const code = codeOf(bytes);
        if (code === LineCode.Fallback) return;
        // Vouched for: it must be a JSON object of valid UTF-8 whose type/role match the code.
        const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
        const value = JSON.parse(text) as Record<string, unknown>;
        expect(typeof value === "object" && value !== null && !Array.isArray(value)).toBe(true);
        const message = value.message as Record<string, unknown> | null | undefined;
        const role = typeof message === "object" && message !== null ? message.role : undefined;
        if (value.type === "message") {
          const ua = role === "user" || role === "assistant";
          expect(code).toBe(
            ua ? (role === "user" ? LineCode.User : LineCode.Assistant) : LineCode.MessageOther,
          );
        } else if (typeof value.type === "string" && value.type.startsWith("sess")) {
          expect(code).toBe(LineCode.Slow);
        } else expect(code).toBe(LineCode.Other);
      }),
      fcOptions(),
    );
    // The generator reaches every outcome (checked on a fixed sample: a run of a few hundred
    // random lines may miss the rarer ones).
    const codes = new Set<number>();
    for (const [l, corrupt] of fc.sample(fc.tuple(line, corruption), { numRuns: 2000, seed: 42 })) {
      const bytes = corrupt(l);
      if (!bytes.includes(10)) codes.add(codeOf(bytes));
    }
    for (const c of Object.values(LineCode)) expect(codes).toContain(c);
  });

  it("handles lines far longer than a read chunk, split anywhere", () => {
    const big = 'x\\n\\"é😀'.repeat(400_000);
    const bytes = enc.encode(
      [
        '{"type":"session","id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}',
        `{"type":"message","message":{"role":"toolResult","content":[{"type":"text","text":"${big}"}]}}`,
        `{"type":"message","timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"${big}"}}`,
        `{"type":"message","message":{"role":"assistant","content":[{"type":"text","text":"${big}"},{"type":"text","text":"tail"}],"timestamp":1735689602000}}`,
        "",
      ].join("\n"),
    );
    const cuts: number[] = [];
    for (let c = 1 << 20; c < bytes.length; c += 1 << 20) cuts.push(c);
    const state = expectSame(bytes, cuts);
    expect(state.messageCount).toBe(3);
    expect(state.lastActivity).toBe(1735689602000);
    expect(state.firstMessage.length).toBeGreaterThan(2_000_000);
  });

  it("finds a string's special byte at every position of the scanner's 32-byte blocks", () => {
    // The string loop tests 32 bytes at a time; a quote, an escape, a control byte, a
    // non-ASCII or an invalid byte must be seen wherever it falls in (or across) a block.
    // [what, bytes, whether the line is JSON once decoded (invalid UTF-8 as U+FFFD, as pi)]
    const specials: [string, number[], boolean][] = [
      ["escaped quote", [0x5c, 0x22], true],
      ["escape", [0x5c, 0x6e], true],
      ["unicode escape", [0x5c, 0x75, 0x30, 0x30, 0x65, 0x39], true],
      ["bad escape", [0x5c, 0x78], false],
      ["control byte", [0x09], false],
      ["two-byte UTF-8", [0xc3, 0xa9], true],
      ["four-byte UTF-8", [0xf0, 0x9f, 0x98, 0x80], true],
      ["lone continuation byte", [0x80], true],
      ["DEL", [0x7f], true],
      ["byte 0xff", [0xff], true],
    ];
    const head = enc.encode('{"type":"session","id":"h","cwd":"/"}\n');
    for (const [what, bytes, valid] of specials) {
      for (let before = 0; before < 70; before += 1) {
        const lines: number[] = [...head];
        // The user text (one string value, the special byte `before` bytes into it), then
        // the same as a block text, after a key of varying length.
        const text = [...enc.encode("a".repeat(before)), ...bytes, ...enc.encode("z".repeat(40))];
        lines.push(...enc.encode('{"type":"message","message":{"role":"user","content":"'), ...text);
        lines.push(...enc.encode('"}}\n'));
        lines.push(...enc.encode(`{"type":"message","${"k".repeat(before % 37)}":1,"message":{"role":`));
        lines.push(...enc.encode('"assistant","content":[{"type":"text","text":"'), ...text);
        lines.push(...enc.encode('"}]}}\n'));
        const state = expectSame(Uint8Array.from(lines), []);
        expect(state.messageCount, `${what} at ${before}`).toBe(valid ? 2 : 0);
      }
    }
  });

  it("resumes from an offset like the codec path (no BOM stripping past the first line)", () => {
    const bytes = enc.encode('\uFEFF{"type":"message","message":{"role":"user","content":"after"}}\n');
    const start = { startOffset: 120, startLine: 4 };
    const a = emptyInfoState();
    const b = emptyInfoState();
    a.header = { id: "h", cwd: "/" };
    b.header = { id: "h", cwd: "/" };
    const fast = feed(new InfoReader(scanner as NonNullable<typeof scanner>, a, start), bytes, []);
    const exact = feed(new CodecInfoReader(b, start), bytes, []);
    expect(fast).toEqual(exact);
    expect(a).toEqual(b);
    expect(fast).toEqual({ offset: 120 + bytes.length, line: 5 });
  });

  it("stops at a file whose first JSON line is not a header", () => {
    const bytes = enc.encode('\n{"type":"message"}\n{"type":"session","id":"late"}\n');
    const state = expectSame(bytes, [3]);
    expect(state.header).toBe(false);
    expect(state.messageCount).toBe(0);
  });
});
