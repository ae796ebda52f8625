/** Tests of the whole-session generators, the renderings of one conversation, and corruptions. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DRAFT_TYPES } from "./arbitraries.js";
import { CORRUPTION_KINDS, arbChunks, arbCorruptedFile, chunkSizes, splitAt } from "./corrupt.js";
import { fcOptions, scaledRuns } from "./env.js";
import {
  type GeneratedSession,
  arbDeepChain,
  arbLogicalConversation,
  arbSessionV1,
  arbSessionV2,
  arbSessionV3,
  deepChain,
  idFor,
  renderAsV1,
  renderAsV2,
  renderAsV3,
  toBytes,
  toJsonl,
} from "./sessions.js";

// Generous: the CI machine is shared, and a few hundred runs can exceed vitest's 5 s default.
const PROPERTY_TIMEOUT = 120_000;
type Obj = Record<string, unknown>;

function linesOf(s: GeneratedSession<{ type: string }>): Obj[] {
  const text = toJsonl(s);
  expect(text.endsWith("\n")).toBe(true);
  return text
    .slice(0, -1)
    .split("\n")
    .map((l) => JSON.parse(l) as Obj);
}

const messageCount = (s: GeneratedSession<{ type: string }>) =>
  s.entries.filter((e) => e.type === "message").length;

describe("arbSessionV3", { timeout: PROPERTY_TIMEOUT }, () => {
  it("has unique ids, existing parents before children, and valid targets", () => {
    fc.assert(
      fc.property(arbSessionV3(), (s) => {
        expect(s.version).toBe(3);
        expect(s.header.version).toBe(3);
        const seen = new Set<string>();
        for (const e of s.entries) {
          expect(e.id).toMatch(/^[0-9a-f]{8}$/);
          expect(seen.has(e.id)).toBe(false);
          if (e.parentId !== null) expect(seen.has(e.parentId)).toBe(true);
          seen.add(e.id);
        }
        for (const e of s.entries as Obj[]) {
          if (e.type === "label") expect(seen.has(e.targetId as string)).toBe(true);
          if (e.type === "compaction") expect(typeof e.firstKeptEntryId).toBe("string");
        }
        expect(s.leafId).toBe(s.entries.at(-1)?.id);
        expect(s.faults).toBeUndefined();
      }),
      fcOptions(),
    );
  });

  it("toJsonl lines parse back to the header and entries", () => {
    fc.assert(
      fc.property(arbSessionV3({ shuffle: true }), (s) => {
        expect(linesOf(s)).toStrictEqual([s.header, ...s.entries]);
        expect(new TextDecoder().decode(toBytes(s))).toBe(toJsonl(s));
      }),
      fcOptions(),
    );
  });

  it("produces branches and every entry type", () => {
    const sessions = fc.sample(arbSessionV3(), 300);
    const types = new Set(sessions.flatMap((s) => s.entries.map((e) => e.type)));
    const unknown = ["active_tools_change", "x_future_type", "leaf"];
    for (const t of DRAFT_TYPES) {
      if (t === "unknown") expect(unknown.some((u) => types.has(u))).toBe(true);
      else expect(types.has(t)).toBe(true);
    }
    const branched = sessions.some((s) => {
      const parents = s.entries.map((e) => e.parentId);
      return new Set(parents).size < parents.length;
    });
    expect(branched).toBe(true);
  });

  it("restricts entry types and sizes on request", () => {
    fc.assert(
      fc.property(arbSessionV3({ entryTypes: ["message"], minEntries: 2, maxEntries: 5 }), (s) => {
        expect(s.entries.length).toBeGreaterThanOrEqual(2);
        expect(s.entries.length).toBeLessThanOrEqual(5);
        expect(s.entries.every((e) => e.type === "message")).toBe(true);
      }),
      fcOptions(),
    );
  });

  it("with faults, injects and describes at least one fault", () => {
    fc.assert(
      fc.property(arbSessionV3({ faults: true, minEntries: 1 }), (s) => {
        expect(s.faults?.length).toBeGreaterThan(0);
        const ids = s.entries.map((e) => e.id);
        const idSet = new Set(ids);
        const broken =
          idSet.size < ids.length ||
          s.entries.some((e) => e.parentId !== null && (!idSet.has(e.parentId) || e.parentId === e.id));
        // A cycle alone leaves ids and parents intact, so check it by walking up.
        const parentOf = new Map(s.entries.map((e) => [e.id, e.parentId]));
        const cyclic = s.entries.some((e) => {
          const seen = new Set<string>();
          for (let at: string | null | undefined = e.id; at != null; at = parentOf.get(at)) {
            if (seen.has(at)) return true;
            seen.add(at);
          }
          return false;
        });
        expect(broken || cyclic).toBe(true);
      }),
      fcOptions(),
    );
  });
});

describe("arbSessionV2 and arbSessionV1", { timeout: PROPERTY_TIMEOUT }, () => {
  it("v2 has a version-2 header and only legacy hookMessage roles", () => {
    fc.assert(
      fc.property(arbSessionV2(), (s) => {
        expect(s.header.version).toBe(2);
        for (const e of s.entries as Obj[]) {
          if (e.type === "message") expect((e.message as Obj).role).not.toBe("custom");
        }
      }),
      fcOptions(),
    );
    const roles = fc
      .sample(arbSessionV2(), 200)
      .flatMap((s) =>
        (s.entries as Obj[]).filter((e) => e.type === "message").map((e) => (e.message as Obj).role),
      );
    expect(roles).toContain("hookMessage");
  });

  it("v1 is linear without ids, with header-inclusive compaction indices", () => {
    fc.assert(
      fc.property(arbSessionV1(), (s) => {
        expect(s.header).not.toHaveProperty("version");
        expect(s.leafId).toBeUndefined();
        for (const e of s.entries as Obj[]) {
          expect(e).not.toHaveProperty("id");
          expect(e).not.toHaveProperty("parentId");
          if (e.type === "compaction") {
            expect(e).not.toHaveProperty("firstKeptEntryId");
            if ("firstKeptEntryIndex" in e) expect(Number.isInteger(e.firstKeptEntryIndex)).toBe(true);
          }
        }
        expect(linesOf(s)).toStrictEqual([s.header, ...s.entries]);
      }),
      fcOptions(),
    );
    const indices = fc
      .sample(arbSessionV1(), 300)
      .flatMap((s) =>
        (s.entries as Obj[]).filter((e) => e.type === "compaction").map((e) => e.firstKeptEntryIndex),
      );
    expect(indices).toContain(0);
    expect(indices).toContain(undefined);
  });
});

describe("logical conversation renderings", { timeout: PROPERTY_TIMEOUT }, () => {
  it("v1, v2 and v3 hold the same messages and point compactions at the same entry", () => {
    fc.assert(
      fc.property(arbLogicalConversation(), (conv) => {
        const v1 = renderAsV1(conv);
        const v2 = renderAsV2(conv);
        const v3 = renderAsV3(conv);
        const n = conv.items.filter((i) => i.kind === "message").length;
        expect(messageCount(v1)).toBe(n);
        expect(messageCount(v2)).toBe(n);
        expect(messageCount(v3)).toBe(n);
        expect(v1.header).not.toHaveProperty("version");
        expect(v2.header.version).toBe(2);
        expect(v3.header.version).toBe(3);
        for (let i = 0; i < conv.items.length; i++) {
          const e1 = v1.entries[i] as Obj;
          const e2 = v2.entries[i] as Obj;
          const e3 = v3.entries[i] as Obj;
          expect(e2.id).toBe(e3.id);
          expect(e3.parentId).toBe(i === 0 ? null : v3.entries[i - 1]!.id);
          if (e1.type === "compaction") {
            const index = e1.firstKeptEntryIndex as number;
            expect(index).toBeGreaterThanOrEqual(1);
            expect(index).toBeLessThanOrEqual(i);
            expect(e3.firstKeptEntryId).toBe(v3.entries[index - 1]!.id);
            expect(v3.entries[index - 1]!.type).toBe("message");
            expect(e2.firstKeptEntryId).toBe(e3.firstKeptEntryId);
          }
          if (e3.type === "message") {
            const role = (e3.message as Obj).role;
            const legacy = role === "custom" ? "hookMessage" : role;
            expect((e1.message as Obj).role).toBe(legacy);
            expect((e2.message as Obj).role).toBe(legacy);
          }
        }
      }),
      fcOptions(),
    );
  });
});

describe("deepChain", { timeout: PROPERTY_TIMEOUT }, () => {
  it("is one linear chain with unique ids, deterministic per seed", () => {
    const s = deepChain(20_000, 7);
    expect(s.entries).toHaveLength(20_000);
    const ids = new Set(s.entries.map((e) => e.id));
    expect(ids.size).toBe(20_000);
    expect(s.entries[0]!.parentId).toBeNull();
    for (let i = 1; i < s.entries.length; i++) expect(s.entries[i]!.parentId).toBe(s.entries[i - 1]!.id);
    expect(s.leafId).toBe(s.entries.at(-1)!.id);
    expect(toJsonl(deepChain(50, 7))).toBe(toJsonl(deepChain(50, 7)));
    expect(toJsonl(deepChain(50, 8))).not.toBe(toJsonl(deepChain(50, 7)));
    expect(deepChain(0).entries).toHaveLength(0);
    fc.assert(
      fc.property(arbDeepChain(30), (c) => {
        expect(c.entries).toHaveLength(30);
      }),
      fcOptions({ numRuns: scaledRuns(20) }),
    );
  });

  it("idFor is injective over a range", () => {
    const ids = new Set(Array.from({ length: 100_000 }, (_, i) => idFor(i, 0xdeadbeef)));
    expect(ids.size).toBe(100_000);
  });
});

describe("corrupted files", { timeout: PROPERTY_TIMEOUT }, () => {
  it("always change the bytes", () => {
    fc.assert(
      fc.property(arbCorruptedFile(), (c) => {
        expect(Buffer.from(c.bytes).equals(Buffer.from(c.original))).toBe(false);
        expect(c.description.startsWith(c.kind)).toBe(true);
        expect(Buffer.from(c.original).equals(Buffer.from(toBytes(c.session)))).toBe(true);
      }),
      fcOptions(),
    );
  });

  it.each(CORRUPTION_KINDS)("kind %s can be requested alone", (kind) => {
    fc.assert(
      fc.property(arbCorruptedFile({ kinds: [kind] }), (c) => {
        expect(c.kind).toBe(kind);
      }),
      fcOptions({ numRuns: scaledRuns(20) }),
    );
  });

  it("chunk split points cut the bytes into pieces that join back", () => {
    fc.assert(
      fc.property(
        arbSessionV3({ maxEntries: 5 }).chain((s) => {
          const bytes = toBytes(s);
          return fc.tuple(fc.constant(bytes), arbChunks(bytes));
        }),
        ([bytes, points]) => {
          for (let i = 0; i < points.length; i++) {
            expect(points[i]).toBeGreaterThan(i === 0 ? 0 : points[i - 1]!);
            expect(points[i]).toBeLessThan(bytes.length);
          }
          const chunks = splitAt(bytes, points);
          expect(chunks).toHaveLength(points.length + 1);
          expect(Buffer.concat(chunks).equals(Buffer.from(bytes))).toBe(true);
          expect(chunkSizes(bytes.length, points)).toStrictEqual(chunks.map((c) => c.length));
        },
      ),
      fcOptions(),
    );
  });
});
