/**
 * pi's real v1 files (testkit's `upstreamFixture`; skipped when they are not there): they
 * parse without diagnostics, split into header + entries, parse identically in any chunking,
 * and every line round-trips through the serializer byte for byte.
 */
import { readUpstreamFixture, upstreamFixtureNames } from "@pi-session/testkit";
import { describe, expect, it } from "vitest";
import { SessionLineDecoder } from "./codec/decoder.js";
import { parseSessionBytes, resultOf } from "./codec/parse.js";
import type { SessionRecord } from "./records.js";
import { serializeRecords } from "./serialize.js";
import { detectVersion, splitSession } from "./session.js";

/** Byte equality without vitest's element-by-element diff (slow on megabytes). */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
const text = (b: Uint8Array) => new TextDecoder().decode(b);

const expectedLines: Record<string, number> = { "before-compaction": 1003, "large-session": 1019 };

const loaded = new Map<string, { bytes: Uint8Array; parsed: ReturnType<typeof parseSessionBytes> }>();
/** The fixture and its parse, read once, inside a test (which is skipped when it is missing). */
function load(name: (typeof upstreamFixtureNames)[number]) {
  let got = loaded.get(name);
  if (!got) {
    const bytes = readUpstreamFixture(name);
    got = { bytes, parsed: parseSessionBytes(bytes) };
    loaded.set(name, got);
  }
  return got;
}

describe.each(upstreamFixtureNames)("upstream fixture %s", (name) => {
  it("parses with zero diagnostics, one JSON record per line", () => {
    const { bytes, parsed } = load(name);
    expect(parsed.diagnostics).toEqual([]);
    expect(parsed.records).toHaveLength(expectedLines[name] as number);
    expect(parsed.records.every((r) => r.kind === "json" && r.terminated)).toBe(true);
    expect(parsed.lines).toBe(expectedLines[name]);
    expect(parsed.blankLines).toBe(0);
    expect(parsed.bytes).toBe(bytes.length);
    expect(parsed.tornTail).toBeUndefined();
  });

  it("is a v1 session with a valid header", () => {
    const { parsed } = load(name);
    const v = splitSession(parsed.records);
    expect(v.diagnostics).toEqual([]);
    expect(v.header?.line).toBe(1);
    expect(detectVersion(v.header?.value)).toBe(1);
    expect(v.entries).toHaveLength((expectedLines[name] as number) - 1);
  });

  it("round-trips every line byte for byte", () => {
    const { bytes, parsed } = load(name);
    // Line by line, so a mismatch names the line.
    let pos = 0;
    for (const rec of parsed.records) {
      expect(rec.offset).toBe(pos);
      const original = bytes.subarray(pos, pos + rec.byteLength + 1);
      const out = serializeRecords([rec]);
      // On a mismatch, compare as text so the diff is readable.
      if (!sameBytes(out, original)) expect(text(out), `line ${rec.line}`).toBe(text(original));
      pos += rec.byteLength + 1;
    }
    expect(pos).toBe(bytes.length);
    expect(sameBytes(serializeRecords(parsed.records), bytes)).toBe(true);
  }, 60_000);

  it("parses identically when fed in chunks of various sizes", () => {
    const { bytes, parsed } = load(name);
    for (const size of [1 << 20, 65_537, 4_093, 777]) {
      const dec = new SessionLineDecoder();
      const records: SessionRecord[] = [];
      for (let i = 0; i < bytes.length; i += size) records.push(...dec.push(bytes.subarray(i, i + size)));
      records.push(...dec.end());
      expect(resultOf(dec, records)).toEqual(parsed);
    }
  }, 60_000);
});

it("has 2,022 JSON records across both fixtures", () => {
  const total = upstreamFixtureNames.reduce(
    (n, f) => n + parseSessionBytes(readUpstreamFixture(f)).records.length,
    0,
  );
  expect(total).toBe(2022);
});
