/**
 * SlotIndex against SessionIndex: random sessions (testkit's v3 trees with duplicate ids,
 * cycles, orphans, self-parents), part indexed at construction and the rest appended slot by
 * slot, with the leaf moved in between (issue 18: appends after a lazy open). Every answer
 * must be SessionIndex's over the same entries.
 */
import { arbSessionV3, fcOptions } from "@pi-session/testkit";
import { idHash } from "@pi-session/format";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type IndexableEntry, SessionIndex, SlotIndex, type SlotSource } from "./index.js";

type Entry = IndexableEntry & Record<string, unknown>;

/** A source over plain entries that grows by {@link GrowingSource.add}. */
class GrowingSource implements SlotSource {
  readonly entries: Record<string, unknown>[] = [];
  get count(): number {
    return this.entries.length;
  }
  add(entry: Record<string, unknown>): number {
    this.entries.push(entry);
    return this.entries.length - 1;
  }
  idOf(slot: number): string | undefined {
    const id = this.entries[slot]?.id;
    return typeof id === "string" ? id : undefined;
  }
  hasId(slot: number): boolean {
    return this.idOf(slot) !== undefined;
  }
  idHashOf(slot: number): number {
    return idHash(this.idOf(slot) as string);
  }
  isId(slot: number, id: unknown): boolean {
    return typeof id === "string" && this.idOf(slot) === id;
  }
  sameId(a: number, b: number): boolean {
    return this.idOf(a) !== undefined && this.idOf(a) === this.idOf(b);
  }
  parentIdOf(slot: number): string | undefined {
    const parentId = this.entries[slot]?.parentId;
    return typeof parentId === "string" ? parentId : undefined;
  }
  parentIsPrevious(slot: number): boolean {
    const parentId = this.parentIdOf(slot);
    return parentId !== undefined && slot > 0 && this.idOf(slot - 1) === parentId;
  }
  chainStart(slot: number): number {
    let first = slot;
    while (first > 0 && this.parentIsPrevious(first) && this.idOf(first - 1) !== "") first--;
    return first;
  }
}

const isMeta = (entry: Record<string, unknown>): boolean =>
  entry.type === "label" || entry.type === "session_info";

function attempt(fn: () => unknown): unknown {
  try {
    return { ok: fn() };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

describe("SlotIndex = SessionIndex, with appends and a moved leaf", () => {
  it("on random sessions split at a random point", () => {
    fc.assert(
      fc.property(
        arbSessionV3({ maxEntries: 30, faults: true }),
        fc.nat(),
        fc.array(fc.option(fc.nat(), { nil: null }), { maxLength: 40 }),
        (session, split, moves) => {
          const all = session.entries as unknown as Entry[];
          const at = all.length === 0 ? 0 : split % (all.length + 1);
          const source = new GrowingSource();
          for (const entry of all.slice(0, at)) source.add(entry);
          const meta = source.entries.flatMap((entry, slot) => (isMeta(entry) ? [{ slot, entry }] : []));
          const slots = new SlotIndex(source, meta);
          const eager = new SessionIndex<Entry>(all.slice(0, at));
          const ids = ["nope", ...all.map((e) => e.id).filter((id) => typeof id === "string")];
          const compare = (): void => {
            expect(slots.leafId).toBe(eager.leafId);
            expect(slots.distinctIds).toBe(eager.byId.size);
            expect(slots.sessionName).toBe(eager.sessionName);
            expect([...slots.labels]).toEqual([...eager.labels]);
            for (const id of ids) {
              const found = slots.find(id);
              expect(found < 0 ? undefined : source.entries[found]).toBe(eager.get(id));
              expect(Array.from(slots.pathTo(id), (slot) => source.entries[slot])).toEqual(eager.pathTo(id));
              expect(slots.getLabelTimestamp(id)).toBe(eager.getLabelTimestamp(id));
            }
            const leaf = slots.leafSlot;
            expect(leaf < 0 ? undefined : source.entries[leaf]).toBe(eager.leafEntry);
          };
          compare();
          let move = 0;
          for (const entry of all.slice(at)) {
            const choice = moves[move++];
            if (choice !== undefined) {
              const id = choice === null ? null : (ids[choice % ids.length] as string);
              expect(attempt(() => slots.setLeaf(id))).toEqual(attempt(() => eager.setLeaf(id)));
              compare();
            }
            slots.append(source.add(entry), entry);
            eager.append(entry);
            compare();
          }
        },
      ),
      fcOptions(),
    );
  });
});
