/**
 * Tests of SessionIndex: spec vectors 22-28 and 40-44 (the tree parts), faults (orphans,
 * self-parents, cycles, duplicate ids), deep chains, and property / model-based tests.
 */
import type { SessionRecord } from "@pi-session/format";
import { arbSessionV3, fcOptions } from "@pi-session/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type IndexableEntry, SessionIndex, type SessionTreeNode, createIndex } from "./index.js";

type Entry = IndexableEntry & Record<string, unknown>;

const ts = (n: number) => new Date(Date.UTC(2025, 0, 1, 0, 0, n)).toISOString();
let clock = 0;
function msg(id: string, parentId: string | null, role = "user", t = ts(++clock)): Entry {
  return { type: "message", id, parentId, timestamp: t, message: { role, content: id, timestamp: 1 } };
}
function label(id: string, parentId: string | null, targetId: string, text?: string, t = ts(++clock)): Entry {
  const e: Entry = { type: "label", id, parentId, timestamp: t, targetId };
  if (text !== undefined) e.label = text;
  return e;
}
const ids = (list: readonly IndexableEntry[]) => list.map((e) => e.id);

/** Iterative flatten of a tree: every node's entry, depth first. */
function flatten<E extends IndexableEntry>(roots: SessionTreeNode<E>[]): E[] {
  const out: E[] = [];
  const stack = [...roots].reverse();
  while (stack.length > 0) {
    const node = stack.pop() as SessionTreeNode<E>;
    out.push(node.entry);
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i] as SessionTreeNode<E>);
  }
  return out;
}
type Shape = { id: string; children: Shape[] };
function shape<E extends IndexableEntry>(nodes: SessionTreeNode<E>[]): Shape[] {
  return nodes.map((n) => ({ id: n.entry.id, children: shape(n.children) }));
}

describe("basic index", () => {
  it("indexes entries, children, leaf and paths", () => {
    const index = new SessionIndex<Entry>([
      msg("1", null),
      msg("2", "1", "assistant"),
      msg("3", "2"),
      msg("4", "2"),
    ]);
    expect(index.size).toBe(4);
    expect(index.get("2")?.id).toBe("2");
    expect(index.has("9")).toBe(false);
    expect(ids(index.children("2"))).toEqual(["3", "4"]);
    expect(index.children("nope")).toEqual([]);
    expect(index.leafId).toBe("4");
    expect(ids(index.pathTo("3"))).toEqual(["1", "2", "3"]);
    expect(index.pathTo("missing")).toEqual([]);
    expect(index.diagnostics).toEqual([]);
  });

  it("starts empty with a null leaf", () => {
    const index = createIndex<Entry>();
    expect(index.leafId).toBeNull();
    expect(index.leafEntry).toBeUndefined();
    expect(index.activePath()).toEqual([]);
    expect(index.getTree()).toEqual([]);
  });

  it("skips a header and reports entries without an id", () => {
    const index = new SessionIndex<Entry>([
      { type: "session", id: "s", version: 3, timestamp: ts(0) },
      { type: "message", timestamp: ts(1) },
      42,
      msg("1", null),
    ]);
    expect(ids(index.entries)).toEqual(["1"]);
    expect(index.diagnostics.map((d) => [d.code, d.inputIndex])).toEqual([
      ["missing-id", 1],
      ["missing-id", 2],
    ]);
  });

  it("setLeaf moves the leaf, null resets it, unknown ids throw pi's error", () => {
    const index = new SessionIndex<Entry>([msg("1", null), msg("2", "1")]);
    index.setLeaf("1");
    expect(index.leafId).toBe("1");
    expect(ids(index.activePath())).toEqual(["1"]);
    index.setLeaf(null);
    expect(index.activePath()).toEqual([]);
    expect(() => index.setLeaf("non-existent")).toThrow("Entry non-existent not found");
  });

  it("fromRecords skips the header and raw lines and keeps positions", () => {
    const rec = (line: number, value: Record<string, unknown>): SessionRecord => ({
      kind: "json",
      value,
      line,
      offset: line * 100,
      byteLength: 10,
      terminated: true,
    });
    const raw: SessionRecord = {
      kind: "raw",
      bytes: new Uint8Array([1]),
      text: "x",
      reason: "invalid JSON",
      line: 2,
      offset: 200,
      byteLength: 1,
      terminated: true,
    };
    const index = SessionIndex.fromRecords<Entry>([
      rec(1, { type: "session", id: "s", version: 3, timestamp: ts(0) }),
      raw,
      rec(3, msg("a", null)),
      rec(4, msg("b", "zzz")),
    ]);
    expect(ids(index.entries)).toEqual(["a", "b"]);
    expect(index.positionOf("b")).toEqual({ line: 4, offset: 400 });
    expect(index.diagnostics).toMatchObject([{ code: "dangling-parent", id: "b", line: 4, offset: 400 }]);
  });

  it("accepts positions as a map from id", () => {
    const index = new SessionIndex<Entry>([msg("a", "x")], {
      positions: new Map([["a", { line: 7, offset: 70 }]]),
    });
    expect(index.diagnostics[0]).toMatchObject({ code: "dangling-parent", line: 7, offset: 70 });
  });
});

describe("spec vectors (tree parts)", () => {
  it("22: an unknown leaf falls back to the last entry", () => {
    const index = new SessionIndex<Entry>([msg("1", null), msg("2", "1", "assistant")]);
    expect(ids(index.activePath("nonexistent"))).toEqual(["1", "2"]);
    expect(ids(index.activePath(""))).toEqual(["1", "2"]);
    index.setLeaf("1");
    // an omitted or undefined leaf means the index's current leaf
    expect(ids(index.activePath(undefined))).toEqual(["1"]);
  });

  it("23: an orphan's path starts at the orphan", () => {
    const index = new SessionIndex<Entry>([msg("1", null), msg("2", "missing", "assistant")]);
    expect(ids(index.activePath("2"))).toEqual(["2"]);
    expect(index.diagnostics).toMatchObject([{ code: "dangling-parent", id: "2", severity: "warning" }]);
    expect(shape(index.getTree())).toEqual([
      { id: "1", children: [] },
      { id: "2", children: [] },
    ]);
  });

  it("24: a null leaf gives an empty path on a non-empty session", () => {
    const index = new SessionIndex<Entry>([msg("1", null)]);
    expect(index.activePath(null)).toEqual([]);
  });

  it("25: a label appended from a stale leaf becomes the leaf after reload", () => {
    const index = new SessionIndex<Entry>([
      msg("1", null),
      msg("2", "1"),
      msg("3", "2"),
      label("L", "1", "3", "x"),
    ]);
    expect(index.leafId).toBe("L");
    expect(ids(index.activePath())).toEqual(["1", "L"]);
    expect(index.getLabel("3")).toBe("x");
  });

  it("26: labels set, clear with undefined, last of first/second/third wins", () => {
    const index = new SessionIndex<Entry>([msg("u", null)]);
    index.append(label("l1", "u", "u", "checkpoint", "2025-02-01T00:00:00.000Z"));
    expect(index.getLabel("u")).toBe("checkpoint");
    expect(index.getLabelTimestamp("u")).toBe("2025-02-01T00:00:00.000Z");
    index.append(label("l2", "l1", "u"));
    expect(index.getLabel("u")).toBeUndefined();
    expect(index.getLabelTimestamp("u")).toBeUndefined();
    index.append(label("l3", "l2", "u", "first"));
    index.append(label("l4", "l3", "u", "second"));
    index.append(label("l5", "l4", "u", "third", "2025-03-01T00:00:00.000Z"));
    expect(index.getLabel("u")).toBe("third");
    expect(index.labels.get("u")).toBe("third");
    index.append(label("l6", "l5", "u", ""));
    expect(index.labels.has("u")).toBe(false);
    expect(index.diagnostics).toEqual([]);
    // labels are tree nodes on the conversation path
    expect(ids(index.activePath())).toEqual(["u", "l1", "l2", "l3", "l4", "l5", "l6"]);
  });

  it("26/27: a label of an unknown entry is kept but diagnosed; tree nodes carry labels", () => {
    const index = new SessionIndex<Entry>([
      msg("m1", null),
      msg("m2", "m1"),
      label("la", "m2", "m1", "one", "2025-05-01T00:00:00.000Z"),
      label("lb", "la", "non-existent", "ghost"),
    ]);
    expect(index.getLabel("non-existent")).toBe("ghost");
    expect(index.diagnostics).toMatchObject([
      { code: "dangling-label-target", id: "lb", severity: "warning", inputIndex: 3 },
    ]);
    const [root] = index.getTree();
    expect(root).toMatchObject({ label: "one", labelTimestamp: "2025-05-01T00:00:00.000Z" });
    // As in pi, every node has the `label` key; unlabelled nodes hold undefined.
    expect(root?.children[0]?.label).toBeUndefined();
  });

  it("28: after branching, node 2 has two children", () => {
    const index = new SessionIndex<Entry>([msg("1", null), msg("2", "1"), msg("3", "2")]);
    index.setLeaf("2");
    index.append(msg("4", index.leafId));
    expect(ids(index.activePath())).toEqual(["1", "2", "4"]);
    const tree = shape(index.getTree());
    expect(tree).toEqual([
      {
        id: "1",
        children: [
          {
            id: "2",
            children: [
              { id: "3", children: [] },
              { id: "4", children: [] },
            ],
          },
        ],
      },
    ]);
  });

  it("21: a second root after branchWithSummary(null)", () => {
    const index = new SessionIndex<Entry>([msg("1", null), msg("2", "1")]);
    index.append({
      type: "branch_summary",
      id: "bs",
      parentId: null,
      timestamp: ts(++clock),
      fromId: "root",
      summary: "S",
    });
    expect(index.getTree()).toHaveLength(2);
    expect(ids(index.activePath())).toEqual(["bs"]);
  });

  it("40-44: entries adopted verbatim, leaf last, branch structure and labels rebuilt", () => {
    const entries = [msg("r", null), msg("a", "r"), msg("b", "r"), label("l", "b", "a", "keep")];
    const index = new SessionIndex<Entry>(entries);
    entries.forEach((e, i) => {
      expect(index.entries[i]).toBe(e);
    });
    expect(index.leafId).toBe("l");
    const tree = index.getTree();
    expect(tree).toHaveLength(1);
    expect(tree[0]?.children.map((c) => c.entry.id)).toEqual(["a", "b"]);
    expect(index.getLabel("a")).toBe("keep");
  });

  it("session name: latest session_info wins, trimmed, blank clears", () => {
    const info = (id: string, name?: unknown): Entry => ({
      type: "session_info",
      id,
      parentId: null,
      timestamp: ts(++clock),
      ...(name === undefined ? {} : { name }),
    });
    const index = new SessionIndex<Entry>([info("a", "  My session  ")]);
    expect(index.sessionName).toBe("My session");
    index.append(info("b", "   "));
    expect(index.sessionName).toBeUndefined();
    index.append(info("c", "again"));
    index.append(info("d"));
    expect(index.sessionName).toBeUndefined();
  });
});

describe("faults", () => {
  it("self-parent: a root, a cycle diagnostic, finite path", () => {
    const index = new SessionIndex<Entry>([msg("s", "s"), msg("c", "s")]);
    expect(ids(index.pathTo("c"))).toEqual(["s", "c"]);
    expect(shape(index.getTree())).toEqual([{ id: "s", children: [{ id: "c", children: [] }] }]);
    expect(index.diagnostics).toMatchObject([{ code: "cycle", id: "s", cycle: ["s"] }]);
  });

  it("2-cycle: path stops at the repeat; the tree cuts at the earliest member", () => {
    const index = new SessionIndex<Entry>([msg("r", null), msg("x", "y"), msg("y", "x"), msg("z", "y")]);
    expect(ids(index.pathTo("x"))).toEqual(["y", "x"]);
    expect(ids(index.pathTo("z"))).toEqual(["x", "y", "z"]);
    expect(index.cycles).toEqual([{ ids: ["x", "y"], cutAt: "x" }]);
    expect(shape(index.getTree())).toEqual([
      { id: "r", children: [] },
      {
        id: "x",
        children: [
          {
            id: "y",
            children: [{ id: "z", children: [] }],
          },
        ],
      },
    ]);
    expect(index.diagnostics).toMatchObject([{ code: "cycle", id: "x", cycle: ["x", "y"] }]);
  });

  it("a long cycle does not hang and every member appears once", () => {
    const n = 20_000;
    const entries: Entry[] = [];
    for (let i = 0; i < n; i++) entries.push(msg(`c${i}`, `c${(i + 1) % n}`));
    const index = new SessionIndex<Entry>(entries);
    expect(index.pathTo("c5")).toHaveLength(n);
    expect(index.pathTo("c5").at(-1)?.id).toBe("c5");
    const flat = flatten(index.getTree());
    expect(flat).toHaveLength(n);
    expect(new Set(flat).size).toBe(n);
    expect(index.cycles).toHaveLength(1);
    expect(index.cycles[0]?.cutAt).toBe("c0");
  }, 60_000);

  it("duplicate ids: get keeps the last; each occurrence appears once in the tree", () => {
    const first = msg("d", "r");
    const second = msg("d", "r2");
    const index = new SessionIndex<Entry>([msg("r", null), first, msg("r2", "r"), second, msg("k", "d")]);
    expect(index.get("d")).toBe(second);
    expect(index.entries).toHaveLength(5);
    expect(ids(index.pathTo("k"))).toEqual(["r", "r2", "d", "k"]);
    expect(index.diagnostics).toMatchObject([{ code: "duplicate-id", id: "d", inputIndex: 1 }]);
    const flat = flatten(index.getTree());
    expect(flat).toHaveLength(5);
    expect(flat).toContain(first);
    expect(flat).toContain(second);
    const tree = shape(index.getTree());
    // the earlier occurrence sits under r without children; k hangs under the last one
    expect(tree).toEqual([
      {
        id: "r",
        children: [
          { id: "d", children: [] },
          { id: "r2", children: [{ id: "d", children: [{ id: "k", children: [] }] }] },
        ],
      },
    ]);
  });

  it("a duplicate id appended later can close a cycle, and the tree still holds everything", () => {
    const index = new SessionIndex<Entry>([msg("a", null), msg("b", "a")]);
    expect(index.cycles).toEqual([]);
    index.append(msg("a", "b"));
    expect(index.cycles).toEqual([{ ids: ["b", "a"], cutAt: "b" }]);
    expect(flatten(index.getTree())).toHaveLength(3);
    expect(ids(index.pathTo("b"))).toEqual(["a", "b"]);
  });

  it("children are sorted by timestamp, stable on ties, invalid timestamps last", () => {
    const same = "2025-06-01T00:00:00.000Z";
    const index = new SessionIndex<Entry>([
      msg("p", null, "user", "2025-01-01T00:00:00.000Z"),
      msg("late", "p", "user", "2025-09-01T00:00:00.000Z"),
      msg("bad", "p", "user", "not a date"),
      msg("t1", "p", "user", same),
      msg("t2", "p", "user", same),
      { type: "message", id: "none", parentId: "p" },
      msg("early", "p", "user", "2025-02-01T00:00:00.000Z"),
      msg("t3", "p", "user", same),
    ]);
    expect(index.getTree()[0]?.children.map((c) => c.entry.id)).toEqual([
      "early",
      "t1",
      "t2",
      "t3",
      "late",
      "bad",
      "none",
    ]);
    expect(ids(index.children("p"))).toEqual(["late", "bad", "t1", "t2", "none", "early", "t3"]);
  });
});

describe("scale", () => {
  it("a 200,000-deep chain: pathTo and getTree are iterative", () => {
    const n = 200_000;
    const entries: Entry[] = new Array(n);
    const t0 = ts(0);
    for (let i = 0; i < n; i++) {
      entries[i] = { type: "message", id: `e${i}`, parentId: i === 0 ? null : `e${i - 1}`, timestamp: t0 };
    }
    const index = new SessionIndex<Entry>(entries);
    const path = index.pathTo(`e${n - 1}`);
    expect(path).toHaveLength(n);
    expect(path[0]?.id).toBe("e0");
    const tree = index.getTree();
    expect(tree).toHaveLength(1);
    let depth = 0;
    let node: SessionTreeNode<Entry> | undefined = tree[0];
    while (node !== undefined) {
      depth++;
      node = node.children[0];
    }
    expect(depth).toBe(n);
    expect(index.diagnostics).toEqual([]);
  }, 60_000);

  it("append keeps children arrays in place (no copies) and handles 100k appends", () => {
    const index = new SessionIndex<Entry>([msg("root", null), msg("first", "root")]);
    const rootChildren = index.children("root");
    for (let i = 0; i < 100_000; i++) {
      index.append({
        type: "message",
        id: `a${i}`,
        parentId: i % 2 === 0 ? "root" : `a${i - 1}`,
        timestamp: ts(1),
      });
    }
    expect(index.children("root")).toBe(rootChildren);
    expect(rootChildren).toHaveLength(50_001);
    expect(index.leafId).toBe("a99999");
    expect(index.size).toBe(100_002);
  }, 60_000);
});

// ---------------------------------------------------------------------------------------
// Property and model-based tests

const ID_POOL = ["a", "b", "c", "d", "e", "f", "g", "h"];
const arbId = fc.constantFrom(...ID_POOL);
const arbParent = fc.oneof(fc.constant(null), arbId, fc.constant("ghost"), fc.constant(undefined));
const arbTimestamp = fc.oneof(
  fc.integer({ min: 0, max: 5 }).map((n) => ts(n)),
  fc.constant("garbage"),
  fc.constant(undefined),
);
const arbFaultyEntry: fc.Arbitrary<Entry> = fc
  .record({
    kind: fc.constantFrom("message", "label", "session_info", "custom"),
    id: arbId,
    parentId: arbParent,
    timestamp: arbTimestamp,
    target: fc.oneof(arbId, fc.constant("ghost")),
    text: fc.constantFrom(undefined, "", "x", "y", "  z "),
  })
  .map(({ kind, id, parentId, timestamp, target, text }) => {
    const e: Entry = { type: kind, id };
    if (parentId !== undefined) e.parentId = parentId;
    if (timestamp !== undefined) e.timestamp = timestamp;
    if (kind === "label") {
      e.targetId = target;
      if (text !== undefined) e.label = text;
    }
    if (kind === "session_info" && text !== undefined) e.name = text;
    return e;
  });

/** A healthy session: unique ids, parents earlier in file order. */
const arbHealthy: fc.Arbitrary<Entry[]> = fc
  .array(fc.tuple(fc.nat(), fc.boolean(), fc.integer({ min: 0, max: 50 })), { maxLength: 40 })
  .map((specs) =>
    specs.map(([p, root, t], i) => ({
      type: "message",
      id: `n${i}`,
      parentId: i === 0 || root ? null : `n${p % i}`,
      timestamp: ts(t),
    })),
  );

/** pi 1.6.0's getTree, for healthy sessions only (recursion-free here, small inputs). */
function naiveTree(entries: Entry[]): Shape[] {
  const nodes = new Map<string, { entry: Entry; children: { entry: Entry }[] }>();
  for (const e of entries) nodes.set(e.id, { entry: e, children: [] });
  const roots: { entry: Entry; children: { entry: Entry }[] }[] = [];
  for (const e of entries) {
    const node = nodes.get(e.id) as { entry: Entry; children: { entry: Entry }[] };
    const parent = typeof e.parentId === "string" && e.parentId !== e.id ? nodes.get(e.parentId) : undefined;
    if (parent) parent.children.push(node);
    else roots.push(node);
  }
  const toShape = (n: { entry: Entry; children: { entry: Entry }[] }): Shape => ({
    id: n.entry.id,
    children: [...n.children]
      .sort((a, b) => Date.parse(a.entry.timestamp as string) - Date.parse(b.entry.timestamp as string))
      .map((c) => toShape(nodes.get(c.entry.id) as { entry: Entry; children: { entry: Entry }[] })),
  });
  return roots.map(toShape);
}

describe("properties", () => {
  it("getTree contains every entry exactly once, whatever the faults", () => {
    fc.assert(
      fc.property(fc.array(arbFaultyEntry, { maxLength: 60 }), (entries) => {
        const index = new SessionIndex<Entry>(entries);
        const flat = flatten(index.getTree());
        expect(flat).toHaveLength(entries.length);
        expect(new Set(flat).size).toBe(entries.length);
        // every path ends at its entry and has no repeated ids
        for (const id of index.byId.keys()) {
          const path = index.pathTo(id);
          expect(path.at(-1)?.id).toBe(id);
          expect(new Set(ids(path)).size).toBe(path.length);
        }
      }),
      fcOptions(),
    );
  });

  it("testkit sessions with faults (and shuffled order): every entry exactly once, finite paths", () => {
    fc.assert(
      fc.property(arbSessionV3({ maxEntries: 40, faults: true, shuffle: true }), (session) => {
        const index = new SessionIndex<Entry>(session.entries as Entry[]);
        const flat = flatten(index.getTree());
        expect(flat).toHaveLength(session.entries.length);
        expect(new Set(flat).size).toBe(session.entries.length);
        expect(index.leafId).toBe(session.leafId ?? null);
        for (const id of index.byId.keys())
          expect(new Set(ids(index.pathTo(id))).size).toBe(index.pathTo(id).length);
      }),
      fcOptions(),
    );
  });

  it("healthy testkit sessions have no diagnostics and one tree node per entry", () => {
    fc.assert(
      fc.property(arbSessionV3({ maxEntries: 40 }), (session) => {
        const index = new SessionIndex<Entry>(session.entries as Entry[]);
        expect(index.diagnostics).toEqual([]);
        expect(flatten(index.getTree())).toHaveLength(session.entries.length);
      }),
      fcOptions(),
    );
  });

  it("on healthy sessions getTree matches pi's getTree and diagnostics are empty", () => {
    fc.assert(
      fc.property(arbHealthy, (entries) => {
        const index = new SessionIndex<Entry>(entries);
        expect(shape(index.getTree())).toEqual(naiveTree(entries));
        expect(index.diagnostics).toEqual([]);
      }),
      fcOptions(),
    );
  });

  it("building at once equals appending one by one", () => {
    fc.assert(
      fc.property(fc.array(arbFaultyEntry, { maxLength: 40 }), (entries) => {
        const built = new SessionIndex<Entry>(entries);
        const appended = new SessionIndex<Entry>();
        for (const e of entries) appended.append(e);
        expect(appended.entries).toEqual(built.entries);
        expect([...appended.labels]).toEqual([...built.labels]);
        expect(appended.leafId).toBe(built.leafId);
        expect(appended.sessionName).toBe(built.sessionName);
        expect(shape(appended.getTree())).toEqual(shape(built.getTree()));
        expect(appended.diagnostics).toEqual(built.diagnostics);
      }),
      fcOptions(),
    );
  });
});

// Model: a plain array scanned naively.
interface Model {
  entries: Entry[];
  leaf: string | null;
}
type Real = SessionIndex<Entry>;

function modelGet(m: Model, id: string): Entry | undefined {
  for (let i = m.entries.length - 1; i >= 0; i--) if (m.entries[i]?.id === id) return m.entries[i];
  return undefined;
}
function modelPath(m: Model, id: string): string[] {
  const out: string[] = [];
  let cur = modelGet(m, id);
  while (cur && !out.includes(cur.id)) {
    out.unshift(cur.id);
    const p = cur.parentId;
    cur = typeof p === "string" && p !== cur.id ? modelGet(m, p) : undefined;
  }
  return out;
}
function modelLabel(m: Model, id: string): string | undefined {
  let value: string | undefined;
  for (const e of m.entries) {
    if (e.type === "label" && e.targetId === id)
      value = typeof e.label === "string" && e.label ? e.label : undefined;
  }
  return value;
}
function modelName(m: Model): string | undefined {
  for (let i = m.entries.length - 1; i >= 0; i--) {
    const e = m.entries[i] as Entry;
    if (e.type === "session_info") return typeof e.name === "string" ? e.name.trim() || undefined : undefined;
  }
  return undefined;
}

class AppendCmd implements fc.Command<Model, Real> {
  constructor(readonly entry: Entry) {}
  check = () => true;
  run(m: Model, r: Real): void {
    m.entries.push(this.entry);
    m.leaf = this.entry.id;
    r.append(this.entry);
    expect(r.leafId).toBe(m.leaf);
    expect(r.get(this.entry.id)).toBe(this.entry);
  }
  toString = () => `append(${JSON.stringify(this.entry)})`;
}
class SetLeafCmd implements fc.Command<Model, Real> {
  constructor(readonly id: string | null) {}
  check = () => true;
  run(m: Model, r: Real): void {
    if (this.id !== null && !modelGet(m, this.id)) {
      expect(() => r.setLeaf(this.id)).toThrow(`Entry ${this.id} not found`);
      return;
    }
    m.leaf = this.id;
    r.setLeaf(this.id);
    expect(r.leafId).toBe(m.leaf);
  }
  toString = () => `setLeaf(${this.id})`;
}
class QueryCmd implements fc.Command<Model, Real> {
  constructor(readonly id: string) {}
  check = () => true;
  run(m: Model, r: Real): void {
    const id = this.id;
    expect(r.get(id)).toBe(modelGet(m, id));
    expect(r.has(id)).toBe(modelGet(m, id) !== undefined);
    expect(ids(r.pathTo(id))).toEqual(modelPath(m, id));
    expect(r.children(id)).toEqual(m.entries.filter((e) => e.parentId === id && e.id !== id));
    expect(r.getLabel(id)).toBe(modelLabel(m, id));
    expect(r.sessionName).toBe(modelName(m));
    expect(r.leafId).toBe(m.leaf);
    expect(r.entries).toEqual(m.entries);
    const leafPath = m.leaf === null ? [] : modelPath(m, m.leaf);
    expect(ids(r.activePath())).toEqual(leafPath);
  }
  toString = () => `query(${this.id})`;
}

describe("model-based", () => {
  it("append / setLeaf / pathTo / children / labels agree with a naive model", () => {
    const commands = [
      arbFaultyEntry.map((e) => new AppendCmd(e)),
      fc.oneof(arbId, fc.constant(null), fc.constant("ghost")).map((id) => new SetLeafCmd(id)),
      fc.oneof(arbId, fc.constant("ghost")).map((id) => new QueryCmd(id)),
    ];
    fc.assert(
      fc.property(fc.commands(commands, { maxCommands: 60 }), (cmds) => {
        fc.modelRun(() => ({ model: { entries: [], leaf: null }, real: new SessionIndex<Entry>() }), cmds);
      }),
      fcOptions(),
    );
  });
});

describe("lazy structures and the walk's shortcuts", () => {
  it("byId and children are built on first use and stay live across appends", () => {
    const index = new SessionIndex<Entry>([msg("r", null), msg("a", "r")]);
    const byId = index.byId;
    expect([...byId.keys()]).toEqual(["r", "a"]);
    index.append(msg("b", "a"));
    expect(byId.get("b")?.id).toBe("b");
    expect(ids(index.children("a"))).toEqual(["b"]);
    index.append(msg("c", "a"));
    expect(ids(index.children("a"))).toEqual(["b", "c"]);
  });

  it("the previous-entry shortcut respects duplicate ids (the later occurrence wins)", () => {
    // "p" occurs twice; "c" follows the first occurrence in the file but its parent is the last.
    const index = new SessionIndex<Entry>([
      msg("root", null),
      msg("p", "root"),
      msg("c", "p"),
      msg("other", null),
      msg("p", "other"),
    ]);
    expect(ids(index.pathTo("c"))).toEqual(["other", "p", "c"]);
    expect(ids(index.activePath())).toEqual(["other", "p"]);
  });

  it('an empty parentId ends the walk, as in pi (even if some entry has the id "")', () => {
    const index = new SessionIndex<Entry>([msg("", null), msg("a", "")]);
    expect(ids(index.pathTo("a"))).toEqual(["a"]);
  });

  it("input indexes and positions survive skipped items (headers, missing ids)", () => {
    const index = new SessionIndex<Entry>(
      [msg("a", null), { type: "session", id: "h" }, { type: "message" }, msg("a", null)],
      { positions: [{ line: 1, offset: 0 }, undefined, { line: 3, offset: 30 }, undefined] },
    );
    expect(index.positionOf("a")).toBeUndefined();
    expect(index.diagnostics.map((d) => [d.code, d.inputIndex])).toEqual([
      ["duplicate-id", 0],
      ["missing-id", 2],
    ]);
    expect(index.diagnostics[0]).toMatchObject({ line: 1, offset: 0 });
  });
});
