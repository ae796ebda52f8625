/**
 * Random v1 files: linear, no ids, only the entry types v1 had (messages, thinking level and
 * model changes, compactions by index).
 */
import fc from "fast-check";
import type { V1Entry } from "@pi-session/format";
import { type DraftType, arbEntry, arbHeader } from "../arbitraries.js";
import type { GeneratedSession } from "./generated.js";
import { isoAfter } from "./placing.js";

type Obj = Record<string, unknown>;

const V1_TYPES: readonly DraftType[] = ["message", "thinking_level_change", "model_change", "compaction"];

export interface SessionV1Options {
  maxEntries?: number;
  minEntries?: number;
}

/**
 * A v1 file: header without `version`, entries without `id`/`parentId`, custom messages as
 * `hookMessage`, and compactions with a header-inclusive `firstKeptEntryIndex` that is
 * usually an earlier entry, sometimes 0 (the header), out of range, or absent.
 */
export function arbSessionV1(opts: SessionV1Options = {}): fc.Arbitrary<GeneratedSession<V1Entry>> {
  const item = fc.record(
    {
      draft: fc.oneof(
        { arbitrary: arbEntry("message"), weight: 12 },
        ...V1_TYPES.slice(1).map((t) => ({ arbitrary: arbEntry(t), weight: 1 })),
        { arbitrary: arbEntry("unknown"), weight: 1 },
      ),
      a: fc.nat(),
      b: fc.integer({ min: 0, max: 9 }),
    },
    { noNullPrototype: true },
  );
  return fc
    .tuple(
      arbHeader(1),
      fc.array(item, { minLength: opts.minEntries ?? 0, maxLength: opts.maxEntries ?? 40, size: "max" }),
    )
    .map(([header, items]) => {
      const n = items.length;
      const entries = items.map(({ draft, a, b }, i) => {
        const timestamp = isoAfter(header.timestamp, i);
        if (draft.type === "message") {
          const m = draft.message as Obj;
          const message = m.role === "custom" ? { ...m, role: "hookMessage" } : m;
          return { ...draft, timestamp, message } as V1Entry;
        }
        if (draft.type === "compaction") {
          const pos = i + 1; // header-inclusive index of this compaction
          let index: number | undefined;
          if (b <= 6) index = pos > 1 ? 1 + (a % (pos - 1)) : 0;
          else if (b === 7) index = 0;
          else if (b === 8) index = n + 1 + (a % 5);
          const c: Obj = { type: "compaction", timestamp, summary: draft.summary };
          if (index !== undefined) c.firstKeptEntryIndex = index;
          c.tokensBefore = draft.tokensBefore;
          return c as V1Entry;
        }
        return { ...draft, timestamp } as V1Entry;
      });
      return { version: 1 as const, header, entries };
    });
}
