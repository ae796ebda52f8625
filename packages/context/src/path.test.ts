/**
 * The path walk: leaf selection, orphans, cycle safety, depth, and injected lookups.
 */
import type { AnyEntry } from "@pi-session/format";
import { createIndex } from "@pi-session/tree";
import { describe, expect, it } from "vitest";
import { A, compaction, msg, U } from "../test/entries.js";
import {
  buildSessionContext,
  buildSessionPath,
  buildSessionProjection,
  getSessionContextSettings,
  indexEntries,
} from "./index.js";

const ids = (path: readonly AnyEntry[]) => path.map((e) => e.id);

describe("buildSessionPath", () => {
  it("walks from the leaf to the root and returns root first", () => {
    const entries = [
      msg("1", null, U("a")),
      msg("2", "1", A("b")),
      msg("3", "2", U("c")),
      msg("x", "1", U("x")),
    ];
    expect(ids(buildSessionPath(entries, "3"))).toEqual(["1", "2", "3"]);
    expect(ids(buildSessionPath(entries))).toEqual(["1", "x"]);
    expect(ids(buildSessionPath(entries, null))).toEqual([]);
    expect(ids(buildSessionPath([], "3"))).toEqual([]);
  });

  it("stops at a repeated id: cycles and self-parents never hang", () => {
    const cycle = [msg("a", "c", U("a")), msg("b", "a", A("b")), msg("c", "b", U("c"))];
    expect(ids(buildSessionPath(cycle, "c"))).toEqual(["a", "b", "c"]);
    expect(buildSessionContext(cycle, "b").messages).toHaveLength(3);
    const self = [msg("s", "s", U("self"))];
    expect(ids(buildSessionPath(self))).toEqual(["s"]);
  });

  it("duplicate ids: the index keeps the later entry, as pi's does", () => {
    const entries = [msg("1", null, U("first")), msg("1", null, U("second")), msg("2", "1", A("a"))];
    const path = buildSessionPath(entries);
    expect(ids(path)).toEqual(["1", "2"]);
    expect((path[0] as { message: { content: string } }).message.content).toBe("second");
  });

  it("accepts an injected lookup (a Map or any { get })", () => {
    const entries = [msg("1", null, U("a")), msg("2", "1", A("b"))];
    const map = indexEntries(entries);
    expect(ids(buildSessionPath(entries, "2", map))).toEqual(["1", "2"]);
    const lookups: string[] = [];
    const lookup = {
      get(id: string) {
        lookups.push(id);
        return map.get(id);
      },
    };
    expect(buildSessionContext(entries, "2", lookup).messages).toHaveLength(2);
    expect(lookups).toEqual(["2", "1"]);
  });

  it("a cycle far from the leaf, any lookup: stops at the first repeated id", () => {
    // 0 <- 1 <- ... <- 99, and 0's parent is 60: the walk from 99 must stop before 60 repeats.
    const entries = Array.from({ length: 100 }, (_, i) =>
      msg(`n${i}`, i === 0 ? "n60" : `n${i - 1}`, U(`${i}`)),
    );
    const expected = Array.from({ length: 40 }, (_, k) => `n${60 + k}`);
    const want = ids(buildSessionPath(entries, "n99"));
    expect(want.length).toBe(100);
    expect(want.slice(-40)).toEqual(expected);
    expect(new Set(want).size).toBe(100);
    const map = indexEntries(entries);
    const plain = { get: (id: string) => map.get(id) };
    expect(ids(buildSessionPath(entries, "n99", map))).toEqual(want);
    expect(ids(buildSessionPath(entries, "n99", plain))).toEqual(want);
    expect(ids(buildSessionPath(entries, "n99", createIndex(entries)))).toEqual(want);
  });

  it("a hand-made lookup that files entries under other ids gets the id-based walk", () => {
    // "b" is reachable under two keys; the walk must stop when the id "b" comes round again.
    const a = msg("a", "x", U("a"));
    const b = msg("b", "y", U("b"));
    const lookup = new Map<string, AnyEntry>([
      ["a", a],
      ["x", b],
      ["y", b],
    ]);
    expect(ids(buildSessionPath([a, b], "a", lookup))).toEqual(["b", "a"]);
    // The leaf given by fallback is not what the lookup returns for its id.
    const other = msg("a", null, U("other"));
    expect(ids(buildSessionPath([other], undefined, lookup))).toEqual(["a"]);
  });

  it("a 200,000-deep chain works (no recursion, no argument spreading)", () => {
    const depth = 200_000;
    const entries: AnyEntry[] = new Array(depth);
    for (let i = 0; i < depth; i++) {
      entries[i] = msg(`e${i}`, i === 0 ? null : `e${i - 1}`, i % 2 === 0 ? U(`u${i}`) : A(`a${i}`));
    }
    expect(buildSessionPath(entries)).toHaveLength(depth);
    expect(buildSessionContext(entries).messages).toHaveLength(depth);
    // A compaction near the end that keeps almost everything.
    entries.push(compaction("c", `e${depth - 1}`, "S", "e1"));
    const projection = buildSessionProjection(entries);
    expect(projection.messages).toHaveLength(depth);
    expect(projection.messages[0]!.role).toBe("compactionSummary");
  });
});

describe("getSessionContextSettings", () => {
  it("defaults to off / null and tolerates a message entry without a message", () => {
    const broken = { type: "message", id: "1", parentId: null, timestamp: "" } as unknown as AnyEntry;
    expect(getSessionContextSettings([broken])).toEqual({ thinkingLevel: "off", model: null });
    expect(buildSessionContext([broken]).messages).toEqual([]);
  });
});
