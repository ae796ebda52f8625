/**
 * Tests of the info helpers (the fast timestamp parser agrees with `new Date` everywhere), and
 * of pi's `SessionInfo` rules on odd lines, through the public listing API: each case is
 * listed cold without a cache, cold filling a cache, warm from that cache, and by
 * `readSessionInfo`, and all four must give what pi 1.6.0 gives (the expected values were
 * checked against pi's own `SessionManager.listAll`).
 */
import { mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fcOptions, tempDirs } from "@pi-session/testkit";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import type { SessionInfo } from "./info.js";
import { dateOf, isExactIso, isoOfTime, isoTimeMs } from "./iso-time.js";
import { listSessionDir, readSessionInfo } from "./list.js";
import { newListStats } from "./options.js";

const dirs = tempDirs("ns-info-");
afterEach(dirs.cleanup);

const pad = (n: number, w: number) => String(n).padStart(w, "0");

describe("dateOf", () => {
  it("gives new Date(value)'s time for ISO-like strings, in and out of range, and for anything else", () => {
    const iso = fc
      .tuple(
        fc.integer({ min: 0, max: 9999 }),
        fc.integer({ min: 0, max: 13 }),
        fc.integer({ min: 0, max: 32 }),
        fc.integer({ min: 0, max: 25 }),
        fc.integer({ min: 0, max: 61 }),
        fc.integer({ min: 0, max: 61 }),
        fc.integer({ min: 0, max: 999 }),
        fc.constantFrom("Z", "z", "+", "X"),
      )
      .map(
        ([y, mo, d, h, mi, s, ms, z]) =>
          `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}T${pad(h, 2)}:${pad(mi, 2)}:${pad(s, 2)}.${pad(ms, 3)}${z}`,
      );
    const any = fc.oneof(iso, fc.string(), fc.integer(), fc.constant(undefined), fc.constant(null));
    fc.assert(
      fc.property(any, (v) => {
        expect(dateOf(v).getTime()).toBe(new Date(v as string).getTime());
      }),
      fcOptions(),
    );
    expect(dateOf("2025-01-01T24:00:00.000Z").getTime()).toBe(new Date("2025-01-01T24:00:00.000Z").getTime());
    expect(dateOf("0099-01-01T00:00:00.000Z").getTime()).toBe(new Date("0099-01-01T00:00:00.000Z").getTime());
  });
});

describe("isExactIso", () => {
  it("is true exactly when a string of pi's form is the toISOString of the time it parses to", () => {
    const iso = fc
      .tuple(
        // Years around the leap-year rules (1900, 2000, 2100) and the 4-digit edges.
        fc.oneof(fc.integer({ min: 0, max: 9999 }), fc.constantFrom(999, 1000, 1900, 2000, 2024, 2100, 9999)),
        fc.integer({ min: 0, max: 13 }),
        fc.oneof(fc.integer({ min: 0, max: 32 }), fc.constantFrom(28, 29, 30, 31)),
        fc.integer({ min: 0, max: 25 }),
        fc.integer({ min: 0, max: 61 }),
        fc.integer({ min: 0, max: 61 }),
        fc.integer({ min: 0, max: 999 }),
        fc.constantFrom("Z", "z"),
      )
      .map(
        ([y, mo, d, h, mi, s, ms, z]) =>
          `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}T${pad(h, 2)}:${pad(mi, 2)}:${pad(s, 2)}.${pad(ms, 3)}${z}`,
      );
    fc.assert(
      fc.property(fc.oneof(iso, fc.string()), (s) => {
        const t = new Date(s).getTime();
        const exact = !Number.isNaN(t) && new Date(t).toISOString() === s;
        // Outside pi's form (and isoTimeMs's ranges) it is false: the timestamp is then kept.
        expect(isExactIso(s)).toBe(isoTimeMs(s) !== undefined && exact);
      }),
      fcOptions(),
    );
    expect(isExactIso("2024-02-29T00:00:00.000Z")).toBe(true);
    expect(isExactIso("2100-02-29T00:00:00.000Z")).toBe(false);
    expect(isExactIso("2025-04-31T12:00:00.000Z")).toBe(false);
  });
});

describe("isoOfTime", () => {
  it("is toISOString for every time of years 1000–9999, and undefined outside them", () => {
    const lo = Date.UTC(1000, 0, 1);
    const hi = Date.UTC(10000, 0, 1) - 1;
    const t = fc.oneof(
      fc.integer({ min: lo, max: hi }),
      fc.constantFrom(
        lo,
        hi,
        0,
        Date.UTC(2000, 1, 29),
        Date.UTC(2100, 2, 1) - 1,
        Date.UTC(1600, 1, 29, 23, 59, 59, 999),
      ),
    );
    fc.assert(
      fc.property(t, (ms) => {
        expect(isoOfTime(ms)).toBe(new Date(ms).toISOString());
      }),
      fcOptions(),
    );
    expect(isoOfTime(lo - 1)).toBeUndefined();
    expect(isoOfTime(hi + 1)).toBeUndefined();
    expect(isoOfTime(1.5)).toBeUndefined();
    expect(isoOfTime(Number.NaN)).toBeUndefined();
  });
});

// ---------------------------------------------------------------------------------------
// pi's rules on odd lines, every way a file is listed

const enc = new TextEncoder();
const L = (v: unknown) => `${JSON.stringify(v)}\n`;
const HEADER_TIME = Date.parse("2025-01-01T00:00:00.000Z");
const H = (extra: object = {}) => ({
  type: "session",
  version: 3,
  id: "sid",
  timestamp: "2025-01-01T00:00:00.000Z",
  cwd: "/p",
  ...extra,
});
const U = (content: unknown, ts?: number, entryTs: unknown = "2025-01-01T00:00:05.000Z") => ({
  type: "message",
  id: "m",
  parentId: null,
  timestamp: entryTs,
  message: ts === undefined ? { role: "user", content } : { role: "user", content, timestamp: ts },
});
/** Bytes from strings (UTF-8) and byte arrays. */
const bytes = (...parts: (string | number[])[]) =>
  Buffer.concat(parts.map((p) => (typeof p === "string" ? enc.encode(p) : Uint8Array.from(p))));

/**
 * The info of a file listed every way: cold without a cache, cold filling a cache, warm from
 * it (nothing re-read, unless `reread`: a file whose state is not cached), and
 * `readSessionInfo`. They must agree; returns that one answer.
 */
async function listedEveryWay(content: Uint8Array | string, reread = false): Promise<SessionInfo | null> {
  const dir = dirs.make();
  const cacheDir = join(dirs.make(), "cache");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "s.jsonl");
  writeFileSync(path, content);
  const cold = (await listSessionDir(dir, { cache: false }))[0] ?? null;
  const filling = (await listSessionDir(dir, { cache: { dir: cacheDir } }))[0] ?? null;
  const stats = newListStats();
  const warm = (await listSessionDir(dir, { cache: { dir: cacheDir }, stats }))[0] ?? null;
  if (reread) expect(stats.filesParsed).toBe(1);
  else expect(stats.bytesRead).toBe(0);
  const single = await readSessionInfo(path);
  expect(filling).toEqual(cold);
  expect(warm).toEqual(cold);
  expect(single).toEqual(cold);
  return cold;
}

describe("pi's SessionInfo rules on odd lines (cold, warm and readSessionInfo agree)", () => {
  it("reads a header with an invalid UTF-8 byte, decoded as U+FFFD as pi does", async () => {
    const header =
      '{"type":"session","version":3,"id":"sid","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/p';
    const info = await listedEveryWay(bytes(header, [0xff], '"}\n', L(U("hi", 1000))));
    expect(info).toMatchObject({ id: "sid", cwd: "/p\ufffd", messageCount: 1, firstMessage: "hi" });
    // With a BOM on line 1 too (stripped, as on any line 1: a documented deviation from pi).
    const bom = await listedEveryWay(bytes([0xef, 0xbb, 0xbf], header, [0xc3], '"}\n', L(U("hi", 1000))));
    expect(bom).toMatchObject({ id: "sid", cwd: "/p\ufffd", messageCount: 1 });
  });

  it("counts and reads a message line with invalid UTF-8 inside a string", async () => {
    const m = '{"type":"message","id":"x","parentId":null,"timestamp":"t","message":{"role":"assistant",';
    const info = await listedEveryWay(
      bytes(
        L(H()),
        L(U("hi", 1000)),
        m,
        '"content":[{"type":"text","text":"a',
        [0xff],
        'b"}],"timestamp":2000}}\n',
      ),
    );
    expect(info).toMatchObject({ messageCount: 2, allMessagesText: "hi a\ufffdb", firstMessage: "hi" });
    expect(info?.modified.getTime()).toBe(2000);
    // Each invalid sequence is replaced as pi's decoder replaces it (maximal subparts).
    const seqs: [number[], string][] = [
      [[0xe2, 0x82], "\ufffd"],
      [[0xf0, 0x80, 0x80], "\ufffd\ufffd\ufffd"],
      [[0xed, 0xa0, 0x80], "\ufffd\ufffd\ufffd"],
      [[0x80, 0x80], "\ufffd\ufffd"],
    ];
    for (const [seq, replaced] of seqs) {
      const u =
        '{"type":"message","id":"x","parentId":null,"timestamp":"t","message":{"role":"user","content":"a';
      const one = await listedEveryWay(bytes(L(H()), u, seq, 'b","timestamp":7}}\n'));
      expect(one).toMatchObject({ messageCount: 1, firstMessage: `a${replaced}b` });
    }
    // A session_info name with an invalid byte names the session.
    const named = await listedEveryWay(
      bytes(
        L(H()),
        '{"type":"session_info","id":"i","parentId":null,"timestamp":"t","name":" n',
        [0xff],
        ' "}\n',
      ),
    );
    expect(named?.name).toBe("n\ufffd");
    // Invalid UTF-8 outside a string leaves a line that is not JSON: skipped.
    const outside = await listedEveryWay(bytes(L(H()), L(U("hi", 1000)).trimEnd(), [0xff], "\n"));
    expect(outside?.messageCount).toBe(0);
  });

  it("skips a file whose first truthy JSON value is not a header; falsy values are skipped", async () => {
    for (const first of ["[1]", "7", '"x"', "true", "[]", '"session"']) {
      expect(await listedEveryWay(`${first}\n${L(H())}${L(U("hi", 1000))}`), first).toBeNull();
    }
    for (const first of ["0", "-0", "false", "null", '""']) {
      const info = await listedEveryWay(`${first}\n${L(H())}${L(U("hi", 1000))}`);
      expect(info, first).toMatchObject({ id: "sid", messageCount: 1 });
    }
    // After the header, any non-object line is ignored.
    for (const later of ["[1]", "7", '"x"', "true", "0", "null"]) {
      const info = await listedEveryWay(`${L(H())}${later}\n${L(U("hi", 1000))}`);
      expect(info, later).toMatchObject({ id: "sid", messageCount: 1 });
    }
  });

  it("takes a message's time from new Date(entry.timestamp) of any JSON type, as pi", async () => {
    // [entry timestamp, modified] for a user message without a numeric message timestamp.
    const cases: [unknown, number][] = [
      [1_700_000_000_000, 1_700_000_000_000],
      [1.7, 1],
      [8.64e15, 8.64e15],
      [8.64e15 + 2, HEADER_TIME], // outside the Date range: invalid
      [true, 1],
      [false, HEADER_TIME], // 0: not a positive time
      [null, HEADER_TIME], // 0 too
      [-5, HEADER_TIME],
      [["2025-02-01T00:00:00.000Z"], Date.parse("2025-02-01T00:00:00.000Z")],
      [[1], new Date("1").getTime()], // the array's string, parsed (in local time)
      [[], HEADER_TIME],
      [{}, HEADER_TIME],
      [{ valueOf: 1 }, HEADER_TIME],
      ["2025-03-01T00:00:00.000Z", Date.parse("2025-03-01T00:00:00.000Z")],
    ];
    for (const [entryTs, modified] of cases) {
      // An array is read as its joined string, maybe in local time: such a time is not cached.
      const reread = Array.isArray(entryTs) && modified !== HEADER_TIME;
      const info = await listedEveryWay(L(H()) + L(U("hi", undefined, entryTs)), reread);
      expect(info?.modified.getTime(), JSON.stringify(entryTs)).toBe(modified);
      expect(info?.messageCount).toBe(1);
    }
    // A later positive time wins over 0; a numeric message timestamp makes the entry's unread.
    const both = await listedEveryWay(L(H()) + L(U("a", undefined, true)) + L(U("b", 5)));
    expect(both?.modified.getTime()).toBe(5);
    const msgTs = await listedEveryWay(L(H()) + L(U("a", 1234, { toString: 1 })));
    expect(msgTs?.modified.getTime()).toBe(1234);
    // Without a valid header time, an entry time of 1 (true) still wins over the mtime.
    const noHeaderTime = await listedEveryWay(L(H({ timestamp: 5 })) + L(U("a", undefined, true)));
    expect(noHeaderTime?.modified.getTime()).toBe(1);
  });

  it("skips a file where pi's new Date(entry.timestamp) or its joining of texts throws", async () => {
    for (const entryTs of [
      { toString: 1 },
      { valueOf: 1, toString: 1 },
      [{ toString: 1 }],
      [[{ toString: null }]],
    ]) {
      const info = await listedEveryWay(L(H()) + L(U("hi", undefined, entryTs)) + L(U("later", 5)));
      expect(info, JSON.stringify(entryTs)).toBeNull();
    }
    const text = await listedEveryWay(L(H()) + L(U([{ type: "text", text: { toString: 1 } }], 5)));
    expect(text).toBeNull();
    // Where pi does not read the value, nothing throws.
    const tool = { ...U("x", undefined, { toString: 1 }), message: { role: "toolResult", content: "x" } };
    expect(await listedEveryWay(L(H()) + L(tool))).toMatchObject({ messageCount: 1 });
  });

  it("skips lines of non-JSON white space (U+00A0, U+2028, U+FEFF...) as pi, wherever they are", async () => {
    for (const ws of ["\u00a0", "\u2028", "\ufeff", "\u3000", " \u00a0\t"]) {
      expect(await listedEveryWay(`${ws}\n${L(H())}${ws}\n${L(U("hi", 1000))}`)).toMatchObject({
        id: "sid",
        messageCount: 1,
        modified: new Date(1000),
      });
    }
  });

  it("lists a header with a BOM (a documented deviation: pi skips that line)", async () => {
    const info = await listedEveryWay(bytes([0xef, 0xbb, 0xbf], L(H()), L(U("hi", 1000))));
    expect(info).toMatchObject({ id: "sid", messageCount: 1 });
    expect(info?.created.getTime()).toBe(HEADER_TIME);
    expect(info?.modified).toEqual(new Date(1000));
    expect(info?.path && statSync(info.path).isFile()).toBe(true);
  });
});
