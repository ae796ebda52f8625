/**
 * One logical conversation rendered as a v1, a v2 and a v3 file, for migration properties:
 * the same messages and bookkeeping in each version's spelling.
 */
import fc from "fast-check";
import type { AnyEntry, SessionHeader, StoredMessage, V1Entry } from "@pi-session/format";
import {
  arbAssistantMessage,
  arbBashExecutionMessage,
  arbCustomMessage,
  arbHeader,
  arbModelRef,
  arbSmallNat,
  arbText,
  arbThinkingLevel,
  arbToolResultMessage,
  arbUserMessage,
} from "../arbitraries.js";
import { type GeneratedSession, idFor } from "./generated.js";
import { arbSalt, isoAfter } from "./placing.js";

type Obj = Record<string, unknown>;

export type LogicalItem =
  | { kind: "message"; timestamp: string; message: StoredMessage }
  | { kind: "model_change"; timestamp: string; provider: string; modelId: string }
  | { kind: "thinking_level_change"; timestamp: string; thinkingLevel: string }
  | {
      kind: "compaction";
      timestamp: string;
      summary: string;
      tokensBefore: number;
      /** Index into `items` of the first kept item: always an earlier `message` item. */
      firstKeptIndex: number;
    };

/** A linear conversation independent of file version; render with `renderAsV1/2/3`. */
export interface LogicalConversation {
  sessionId: string;
  timestamp: string;
  cwd: string;
  /** Salt for the v2/v3 entry ids (v2 and v3 renderings share ids). */
  idSalt: number;
  items: LogicalItem[];
}

/**
 * A linear conversation of messages (user, assistant, toolResult, bashExecution, custom),
 * model and thinking changes, and compactions keeping an earlier message at or after the
 * previous compaction's kept message (as pi cuts).
 */
export function arbLogicalConversation(opts: { maxItems?: number } = {}): fc.Arbitrary<LogicalConversation> {
  const message = fc.oneof(
    { arbitrary: arbUserMessage as fc.Arbitrary<StoredMessage>, weight: 4 },
    { arbitrary: arbAssistantMessage as fc.Arbitrary<StoredMessage>, weight: 4 },
    { arbitrary: arbToolResultMessage as fc.Arbitrary<StoredMessage>, weight: 2 },
    { arbitrary: arbBashExecutionMessage as fc.Arbitrary<StoredMessage>, weight: 1 },
    { arbitrary: arbCustomMessage as fc.Arbitrary<StoredMessage>, weight: 1 },
  );
  const seed = fc.oneof(
    { arbitrary: message.map((m) => ({ k: "message" as const, m })), weight: 12 },
    { arbitrary: arbModelRef.map((r) => ({ k: "model_change" as const, r })), weight: 1 },
    { arbitrary: arbThinkingLevel.map((t) => ({ k: "thinking_level_change" as const, t })), weight: 1 },
    {
      arbitrary: fc.tuple(arbText, arbSmallNat, fc.nat()).map(([s, tokens, a]) => ({
        k: "compaction" as const,
        s,
        tokens,
        a,
      })),
      weight: 2,
    },
  );
  return fc
    .record(
      {
        header: arbHeader(3),
        idSalt: arbSalt,
        seeds: fc.array(seed, { maxLength: opts.maxItems ?? 30, size: "max" }),
      },
      { noNullPrototype: true },
    )
    .map(({ header, idSalt, seeds }) => {
      const items: LogicalItem[] = [];
      let lastKept = 0;
      for (const s of seeds) {
        const timestamp = isoAfter(header.timestamp, items.length);
        if (s.k === "message") items.push({ kind: "message", timestamp, message: s.m });
        else if (s.k === "model_change")
          items.push({ kind: "model_change", timestamp, provider: s.r.provider, modelId: s.r.model });
        else if (s.k === "thinking_level_change")
          items.push({ kind: "thinking_level_change", timestamp, thinkingLevel: s.t });
        else {
          const candidates: number[] = [];
          for (let j = lastKept; j < items.length; j++) if (items[j]!.kind === "message") candidates.push(j);
          if (candidates.length === 0) continue; // nothing to keep yet: pi would not compact
          const firstKeptIndex = candidates[s.a % candidates.length]!;
          lastKept = firstKeptIndex;
          items.push({ kind: "compaction", timestamp, summary: s.s, tokensBefore: s.tokens, firstKeptIndex });
        }
      }
      return { sessionId: header.id, timestamp: header.timestamp, cwd: header.cwd ?? "/", idSalt, items };
    });
}

function itemPayload(item: LogicalItem, legacyRoles: boolean): Obj {
  switch (item.kind) {
    case "message": {
      const m = item.message as Obj;
      return { message: legacyRoles && m.role === "custom" ? { ...m, role: "hookMessage" } : m };
    }
    case "model_change":
      return { provider: item.provider, modelId: item.modelId };
    case "thinking_level_change":
      return { thinkingLevel: item.thinkingLevel };
    case "compaction":
      return { summary: item.summary };
  }
}

function renderTree(conv: LogicalConversation, version: 2 | 3): GeneratedSession {
  const ids = conv.items.map((_, i) => idFor(i, conv.idSalt));
  const header = {
    type: "session",
    version,
    id: conv.sessionId,
    timestamp: conv.timestamp,
    cwd: conv.cwd,
  } as SessionHeader;
  const entries = conv.items.map((item, i) => {
    const e: Obj = {
      type: item.kind,
      id: ids[i],
      parentId: i === 0 ? null : ids[i - 1],
      timestamp: item.timestamp,
      ...itemPayload(item, version === 2),
    };
    if (item.kind === "compaction") {
      e.firstKeptEntryId = ids[item.firstKeptIndex];
      e.tokensBefore = item.tokensBefore;
    }
    return e as AnyEntry;
  });
  const out: GeneratedSession = { version, header, entries };
  const last = entries[entries.length - 1];
  if (last !== undefined) out.leafId = last.id;
  return out;
}

/** The conversation as a v1 file: no ids, `hookMessage` roles, header-inclusive `firstKeptEntryIndex`. */
export function renderAsV1(conv: LogicalConversation): GeneratedSession<V1Entry> {
  const header = {
    type: "session",
    id: conv.sessionId,
    timestamp: conv.timestamp,
    cwd: conv.cwd,
  } as SessionHeader;
  const entries = conv.items.map((item) => {
    const e: Obj = { type: item.kind, timestamp: item.timestamp, ...itemPayload(item, true) };
    if (item.kind === "compaction") {
      e.firstKeptEntryIndex = item.firstKeptIndex + 1; // the header is index 0
      e.tokensBefore = item.tokensBefore;
    }
    return e as V1Entry;
  });
  return { version: 1, header, entries };
}

/** The conversation as a v2 file: linear ids, `firstKeptEntryId`, `hookMessage` roles. */
export function renderAsV2(conv: LogicalConversation): GeneratedSession {
  return renderTree(conv, 2);
}

/** The conversation as a v3 file: same ids as v2, `custom` roles. */
export function renderAsV3(conv: LogicalConversation): GeneratedSession {
  return renderTree(conv, 3);
}
