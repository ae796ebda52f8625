/**
 * What the generators share to place an entry: a random salt for ids, entry times after the
 * header's, and pi's key order. Not exported by the kit.
 */
import fc from "fast-check";
import type { EntryDraft } from "../arbitraries.js";

type Obj = Record<string, unknown>;

export const arbSalt = fc.integer({ min: 0, max: 0xffffffff });

export function isoAfter(headerTimestamp: string, i: number): string {
  const base = Date.parse(headerTimestamp);
  return new Date((Number.isNaN(base) ? 1_750_000_000_000 : base) + (i + 1) * 1000).toISOString();
}

/** `{type, id, parentId, timestamp, ...rest}`: the key order pi writes. */
export function placeEntry(draft: EntryDraft, id: string, parentId: string | null, timestamp: string): Obj {
  const { type, timestamp: _ignored, ...rest } = draft;
  return { type, id, parentId, timestamp, ...rest };
}
