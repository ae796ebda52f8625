/**
 * Cross-package properties: the context does not depend on the version a session was written
 * in. One logical conversation written as v1, v2 and v3 (testkit renderers) rebuilds, after
 * @pi-session/migrate, the context the conversation itself implies; and the two real upstream
 * v1 fixtures rebuild the expected context after migration.
 */
import { readFileSync } from "node:fs";
import type { AgentMessage, AnyEntry, SessionEntry } from "@pi-session/format";
import { migrateEntries } from "@pi-session/migrate";
import {
  arbLogicalConversation,
  fcOptions,
  type LogicalConversation,
  renderAsV1,
  renderAsV2,
  renderAsV3,
  upstreamFixture,
} from "@pi-session/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildSessionContext, type SessionContext } from "./index.js";

/** Migrates header + entries and returns the entries (header dropped). */
function migrated(session: { header: object; entries: readonly object[] }): AnyEntry[] {
  const { entries } = migrateEntries([session.header, ...session.entries] as Record<string, unknown>[]);
  return entries.filter((e) => e.type !== "session") as unknown as AnyEntry[];
}

/** The context a linear conversation implies, computed from the conversation itself. */
function expectedContext(conv: LogicalConversation): SessionContext {
  let thinkingLevel = "off";
  let model: SessionContext["model"] = null;
  let lastCompaction = -1;
  conv.items.forEach((item, i) => {
    if (item.kind === "thinking_level_change") thinkingLevel = item.thinkingLevel;
    if (item.kind === "model_change") model = { provider: item.provider, modelId: item.modelId };
    if (item.kind === "message" && item.message.role === "assistant") {
      const m = item.message as { provider: string; model: string };
      model = { provider: m.provider, modelId: m.model };
    }
    if (item.kind === "compaction") lastCompaction = i;
  });
  const messageOf = (i: number): AgentMessage[] => {
    const item = conv.items[i]!;
    return item.kind === "message" ? [item.message as AgentMessage] : [];
  };
  const messages: AgentMessage[] = [];
  if (lastCompaction === -1) {
    for (let i = 0; i < conv.items.length; i++) messages.push(...messageOf(i));
  } else {
    const c = conv.items[lastCompaction]!;
    if (c.kind !== "compaction") throw new Error("unreachable");
    messages.push({
      role: "compactionSummary",
      summary: c.summary,
      tokensBefore: c.tokensBefore,
      timestamp: Date.parse(c.timestamp),
    });
    for (let i = c.firstKeptIndex; i < lastCompaction; i++) {
      if ((conv.items[i] as { message?: { role?: string } }).message?.role !== "system")
        messages.push(...messageOf(i));
    }
    for (let i = lastCompaction + 1; i < conv.items.length; i++) messages.push(...messageOf(i));
  }
  return { messages, thinkingLevel, model };
}

describe("migration invariance", () => {
  it("one conversation written as v1, v2 and v3 rebuilds the same context after migration", () => {
    fc.assert(
      fc.property(arbLogicalConversation(), (conv) => {
        const expected = expectedContext(conv);
        const v3 = buildSessionContext(migrated(renderAsV3(conv)));
        const v2 = buildSessionContext(migrated(renderAsV2(conv)));
        const v1 = buildSessionContext(migrated(renderAsV1(conv)));
        expect(v3).toEqual(expected);
        expect(v2).toEqual(expected);
        expect(v1).toEqual(expected);
      }),
      fcOptions(),
    );
  });

  it("a v2 session and its migrated v3 form rebuild the same context, also from any leaf", () => {
    fc.assert(
      fc.property(arbLogicalConversation(), fc.nat(), (conv, pick) => {
        const v2 = renderAsV2(conv);
        const v3 = migrated(v2);
        const leaf = v3.length === 0 ? undefined : v3[pick % v3.length]!.id;
        // v2 keeps its ids; only hookMessage roles change.
        expect(v3.map((e) => e.id)).toEqual(v2.entries.map((e) => e.id));
        expect(buildSessionContext(v3, leaf)).toEqual(buildSessionContext(migrated(renderAsV3(conv)), leaf));
      }),
      fcOptions(),
    );
  });
});

function readFixtureEntries(name: "before-compaction" | "large-session"): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const line of readFileSync(upstreamFixture(name), "utf8").split("\n")) {
    if (line.trim() === "") continue;
    out.push(JSON.parse(line));
  }
  return out;
}

/** Last model and thinking level of a linear v1 file, read straight from its lines. */
function lastSettings(lines: Record<string, unknown>[]): Pick<SessionContext, "model" | "thinkingLevel"> {
  let thinkingLevel = "off";
  let model: SessionContext["model"] = null;
  for (const e of lines) {
    if (e.type === "thinking_level_change") thinkingLevel = e.thinkingLevel as string;
    if (e.type === "model_change") model = { provider: e.provider as string, modelId: e.modelId as string };
    const m = e.message as { role?: string; provider?: string; model?: string } | undefined;
    if (e.type === "message" && m?.role === "assistant") model = { provider: m.provider!, modelId: m.model! };
  }
  return { model, thinkingLevel };
}

describe("upstream fixtures", () => {
  it("before-compaction.jsonl: starts with the second compaction's summary, keeps from index 551", () => {
    const lines = readFixtureEntries("before-compaction");
    const entries = migrated({ header: lines[0]!, entries: lines.slice(1) }) as SessionEntry[];
    const ctx = buildSessionContext(entries);
    const compactions = lines.filter((e) => e.type === "compaction");
    expect(compactions).toHaveLength(2);
    const second = compactions[1]!;
    expect(ctx.messages[0]).toEqual({
      role: "compactionSummary",
      summary: second.summary,
      tokensBefore: second.tokensBefore,
      timestamp: Date.parse(second.timestamp as string),
    });
    // Kept: file lines 551 .. the compaction (header-inclusive indexes), then everything after.
    const secondIndex = lines.indexOf(second);
    const kept = lines.slice(551, secondIndex).concat(lines.slice(secondIndex + 1));
    const keptMessages = kept.filter((e) => e.type === "message").map((e) => e.message);
    expect(ctx.messages.slice(1)).toEqual(keptMessages);
    expect(ctx.messages.length).toBeGreaterThan(100);
    expect({ model: ctx.model, thinkingLevel: ctx.thinkingLevel }).toEqual(lastSettings(lines));
  });

  it("large-session.jsonl: every message, last model and thinking level", () => {
    const lines = readFixtureEntries("large-session");
    const entries = migrated({ header: lines[0]!, entries: lines.slice(1) });
    const ctx = buildSessionContext(entries);
    expect(ctx.messages).toEqual(lines.filter((e) => e.type === "message").map((e) => e.message));
    expect(ctx.messages.length).toBe(914);
    expect({ model: ctx.model, thinkingLevel: ctx.thinkingLevel }).toEqual(lastSettings(lines));
  });
});
