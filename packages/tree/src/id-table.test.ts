/**
 * Tests of IdTable (SessionIndex's id -> slot lookup): agreement with a `Map` model on any
 * sequence of ids (duplicates, "", odd characters), growth, reserve, and the bounded probes.
 */
import { fcOptions } from "@pi-session/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { idHash } from "@pi-session/format";
import { type IdKeys, IdTable } from "./id-table.js";

/** Keys over a plain array, compared by slot (as a lazy open's bytes are); `hash` may collide. */
function keysOver(ids: readonly string[], hash: (id: string) => number): IdKeys {
  return {
    hashAt: (slot) => hash(ids[slot] as string),
    idAt: (slot) => ids[slot] as string,
    sameAt: (a, b) => ids[a] === ids[b],
    isAt: (slot, id) => ids[slot] === id,
  };
}

function build(ids: readonly string[], reserve?: number) {
  const items: { id: string }[] = [];
  const table = new IdTable(items);
  if (reserve !== undefined) table.reserve(reserve);
  const fresh: boolean[] = [];
  for (const id of ids) {
    items.push({ id });
    fresh.push(table.add(items.length - 1));
  }
  return { table, fresh };
}

describe("IdTable", () => {
  it("agrees with a Map (last slot per id wins) on arbitrary ids", () => {
    const arbId = fc.oneof(fc.constantFrom("", "a", "b", "x".repeat(300)), fc.string({ maxLength: 12 }));
    fc.assert(
      fc.property(fc.array(arbId, { maxLength: 300 }), fc.array(arbId, { maxLength: 20 }), (ids, probes) => {
        const { table, fresh } = build(ids);
        const model = new Map<string, number>();
        ids.forEach((id, slot) => {
          expect(fresh[slot]).toBe(!model.has(id));
          model.set(id, slot);
        });
        expect(table.size).toBe(model.size);
        for (const id of [...ids, ...probes]) expect(table.find(id)).toBe(model.get(id) ?? -1);
      }),
      fcOptions(),
    );
  });

  it("grows past many doublings and honours reserve", () => {
    const ids = Array.from({ length: 20_000 }, (_, i) => `id-${i % 15_000}`);
    for (const reserve of [undefined, 5, 20_000]) {
      const { table } = build(ids, reserve);
      expect(table.size).toBe(15_000);
      expect(table.find("id-0")).toBe(15_000);
      expect(table.find("id-14999")).toBe(14_999);
      expect(table.find("id-15000")).toBe(-1);
    }
  });

  it("stays correct when every id collides (the bounded probes fall back to a Map)", () => {
    const ids = Array.from({ length: 3000 }, (_, i) => `c${i % 2500}`);
    for (const hash of [() => 0, (id: string) => id.length]) {
      const items: { id: string }[] = [];
      const table = new IdTable(items, hash);
      ids.forEach((id, slot) => {
        items.push({ id });
        expect(table.add(slot)).toBe(slot < 2500);
      });
      expect(table.size).toBe(2500);
      for (let i = 0; i < 2500; i++) expect(table.find(`c${i}`)).toBe(i < 500 ? 2500 + i : i);
      expect(table.find("missing")).toBe(-1);
      table.reserve(10_000);
      expect(table.find("c1")).toBe(2501);
    }
  });

  it("over keys compared by slot: the same answers, collisions and the move to a Map included", () => {
    const arbId = fc.oneof(fc.constantFrom("", "a", "b"), fc.string({ maxLength: 6 }));
    const hashes = [idHash, () => 0, (id: string) => id.length];
    fc.assert(
      fc.property(
        fc.array(arbId, { maxLength: 200 }),
        fc.array(arbId, { maxLength: 10 }),
        fc.constantFrom(0, 1, 2),
        (ids, probes, which) => {
          const hash = hashes[which] as (id: string) => number;
          const table = IdTable.overKeys(keysOver(ids, hash), hash);
          const model = new Map<string, number>();
          ids.forEach((id, slot) => {
            expect(table.add(slot)).toBe(!model.has(id));
            model.set(id, slot);
          });
          expect(table.size).toBe(model.size);
          for (const id of [...ids, ...probes]) expect(table.find(id)).toBe(model.get(id) ?? -1);
          for (const [slot, id] of ids.entries()) expect(table.findSameAs(slot)).toBe(model.get(id));
        },
      ),
      fcOptions(),
    );
  });

  it("answers -1 for non-string keys (numeric parentId in a hand-edited file)", () => {
    const { table } = build(["5"]);
    expect(table.find(5 as unknown as string)).toBe(-1);
    expect(table.find("5")).toBe(0);
  });
});
