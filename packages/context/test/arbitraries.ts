/**
 * fast-check arbitraries for the context property tests: session trees built from every
 * entry type that matters to the context (and the ones that must not), optionally with the
 * faults real files have (orphans, cycles, self-parents, duplicate ids, dangling references).
 *
 * Small id pools make collisions, kept-range hits and edit targets likely.
 */
import type { AgentMessage, AnyEntry } from "@pi-session/format";
import fc from "fast-check";
import { A, TS, U, zeroUsage } from "./entries.js";

export interface SessionCase {
  entries: AnyEntry[];
  /** undefined, null, an id of the session, or an unknown id. */
  leafId: string | null | undefined;
}

export interface ArbOptions {
  /** Allow orphans, forward parents (cycles), self-parents and (unless `uniqueIds`) duplicate ids. */
  faults?: boolean;
  /** Keep ids unique even with faults. */
  uniqueIds?: boolean;
  maxEntries?: number;
}

const TIMESTAMPS = [TS, "2025-06-01T12:00:00.000Z", "not a date"];

const arbWord = fc.constantFrom("alpha", "beta", "gamma", "delta", "", "x y");

const arbStoredMessage: fc.Arbitrary<AgentMessage> = fc.oneof(
  arbWord.map((w) => U(w)),
  fc
    .record({ w: arbWord, stop: fc.constantFrom("stop", "error", "aborted", "toolUse") })
    .map(({ w, stop }) =>
      A(w, { stopReason: stop, provider: w ? "anthropic" : "openai", model: w || "gpt" }),
    ),
  arbWord.map(
    (w): AgentMessage => ({
      role: "toolResult",
      toolCallId: "call",
      toolName: "read",
      content: [{ type: "text", text: w }],
      isError: false,
      timestamp: 2,
    }),
  ),
  arbWord.map((w): AgentMessage => ({ role: "system", content: w, timestamp: 3 })),
  fc.boolean().map(
    (ex): AgentMessage => ({
      role: "bashExecution",
      command: "ls",
      output: "out",
      exitCode: 0,
      cancelled: false,
      truncated: false,
      timestamp: 4,
      excludeFromContext: ex,
    }),
  ),
  fc.constant({ role: "user", content: null, timestamp: 5 } as unknown as AgentMessage),
);

/** An entry of any type without its place in the tree (id, parent, timestamp). */
type Placeless<E> = E extends unknown ? Omit<E, "id" | "parentId" | "timestamp"> : never;
type Draft = Placeless<AnyEntry>;

/** An entry body; `ref` picks an id from the session (or a foreign one) for references. */
function arbDraft(ref: fc.Arbitrary<string>): fc.Arbitrary<Draft> {
  return fc.oneof(
    { weight: 6, arbitrary: arbStoredMessage.map((message): Draft => ({ type: "message", message })) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom("low", "high", "off")
        .map((l): Draft => ({ type: "thinking_level_change", thinkingLevel: l })),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom("openai", "google")
        .map((p): Draft => ({ type: "model_change", provider: p, modelId: `${p}-m` })),
    },
    {
      weight: 2,
      arbitrary: fc
        .record({
          summary: arbWord,
          kept: fc.option(ref, { nil: undefined }),
          system: fc.boolean(),
          tail: fc.option(fc.array(arbStoredMessage, { maxLength: 3 }), { nil: undefined, freq: 3 }),
        })
        .map(({ summary, kept, system, tail }): Draft => {
          const d: Record<string, unknown> = {
            type: "compaction",
            summary: summary || "S",
            tokensBefore: 10,
          };
          if (kept !== undefined) d.firstKeptEntryId = kept;
          if (system) d.systemMessage = { role: "system", content: "checkpoint", timestamp: 9 };
          if (tail !== undefined) d.retainedTail = tail;
          return d as Draft;
        }),
    },
    {
      weight: 1,
      arbitrary: fc
        .record({ s: arbWord, from: ref })
        .map(({ s, from }): Draft => ({ type: "branch_summary", fromId: from, summary: s })),
    },
    { weight: 1, arbitrary: fc.constant({ type: "custom", customType: "state", data: { n: 1 } } as Draft) },
    {
      weight: 1,
      arbitrary: fc
        .record({ content: fc.option(arbWord, { nil: undefined }), display: fc.boolean() })
        .map(({ content, display }): Draft => {
          const d: Record<string, unknown> = { type: "custom_message", customType: "note", display };
          if (content !== undefined) d.content = content;
          return d as Draft;
        }),
    },
    { weight: 1, arbitrary: ref.map((t): Draft => ({ type: "label", targetId: t, label: "L" })) },
    { weight: 1, arbitrary: fc.constant({ type: "session_info", name: "N" } as Draft) },
    {
      weight: 1,
      arbitrary: fc.constant({
        type: "usage",
        kind: "k",
        provider: "p",
        model: "m",
        usage: zeroUsage,
      } as Draft),
    },
    {
      weight: 2,
      arbitrary: fc
        .record({
          target: ref,
          replacement: fc.oneof(
            fc.constant(null),
            arbWord.map((w) => ({ content: `edit ${w}` })),
            fc.constant({ content: [{ type: "text", text: "block edit" }] }),
          ),
        })
        .map(({ target, replacement }): Draft => ({ type: "context_edit", targetId: target, replacement })),
    },
    { weight: 1, arbitrary: fc.constant({ type: "future_entry", payload: 1 } as Draft) },
  );
}

/** A session as an array of entries plus a leaf choice. */
export function arbSessionCase(opts: ArbOptions = {}): fc.Arbitrary<SessionCase> {
  const max = opts.maxEntries ?? 24;
  return fc.integer({ min: 0, max }).chain((n) => {
    const duplicates = opts.faults === true && opts.uniqueIds !== true;
    // Ids: e0..e(n-1), or with duplicates a small pool that makes collisions likely.
    const ids = duplicates
      ? fc.array(fc.constantFrom(...poolIds(Math.max(1, Math.ceil(n * 0.7)))), { minLength: n, maxLength: n })
      : fc.constant(Array.from({ length: n }, (_, i) => `e${i}`));
    const anyRef = fc.constantFrom(...poolIds(Math.max(1, n)), "missing");
    return ids.chain((idList) => {
      const parents = idList.map((_, i) => parentArb(i, idList, opts.faults === true));
      const drafts = idList.map(() => arbDraft(anyRef));
      const leaf = fc.oneof(
        fc.constant(undefined),
        fc.constant(null),
        fc.constant("nope"),
        n > 0 ? fc.constantFrom(...idList) : fc.constant(undefined),
        n > 0 ? fc.constantFrom(...idList) : fc.constant(undefined),
      );
      return fc
        .tuple(fc.tuple(...parents), fc.tuple(...drafts), fc.constantFrom(...TIMESTAMPS), leaf)
        .map(([ps, ds, ts, leafId]) => ({
          entries: idList.map(
            (id, i) => ({ ...(ds[i] as Draft), id, parentId: ps[i] ?? null, timestamp: ts }) as AnyEntry,
          ),
          leafId,
        }));
    });
  });
}

function poolIds(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `e${i}`);
}

function parentArb(i: number, ids: readonly string[], faults: boolean): fc.Arbitrary<string | null> {
  const earlier = ids.slice(0, i);
  const options: fc.Arbitrary<string | null>[] = [fc.constant(null)];
  if (earlier.length > 0) {
    // Mostly the previous entry, so long chains are common.
    options.push(fc.constant(earlier[earlier.length - 1] as string), fc.constantFrom(...earlier));
    options.push(fc.constant(earlier[earlier.length - 1] as string));
  }
  if (faults) options.push(fc.constantFrom(...ids), fc.constant("missing"), fc.constant(""));
  return fc.oneof(...options);
}

/** The session with every entry shuffled by a permutation (leaf kept explicit by the caller). */
export const arbPermutation = (n: number): fc.Arbitrary<number[]> =>
  fc.shuffledSubarray(
    Array.from({ length: n }, (_, i) => i),
    { minLength: n, maxLength: n },
  );
