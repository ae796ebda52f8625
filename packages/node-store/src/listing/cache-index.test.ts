/**
 * Tests of the binary listing index (`cache-index.ts`): every cache entry comes back exactly
 * (round trip), the infos built straight from its columns are the ones `info.ts` builds from
 * the same state, and a damaged or foreign file is refused or read without ever throwing.
 */
import { arbIsoTimestamp, fcOptions } from "@pi-session/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { CachedFile } from "./cache.js";
import { CacheIndex } from "./cache-index.js";
import { INDEX_VERSION } from "./cache-index-layout.js";
import { type IndexEntry, encodeIndex } from "./cache-index-encode.js";
import { type InfoState, type SessionInfo, finishInfoHead } from "./info.js";
import { CachedTexts, cachedInfos, covers } from "./cached-infos.js";

const DIR = "/sessions";

/** Strings of any code unit: lone surrogates, NUL, astral characters. */
const arbAnyString = fc.oneof(
  fc.string({ unit: "binary", maxLength: 20 }),
  fc.string({ unit: "grapheme-ascii", maxLength: 20 }),
  fc.constantFrom("", "\ud800", "a\udc00b", "nul\u0000", "é", "😀"),
);

/** A header time: pi's ISO form, other strings (local time, invalid days), other JSON values. */
const arbTimestamp: fc.Arbitrary<unknown> = fc.oneof(
  arbIsoTimestamp,
  arbIsoTimestamp,
  fc.constantFrom(
    "2025-02-31T10:00:00.000Z",
    "2025-01-01T10:00:00",
    "2025-01-01",
    "garbage",
    "0999-01-01T00:00:00.000Z",
  ),
  fc.constant(undefined),
  fc.integer(),
  fc.constant(null),
  fc.jsonValue({ maxDepth: 2 }),
);

const arbId: fc.Arbitrary<unknown> = fc.oneof(
  fc.uuid(),
  arbAnyString,
  fc.constant(undefined),
  fc.jsonValue({ maxDepth: 2 }),
);

const arbHeader: fc.Arbitrary<InfoState["header"]> = fc.oneof(
  { arbitrary: fc.constant(undefined), weight: 1 },
  { arbitrary: fc.constant(false as const), weight: 1 },
  {
    arbitrary: fc
      .record({
        id: arbId,
        cwd: arbAnyString,
        timestamp: arbTimestamp,
        parentSession: fc.option(arbAnyString),
      })
      .map(({ parentSession, ...h }) => (parentSession === null ? h : { ...h, parentSession })),
    weight: 6,
  },
);

const arbLastActivity = fc.oneof(
  fc.constant(0),
  fc.integer({ min: 0, max: 2_000_000_000_000 }),
  fc.double({ min: -10, max: 9e15, noNaN: false }),
  fc.constant(Number.NaN),
);

const hex = (n: number) =>
  fc.uint8Array({ minLength: n, maxLength: n }).map((b) => Buffer.from(b).toString("hex"));

const arbFile: fc.Arbitrary<CachedFile> = fc
  .record({
    size: fc.nat(),
    mtimeMs: fc.double({ min: 0, max: 2e12, noNaN: true }),
    ctimeMs: fc.double({ min: 0, max: 2e12, noNaN: true }),
    ino: fc.nat(),
    offset: fc.nat(),
    nextLine: fc.nat(),
    headHash: hex(20),
    edgeHash: hex(20),
    header: arbHeader,
    messageCount: fc.nat(),
    firstMessage: arbAnyString,
    textCount: fc.nat({ max: 5 }),
    name: fc.option(arbAnyString),
    lastActivity: fc.option(arbLastActivity),
    segment: hex(8),
    textAt: fc.nat({ max: 1e9 }),
    textLength: fc.nat({ max: 1e6 }),
    utf16: fc.boolean(),
  })
  .map((r) => {
    const state: InfoState = {
      messageCount: r.messageCount,
      firstMessage: r.firstMessage,
      allMessagesText: "",
      textCount: r.textCount,
    };
    if (r.header !== undefined) state.header = r.header;
    if (r.name !== null) state.name = r.name;
    if (r.lastActivity !== null) state.lastActivity = r.lastActivity;
    const file: CachedFile = {
      size: r.size,
      mtimeMs: r.mtimeMs,
      ctimeMs: r.ctimeMs,
      ino: r.ino,
      offset: r.offset,
      nextLine: r.nextLine,
      headHash: r.headHash,
      edgeHash: r.edgeHash,
      state,
    };
    if (r.textCount > 0) {
      file.text = { segment: r.segment, offset: r.textAt, length: r.textLength, utf16: r.utf16 };
    }
    return file;
  });

/** What a header value is after a round trip through JSON (how non-strings are kept). */
function viaJson(v: unknown): unknown {
  return v === undefined || typeof v === "string" ? v : JSON.parse(JSON.stringify(v));
}

function expected(file: CachedFile): CachedFile {
  const state: InfoState = { ...file.state };
  const h = file.state.header;
  if (h) {
    state.header = { id: viaJson(h.id), cwd: h.cwd, timestamp: viaJson(h.timestamp) };
    if (h.parentSession !== undefined) state.header.parentSession = h.parentSession;
  }
  return { ...file, state };
}

const entries = (files: CachedFile[]): IndexEntry[] =>
  files.map((file, i) => ({ key: `${DIR}/--p--/f${i}.jsonl`, file, rank: files.length - 1 - i }));

describe("binary listing index", () => {
  it("gives every entry back exactly, keys and ranks included", () => {
    fc.assert(
      fc.property(fc.array(arbFile, { maxLength: 12 }), (files) => {
        const list = entries(files);
        const index = CacheIndex.decode(encodeIndex(DIR, list), DIR);
        expect(index).toBeDefined();
        if (!index) return;
        expect(index.count).toBe(files.length);
        expect(index.sameKeys(list.map((e) => e.key))).toBe(true);
        files.forEach((file, e) => {
          expect(index.entry(e)).toEqual(expected(file));
          expect(index.key(e)).toBe(list[e]?.key);
          expect(index.find(list[e]?.key ?? "")).toBe(e);
          expect(index.rank[e]).toBe(list[e]?.rank);
        });
        expect(index.find(`${DIR}/nope.jsonl`)).toBe(-1);
      }),
      fcOptions(),
    );
  });

  it("builds from its columns the info info.ts builds from the same state (keys in pi's order)", () => {
    fc.assert(
      fc.property(fc.array(arbFile, { minLength: 1, maxLength: 8 }), (files) => {
        const index = CacheIndex.decode(encodeIndex(DIR, entries(files)), DIR);
        if (!index) throw new Error("not decoded");
        // No segment exists here: a text is recomputed from the (missing) file, so it is "".
        const texts = new CachedTexts("/nonexistent-cache-dir", DIR, index);
        // Candidates in another order than the entries, and one the cache does not cover.
        const covering = Int32Array.from([-1, ...files.map((_, e) => files.length - 1 - e)]);
        const paths = Array.from(covering, (e) => `/p/${e}`);
        const mtimeOf = new Map(Array.from(covering, (e, i) => [i, new Date(files[e]?.mtimeMs ?? 0)]));
        const results = new Array<SessionInfo | null>(covering.length).fill(null);
        const kept = new Int32Array(covering.length).fill(-1);
        const answers = cachedInfos(texts, covering, paths, mtimeOf, results, kept);
        expect(answers).toEqual({ answered: files.length, damaged: [] });
        expect([results[0], kept[0]]).toEqual([null, -1]);
        covering.forEach((e, i) => {
          const file = files[e];
          if (file === undefined) return;
          expect(kept[i]).toBe(e);
          expect(covers(index, e, file.size, file.mtimeMs, file.ctimeMs, file.ino)).toBe(
            file.offset === file.size,
          );
          expect(covers(index, e, file.size, file.mtimeMs, file.ctimeMs + 1, file.ino)).toBe(false);
          const info = results[i];
          const head = finishInfoHead(`/p/${e}`, expected(file).state, new Date(file.mtimeMs));
          if (head === null) {
            expect(info).toBeNull();
            return;
          }
          expect(info).toEqual({ ...head, allMessagesText: "" });
          expect(Object.keys(info ?? {})).toEqual([
            "path",
            "id",
            "cwd",
            "name",
            "parentSessionPath",
            "created",
            "modified",
            "messageCount",
            "firstMessage",
            "allMessagesText",
          ]);
        });
      }),
      fcOptions(),
    );
  });

  it("answers nothing from an entry whose strings or text count do not hold (it is read instead)", () => {
    const file: CachedFile = {
      size: 10,
      mtimeMs: 1,
      ctimeMs: 1,
      ino: 2,
      offset: 10,
      nextLine: 10,
      headHash: "0".repeat(40),
      edgeHash: "0".repeat(40),
      state: {
        messageCount: 1,
        firstMessage: "hi",
        allMessagesText: "",
        textCount: 0,
        name: "n",
        header: { id: "i", cwd: "/c", timestamp: "2025-01-01T00:00:00.000Z", parentSession: "/p.jsonl" },
      },
    };
    const damages: [string, (index: CacheIndex) => void][] = [
      ["id", (index) => index.idRef.fill(index.stringCount)],
      ["first message", (index) => index.firstRef.fill(index.stringCount + 1)],
      ["cwd", (index) => index.cwdRef.fill(index.stringCount)],
      ["name", (index) => index.nameRef.fill(index.stringCount)],
      ["parent session", (index) => index.parentRef.fill(index.stringCount)],
      ["text count without a text", (index) => index.textCount.fill(3)],
    ];
    for (const [what, damage] of [["nothing", () => {}] as const, ...damages]) {
      const index = CacheIndex.decode(encodeIndex(DIR, entries([file, file])), DIR);
      if (!index) throw new Error("not decoded");
      damage(index);
      const results = new Array<SessionInfo | null>(2).fill(null);
      const kept = new Int32Array(2).fill(-1);
      const texts = new CachedTexts("/nonexistent-cache-dir", DIR, index);
      const answers = cachedInfos(texts, Int32Array.of(1, 0), ["/a", "/b"], new Map(), results, kept);
      if (what === "nothing") {
        expect(answers).toEqual({ answered: 2, damaged: [] });
        expect(results.map((r) => [r?.path, r?.name, r?.parentSessionPath])).toEqual([
          ["/a", "n", "/p.jsonl"],
          ["/b", "n", "/p.jsonl"],
        ]);
      } else {
        expect([what, answers, results, [...kept]]).toEqual([
          what,
          { answered: 0, damaged: [0, 1] },
          [null, null],
          [-1, -1],
        ]);
      }
    }
  });

  it("copies entries of an existing index exactly, with a new text reference where given", () => {
    fc.assert(
      fc.property(
        fc.array(arbFile, { minLength: 1, maxLength: 10 }),
        fc.array(fc.boolean(), { minLength: 10, maxLength: 10 }),
        hex(8),
        (files, picks, segment) => {
          const old = CacheIndex.decode(encodeIndex(DIR, entries(files)), DIR);
          if (!old) throw new Error("not decoded");
          // Keep a subset in reverse order, copying some and rebuilding the others; move texts.
          const chosen = files
            .map((_, e) => e)
            .filter((e) => picks[e])
            .reverse();
          const list: IndexEntry[] = chosen.map((e, i) => {
            const key = `${DIR}/k${e}.jsonl`;
            if (e % 3 === 0) return { key, rank: i, file: expected(files[e] as CachedFile) };
            const moved = e % 3 === 1 && (files[e] as CachedFile).text !== undefined;
            return moved
              ? { key, rank: i, from: old, entry: e, ref: { segment, offset: e, length: 7, utf16: false } }
              : { key, rank: i, from: old, entry: e };
          });
          const copy = CacheIndex.decode(encodeIndex(DIR, list), DIR);
          if (!copy) throw new Error("copy not decoded");
          expect(copy.count).toBe(chosen.length);
          chosen.forEach((e, i) => {
            const want = expected(files[e] as CachedFile);
            const entry = list[i] as IndexEntry;
            if (entry.ref) want.text = entry.ref;
            expect(copy.entry(i)).toEqual(want);
            expect(copy.key(i)).toBe(entry.key);
            expect(copy.rank[i]).toBe(i);
          });
        },
      ),
      fcOptions(),
    );
  });

  it("refuses another version, another directory, a wrong size and foreign bytes", () => {
    const good = encodeIndex(DIR, entries([]));
    expect(CacheIndex.decode(good, DIR)?.count).toBe(0);
    expect(CacheIndex.decode(good, "/elsewhere")).toBeUndefined();
    const version = Buffer.from(good);
    version.writeUInt32LE(INDEX_VERSION + 1, 12);
    expect(CacheIndex.decode(version, DIR)).toBeUndefined();
    expect(CacheIndex.decode(good.subarray(0, good.length - 1), DIR)).toBeUndefined();
    expect(CacheIndex.decode(Buffer.concat([good, Buffer.from([0])]), DIR)).toBeUndefined();
    expect(CacheIndex.decode(Buffer.from('{"version":3,"dir":"/sessions","files":{}}'), DIR)).toBeUndefined();
    expect(CacheIndex.decode(Buffer.alloc(0), DIR)).toBeUndefined();
  });

  it("reads an unaligned copy like the original", () => {
    const bytes = encodeIndex(DIR, entries([]));
    const shifted = Buffer.alloc(bytes.length + 3);
    bytes.copy(shifted, 3);
    expect(CacheIndex.decode(shifted.subarray(3), DIR)?.count).toBe(0);
  });

  it("never throws on damaged bytes, whatever it makes of them", () => {
    fc.assert(
      fc.property(
        fc.array(arbFile, { minLength: 1, maxLength: 6 }),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 }),
        (files, damage) => {
          const bytes = Buffer.from(encodeIndex(DIR, entries(files)));
          for (const [at, value] of damage) bytes[at % bytes.length] = value;
          const index = CacheIndex.decode(bytes, DIR);
          if (!index) return;
          const texts = new CachedTexts("/nonexistent-cache-dir", DIR, index);
          for (let e = 0; e < index.count; e++) {
            index.entry(e);
            index.textRef(e);
            index.key(e);
          }
          const covering = Int32Array.from({ length: index.count }, (_, e) => e);
          const results = new Array<SessionInfo | null>(index.count).fill(null);
          const answers = cachedInfos(
            texts,
            covering,
            Array.from(covering, () => "/p"),
            new Map(Array.from(covering, (e) => [e, new Date(0)])),
            results,
            new Int32Array(index.count).fill(-1),
          );
          expect(answers.answered + answers.damaged.length).toBe(index.count);
          for (const info of results) if (info) JSON.stringify(info);
          index.find("/x");
        },
      ),
      fcOptions(),
    );
  });
});
