/**
 * context_edit (pi 1.6.0, docs/format.md "Context edits"), content repair of stored messages and
 * the shape of custom/branch/compaction messages.
 */
import type { AnyEntry, ToolResultMessage } from "@pi-session/format";
import { describe, expect, it } from "vitest";
import {
  A,
  compaction,
  contextEdit,
  customMessage,
  label,
  msg,
  roles,
  TS,
  textOf,
  U,
} from "../test/entries.js";
import {
  buildSessionContext,
  buildSessionProjection,
  projectContextEntry,
  sessionEntryToContextMessages,
} from "./index.js";

const toolResult = (text: string): ToolResultMessage => ({
  role: "toolResult",
  toolCallId: "call-1",
  toolName: "read",
  content: [{ type: "text", text }],
  isError: false,
  timestamp: 1,
});

describe("context_edit", () => {
  it("the last edit per target wins", () => {
    const entries = [
      msg("1", null, U("original")),
      msg("2", "1", A("a")),
      contextEdit("e1", "2", "1", { content: "first edit" }),
      contextEdit("e2", "e1", "1", { content: "second edit" }),
    ];
    const ctx = buildSessionContext(entries);
    expect(ctx.messages.map(textOf)).toEqual(["second edit", "a"]);
    // Only content changes; role, timestamp and other fields stay.
    expect(ctx.messages[0]).toEqual({ role: "user", content: "second edit", timestamp: 1 });
  });

  it("a null replacement removes the target; a later edit brings it back", () => {
    const removed = [msg("1", null, U("u")), msg("2", "1", A("a")), contextEdit("e1", "2", "2", null)];
    expect(roles(buildSessionContext(removed).messages)).toEqual(["user"]);
    const restored = [...removed, contextEdit("e2", "e1", "2", { content: "back" })];
    expect(buildSessionContext(restored).messages.map(textOf)).toEqual(["u", "back"]);
  });

  it("edits are branch-relative: a leaf before the edit sees the original", () => {
    const entries = [
      msg("1", null, U("original")),
      msg("2", "1", A("a")),
      contextEdit("e1", "2", "1", { content: "edited" }),
      msg("3", "e1", U("next")),
      msg("4", "2", U("sibling")),
    ];
    expect(buildSessionContext(entries, "3").messages.map(textOf)).toEqual(["edited", "a", "next"]);
    expect(buildSessionContext(entries, "2").messages.map(textOf)).toEqual(["original", "a"]);
    expect(buildSessionContext(entries, "4").messages.map(textOf)).toEqual(["original", "a", "sibling"]);
  });

  it("a string replacement becomes one text block for assistant and toolResult only", () => {
    const entries = [
      msg("1", null, U("u")),
      msg("2", "1", A("a")),
      msg("3", "2", toolResult("big output")),
      customMessage("4", "3", "note", "c", true),
      contextEdit("e1", "4", "1", { content: "U!" }),
      contextEdit("e2", "e1", "2", { content: "A!" }),
      contextEdit("e3", "e2", "3", { content: "T!" }),
      contextEdit("e4", "e3", "4", { content: "C!" }),
    ];
    const [u, a, t, c] = buildSessionContext(entries).messages as { content: unknown }[];
    expect(u!.content).toBe("U!");
    expect(a!.content).toEqual([{ type: "text", text: "A!" }]);
    expect(t!.content).toEqual([{ type: "text", text: "T!" }]);
    expect(c!.content).toBe("C!");
  });

  it("array replacements are used as given", () => {
    const blocks = [
      { type: "text", text: "x" },
      { type: "text", text: "y" },
    ];
    const entries = [msg("1", null, U("u")), contextEdit("e", "1", "1", { content: blocks })];
    expect((buildSessionContext(entries).messages[0] as { content: unknown }).content).toBe(blocks);
  });

  it("edits outside the selected entries are ignored (before the compaction window)", () => {
    const entries = [
      msg("1", null, U("u1")),
      msg("2", "1", A("a1")),
      contextEdit("e1", "2", "2", { content: "edited before compaction" }),
      compaction("c", "e1", "S", "2"),
      msg("3", "c", U("u2")),
    ];
    // The edit entry sits inside the kept range (it is selected), so it applies.
    expect(buildSessionContext(entries).messages.map(textOf)).toEqual([
      "S",
      "edited before compaction",
      "u2",
    ]);
    // Keep nothing: the edit is no longer selected, and its target is gone too.
    const none = entries.map((e) => (e.id === "c" ? { ...e, firstKeptEntryId: "c" } : e));
    expect(buildSessionContext(none).messages.map(textOf)).toEqual(["S", "u2"]);
  });

  it("edits do not touch summaries; null removes a compaction's messages", () => {
    const entries = [
      msg("1", null, U("u1")),
      compaction("c", "1", "S", "1"),
      contextEdit("e1", "c", "c", { content: "no effect" }),
    ];
    expect(buildSessionContext(entries).messages.map(textOf)).toEqual(["S", "u1"]);
    const removed = [...entries.slice(0, 2), contextEdit("e1", "c", "c", null)];
    expect(buildSessionContext(removed).messages.map(textOf)).toEqual(["u1"]);
  });

  it("edits never reach a compaction's retainedTail", () => {
    const entries: AnyEntry[] = [
      compaction("c", null, "S", undefined, { retainedTail: [U("kept")] }),
      contextEdit("e1", "c", "c", { content: "changed" }),
    ];
    expect(buildSessionContext(entries).messages.map(textOf)).toEqual(["S", "kept"]);
  });

  it("projection keeps provenance: every selected entry with its messages", () => {
    const entries = [
      msg("1", null, U("u")),
      label("l", "1", "1", "x"),
      msg("2", "l", A("a")),
      contextEdit("e", "2", "2", null),
    ];
    const projection = buildSessionProjection(entries);
    expect(projection.entries.map((p) => [p.sourceEntry.id, p.messages.length])).toEqual([
      ["1", 1],
      ["l", 0],
      ["2", 0],
      ["e", 0],
    ]);
    expect(projection.messages.map(textOf)).toEqual(["u"]);
  });

  it("projectContextEntry without an edit equals sessionEntryToContextMessages", () => {
    const entry = msg("1", null, U("u"));
    expect(projectContextEntry(entry, undefined)).toEqual(sessionEntryToContextMessages(entry));
  });
});

describe("content repair and synthetic messages", () => {
  it("null or missing content is repaired on a copy: [] for user/assistant/toolResult, '' for system", () => {
    const stored = [
      { role: "user", content: null, timestamp: 1 },
      { role: "assistant", provider: "p", model: "m", timestamp: 1 },
      { role: "toolResult", toolCallId: "x", toolName: "t", content: null, isError: false, timestamp: 1 },
      { role: "system", content: null, timestamp: 1 },
      { role: "custom", customType: "c", display: true, content: null, timestamp: 1 },
    ];
    const entries = stored.map((m, i) => msg(String(i + 1), i === 0 ? null : String(i), m as never));
    const contents = buildSessionContext(entries).messages.map((m) => (m as { content?: unknown }).content);
    expect(contents).toEqual([[], [], [], "", null]);
    expect((entries[0] as { message: { content: unknown } }).message.content).toBeNull();
  });

  it("custom_message: content ?? [], details kept, ISO timestamp to ms (NaN when invalid)", () => {
    const entry = {
      type: "custom_message",
      id: "1",
      parentId: null,
      timestamp: "not a date",
      customType: "t",
      display: true,
      details: { a: 1 },
    } as unknown as AnyEntry;
    const [m] = sessionEntryToContextMessages(entry);
    expect(m).toEqual({
      role: "custom",
      customType: "t",
      content: [],
      display: true,
      details: { a: 1 },
      timestamp: NaN,
    });
  });

  it("compaction with systemMessage yields [system, summary]", () => {
    const system = { role: "system" as const, content: "prompt", timestamp: 5 };
    const entry = compaction("c", null, "S", undefined, { systemMessage: system });
    expect(sessionEntryToContextMessages(entry)).toEqual([
      system,
      { role: "compactionSummary", summary: "S", tokensBefore: 1000, timestamp: Date.parse(TS) },
    ]);
  });

  it("entries without context contribute nothing", () => {
    for (const type of [
      "custom",
      "label",
      "session_info",
      "model_change",
      "thinking_level_change",
      "usage",
      "context_edit",
      "x-future",
    ]) {
      expect(
        sessionEntryToContextMessages({ type, id: "1", parentId: null, timestamp: TS } as AnyEntry),
      ).toEqual([]);
    }
  });
});
