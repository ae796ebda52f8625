/**
 * The document model: every entry type and message role becomes an item (unknown ones
 * shown, not dropped), the three views select what they should, and documents are JSON.
 */
import { buildSessionContext } from "@pi-session/context";
import { ENTRY_TYPES, entryTypeInfo } from "@pi-session/format";
import { readUpstreamFixture } from "@pi-session/testkit";
import { describe, expect, it } from "vitest";
import { everyKindSession } from "../test/sessions.js";
import {
  type Block,
  buildDocument,
  createRenderSession,
  entryItem,
  type ItemKind,
  languageOfPath,
  messageItem,
  renderMarkdown,
  renderText,
  sessionFromBytes,
} from "./index.js";

function session() {
  return createRenderSession(everyKindSession());
}

const blockTypes = (blocks: Block[]) => blocks.map((b) => b.type);

describe("items", () => {
  const s = session();
  const doc = buildDocument(s, { view: "all-branches" });
  const byId = new Map(doc.items.map((item) => [item.id, item]));

  it("every v3 entry type has its own item kind", () => {
    const kinds = new Map<string, ItemKind>();
    for (const item of doc.items) kinds.set(item.entryType, item.kind);
    for (const type of ENTRY_TYPES) expect(kinds.has(type), type).toBe(true);
    expect(kinds.get("compaction")).toBe("compaction");
    expect(kinds.get("branch_summary")).toBe("branchSummaryEntry");
    expect(kinds.get("custom")).toBe("customEntry");
    expect(kinds.get("custom_message")).toBe("customMessage");
    expect(kinds.get("model_change")).toBe("modelChange");
    expect(kinds.get("thinking_level_change")).toBe("thinkingLevelChange");
    expect(kinds.get("label")).toBe("label");
    expect(kinds.get("session_info")).toBe("sessionInfo");
    expect(kinds.get("usage")).toBe("usage");
    expect(kinds.get("context_edit")).toBe("contextEdit");
    expect(kinds.get("future_thing")).toBe("unknownEntry");
  });

  it("every message role has its own item kind; hookMessage is custom, unknown roles show their JSON", () => {
    const roles = new Map<string, ItemKind>();
    for (const item of doc.items) if (item.role !== undefined) roles.set(item.role, item.kind);
    expect(Object.fromEntries(roles)).toEqual({
      user: "user",
      assistant: "assistant",
      toolResult: "toolResult",
      bashExecution: "bashExecution",
      custom: "custom",
      hookMessage: "custom",
      system: "system",
      branchSummary: "branchSummary",
      compactionSummary: "compactionSummary",
      critic: "unknownRole",
    });
    const critic = doc.items.find((item) => item.role === "critic");
    expect(critic?.blocks[0]).toMatchObject({ type: "code", language: "json" });
    expect(JSON.stringify(critic?.blocks)).toContain("looks fine");
  });

  it("an unknown entry type shows its fields, not nothing", () => {
    const item = doc.items.find((i) => i.entryType === "future_thing");
    expect(item?.title).toBe("future_thing");
    const code = item?.blocks[0];
    expect(code?.type === "code" && JSON.parse(code.text)).toEqual({ payload: { x: 1 } });
  });

  it("user text and images; assistant thinking, text, tool calls and unknown blocks", () => {
    const user = byId.get("e0000003");
    expect(blockTypes(user?.blocks ?? [])).toEqual(["text", "image"]);
    const assistant = byId.get("e0000004");
    expect(blockTypes(assistant?.blocks ?? [])).toEqual(["thinking", "text", "toolCall", "code"]);
    expect(assistant?.details).toEqual([
      { name: "model", value: "anthropic/claude-sonnet-4-5" },
      { name: "tokens", value: "1,200 in · 340 out · 800 cached" },
      { name: "cost", value: "$0.0089" },
    ]);
    expect(assistant?.label).toBe("plan");
    const read = assistant?.blocks[2];
    expect(read).toMatchObject({ type: "toolCall", name: "read", summary: "src/limit.ts" });
  });

  it("tool calls show their interesting argument; a result takes the language of its call", () => {
    const calls = byId.get("e0000006")?.blocks ?? [];
    expect(calls[0]).toMatchObject({ type: "toolCall", name: "edit", summary: "src/limit.ts" });
    // No result details in this session: the diff is computed from the arguments.
    expect(calls[0]?.type === "toolCall" && calls[0].diff).toEqual({
      numbers: "edit",
      lines: [
        { kind: "removed", line: 1, text: "n > LIMIT" },
        { kind: "added", line: 1, text: "n >= LIMIT" },
      ],
    });
    expect(calls[1]?.type === "toolCall" && calls[1].code).toEqual({
      language: "sh",
      text: "npm test -- limit",
    });
    const readResult = byId.get("e0000005");
    expect(readResult?.blocks[0]).toMatchObject({ type: "output", language: "ts", isError: false });
    expect(readResult?.callArgument).toBe("src/limit.ts");
    const failed = byId.get("e0000007");
    expect(failed?.isError).toBe(true);
    expect(failed?.blocks[0]).toMatchObject({ type: "output", language: "text", isError: true });
  });

  it("bookkeeping entries are marked, conversation entries are not", () => {
    const bookkeeping = doc.items.filter((item) => !item.conversational).map((item) => item.kind);
    expect(bookkeeping).toEqual(expect.arrayContaining(["modelChange", "thinkingLevelChange", "label"]));
    expect(bookkeeping).not.toContain("compaction");
    // Each entry type's item as format's registry says (an added type needs no change here).
    for (const item of doc.items) {
      const info = entryTypeInfo(item.entryType);
      if (info !== undefined && info.summary !== "role")
        expect(item.conversational, item.entryType).toBe(info.conversational);
    }
  });

  it("all-branches lists every entry once, depth first, with branch points marked", () => {
    expect(doc.items).toHaveLength(s.entries.length);
    expect(new Set(doc.items.map((i) => i.id)).size).toBe(s.entries.length);
    const marked = doc.items.filter((i) => i.branch).map((i) => [i.id, i.branch?.index, i.branch?.count]);
    expect(marked).toEqual([
      ["e0000005", 1, 3],
      ["e0000040", 2, 3],
      ["e0000042", 3, 3],
    ]);
    // Children follow their parent: the side branch comes right after the main line's subtree.
    const order = doc.items.map((i) => i.id);
    expect(order.indexOf("e0000040")).toBeGreaterThan(order.indexOf("e0000023"));
    expect(order.indexOf("e0000041")).toBe(order.indexOf("e0000040") + 1);
  });

  it("entries without an id are shown after the tree", () => {
    const { header, entries } = everyKindSession();
    const withStray = [...entries, { type: "message", message: { role: "user", content: "stray" } } as never];
    const d = buildDocument(createRenderSession({ header, entries: withStray }), { view: "all-branches" });
    const last = d.items.at(-1);
    expect(last?.kind).toBe("user");
    expect(last?.blocks.at(-1)).toEqual({ type: "note", text: "not in the tree: this entry has no id" });
  });

  it("garbage shapes give items, never exceptions", () => {
    const weird = [
      { type: "message", id: "a", parentId: null, timestamp: "x", message: "not an object" },
      {
        type: "message",
        id: "b",
        parentId: "a",
        timestamp: "x",
        message: { role: "assistant", content: "str" },
      },
      {
        type: "message",
        id: "c",
        parentId: "b",
        timestamp: "x",
        message: { role: "toolResult", content: 5 },
      },
      {
        type: "message",
        id: "d",
        parentId: "c",
        timestamp: "x",
        message: { role: "user", content: [1, null, { type: "x" }] },
      },
      { type: "compaction", id: "e", parentId: "d", timestamp: "x", summary: 7, details: "no" },
      { type: "context_edit", id: "f", parentId: "e", timestamp: "x", targetId: "d", replacement: "bad" },
      { type: "label", id: "g", parentId: "f" },
      { type: "", id: "h", parentId: "g" },
    ];
    for (const entry of weird) {
      const item = entryItem(entry as never);
      expect(item.title).toBeTypeOf("string");
      expect(JSON.parse(JSON.stringify(item))).toEqual(item);
    }
    expect(messageItem(null, { entryType: "message" }).kind).toBe("unknownRole");
  });
});

describe("views", () => {
  it("branch: root to leaf, the session's leaf by default, any leaf on request", () => {
    const s = session();
    const current = buildDocument(s);
    expect(current.view).toEqual({ kind: "branch", leafId: "e0000023" });
    expect(current.items.map((i) => i.id)).toEqual(s.index.activePath().map((e) => e.id));
    const side = buildDocument(s, { leafId: "e0000043" });
    expect(side.items.map((i) => i.id)).toEqual([
      "e0000001",
      "e0000002",
      "e0000003",
      "e0000004",
      "e0000040",
      "e0000041",
      "e0000043",
    ]);
    expect(buildDocument(s, { leafId: null }).items).toEqual([]);
  });

  it("context: the messages buildSessionContext returns, in order, with model and thinking level", () => {
    const s = session();
    const doc = buildDocument(s, { view: "context" });
    const context = buildSessionContext(s.entries, s.index.leafId, s.index);
    expect(doc.items).toHaveLength(context.messages.length);
    expect(doc.items.map((i) => i.role)).toEqual(context.messages.map((m) => m.role));
    expect(doc.items.every((i) => i.contextMessage === true)).toBe(true);
    expect(doc.view).toMatchObject({
      kind: "context",
      leafId: "e0000023",
      model: context.model,
      thinkingLevel: "high",
      messageCount: context.messages.length,
    });
    // The compaction comes first as its summary; the context edit replaced the user's text.
    expect(doc.items[0]?.kind).toBe("compactionSummary");
  });

  it("context: a thinking level that is no string (a hand-edited or damaged file) is shown as it is", () => {
    const lines = [
      { type: "session", version: 3, id: "s", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/p" },
      { type: "thinking_level_change", id: "a", parentId: null, timestamp: "2025-01-01T00:00:01.000Z" },
      {
        type: "thinking_level_change",
        id: "b",
        parentId: "a",
        timestamp: "2025-01-01T00:00:02.000Z",
        thinkingLevel: 3,
      },
    ];
    for (const [cut, shown] of [
      [2, "undefined"],
      [3, "3"],
    ] as const) {
      const bytes = new TextEncoder().encode(
        `${lines
          .slice(0, cut)
          .map((l) => JSON.stringify(l))
          .join("\n")}\n`,
      );
      const doc = buildDocument(sessionFromBytes(bytes), { view: "context" });
      expect(doc.view).toMatchObject({ kind: "context", thinkingLevel: shown });
      expect(renderMarkdown(doc)).toContain(`thinking level \`${shown}\``);
      expect(renderText(doc)).toContain(`thinking ${shown}`);
    }
  });

  it("context of pi's real compacted session: the compaction summary, the kept range, the rest", () => {
    const s = sessionFromBytes(readUpstreamFixture("before-compaction"));
    const doc = buildDocument(s, { view: "context" });
    const context = buildSessionContext(s.entries, s.index.leafId, s.index);
    expect(doc.items.length).toBe(context.messages.length);
    expect(doc.items[0]?.kind).toBe("compactionSummary");
    expect(s.formatVersion).toBe(1);
    expect(doc.session.formatVersion).toBe(1);
  });

  it("documents are plain JSON", () => {
    const s = session();
    for (const view of ["branch", "all-branches", "context"] as const) {
      const doc = buildDocument(s, { view });
      expect(JSON.parse(JSON.stringify(doc))).toEqual(doc);
      expect(doc.format).toBe("pi-session-document");
      expect(doc.session).toMatchObject({ id: "019a4c1e-0000-7000-8000-000000000001", name: "limit fix" });
      expect(doc.session.labels).toEqual({ e0000004: "plan", e0000041: "redis" });
    }
  });
});

describe("languageOfPath", () => {
  it("maps extensions and a few names", () => {
    expect(languageOfPath("src/a.ts")).toBe("ts");
    expect(languageOfPath("x/Dockerfile")).toBe("dockerfile");
    expect(languageOfPath("C:\\x\\y.PY")).toBe("python");
    expect(languageOfPath(".env")).toBe("text");
    expect(languageOfPath("README")).toBe("text");
  });
});
