/**
 * Differential test of `@pi-session/context` against pi 1.6.0's own functions: for arbitrary
 * v3 sessions (also with orphans and duplicate ids) and every leaf choice, the same function
 * with the same arguments returns a deep-equal result.
 *
 * Excluded from generation: parent cycles and self-parents (pi's path walk never returns on
 * them; ours stops, documented) and compactions carrying `retainedTail` (our documented
 * extension; one named test below shows the difference).
 */
import * as ours from "@pi-session/context";
import type { AnyEntry } from "@pi-session/format";
import { type GeneratedSession, arbSessionV3, fcOptions } from "@pi-session/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hasParentCycle, jsonCopy, withoutRetainedTail } from "./helpers.js";
import { type Json, pi, piMessages, piVersion } from "./pi.js";

const TIMEOUT = 60_000;

/** A generated session as pi reads it: plain entries, no `retainedTail`, no cycle. */
function entriesOf(s: GeneratedSession): Json[] {
  return withoutRetainedTail(jsonCopy(s.entries) as unknown as Json[]);
}

const arbEntries = (faults: boolean) =>
  arbSessionV3({ maxEntries: 30, faults, shuffle: false })
    .map(entriesOf)
    .filter((entries) => !hasParentCycle(entries));

const arbShuffledEntries = arbSessionV3({ maxEntries: 30, shuffle: true })
  .map(entriesOf)
  .filter((entries) => !hasParentCycle(entries));

/** Every leaf argument worth trying: absent, null, empty, unknown, and every id in the file. */
function leafChoices(entries: readonly Json[]): (string | null | undefined)[] {
  const ids = [...new Set(entries.map((e) => e.id as string))];
  return [undefined, null, "", "zz-not-an-id", ...ids];
}

const as = (entries: Json[]) => entries as unknown as AnyEntry[];

function checkAllLeaves(entries: Json[]): void {
  for (const leaf of leafChoices(entries)) {
    const at = `leaf ${JSON.stringify(leaf)}`;
    expect(ours.buildSessionContext(as(entries), leaf), at).toStrictEqual(
      pi.buildSessionContext(entries, leaf),
    );
    expect(ours.buildContextEntries(as(entries), leaf), at).toStrictEqual(
      pi.buildContextEntries(entries, leaf),
    );
    expect(ours.buildSessionProjection(as(entries), leaf), at).toStrictEqual(
      pi.buildSessionProjection(entries, leaf),
    );
    // With a caller-supplied index (what the manager passes): pi's Map, last entry per id.
    const byId = new Map(entries.map((e) => [e.id as string, e]));
    expect(ours.buildSessionContext(as(entries), leaf, byId as never), at).toStrictEqual(
      pi.buildSessionContext(entries, leaf, byId),
    );
    // And what the provider would receive.
    const messages = pi.buildSessionContext(entries, leaf).messages;
    expect(ours.convertToLlm(messages as never), at).toStrictEqual(piMessages.convertToLlm(messages));
  }
}

describe("context vs pi 1.6.0", () => {
  it("the reference is pi 1.6.0", () => {
    expect(piVersion).toBe("1.6.0");
  });

  it(
    "buildSessionContext / buildContextEntries / buildSessionProjection agree for every leaf (well-formed trees)",
    () => {
      fc.assert(fc.property(arbEntries(false), checkAllLeaves), fcOptions());
    },
    TIMEOUT,
  );

  it(
    "... also with orphans and duplicate ids (cycle-free)",
    () => {
      fc.assert(fc.property(arbEntries(true), checkAllLeaves), fcOptions());
    },
    TIMEOUT,
  );

  it(
    "... also when the file order is shuffled",
    () => {
      fc.assert(fc.property(arbShuffledEntries, checkAllLeaves), fcOptions());
    },
    TIMEOUT,
  );

  it(
    "sessionEntryToContextMessages, projectContextEntry and getLatestCompactionEntry agree per entry",
    () => {
      fc.assert(
        fc.property(arbEntries(true), (entries) => {
          expect(ours.getLatestCompactionEntry(as(entries))).toStrictEqual(
            pi.getLatestCompactionEntry(entries),
          );
          const edits = entries.filter((e) => e.type === "context_edit");
          for (const entry of entries) {
            const at = `entry ${JSON.stringify(entry).slice(0, 200)}`;
            expect(ours.sessionEntryToContextMessages(entry as never), at).toStrictEqual(
              pi.sessionEntryToContextMessages(entry),
            );
            expect(ours.projectContextEntry(entry as never, undefined), at).toStrictEqual(
              pi.projectContextEntry(entry, undefined),
            );
            for (const edit of edits) {
              expect(ours.projectContextEntry(entry as never, edit as never), at).toStrictEqual(
                pi.projectContextEntry(entry, edit),
              );
            }
          }
        }),
        fcOptions(),
      );
    },
    TIMEOUT,
  );

  it("the message constructors, prefixes and bashExecutionToText are pi's", () => {
    expect(ours.COMPACTION_SUMMARY_PREFIX).toBe(piMessages.COMPACTION_SUMMARY_PREFIX);
    expect(ours.COMPACTION_SUMMARY_SUFFIX).toBe(piMessages.COMPACTION_SUMMARY_SUFFIX);
    expect(ours.BRANCH_SUMMARY_PREFIX).toBe(piMessages.BRANCH_SUMMARY_PREFIX);
    expect(ours.BRANCH_SUMMARY_SUFFIX).toBe(piMessages.BRANCH_SUMMARY_SUFFIX);
    for (const ts of ["2025-01-01T00:00:00.000Z", "not a date", ""]) {
      expect(ours.createBranchSummaryMessage("s", "root", ts)).toStrictEqual(
        piMessages.createBranchSummaryMessage("s", "root", ts),
      );
      expect(ours.createCompactionSummaryMessage("s", 5, ts)).toStrictEqual(
        piMessages.createCompactionSummaryMessage("s", 5, ts),
      );
      expect(ours.createCustomMessage("t", "c", false, undefined, ts)).toStrictEqual(
        piMessages.createCustomMessage("t", "c", false, undefined, ts),
      );
    }
    const bash = {
      role: "bashExecution",
      command: "ls",
      output: "",
      exitCode: 2,
      cancelled: false,
      truncated: true,
      fullOutputPath: "/tmp/x.log",
      timestamp: 1,
    };
    expect(ours.bashExecutionToText(bash as never)).toBe(piMessages.bashExecutionToText(bash));
  });

  it("documented difference: a compaction with `retainedTail` is a self-contained checkpoint here, ignored by pi", () => {
    const t = (i: number) => `2025-01-01T00:00:0${i}.000Z`;
    const user = (text: string, i: number) => ({
      role: "user",
      content: text,
      timestamp: 1_735_689_600_000 + i,
    });
    const entries: Json[] = [
      { type: "message", id: "a0000000", parentId: null, timestamp: t(1), message: user("old", 1) },
      {
        type: "message",
        id: "b0000000",
        parentId: "a0000000",
        timestamp: t(2),
        message: user("kept by id", 2),
      },
      {
        type: "compaction",
        id: "c0000000",
        parentId: "b0000000",
        timestamp: t(3),
        summary: "S",
        firstKeptEntryId: "b0000000",
        tokensBefore: 10,
        retainedTail: [user("retained", 3)],
      },
      { type: "message", id: "d0000000", parentId: "c0000000", timestamp: t(4), message: user("after", 4) },
    ];
    const text = (ctx: { messages: readonly object[] }) =>
      (ctx.messages as Json[]).map((m) =>
        m.role === "compactionSummary" ? `summary:${m.summary}` : String(m.content),
      );
    // pi 1.6.0: firstKeptEntryId decides, the retained tail is not read.
    expect(text(pi.buildSessionContext(entries))).toEqual(["summary:S", "kept by id", "after"]);
    // ours: the checkpoint's own retained messages replace the kept range.
    expect(text(ours.buildSessionContext(as(entries)))).toEqual(["summary:S", "retained", "after"]);
    // Without the field both agree again.
    const plain = withoutRetainedTail(entries);
    expect(ours.buildSessionContext(as(plain))).toStrictEqual(pi.buildSessionContext(plain));
  });
});
