/**
 * The test vectors 1–24 and 45 of docs/format.md "Test vectors", one named test per vector,
 * plus the 1.6.0 details of its "Context rules" (system messages, older compactions).
 */
import type { AnyEntry, SystemMessage } from "@pi-session/format";
import { describe, expect, it } from "vitest";
import {
  A,
  branchSummary,
  compaction,
  custom,
  customMessage,
  modelChange,
  msg,
  roles,
  TS_MS,
  textOf,
  thinking,
  U,
} from "../test/entries.js";
import {
  buildContextEntries,
  buildSessionContext,
  buildSessionPath,
  buildSessionProjection,
  getLatestCompactionEntry,
} from "./index.js";

describe("7.1 trivial cases", () => {
  it("7.1 #1 empty session, no leaf", () => {
    expect(buildSessionContext([])).toEqual({ messages: [], thinkingLevel: "off", model: null });
  });

  it("7.1 #2 one user message", () => {
    const ctx = buildSessionContext([msg("1", null, U("hello"))]);
    expect(roles(ctx.messages)).toEqual(["user"]);
    expect(textOf(ctx.messages[0]!)).toBe("hello");
  });

  it("7.1 #3 alternating chain", () => {
    const entries = [
      msg("1", null, U("a")),
      msg("2", "1", A("b")),
      msg("3", "2", U("c")),
      msg("4", "3", A("d")),
    ];
    expect(roles(buildSessionContext(entries).messages)).toEqual(["user", "assistant", "user", "assistant"]);
  });
});

describe("7.2 model and thinking level", () => {
  it("7.2 #4 thinking_level_change sets the level and contributes no message", () => {
    const ctx = buildSessionContext([
      msg("1", null, U("a")),
      thinking("2", "1", "high"),
      msg("3", "2", A("b")),
    ]);
    expect(ctx.thinkingLevel).toBe("high");
    expect(ctx.messages).toHaveLength(2);
  });

  it("7.2 #5 the assistant message sets the model", () => {
    const ctx = buildSessionContext([msg("1", null, U("a")), msg("2", "1", A("b"))]);
    expect(ctx.model).toEqual({ provider: "anthropic", modelId: "claude-test" });
  });

  it("7.2 #6 an assistant reply overrides an earlier model_change", () => {
    const ctx = buildSessionContext([
      msg("1", null, U("a")),
      modelChange("2", "1", "openai", "gpt-4"),
      msg("3", "2", A("b")),
    ]);
    expect(ctx.model).toEqual({ provider: "anthropic", modelId: "claude-test" });
  });

  it("7.2 #7 model from the assistant, thinking level from the later change", () => {
    const ctx = buildSessionContext([
      msg("1", null, U("a")),
      modelChange("2", "1", "openai", "gpt-4"),
      msg("3", "2", A("b")),
      thinking("4", "3", "high"),
    ]);
    expect(ctx.model).toEqual({ provider: "anthropic", modelId: "claude-test" });
    expect(ctx.thinkingLevel).toBe("high");
  });

  it("7.2 #8 a failed assistant turn sets the model and stays in the context", () => {
    const ctx = buildSessionContext([
      msg("1", null, U("a")),
      msg("2", "1", A("boom", { provider: "X", model: "Y", stopReason: "error" })),
    ]);
    expect(ctx.model).toEqual({ provider: "X", modelId: "Y" });
    expect(roles(ctx.messages)).toEqual(["user", "assistant"]);
  });
});

describe("7.3 custom messages and custom entries", () => {
  it("7.3 #9 a hidden custom_message is in the context", () => {
    const entries = [
      msg("1", null, U("a")),
      customMessage("2", "1", "pi-inline-skill-snapshot", "hidden context", false),
      msg("3", "2", A("b")),
    ];
    const ctx = buildSessionContext(entries, "3");
    expect(ctx.messages).toHaveLength(3);
    expect(ctx.messages[1]).toEqual({
      role: "custom",
      customType: "pi-inline-skill-snapshot",
      content: "hidden context",
      display: false,
      details: undefined,
      timestamp: TS_MS,
    });
  });

  it("7.3 #10 a custom entry is a path node but contributes nothing", () => {
    const entries = [
      msg("1", null, U("a")),
      custom("2", "1", "my_data", { foo: "bar" }),
      msg("3", "2", A("b")),
    ];
    expect(entries).toHaveLength(3);
    expect(entries[1]!.parentId).toBe("1");
    expect(buildSessionPath(entries).map((e) => e.id)).toEqual(["1", "2", "3"]);
    expect(buildSessionContext(entries).messages).toHaveLength(2);
  });
});

describe("7.4 compaction", () => {
  it("7.4 #11 summary, kept range, then the rest", () => {
    const entries = [
      msg("1", null, U("first")),
      msg("2", "1", A("r1")),
      msg("3", "2", U("second")),
      msg("4", "3", A("r2")),
      compaction("5", "4", "Summary of first two turns", "3"),
      msg("6", "5", U("third")),
      msg("7", "6", A("r3")),
    ];
    const ctx = buildSessionContext(entries);
    expect(roles(ctx.messages)).toEqual(["compactionSummary", "user", "assistant", "user", "assistant"]);
    expect(ctx.messages.map(textOf)).toEqual(["Summary of first two turns", "second", "r2", "third", "r3"]);
    expect(ctx.messages[0]).toEqual({
      role: "compactionSummary",
      summary: "Summary of first two turns",
      tokensBefore: 1000,
      timestamp: TS_MS,
    });
  });

  it("7.4 #12 keep from the first entry", () => {
    const entries = [
      msg("1", null, U("u1")),
      msg("2", "1", A("a1")),
      compaction("3", "2", "S", "1"),
      msg("4", "3", U("u2")),
    ];
    expect(buildSessionContext(entries).messages.map(textOf)).toEqual(["S", "u1", "a1", "u2"]);
  });

  it("7.4 #13 second compaction wins", () => {
    const entries = [
      msg("1", null, U("u1")),
      msg("2", "1", A("a1")),
      compaction("3", "2", "First", "1"),
      msg("4", "3", U("u2")),
      msg("5", "4", A("a2")),
      compaction("6", "5", "Second", "4"),
      msg("7", "6", U("u3")),
    ];
    const ctx = buildSessionContext(entries);
    expect(ctx.messages).toHaveLength(4);
    expect(textOf(ctx.messages[0]!)).toContain("Second");
    expect(ctx.messages.map(textOf)).toEqual(["Second", "u2", "a2", "u3"]);
    expect(getLatestCompactionEntry(buildSessionPath(entries))?.id).toBe("6");
  });

  it("7.4 #14 two compactions on a longer path", () => {
    const entries = [
      msg("u1", null, U("u1")),
      msg("a1", "u1", A("a1")),
      compaction("C1", "a1", "First", "u1"),
      msg("u2", "C1", U("u2")),
      msg("b", "u2", A("b")),
      msg("u3", "b", U("u3")),
      msg("c", "u3", A("c")),
      compaction("C2", "c", "Second", "u3"),
      msg("u4", "C2", U("u4")),
      msg("d", "u4", A("d")),
    ];
    expect(buildSessionContext(entries).messages.map(textOf)).toEqual(["Second", "u3", "c", "u4", "d"]);
  });

  it("7.4 #15 firstKeptEntryId not on the path keeps nothing before the compaction", () => {
    const base = [msg("1", null, U("u1")), msg("2", "1", A("a1")), msg("x", "1", U("other branch"))];
    for (const kept of ["zzz", "x", undefined]) {
      const entries = [...base, compaction("3", "2", "S", kept), msg("4", "3", U("after"))];
      expect(buildSessionContext(entries, "4").messages.map(textOf)).toEqual(["S", "after"]);
    }
  });

  it("7.4 #16 retain-none compaction (firstKeptEntryId = own id)", () => {
    const entries = [
      msg("1", null, U("u1")),
      msg("2", "1", A("a1")),
      compaction("3", "2", "S", "3"),
      msg("4", "3", U("after")),
    ];
    expect(buildSessionContext(entries).messages.map(textOf)).toEqual(["S", "after"]);
    expect(buildContextEntries(entries).map((e) => e.id)).toEqual(["3", "4"]);
  });

  it("7.4 1.6.0: an older compaction inside the kept range is selected but contributes nothing", () => {
    const entries = [
      msg("1", null, U("u1")),
      compaction("2", "1", "First", "1"),
      msg("3", "2", U("u2")),
      compaction("4", "3", "Second", "1"),
      msg("5", "4", U("u3")),
    ];
    expect(buildContextEntries(entries).map((e) => e.id)).toEqual(["4", "1", "2", "3", "5"]);
    const projection = buildSessionProjection(entries);
    expect(projection.entries.map((p) => p.messages.length)).toEqual([1, 1, 0, 1, 1]);
    expect(projection.messages.map(textOf)).toEqual(["Second", "u1", "u2", "u3"]);
  });

  it("7.4 1.6.0: systemMessage checkpoint replaces system messages of the kept range", () => {
    const sys = (text: string): SystemMessage => ({ role: "system", content: text, timestamp: 1 });
    const entries = [
      msg("1", null, sys("old prompt")),
      msg("2", "1", U("u1")),
      msg("3", "2", sys("mid prompt")),
      msg("4", "3", A("a1")),
      compaction("5", "4", "S", "1", { systemMessage: sys("checkpoint prompt") }),
      msg("6", "5", sys("new prompt")),
      msg("7", "6", U("u2")),
    ];
    expect(buildContextEntries(entries).map((e) => e.id)).toEqual(["5", "2", "4", "6", "7"]);
    const ctx = buildSessionContext(entries);
    expect(roles(ctx.messages)).toEqual([
      "system",
      "compactionSummary",
      "user",
      "assistant",
      "system",
      "user",
    ]);
    expect(ctx.messages.map(textOf)).toEqual(["checkpoint prompt", "S", "u1", "a1", "new prompt", "u2"]);
  });

  it("7.4 settings come from the whole path, also before the compaction", () => {
    const entries = [
      thinking("t", null, "low"),
      modelChange("m", "t", "openai", "gpt-4"),
      msg("1", "m", U("u1")),
      compaction("2", "1", "S", "2"),
      msg("3", "2", U("u2")),
    ];
    const ctx = buildSessionContext(entries);
    expect(ctx.thinkingLevel).toBe("low");
    expect(ctx.model).toEqual({ provider: "openai", modelId: "gpt-4" });
  });
});

describe("7.5 branches and branch summaries", () => {
  const tree = [
    msg("1", null, U("start")),
    msg("2", "1", A("r1")),
    msg("3", "2", U("branch A")),
    msg("4", "2", U("branch B")),
  ];

  it("7.5 #17 each leaf sees its own branch", () => {
    const a = buildSessionContext(tree, "3").messages;
    const b = buildSessionContext(tree, "4").messages;
    expect(a).toHaveLength(3);
    expect(textOf(a[2]!)).toBe("branch A");
    expect(b).toHaveLength(3);
    expect(textOf(b[2]!)).toBe("branch B");
  });

  it("7.5 #18 a branch summary replaces the abandoned branch", () => {
    const entries = [
      msg("1", null, U("u")),
      msg("2", "1", A("a")),
      msg("3", "2", U("abandoned")),
      branchSummary("4", "2", "3", "Summary of abandoned work"),
      msg("5", "4", U("new direction")),
    ];
    const ctx = buildSessionContext(entries, "5");
    expect(roles(ctx.messages)).toEqual(["user", "assistant", "branchSummary", "user"]);
    expect(ctx.messages[2]).toEqual({
      role: "branchSummary",
      summary: "Summary of abandoned work",
      fromId: "3",
      timestamp: TS_MS,
    });
    expect(textOf(ctx.messages[3]!)).toBe("new direction");
  });

  it("7.5 #19 the complex build-context tree", () => {
    const entries = [
      msg("1", null, U("start")),
      msg("2", "1", A("r1")),
      msg("3", "2", U("q2")),
      msg("4", "3", A("r2")),
      compaction("5", "4", "Compacted history", "3"),
      msg("6", "5", U("q3")),
      msg("7", "6", A("r3")),
      msg("8", "3", U("wrong approach")),
      msg("9", "8", A("r-wrong")),
      branchSummary("10", "3", "9", "Tried wrong approach"),
      msg("11", "10", U("better approach")),
    ];
    expect(buildSessionContext(entries, "7").messages.map(textOf)).toEqual([
      "Compacted history",
      "q2",
      "r2",
      "q3",
      "r3",
    ]);
    const leaf11 = buildSessionContext(entries, "11").messages;
    expect(roles(leaf11)).toEqual(["user", "assistant", "user", "branchSummary", "user"]);
    expect(leaf11.map(textOf)).toEqual(["start", "r1", "q2", "Tried wrong approach", "better approach"]);
  });

  it("7.5 #20 an empty branch summary contributes nothing", () => {
    const entries = [msg("1", null, U("u")), branchSummary("2", "1", "x", ""), msg("3", "2", U("v"))];
    const projection = buildSessionProjection(entries);
    expect(projection.messages.map(textOf)).toEqual(["u", "v"]);
    expect(projection.entries.map((p) => p.sourceEntry.id)).toEqual(["1", "2", "3"]);
    expect(projection.entries[1]!.messages).toEqual([]);
  });

  it("7.5 #21 a root branch summary (fromId root) starts a second root", () => {
    const entries = [msg("1", null, U("u")), msg("2", "1", A("a")), branchSummary("3", null, "root", "S")];
    const ctx = buildSessionContext(entries);
    expect(ctx.messages).toEqual([{ role: "branchSummary", summary: "S", fromId: "root", timestamp: TS_MS }]);
  });
});

describe("7.6 leaf selection and orphans", () => {
  it("7.6 #22 an unknown leaf falls back to the last entry", () => {
    const entries = [msg("1", null, U("u")), msg("2", "1", A("a"))];
    expect(buildSessionContext(entries, "nonexistent").messages).toHaveLength(2);
    // pi tests the leaf for truthiness: an empty id also falls back.
    expect(buildSessionContext(entries, "").messages).toHaveLength(2);
  });

  it("7.6 #23 an orphan starts its own path", () => {
    const entries = [msg("1", null, U("u")), msg("2", "missing", A("a"))];
    const ctx = buildSessionContext(entries, "2");
    expect(roles(ctx.messages)).toEqual(["assistant"]);
  });

  it("7.6 #24 leafId null gives the empty context", () => {
    const entries = [
      modelChange("1", null, "openai", "gpt-4"),
      msg("2", "1", U("u")),
      thinking("3", "2", "high"),
    ];
    expect(buildSessionContext(entries, null)).toEqual({ messages: [], thinkingLevel: "off", model: null });
    expect(buildContextEntries(entries, null)).toEqual([]);
  });
});

describe("7.14 retainedTail checkpoint (our one extension beyond 1.6.0)", () => {
  it("7.14 #45 retainedTail: summary, retained messages, then what follows", () => {
    const entries: AnyEntry[] = [
      msg("old", null, U("old")),
      compaction("c", "old", "checkpoint", "old", { retainedTail: [U("retained"), A("answer")] }),
      modelChange("m", "c", "openai", "gpt-5"),
      thinking("t", "m", "high"),
      msg("tail", "t", U("tail")),
    ];
    const ctx = buildSessionContext(entries);
    expect(roles(ctx.messages)).toEqual(["compactionSummary", "user", "assistant", "user"]);
    expect(ctx.messages.map(textOf)).toEqual(["checkpoint", "retained", "answer", "tail"]);
    expect(ctx.model).toEqual({ provider: "openai", modelId: "gpt-5" });
    expect(ctx.thinkingLevel).toBe("high");
    // `old` is not included even though firstKeptEntryId points at it.
    expect(buildContextEntries(entries).map((e) => e.id)).toEqual(["c", "m", "t", "tail"]);
  });

  it("7.14 an empty retainedTail is a retain-none checkpoint", () => {
    const entries: AnyEntry[] = [
      msg("1", null, U("u1")),
      compaction("c", "1", "S", "1", { retainedTail: [] }),
      msg("2", "c", U("u2")),
    ];
    expect(buildSessionContext(entries).messages.map(textOf)).toEqual(["S", "u2"]);
  });
});
