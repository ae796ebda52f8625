/**
 * Property tests of the context rebuild:
 * - a naive reference written straight from docs/format.md "Context rules" agrees with the real
 *   implementation on arbitrary trees, faults included (orphans, cycles, duplicate ids);
 * - the context is invariant under entries on other branches, metadata nodes inserted on the
 *   path, consistent renaming of ids, and reordering of the file with an explicit leaf.
 */
import type { AgentMessage, AnyEntry } from "@pi-session/format";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { arbPermutation, arbSessionCase } from "../test/arbitraries.js";
import { arbSessionV3, fcOptions } from "@pi-session/testkit";
import { createIndex } from "@pi-session/tree";
import {
  buildContextEntries,
  buildSessionContext,
  buildSessionProjection,
  type SessionContext,
} from "./index.js";

// ---------------------------------------------------------------------------------------------
// The naive reference: simple, obviously-correct code from the spec (quadratic is fine here).

// The naive reference reads entries as untyped JSON on purpose.
// biome-ignore lint/suspicious/noExplicitAny: untyped JSON access keeps the reference short
type Json = any;
type E = AnyEntry & Record<string, Json>;

function naivePath(entries: E[], leafId: string | null | undefined): E[] {
  if (leafId === null) return [];
  const byId = new Map<string, E>();
  for (const e of entries) byId.set(e.id, e);
  const leaf = (leafId ? byId.get(leafId) : undefined) ?? entries.at(-1);
  const path: E[] = [];
  const seen = new Set<string>();
  for (
    let cur = leaf;
    cur !== undefined && !seen.has(cur.id);
    cur = cur.parentId ? byId.get(cur.parentId) : undefined
  ) {
    seen.add(cur.id);
    path.unshift(cur);
  }
  return path;
}

function naiveSelect(path: E[]): E[] {
  const ci = path.map((e) => e.type).lastIndexOf("compaction");
  if (ci === -1) return path;
  const c = path[ci]!;
  const after = path.slice(ci + 1);
  if (Array.isArray(c.retainedTail)) return [c, ...after];
  const before = path.slice(0, ci);
  const start = before.findIndex((e) => e.id === c.firstKeptEntryId);
  const kept =
    start === -1
      ? []
      : before.slice(start).filter((e) => !(e.type === "message" && e.message?.role === "system"));
  return [c, ...kept, ...after];
}

function ms(ts: string): number {
  return Date.parse(ts);
}

function naiveRepair(m: Json): AgentMessage {
  if (m.content === null || m.content === undefined) {
    if (m.role === "system") return { ...m, content: "" };
    if (m.role === "user" || m.role === "assistant" || m.role === "toolResult") return { ...m, content: [] };
  }
  return m;
}

function naiveOwn(e: E): AgentMessage[] {
  if (e.type === "message") return e.message && typeof e.message === "object" ? [naiveRepair(e.message)] : [];
  if (e.type === "custom_message")
    return [
      {
        role: "custom",
        customType: e.customType,
        content: e.content ?? [],
        display: e.display,
        details: e.details,
        timestamp: ms(e.timestamp),
      },
    ];
  if (e.type === "branch_summary")
    return e.summary
      ? [{ role: "branchSummary", summary: e.summary, fromId: e.fromId, timestamp: ms(e.timestamp) }]
      : [];
  if (e.type === "compaction") {
    const summary: AgentMessage = {
      role: "compactionSummary",
      summary: e.summary,
      tokensBefore: e.tokensBefore,
      timestamp: ms(e.timestamp),
    };
    return e.systemMessage ? [e.systemMessage, summary] : [summary];
  }
  return [];
}

function naiveContext(entries: E[], leafId: string | null | undefined): SessionContext {
  const path = naivePath(entries, leafId);
  let thinkingLevel = "off";
  let model: SessionContext["model"] = null;
  for (const e of path) {
    if (e.type === "thinking_level_change") thinkingLevel = e.thinkingLevel;
    if (e.type === "model_change") model = { provider: e.provider, modelId: e.modelId };
    if (e.type === "message" && e.message?.role === "assistant")
      model = { provider: e.message.provider, modelId: e.message.model };
  }
  const selected = naiveSelect(path);
  const messages: AgentMessage[] = [];
  selected.forEach((e, i) => {
    if (e.type === "compaction" && i > 0) return;
    const edit = selected.filter((x) => x.type === "context_edit" && x.targetId === e.id).at(-1);
    let own = naiveOwn(e);
    if (edit && edit.replacement === null) own = [];
    else if (edit) {
      own = own.map((m: Json) => {
        if (!["user", "assistant", "toolResult", "custom"].includes(m.role)) return m;
        const c = edit.replacement.content;
        const asBlocks = (m.role === "assistant" || m.role === "toolResult") && typeof c === "string";
        return { ...m, content: asBlocks ? [{ type: "text", text: c }] : c };
      });
    }
    messages.push(...own);
    if (e.type === "compaction" && Array.isArray(e.retainedTail))
      messages.push(...e.retainedTail.map(naiveRepair));
  });
  return { messages, thinkingLevel, model };
}

// ---------------------------------------------------------------------------------------------

const ctxOf = (entries: AnyEntry[], leafId: string | null | undefined) =>
  buildSessionContext(entries, leafId);

describe("naive reference agrees with the implementation", () => {
  it("on well-formed trees", () => {
    fc.assert(
      fc.property(arbSessionCase(), ({ entries, leafId }) => {
        expect(ctxOf(entries, leafId)).toEqual(naiveContext(entries as E[], leafId));
        expect(buildContextEntries(entries, leafId)).toEqual(naiveSelect(naivePath(entries as E[], leafId)));
      }),
      fcOptions(),
    );
  });

  it("on faulty trees (orphans, cycles, self-parents, duplicate ids, dangling references)", () => {
    fc.assert(
      fc.property(arbSessionCase({ faults: true }), ({ entries, leafId }) => {
        expect(ctxOf(entries, leafId)).toEqual(naiveContext(entries as E[], leafId));
        const projection = buildSessionProjection(entries, leafId);
        expect(projection.entries.map((p) => p.sourceEntry)).toEqual(
          naiveSelect(naivePath(entries as E[], leafId)),
        );
        expect(projection.entries.flatMap((p) => p.messages)).toEqual(projection.messages);
        // Every kind of lookup walks the same path: a Map, a bare { get }, a SessionIndex.
        const map = new Map(entries.map((e) => [e.id, e]));
        const want = naiveContext(entries as E[], leafId);
        expect(buildSessionContext(entries, leafId, map)).toEqual(want);
        expect(buildSessionContext(entries, leafId, { get: (id: string) => map.get(id) })).toEqual(want);
        expect(buildSessionContext(entries, leafId, createIndex(entries))).toEqual(want);
      }),
      fcOptions(),
    );
  });
  it("on testkit's arbSessionV3 with faults and shuffled file order, any leaf", () => {
    const arb = arbSessionV3({ faults: true, shuffle: true }).chain((s) =>
      fc.record({
        s: fc.constant(s),
        leafId: fc.oneof(
          fc.constant(undefined),
          fc.constant(null),
          fc.constant("nope"),
          s.entries.length > 0 ? fc.constantFrom(...s.entries.map((e) => e.id)) : fc.constant(undefined),
        ),
      }),
    );
    fc.assert(
      fc.property(arb, ({ s, leafId }) => {
        expect(ctxOf(s.entries, leafId)).toEqual(naiveContext(s.entries as E[], leafId));
      }),
      fcOptions(),
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Invariances

/** The leaf the context actually uses (explicit, so file-order changes do not move it). */
function explicitLeaf(entries: AnyEntry[], leafId: string | null | undefined): string | null {
  if (leafId === null || entries.length === 0) return null;
  if (leafId && entries.some((e) => e.id === leafId)) return leafId;
  return entries[entries.length - 1]!.id;
}

describe("context invariants", () => {
  it("entries added on other branches do not change the context", () => {
    const arb = arbSessionCase().chain((c) =>
      fc.record({
        c: fc.constant(c),
        extra: arbSessionCase({ maxEntries: 8 }),
        attach: fc.array(fc.nat(), { maxLength: 8 }),
        positions: fc.array(fc.nat(), { maxLength: 8 }),
      }),
    );
    fc.assert(
      fc.property(arb, ({ c, extra, attach, positions }) => {
        const leaf = explicitLeaf(c.entries, c.leafId);
        const before = ctxOf(c.entries, leaf);
        const grown = [...c.entries];
        extra.entries.forEach((e, i) => {
          // Fresh ids; parent: another new entry, an existing entry (any, on the path too), or none.
          const renamed: AnyEntry = {
            ...e,
            id: `x-${e.id}`,
            parentId: e.parentId ? `x-${e.parentId}` : null,
          };
          if (c.entries.length > 0 && (attach[i] ?? 0) % 2 === 0) {
            renamed.parentId = c.entries[(attach[i] ?? 0) % c.entries.length]!.id;
          }
          grown.splice((positions[i] ?? 0) % (grown.length + 1), 0, renamed);
        });
        expect(ctxOf(grown, leaf)).toEqual(before);
      }),
      fcOptions(),
    );
  });

  it("label / session_info / custom / usage nodes inserted on the path do not change the context", () => {
    const metaTypes = ["label", "session_info", "custom", "usage"] as const;
    const arb = arbSessionCase().chain((c) =>
      fc.record({
        c: fc.constant(c),
        inserts: fc.array(
          fc.record({ at: fc.nat(), kind: fc.constantFrom(...metaTypes), target: fc.nat() }),
          {
            maxLength: 6,
          },
        ),
      }),
    );
    fc.assert(
      fc.property(arb, ({ c, inserts }) => {
        const leaf = explicitLeaf(c.entries, c.leafId);
        if (leaf === null) return;
        const before = ctxOf(c.entries, leaf);
        let entries = c.entries.map((e) => ({ ...e }));
        let currentLeaf = leaf;
        inserts.forEach((ins, n) => {
          const path = buildContextPathIds(entries, currentLeaf);
          const id = `meta${n}`;
          const meta = metaEntry(ins.kind, id, path[ins.target % path.length] ?? "e0");
          const slot = ins.at % (path.length + 1);
          if (slot === path.length) {
            // Append after the leaf: the metadata node becomes the leaf.
            meta.parentId = currentLeaf;
            currentLeaf = id;
          } else {
            // Insert as the parent of the path entry at `slot`.
            const child = entries.find((e) => e.id === path[slot])!;
            meta.parentId = child.parentId;
            entries = entries.map((e) => (e === child ? { ...e, parentId: id } : e));
          }
          entries.push(meta);
        });
        expect(ctxOf(entries, currentLeaf)).toEqual(before);
      }),
      fcOptions(),
    );
  });

  it("renaming every id consistently does not change the context", () => {
    fc.assert(
      fc.property(arbSessionCase({ faults: true }), ({ entries, leafId }) => {
        const ren = (id: unknown) => (typeof id === "string" && id !== "" ? `r:${id}` : id);
        const renamed = entries.map((e) => {
          const r: Record<string, unknown> = { ...e, id: ren(e.id), parentId: ren(e.parentId) };
          for (const k of ["firstKeptEntryId", "targetId", "fromId"]) if (k in r) r[k] = ren(r[k]);
          return r as AnyEntry;
        });
        const after = ctxOf(
          renamed,
          leafId === "nope" ? "r:nope" : (ren(leafId) as string | null | undefined),
        );
        // fromId is carried into branch summary messages: map it back before comparing.
        const unren = after.messages.map((m) =>
          m.role === "branchSummary" ? { ...m, fromId: (m.fromId as string).replace(/^r:/, "") } : m,
        );
        expect({ ...after, messages: unren }).toEqual(ctxOf(entries, leafId));
      }),
      fcOptions(),
    );
  });

  it("reordering the file does not change the context when the leaf is explicit", () => {
    const arb = arbSessionCase({ faults: true, uniqueIds: true }).chain((c) =>
      fc.record({ c: fc.constant(c), perm: arbPermutation(c.entries.length) }),
    );
    fc.assert(
      fc.property(arb, ({ c, perm }) => {
        const leaf = explicitLeaf(c.entries, c.leafId);
        const shuffled = perm.map((i) => c.entries[i]!);
        expect(ctxOf(shuffled, leaf)).toEqual(ctxOf(c.entries, leaf));
      }),
      fcOptions(),
    );
  });
});

function buildContextPathIds(entries: AnyEntry[], leaf: string): string[] {
  return naivePath(entries as E[], leaf).map((e) => e.id);
}

function metaEntry(
  kind: "label" | "session_info" | "custom" | "usage",
  id: string,
  target: string,
): AnyEntry {
  const base = { id, parentId: null as string | null, timestamp: "2025-01-01T00:00:00.000Z" };
  switch (kind) {
    case "label":
      return { ...base, type: "label", targetId: target, label: "bookmark" };
    case "session_info":
      return { ...base, type: "session_info", name: "renamed" };
    case "custom":
      return { ...base, type: "custom", customType: "ext", data: { a: 1 } };
    case "usage":
      return {
        ...base,
        type: "usage",
        kind: "cache_warm",
        provider: "p",
        model: "m",
        usage: {
          input: 1,
          output: 1,
          cacheRead: 0,
          cacheWrite: 0,
          totalTokens: 2,
          cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
        },
      };
  }
}
