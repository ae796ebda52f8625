/**
 * Tests of the migration: spec vectors 30-32, version detection, raw records, copy vs in
 * place, id uniqueness and determinism, properties on generated sessions, and the two real
 * upstream v1 fixtures.
 */
import {
  type SessionRecord,
  parseSessionBytes,
  parseSessionText,
  serializeRecords,
} from "@pi-session/format";
import {
  arbLogicalConversation,
  arbSessionV1,
  arbSessionV2,
  arbSessionV3,
  fcOptions,
  readUpstreamFixture,
  renderAsV1,
  renderAsV2,
  renderAsV3,
  toBytes,
} from "@pi-session/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { deterministicId, migrateEntries, migrateRecords } from "./index.js";

type Obj = Record<string, unknown>;
const HEX8 = /^[0-9a-f]{8}$/;

const header = (extra: Obj = {}): Obj => ({
  type: "session",
  id: "sess-1",
  timestamp: "2025-01-01T00:00:00.000Z",
  cwd: "/p",
  ...extra,
});
const U = (text: string): Obj => ({
  type: "message",
  timestamp: "2025-01-01T00:00:01.000Z",
  message: { role: "user", content: text, timestamp: 1 },
});
const A = (text: string): Obj => ({
  type: "message",
  timestamp: "2025-01-01T00:00:02.000Z",
  message: {
    role: "assistant",
    content: [{ type: "text", text }],
    provider: "anthropic",
    model: "claude-test",
    stopReason: "stop",
    timestamp: 2,
  },
});
const compaction = (firstKeptEntryIndex: unknown): Obj => ({
  type: "compaction",
  timestamp: "2025-01-01T00:00:03.000Z",
  summary: "sum",
  firstKeptEntryIndex,
  tokensBefore: 10,
});

function recordsOf(lines: (Obj | string)[]): SessionRecord[] {
  const text = `${lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n")}\n`;
  return parseSessionText(text).records;
}
const valuesOf = (records: SessionRecord[]) => records.map((r) => (r.kind === "json" ? r.value : r.text));
const textOf = (records: SessionRecord[]) => new TextDecoder().decode(serializeRecords(records));
/** Byte equality without vitest's element-by-element diff of large typed arrays. */
const sameBytes = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

/** Checks that the non-header entries form one parent chain in file order with unique 8-hex ids. */
function expectOneChain(entries: Obj[]): void {
  let previous: unknown = null;
  const seen = new Set<unknown>();
  for (const e of entries) {
    if (e.type === "session") continue;
    expect(e.id).toMatch(HEX8);
    expect(seen.has(e.id)).toBe(false);
    seen.add(e.id);
    expect(e.parentId).toBe(previous);
    previous = e.id;
  }
}

describe("spec vectors", () => {
  it("30: v1 -> v3 gives 8-hex ids in one chain; v2 ids stay", () => {
    const { entries, report } = migrateEntries([header(), U("hi"), A("hello")]);
    expect(entries[0]).toMatchObject({ type: "session", version: 3 });
    expect(entries[1]?.id).toMatch(HEX8);
    expect(entries[1]?.parentId).toBeNull();
    expect(entries[2]?.parentId).toBe(entries[1]?.id);
    expect(report).toMatchObject({ fromVersion: 1, toVersion: 3, changed: true, idsAssigned: 2 });

    const v2 = [
      header({ version: 2 }),
      { ...U("hi"), id: "abc12345", parentId: null },
      { ...A("hello"), id: "def67890", parentId: "abc12345" },
    ];
    const again = migrateEntries(v2);
    expect(again.entries.map((e) => e.id)).toEqual(
      [undefined, "abc12345", "def67890"].map((x, i) => (i === 0 ? "sess-1" : x)),
    );
    expect(again.entries[2]?.parentId).toBe("abc12345");
    expect(again.report).toMatchObject({ fromVersion: 2, toVersion: 3, changed: true, idsAssigned: 0 });
  });

  it("31: header-inclusive firstKeptEntryIndex maps to the entry's new id", () => {
    const { entries, report } = migrateEntries([header(), U("a"), A("b"), compaction(2), U("c")]);
    const comp = entries[3] as Obj;
    expect(comp.firstKeptEntryId).toBe(entries[2]?.id);
    expect(comp).not.toHaveProperty("firstKeptEntryIndex");
    expect(report.indexesMapped).toEqual([{ line: 4, index: 2, id: entries[2]?.id }]);
    expect(report.unmappedIndexes).toEqual([]);
  });

  it("31: index 0 (the header) leaves no firstKeptEntryId and still deletes the index", () => {
    const { entries, report } = migrateEntries([header(), U("a"), A("b"), compaction(0), U("c")]);
    const comp = entries[3] as Obj;
    expect(comp).not.toHaveProperty("firstKeptEntryId");
    expect(comp).not.toHaveProperty("firstKeptEntryIndex");
    expect(report.unmappedIndexes).toEqual([{ line: 4, index: 0, reason: "index 0 is the header" }]);
  });

  it("31: out-of-range, fractional and forward indexes are dropped and reported", () => {
    const { entries, report } = migrateEntries([
      header(),
      compaction(99),
      compaction(1.5),
      compaction(4),
      U("x"),
    ]);
    for (const i of [1, 2, 3]) {
      expect(entries[i]).not.toHaveProperty("firstKeptEntryId");
      expect(entries[i]).not.toHaveProperty("firstKeptEntryIndex");
    }
    expect(report.unmappedIndexes.map((u) => u.index)).toEqual([99, 1.5, 4]);
    expect(report.unmappedIndexes[2]?.reason).toBe("index 4 points after the compaction");
  });

  it("31: an index at the compaction itself keeps pi's result (its own new id)", () => {
    const { entries } = migrateEntries([header(), U("a"), compaction(2)]);
    expect(entries[2]?.firstKeptEntryId).toBe(entries[2]?.id);
  });

  it("a non-number firstKeptEntryIndex is left alone, as pi does", () => {
    const { entries, report } = migrateEntries([header(), U("a"), compaction("1")]);
    expect(entries[2]?.firstKeptEntryIndex).toBe("1");
    expect(report.notes.join(" ")).toContain("not a number");
  });

  it("32: v2 hookMessage becomes custom, other fields kept; header version 3", () => {
    const hook = {
      type: "message",
      id: "h1",
      parentId: null,
      timestamp: "t",
      message: {
        role: "hookMessage",
        customType: "x",
        content: "c",
        display: false,
        details: { a: 1 },
        timestamp: 5,
      },
    };
    const input = [header({ version: 2, branchedFrom: "/old.jsonl" }), hook];
    const { entries, report } = migrateEntries(input);
    expect(entries[1]).toEqual({ ...hook, message: { ...hook.message, role: "custom" } });
    expect(entries[0]).toEqual({ ...header({ branchedFrom: "/old.jsonl" }), version: 3 });
    expect(report).toMatchObject({ changed: true, rolesRenamed: 1, fromVersion: 2, toVersion: 3 });
    // the input is untouched
    expect(hook.message.role).toBe("hookMessage");
    expect((input[0] as Obj).version).toBe(2);
  });
});

describe("versions and shapes", () => {
  it("v3, v4 and v9 are identity: same objects, changed false", () => {
    for (const version of [3, 4, 9]) {
      const input = [
        header({ version }),
        { ...U("a"), id: "x", parentId: null },
        { ...U("b"), firstKeptEntryIndex: 1 },
      ];
      const { entries, report } = migrateEntries(input);
      entries.forEach((e, i) => {
        expect(e).toBe(input[i]);
      });
      expect(report).toMatchObject({
        fromVersion: version,
        toVersion: version,
        changed: false,
        idsAssigned: 0,
      });
      const records = recordsOf(input);
      const out = migrateRecords(records);
      out.records.forEach((r, i) => {
        expect(r).toBe(records[i]);
      });
    }
  });

  it("a file without a header is left alone with a note", () => {
    const input = [U("a")];
    const { entries, report } = migrateEntries(input);
    expect(entries[0]).toBe(input[0]);
    expect(report.changed).toBe(false);
    expect(report.notes[0]).toContain('no "session" header');
  });

  it("assumeVersion: header-less entries migrate as that version (pi's migrateSessionEntries assumes 1)", () => {
    const input = [{ ...U("a"), id: "old00001", parentId: null }, A("b"), compaction(0)];
    const { entries, report } = migrateEntries(input, { assumeVersion: 1 });
    expectOneChain(entries);
    expect(entries[1]?.id).not.toBe("old00001");
    // Without a header, index 0 is the first entry, as in pi's array.
    expect(entries[2]?.firstKeptEntryId).toBe(entries[0]?.id);
    expect(entries[2]).not.toHaveProperty("firstKeptEntryIndex");
    expect(report).toMatchObject({ fromVersion: 1, toVersion: 3, changed: true, idsAssigned: 3 });
    expect(report.notes[0]).toContain("treated as version 1");
    expect(input[0]?.id).toBe("old00001"); // not in place: the input is untouched

    const hook = { type: "message", id: "h", parentId: null, message: { role: "hookMessage", content: "x" } };
    const v2 = migrateEntries([hook], { assumeVersion: 2 });
    expect(v2.entries[0]).toMatchObject({ id: "h", message: { role: "custom" } });
    const v3 = migrateEntries([hook], { assumeVersion: 3 });
    expect(v3.entries[0]).toBe(hook);
    expect(v3.report.changed).toBe(false);

    // A header, when present, wins over assumeVersion.
    const withHeader = migrateEntries([header({ version: 3 }), U("a")], { assumeVersion: 1 });
    expect(withHeader.report.changed).toBe(false);
    const records = migrateRecords(recordsOf([U("a"), U("b")]), { assumeVersion: 1 });
    expectOneChain(valuesOf(records.records) as Obj[]);
  });

  it("key order follows pi's in-place assignment (id, parentId appended; version appended)", () => {
    const { entries } = migrateEntries([header(), U("a"), compaction(1)]);
    expect(Object.keys(entries[0] as Obj)).toEqual(["type", "id", "timestamp", "cwd", "version"]);
    expect(Object.keys(entries[1] as Obj)).toEqual(["type", "timestamp", "message", "id", "parentId"]);
    expect(Object.keys(entries[2] as Obj)).toEqual([
      "type",
      "timestamp",
      "summary",
      "tokensBefore",
      "id",
      "parentId",
      "firstKeptEntryId",
    ]);
  });

  it("v1 entries that already have ids get fresh ones (upstream semantics), noted", () => {
    const { entries, report } = migrateEntries([header(), { ...U("a"), id: "keepme00" }, U("b")]);
    expect(entries[1]?.id).not.toBe("keepme00");
    expectOneChain(entries as Obj[]);
    expect(report.notes.join(" ")).toContain("already had an id");
  });

  it("extra session lines get the new version too (as pi), and are not chained", () => {
    const { entries } = migrateEntries([header(), U("a"), header({ id: "dup" }), U("b")]);
    expect(entries[2]).toEqual({ ...header({ id: "dup" }), version: 3 });
    expect(entries[3]?.parentId).toBe(entries[1]?.id);
  });

  it("without inPlace nothing is mutated; with inPlace the same objects change", () => {
    const make = () => [
      header(),
      U("a"),
      { ...A("b"), message: { role: "hookMessage", content: "x" } },
      compaction(1),
    ];
    const input = make();
    const snapshot = structuredClone(input);
    const copy = migrateEntries(input);
    expect(input).toEqual(snapshot);
    expect(copy.entries[1]).not.toBe(input[1]);

    const target = make();
    const objects = [...target];
    const inner = target[2]?.message;
    const mutated = migrateEntries(target, { inPlace: true });
    mutated.entries.forEach((e, i) => {
      expect(e).toBe(objects[i]);
    });
    expect(target[0]?.version).toBe(3);
    expect(target[1]?.id).toMatch(HEX8);
    expect(inner).toMatchObject({ role: "custom" });
    expect(target[3]).not.toHaveProperty("firstKeptEntryIndex");
    // in place and copy agree
    expect(mutated.entries).toEqual(copy.entries);
  });
});

describe("records", () => {
  it("raw records keep their position and do not count in firstKeptEntryIndex", () => {
    const records = recordsOf([header(), "not json {", U("a"), A("b"), "", "[1,2]", compaction(2), U("c")]);
    expect(records.map((r) => r.kind)).toEqual(["json", "raw", "json", "json", "raw", "json", "json"]);
    const { records: out, report } = migrateRecords(records);
    expect(out.map((r) => r.kind)).toEqual(records.map((r) => r.kind));
    expect(out[1]).toBe(records[1]);
    expect(out[4]).toBe(records[4]);
    expect(out.map((r) => r.line)).toEqual(records.map((r) => r.line));
    const values = valuesOf(out) as Obj[];
    // index 2 = header(0), U(1), A(2): the raw lines are not counted, as pi skipped them
    expect(values[5]?.firstKeptEntryId).toBe(values[3]?.id);
    expect(report.rawRecordsKept).toBe(2);
    expect(report.indexesMapped).toEqual([{ line: 7, index: 2, id: values[3]?.id }]);
    expectOneChain(values.filter((v) => typeof v === "object"));
    expect(textOf(out).split("\n")[1]).toBe("not json {");
  });

  it("deterministic mode gives identical bytes on two runs and uses deterministicId", () => {
    const records = recordsOf([header(), U("a"), A("b"), compaction(1), U("c")]);
    const first = textOf(migrateRecords(records).records);
    const second = textOf(
      migrateRecords(recordsOf([header(), U("a"), A("b"), compaction(1), U("c")])).records,
    );
    expect(second).toBe(first);
    const values = valuesOf(migrateRecords(records).records) as Obj[];
    expect(values[1]?.id).toBe(deterministicId("sess-1", 2, 0));
    expect(values[4]?.id).toBe(deterministicId("sess-1", 5, 0));
  });

  it("records and entries agree when the file has no blank or malformed lines", () => {
    const list = [header(), U("a"), A("b"), compaction(2), U("c")];
    const fromRecords = valuesOf(migrateRecords(recordsOf(list)).records);
    expect(migrateEntries(list).entries).toEqual(fromRecords);
  });
});

describe("ids", () => {
  it("a generator that always collides still yields unique ids", () => {
    let calls = 0;
    const stuck = () => {
      calls++;
      return "aaaaaaaa";
    };
    const input = [header(), { ...U("a"), id: "aaaaaaaa" }, U("b"), U("c")];
    const { entries, report } = migrateEntries(input, { randomId: stuck });
    expectOneChain(entries as Obj[]);
    expect(entries.map((e) => e.id)).not.toContain("aaaaaaaa");
    expect(calls).toBeGreaterThan(0);
    expect(report.notes.join(" ")).toContain("randomId kept returning taken ids");
  });

  it("property: ids are unique across the whole session with a colliding generator", () => {
    fc.assert(
      fc.property(
        arbSessionV1({ maxEntries: 30 }),
        fc.array(fc.constantFrom("00000000", "11111111", "22222222"), { minLength: 1, maxLength: 5 }),
        fc.array(fc.constantFrom("00000000", "11111111", "deadbeef"), { maxLength: 5 }),
        (session, pool, preexisting) => {
          let k = 0;
          const randomId = () => pool[k++ % pool.length] as string;
          // some entries already carry ids; new ids must avoid them too
          const entries = session.entries.map((e, i) =>
            i < preexisting.length ? { ...e, id: preexisting[i] } : e,
          );
          const applied = preexisting.slice(0, entries.length);
          const out = migrateEntries([session.header, ...entries], { randomId });
          expectOneChain(out.entries as Obj[]);
          for (const e of out.entries.slice(1)) expect(applied).not.toContain((e as Obj).id);
        },
      ),
      fcOptions(),
    );
  });
});

describe("properties", () => {
  const arbAnySession = fc.oneof(
    arbSessionV1({ maxEntries: 25 }).map((s) => toBytes(s)),
    arbSessionV2({ maxEntries: 25 }).map((s) => toBytes(s)),
    arbSessionV3({ maxEntries: 25, faults: true }).map((s) => toBytes(s)),
  );

  it("idempotent in deterministic mode: migrate(migrate(x)) equals migrate(x)", () => {
    fc.assert(
      fc.property(arbAnySession, (bytes) => {
        const once = migrateRecords(parseSessionBytes(bytes).records);
        const twice = migrateRecords(once.records);
        expect(twice.records).toEqual(once.records);
        expect(twice.report.changed).toBe(false);
        expect(sameBytes(serializeRecords(twice.records), serializeRecords(once.records))).toBe(true);
        // and a second run from scratch is byte-identical
        const again = serializeRecords(migrateRecords(parseSessionBytes(bytes).records).records);
        expect(sameBytes(again, serializeRecords(once.records))).toBe(true);
      }),
      fcOptions(),
    );
  });

  it("v3 input (with faults) is identity", () => {
    fc.assert(
      fc.property(arbSessionV3({ maxEntries: 30, faults: true }), (session) => {
        const input = [session.header, ...session.entries] as Obj[];
        const { entries, report } = migrateEntries(input);
        entries.forEach((e, i) => {
          expect(e).toBe(input[i]);
        });
        expect(report.changed).toBe(false);
        expect(report.notes).toEqual([]);
      }),
      fcOptions(),
    );
  });

  it("v2 migrates to exactly the v3 rendering of the same conversation", () => {
    fc.assert(
      fc.property(arbLogicalConversation(), (conv) => {
        const v2 = renderAsV2(conv);
        const v3 = renderAsV3(conv);
        const { entries } = migrateEntries([v2.header, ...v2.entries] as Obj[]);
        expect(entries).toEqual([v3.header, ...v3.entries]);
      }),
      fcOptions(),
    );
  });

  it("v1 with the v3 ids injected migrates to the v3 rendering", () => {
    fc.assert(
      fc.property(arbLogicalConversation(), (conv) => {
        const v1 = renderAsV1(conv);
        const v3 = renderAsV3(conv);
        let k = 0;
        const randomId = () => (v3.entries[k++] as Obj).id as string;
        const { entries, report } = migrateEntries([v1.header, ...v1.entries] as Obj[], { randomId });
        expect(entries).toEqual([v3.header, ...v3.entries]);
        expect(report.idsAssigned).toBe(v1.entries.length);
        expect(report.unmappedIndexes).toEqual([]);
      }),
      fcOptions(),
    );
  });

  it("v1 files: one chain, no firstKeptEntryIndex left, every mapped id is an earlier entry", () => {
    fc.assert(
      fc.property(arbSessionV1({ maxEntries: 30 }), (session) => {
        const { entries, report } = migrateEntries([session.header, ...session.entries] as Obj[]);
        expectOneChain(entries as Obj[]);
        const compactions = session.entries.filter(
          (e) => e.type === "compaction" && typeof e.firstKeptEntryIndex === "number",
        );
        expect(report.indexesMapped.length + report.unmappedIndexes.length).toBe(compactions.length);
        entries.forEach((e, i) => {
          expect(e).not.toHaveProperty("firstKeptEntryIndex");
          if (typeof e.firstKeptEntryId === "string") {
            const j = entries.findIndex((x) => x.id === e.firstKeptEntryId);
            expect(j).toBeGreaterThan(0);
            expect(j).toBeLessThanOrEqual(i);
          }
        });
      }),
      fcOptions(),
    );
  });
});

describe("upstream fixtures", () => {
  it("before-compaction.jsonl: two compactions mapped (indexes 293 and 551), one chain", () => {
    const parsed = parseSessionBytes(readUpstreamFixture("before-compaction"));
    const { records, report } = migrateRecords(parsed.records);
    expect(report).toMatchObject({ fromVersion: 1, toVersion: 3, changed: true, rawRecordsKept: 0 });
    expect(report.idsAssigned).toBe(1002);
    expect(report.indexesMapped.map((m) => m.index)).toEqual([293, 551]);
    expect(report.unmappedIndexes).toEqual([]);
    const values = valuesOf(records) as Obj[];
    expectOneChain(values);
    for (const m of report.indexesMapped) expect(values[m.index]?.id).toBe(m.id);
    expect(values[0]).toMatchObject({ version: 3, branchedFrom: expect.any(String) });
    // deterministic: the same bytes again
    expect(
      sameBytes(serializeRecords(migrateRecords(parsed.records).records), serializeRecords(records)),
    ).toBe(true);
  });

  it("large-session.jsonl migrates into one chain", () => {
    const parsed = parseSessionBytes(readUpstreamFixture("large-session"));
    const { records, report } = migrateRecords(parsed.records);
    expect(report.changed).toBe(true);
    expect(report.idsAssigned).toBe(parsed.records.length - 1);
    expectOneChain(valuesOf(records) as Obj[]);
  });
});
