/**
 * Files of many malformed lines (issue 16 item 7): reading, listing and the header scan cost
 * about what reading the bytes costs, not a thrown `JSON.parse` or a kept object per line.
 * Counted, never timed: `JSON.parse` calls and throws (a spy), and what is kept.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type SessionRecord, parseSessionBytes } from "@pi-session/format";
import { fcOptions, tempDirs } from "@pi-session/testkit";
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SessionHeaderScanLimitError } from "./errors.js";
import { listSessionDir } from "./listing/list.js";
import { keepLinesPiReads, readLinesAsPi } from "./read/pi-lines.js";
import { readSessionFile, readSessionFileSync } from "./read/session-file.js";
import { scanHeaderSync } from "./read/header-scan.js";
import { streamSessionRecords } from "./read/stream.js";

const dirs = tempDirs("ns-malformed-");
afterEach(dirs.cleanup);

const realParse = JSON.parse;
const MILLION = 1_000_000;
const HEADER = JSON.stringify({
  type: "session",
  version: 3,
  id: "0199aaaa-0000-7000-8000-000000000001",
  timestamp: "2025-01-01T00:00:00.000Z",
  cwd: "/p",
});
const MESSAGE = JSON.stringify({
  type: "message",
  id: "a1b2c3d4",
  parentId: null,
  timestamp: "2025-01-02T00:00:00.000Z",
  message: { role: "user", content: [{ type: "text", text: "hi" }], timestamp: 1735776000000 },
});

/** Counts JSON.parse calls and throws while `fn` runs. */
async function countParses<T>(
  fn: () => T | Promise<T>,
): Promise<{ result: T; calls: number; thrown: number }> {
  let thrown = 0;
  const spy = vi.spyOn(JSON, "parse").mockImplementation((...args: Parameters<typeof JSON.parse>) => {
    try {
      return Reflect.apply(realParse, JSON, args);
    } catch (error) {
      thrown++;
      throw error;
    }
  });
  try {
    const result = await fn();
    return { result, calls: spy.mock.calls.length, thrown };
  } finally {
    spy.mockRestore();
  }
}

/** A session of a million copies of `broken` between the header and one message. */
function brokenSession(broken: string, dir = dirs.make()): string {
  const path = join(dir, "2025-01-01T00-00-00-000Z_0199aaaa-0000-7000-8000-000000000001.jsonl");
  writeFileSync(path, `${HEADER}\n${`${broken}\n`.repeat(MILLION)}${MESSAGE}\n`);
  return path;
}

describe("a million malformed lines", { timeout: 120_000 }, () => {
  it("are read with a bounded number of JSON.parse calls, each kept as a record with its reason", async () => {
    const path = brokenSession("{");
    const { result, calls, thrown } = await countParses(() => readSessionFileSync(path));
    expect(result.records).toHaveLength(MILLION + 2);
    expect(result.diagnostics).toHaveLength(MILLION);
    expect(result.records[1]).toMatchObject({ kind: "raw", line: 2, text: "{" });
    expect(result.diagnostics[0]?.file).toBe(path);
    // The header and the message; none for the broken lines.
    expect(calls).toBe(2);
    expect(thrown).toBe(0);
  });

  it("cost no record or diagnostic each when the reader keeps only what pi reads", async () => {
    for (const broken of ["{", '{"type":"message"', "[]", '"x"', "{x}"]) {
      const path = brokenSession(broken);
      const { result, calls, thrown } = await countParses(() =>
        readSessionFile(path, { keepRecord: keepLinesPiReads(), maxDiagnostics: 0 }),
      );
      expect(result.records.map((r) => r.line)).toEqual([1, MILLION + 2]);
      expect(result.omittedRecords).toBe(MILLION);
      expect(result.diagnostics).toEqual([]);
      expect(result.omittedDiagnostics).toBe(MILLION);
      expect(result.lines).toBe(MILLION + 2);
      // An object-shaped line may fail JSON.parse once before the check takes over.
      expect(calls, broken).toBeLessThanOrEqual(4);
      expect(thrown, broken).toBeLessThanOrEqual(1);
    }
  });

  it("are listed with a bounded number of JSON.parse calls", async () => {
    const dir = dirs.make();
    brokenSession("{", dir);
    const { result, calls } = await countParses(() => listSessionDir(dir, { cache: false }));
    expect(result.map((info) => info.messageCount)).toEqual([1]);
    expect(calls).toBeLessThanOrEqual(4);
  });

  it("before any header end the header scan at its limit without a JSON.parse each", async () => {
    const path = join(dirs.make(), "s.jsonl");
    writeFileSync(path, "{\n".repeat(MILLION));
    const { calls, thrown } = await countParses(() => {
      expect(() => scanHeaderSync(path)).toThrow(SessionHeaderScanLimitError);
    });
    expect(calls).toBe(0);
    expect(thrown).toBe(0);
  });

  it("keep at most maxDiagnostics diagnostics in a stream and count the others", async () => {
    const path = brokenSession('{"a":');
    let kept: unknown[] = [];
    let omitted = -1;
    let records = 0;
    for await (const _ of streamSessionRecords(path, {
      maxDiagnostics: 3,
      onDiagnostics: (diagnostics, count) => {
        kept = diagnostics;
        omitted = count;
      },
    })) {
      records++;
    }
    expect(records).toBe(MILLION + 2);
    expect(kept).toHaveLength(3);
    expect(kept[0]).toMatchObject({ code: "invalid-json", line: 2, file: path });
    expect(omitted).toBe(MILLION - 3);
  });
});

/** Lines pi reads differently: objects, values that decide or not, broken ones, bad UTF-8. */
const arbLine: fc.Arbitrary<Uint8Array> = fc
  .oneof(
    fc.constantFrom(
      HEADER,
      MESSAGE,
      '{"type":"session","id":7}',
      "{",
      '{"a":',
      "[1]",
      "[]",
      "0",
      "null",
      '""',
      '"x"',
      "true",
      "false",
      "  ",
      "",
    ),
    fc
      .dictionary(fc.string({ maxLength: 3 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 })
      .map((o) => JSON.stringify(o)),
  )
  .map((text) => new TextEncoder().encode(text)) as fc.Arbitrary<Uint8Array>;
const arbBadUtf8Line = fc.constantFrom(
  Uint8Array.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]), // {"a":"\xff"}
  Uint8Array.from([0x5b, 0x22, 0xff, 0x22, 0x5d]), // ["\xff"]
  Uint8Array.from([0xff]),
);

const arbFile = fc
  .tuple(
    fc.array(fc.oneof({ weight: 5, arbitrary: arbLine }, { weight: 1, arbitrary: arbBadUtf8Line }), {
      maxLength: 12,
    }),
    fc.boolean(),
  )
  .map(([lines, torn]) => {
    const parts = lines.flatMap((l) => [l, Uint8Array.of(10)]);
    if (torn && parts.length > 0) parts.pop();
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  });

describe("keepLinesPiReads", () => {
  it("keeps every record readLinesAsPi takes entries from, the deciding first value and a torn tail", () => {
    fc.assert(
      fc.property(arbFile, (bytes) => {
        const all = parseSessionBytes(bytes);
        const some = parseSessionBytes(bytes, { keepRecord: keepLinesPiReads() });
        const torn = all.tornTail?.kind === "fragment" ? all.tornTail.offset : undefined;
        const whole = readLinesAsPi(all.records, torn);
        const kept = readLinesAsPi(some.records, torn);
        expect(kept.isSession).toBe(whole.isSession);
        expect(kept.values).toEqual(whole.values);
        expect(some.records.length + some.omittedRecords).toBe(all.records.length);
        const last = all.records.at(-1) as SessionRecord | undefined;
        if (last !== undefined && !last.terminated) expect(some.records.at(-1)?.offset).toBe(last.offset);
      }),
      fcOptions(),
    );
  });
});
