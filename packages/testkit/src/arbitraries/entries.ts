/**
 * Entries of every type as drafts (no \`id\`/\`parentId\` yet: the session builders in
 * \`sessions.ts\` assign those and point references at real entries), and headers of each
 * format version.
 */
import fc from "fast-check";
import type { AgentMessage, MessageRole, SessionEntryType, SessionHeader } from "@pi-session/format";
import { arbTextContent, arbUsage } from "./content.js";
import {
  CUSTOM_TYPES,
  arbAssistantMessage,
  arbMessage,
  arbModelRef,
  arbSystemMessage,
  arbThinkingLevel,
  arbUserContent,
  arbUserMessage,
} from "./messages.js";
import { type Obj, rec } from "./records.js";
import {
  arbEntryId,
  arbIsoTimestamp,
  arbJsonValue,
  arbName,
  arbSessionId,
  arbSmallInt,
  arbText,
  arbWords,
  compact,
  sometimes,
  withExtraKeys,
} from "./values.js";

/**
 * An entry without `id`/`parentId`. Fields that point at other entries (`targetId`,
 * `firstKeptEntryId`, `fromId`) hold random 8-hex placeholders until a session builder
 * points them at real entries.
 */
export type EntryDraft = Obj & { type: string; timestamp: string };

/** Entry types this kit generates; `unknown` stands for a type no reader knows. */
export type DraftType = SessionEntryType | "unknown";

/** Builds `{type, timestamp, ...payload}` in pi's key order. */
function draft(type: string, payload: fc.Arbitrary<Obj>): fc.Arbitrary<EntryDraft> {
  return withExtraKeys(
    fc.tuple(arbIsoTimestamp, payload).map(([timestamp, p]) => ({ type, timestamp, ...compact(p) })),
  ) as fc.Arbitrary<EntryDraft>;
}

export const arbMessageEntry = (role?: MessageRole): fc.Arbitrary<EntryDraft> =>
  draft(
    "message",
    arbMessage(role).map((message) => ({ message })),
  );

export const arbThinkingLevelChangeEntry = draft(
  "thinking_level_change",
  arbThinkingLevel.map((thinkingLevel) => ({ thinkingLevel })),
);

export const arbModelChangeEntry = draft(
  "model_change",
  arbModelRef.map((m) => ({ provider: m.provider, modelId: m.model })),
);

export const arbCompactionEntry = draft(
  "compaction",
  rec(
    {
      summary: arbText,
      firstKeptEntryId: arbEntryId,
      tokensBefore: arbSmallInt,
      details: fc.oneof(
        rec({
          readFiles: fc.array(fc.constantFrom("a.ts", "b.ts", "README.md"), { maxLength: 2 }),
          modifiedFiles: fc.array(fc.constantFrom("a.ts", "c.ts"), { maxLength: 2 }),
        }),
        arbJsonValue,
      ),
      fromHook: fc.boolean(),
      usage: arbUsage,
      systemMessage: arbSystemMessage,
      retainedTail: fc.array(
        fc.oneof(
          arbUserMessage as fc.Arbitrary<AgentMessage>,
          arbAssistantMessage as fc.Arbitrary<AgentMessage>,
        ),
        { maxLength: 2 },
      ),
    },
    ["summary", "firstKeptEntryId", "tokensBefore"],
  ),
);

export const arbBranchSummaryEntry = draft(
  "branch_summary",
  rec(
    {
      fromId: fc.oneof(arbEntryId, fc.constant("root")),
      summary: fc.oneof({ arbitrary: arbText, weight: 5 }, { arbitrary: fc.constant(""), weight: 1 }),
      details: arbJsonValue,
      fromHook: fc.boolean(),
      usage: arbUsage,
    },
    ["fromId", "summary"],
  ),
);

export const arbCustomEntry = draft(
  "custom",
  rec({ customType: fc.constantFrom(...CUSTOM_TYPES), data: arbJsonValue }, ["customType"]),
);

export const arbCustomMessageEntry = draft(
  "custom_message",
  rec(
    {
      customType: fc.constantFrom(...CUSTOM_TYPES),
      content: arbUserContent,
      display: fc.boolean(),
      details: arbJsonValue,
    },
    ["customType", "content", "display"],
  ),
);

/** A label, sometimes without `label` (clears it) or with an empty one. */
export const arbLabelEntry = draft(
  "label",
  fc
    .tuple(arbEntryId, fc.oneof({ arbitrary: arbName, weight: 4 }, fc.constant(""), fc.constant(undefined)))
    .map(([targetId, label]) => ({ targetId, label })),
);

/** Session name: set, empty (clears in 1.x), blank, or absent. */
export const arbSessionInfoEntry = draft(
  "session_info",
  fc
    .oneof({ arbitrary: arbName, weight: 4 }, fc.constant(""), fc.constant("   "), fc.constant(undefined))
    .map((name) => ({ name })),
);

export const arbUsageEntry = draft(
  "usage",
  rec(
    {
      kind: fc.constantFrom("compaction", "branch_summary", "title", "x-unknown-kind"),
      model: arbModelRef,
      usage: arbUsage,
      note: arbWords,
    },
    ["kind", "model", "usage"],
  ).map(({ model, ...rest }) => ({
    kind: rest.kind,
    provider: model.provider,
    model: model.model,
    usage: rest.usage,
    note: rest.note,
  })),
);

/** Context edit: replacement `null` (remove), a string, or content blocks. */
export const arbContextEditEntry = draft(
  "context_edit",
  fc
    .tuple(
      arbEntryId,
      fc.oneof(
        fc.constant(null),
        arbText.map((content) => ({ content })),
        fc.array(arbTextContent, { minLength: 1, maxLength: 2 }).map((content) => ({ content })),
      ),
    )
    .map(([targetId, replacement]) => ({ targetId, replacement })),
);

/** An entry of a type no reader knows (e.g. `active_tools_change`, `leaf`, a future type). */
export const arbUnknownEntry = draft(
  "unknown",
  fc
    .tuple(fc.constantFrom("active_tools_change", "x_future_type", "leaf"), arbJsonValue)
    .map(([t, v]) =>
      t === "active_tools_change"
        ? { __type: t, activeToolNames: ["read", "bash"] }
        : t === "leaf"
          ? { __type: t, targetId: null }
          : { __type: t, payload: v },
    ),
).map(({ __type, ...rest }) => ({ ...rest, type: String(__type) }) as EntryDraft);

const ENTRY_ARBS: Record<DraftType, fc.Arbitrary<EntryDraft>> = {
  message: arbMessageEntry(),
  thinking_level_change: arbThinkingLevelChangeEntry,
  model_change: arbModelChangeEntry,
  compaction: arbCompactionEntry,
  branch_summary: arbBranchSummaryEntry,
  custom: arbCustomEntry,
  custom_message: arbCustomMessageEntry,
  label: arbLabelEntry,
  session_info: arbSessionInfoEntry,
  usage: arbUsageEntry,
  context_edit: arbContextEditEntry,
  unknown: arbUnknownEntry,
};

/** Every draft type, including `unknown`. */
export const DRAFT_TYPES = Object.keys(ENTRY_ARBS) as DraftType[];

/** Relative frequency of each type in generated sessions (messages dominate, as in real files). */
export const ENTRY_WEIGHTS: Record<DraftType, number> = {
  message: 30,
  thinking_level_change: 2,
  model_change: 2,
  compaction: 3,
  branch_summary: 2,
  custom: 2,
  custom_message: 2,
  label: 3,
  session_info: 2,
  usage: 1,
  context_edit: 2,
  unknown: 1,
};

/** An entry draft of the given type, or of any type with {@link ENTRY_WEIGHTS}. */
export function arbEntry(type?: DraftType): fc.Arbitrary<EntryDraft> {
  if (type !== undefined) return ENTRY_ARBS[type];
  return fc.oneof(...DRAFT_TYPES.map((t) => ({ arbitrary: ENTRY_ARBS[t], weight: ENTRY_WEIGHTS[t] })));
}

// ---------------------------------------------------------------------------------------
// Header

/**
 * A header of the given version. v1 has no `version`, sometimes no `cwd`, and sometimes
 * carries `provider`/`modelId`/`thinkingLevel` or `branchedFrom`; v2/v3 sometimes carry
 * `parentSession` (or the legacy `branchedFrom`).
 */
export function arbHeader(version: 1 | 2 | 3): fc.Arbitrary<SessionHeader> {
  return withExtraKeys(
    fc
      .record(
        {
          id: arbSessionId,
          timestamp: arbIsoTimestamp,
          cwd: fc.oneof(
            {
              arbitrary: fc.constantFrom("/home/user/project", "/Users/me/work/pi-mono", "C:\\src\\app"),
              weight: 9,
            },
            { arbitrary: fc.constant(undefined), weight: version === 1 ? 2 : 0 },
          ),
          parent: sometimes(fc.constantFrom("parentSession", "branchedFrom"), 4),
          model: sometimes(fc.tuple(arbModelRef, arbThinkingLevel), 3),
        },
        { noNullPrototype: true },
      )
      .map((r) => {
        const parentKey = version === 1 && r.parent !== undefined ? "branchedFrom" : r.parent;
        const header: Obj = { type: "session" };
        if (version !== 1) header.version = version;
        header.id = r.id;
        header.timestamp = r.timestamp;
        if (r.cwd !== undefined) header.cwd = r.cwd;
        if (version === 1 && r.model !== undefined) {
          header.provider = r.model[0].provider;
          header.modelId = r.model[0].model;
          header.thinkingLevel = r.model[1];
        }
        if (parentKey !== undefined) {
          header[parentKey] =
            "/home/user/.pi/agent/sessions/--home-user-project--/2025-01-01T00-00-00-000Z_x.jsonl";
        }
        return header as object as SessionHeader;
      }),
  );
}
