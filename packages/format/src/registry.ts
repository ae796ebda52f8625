/**
 * The registry of entry types and message roles: one row per v3 entry type and per message
 * role pi persists, saying what every other layer needs to know of it: how it takes part in
 * the context pi rebuilds, which value the session index keeps from it, whether pi's `/tree`
 * hides it by default, whether a reader follows it as conversation, where its usage is
 * credited, its words for search, and how one line names and previews it. The other lists of
 * entry types in the repository derive from these two tables: the schemas' union, the context
 * walk, the tree index, render's summaries, items and filters, the page's and the web app's
 * tree rows, search's documents and role filter, and the usage rows behind `stats`.
 *
 * Where each kind of answer must be handled, the consumers `switch` over the role (not the
 * type) with a `never` check: a new entry type takes an existing role and needs no change
 * there; a new role fails to compile wherever it is not handled. Adding an entry type is the
 * recipe in CONTRIBUTING.md: its interface in `types.ts`, its row here, its schema.
 *
 * Use {@link entryTypeInfo} and {@link messageRoleInfo} to look a value from a file up
 * (undefined for a type or role this package does not know), {@link contextView} where the
 * entry's own fields are read by its context role.
 */
import type { EntryOfType } from "./entry-type.js";
import { stringifyJson } from "./json-text.js";
import { isObject } from "./object.js";
import type { AnyEntry, MessageRole, SessionEntryType } from "./types.js";

/** An entry's fields as a file holds them: the types promise only the tag (see `types.ts`). */
type Fields = Readonly<Record<string, unknown>>;

/**
 * How an entry takes part in the context pi rebuilds (docs/format.md, "What each entry
 * contributes"): `message` contributes its message; `custom-message`, `branch-summary` and
 * `compaction` contribute a message made of their fields (those of `CustomMessageEntry`,
 * `BranchSummaryEntry` and `CompactionEntry`); `thinking-level` and `model` set what the last
 * one on the path names; `edit` changes another entry's contribution; `none`, nothing.
 */
export type ContextRole =
  | "message"
  | "custom-message"
  | "branch-summary"
  | "compaction"
  | "thinking-level"
  | "model"
  | "edit"
  | "none";

/**
 * A value the session index keeps from the entry, read at open: `label` sets the label of
 * the entry its `targetId` names (a `LabelEntry`'s fields), `name` the session's name (a
 * `SessionInfoEntry`'s); `none`, nothing.
 */
export type IndexRole = "label" | "name" | "none";

/**
 * Where the usage an entry carries in its `usage` field is credited (`stats`): `model` to its
 * `provider`/`model`, `summary` to `(<summary kind>)`; `none`: it carries none.
 */
export type UsageRole = "model" | "summary" | "none";

/** The colour family of its rows in trees and lists (the page's `kind-<tone>` classes). */
export type SummaryTone = "user" | "assistant" | "tool" | "summary" | "custom" | "meta";

/** How one line names an entry type and previews it (trees, lists, headings). */
export interface EntrySummarySpec {
  /** The word a one-line row starts with (`pi-session tree`): `branch summary`, `model`. */
  kind: string;
  /** What an item's heading calls it (the page, the web app): `thinking level`. */
  heading: string;
  /** Its item kind in render's document model (`branchSummaryEntry`); unique. */
  item: string;
  tone: SummaryTone;
  /** The raw text of its one-line preview (the renderer flattens, cuts and escapes it). */
  preview(entry: Fields): string;
}

/** What the other layers know of one entry type. */
export interface EntryTypeInfo {
  context: ContextRole;
  index: IndexRole;
  /** pi's `/tree` default filter hides it (settings and bookkeeping). */
  settings: boolean;
  /** Part of the conversation a reader follows; transcripts show the others as one line. */
  conversational: boolean;
  usage: UsageRole;
  /** `role`: a `message` entry is summarised by its message's role ({@link MESSAGE_ROLE_INFO}). */
  summary: EntrySummarySpec | "role";
  /** The words search indexes as its text (its body); none when absent. */
  text?(entry: Fields): string;
}

/** What the other layers know of one message role. */
export interface MessageRoleInfo {
  /** Its item kind in render's document model (a legacy role shows as its v3 name's). */
  item: string;
  /** What an item's heading calls it. */
  heading: string;
  /** The word a one-line row (`pi-session tree`) names it by. */
  kind: string;
  /** What a row of a page's tree calls it. */
  label: string;
  tone: SummaryTone;
  /** The role filter of search it answers to (`tool`: a tool result or a bash run). */
  search: "user" | "assistant" | "tool" | "none";
  /** Written only by v1/v2 files; migration renames it. */
  legacy: boolean;
}

const str = (value: unknown): string => (typeof value === "string" ? value : "");

/** The text blocks of a content value (a string, or an array of blocks), joined by spaces. */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const block of content) if (isObject(block) && block.type === "text") parts.push(str(block.text));
  return parts.join(" ");
}

/** The v3 entry types, in the order pi introduced them (`ENTRY_TYPES` is their names). */
export const ENTRY_TYPE_INFO = {
  message: {
    context: "message",
    index: "none",
    settings: false,
    conversational: true,
    usage: "none",
    summary: "role",
  },
  thinking_level_change: {
    context: "thinking-level",
    index: "none",
    settings: true,
    conversational: false,
    usage: "none",
    summary: {
      kind: "thinking",
      heading: "thinking level",
      item: "thinkingLevelChange",
      tone: "meta",
      preview: (e) => str(e.thinkingLevel),
    },
  },
  model_change: {
    context: "model",
    index: "none",
    settings: true,
    conversational: false,
    usage: "none",
    summary: {
      kind: "model",
      heading: "model",
      item: "modelChange",
      tone: "meta",
      preview: (e) => `${str(e.provider)}/${str(e.modelId)}`,
    },
  },
  compaction: {
    context: "compaction",
    index: "none",
    settings: false,
    conversational: true,
    usage: "summary",
    summary: {
      kind: "compaction",
      heading: "compaction",
      item: "compaction",
      tone: "summary",
      preview: (e) => str(e.summary),
    },
    text: (e) => str(e.summary),
  },
  branch_summary: {
    context: "branch-summary",
    index: "none",
    settings: false,
    conversational: true,
    usage: "summary",
    summary: {
      kind: "branch summary",
      heading: "branch summary",
      item: "branchSummaryEntry",
      tone: "summary",
      preview: (e) => str(e.summary),
    },
    text: (e) => str(e.summary),
  },
  custom: {
    context: "none",
    index: "none",
    settings: true,
    conversational: false,
    usage: "none",
    summary: {
      kind: "custom",
      heading: "extension data",
      item: "customEntry",
      tone: "meta",
      preview: (e) => str(e.customType),
    },
  },
  custom_message: {
    context: "custom-message",
    index: "none",
    settings: false,
    conversational: true,
    usage: "none",
    summary: {
      kind: "custom message",
      heading: "custom message",
      item: "customMessage",
      tone: "custom",
      preview: (e) => `[${str(e.customType)}] ${textOf(e.content)}`,
    },
    text: (e) => textOf(e.content),
  },
  label: {
    context: "none",
    index: "label",
    settings: true,
    conversational: false,
    usage: "none",
    summary: {
      kind: "label",
      heading: "label",
      item: "label",
      tone: "meta",
      preview: (e) =>
        `${str(e.targetId)} = ${e.label === undefined ? "(cleared)" : (stringifyJson(e.label) ?? "")}`,
    },
    text: (e) => str(e.label),
  },
  session_info: {
    context: "none",
    index: "name",
    settings: false,
    conversational: false,
    usage: "none",
    summary: {
      kind: "name",
      heading: "name",
      item: "sessionInfo",
      tone: "meta",
      preview: (e) => (typeof e.name === "string" ? JSON.stringify(e.name) : "(cleared)"),
    },
    text: (e) => str(e.name),
  },
  usage: {
    context: "none",
    index: "none",
    settings: false,
    conversational: false,
    usage: "model",
    summary: {
      kind: "usage",
      heading: "usage",
      item: "usage",
      tone: "meta",
      preview: (e) => `${str(e.kind)} ${str(e.provider)}/${str(e.model)}`,
    },
  },
  context_edit: {
    context: "edit",
    index: "none",
    settings: false,
    conversational: true,
    usage: "none",
    summary: {
      kind: "context edit",
      heading: "context edit",
      item: "contextEdit",
      tone: "meta",
      preview: (e) => `${str(e.targetId)}${e.replacement === null ? " (removed)" : ""}`,
    },
  },
} as const satisfies { readonly [T in SessionEntryType]: EntryTypeInfo };

/** The message roles pi persists (v3), then the legacy `hookMessage`. */
export const MESSAGE_ROLE_INFO = {
  user: {
    item: "user",
    heading: "user",
    kind: "user",
    label: "user",
    tone: "user",
    search: "user",
    legacy: false,
  },
  assistant: {
    item: "assistant",
    heading: "assistant",
    kind: "assistant",
    label: "assistant",
    tone: "assistant",
    search: "assistant",
    legacy: false,
  },
  toolResult: {
    item: "toolResult",
    heading: "tool result",
    kind: "toolResult",
    label: "tool",
    tone: "tool",
    search: "tool",
    legacy: false,
  },
  bashExecution: {
    item: "bashExecution",
    heading: "bash",
    kind: "bash",
    label: "bash",
    tone: "tool",
    search: "tool",
    legacy: false,
  },
  custom: {
    item: "custom",
    heading: "custom",
    kind: "custom",
    label: "custom",
    tone: "custom",
    search: "none",
    legacy: false,
  },
  branchSummary: {
    item: "branchSummary",
    heading: "branch summary",
    kind: "branchSummary",
    label: "branch summary",
    tone: "summary",
    search: "none",
    legacy: false,
  },
  compactionSummary: {
    item: "compactionSummary",
    heading: "compaction summary",
    kind: "compactionSummary",
    label: "compaction summary",
    tone: "summary",
    search: "none",
    legacy: false,
  },
  system: {
    item: "system",
    heading: "system",
    kind: "system",
    label: "system",
    tone: "meta",
    search: "none",
    legacy: false,
  },
  hookMessage: {
    item: "custom",
    heading: "custom",
    kind: "hookMessage",
    label: "custom",
    tone: "custom",
    search: "none",
    legacy: true,
  },
} as const satisfies { readonly [R in MessageRole]: MessageRoleInfo };

type EntryRows = typeof ENTRY_TYPE_INFO;

/** The eleven v3 entry types, in the order pi introduced them. */
export const ENTRY_TYPES = Object.keys(ENTRY_TYPE_INFO) as readonly SessionEntryType[];

/** The message roles a v3 file holds (without the legacy `hookMessage`). */
export const MESSAGE_ROLES = (Object.keys(MESSAGE_ROLE_INFO) as MessageRole[]).filter(
  (role) => !MESSAGE_ROLE_INFO[role].legacy,
) as readonly Exclude<MessageRole, "hookMessage">[];

/** Whether `type` is one of the registry's entry types (else it is kept, never interpreted). */
export function isEntryType(type: unknown): type is SessionEntryType {
  return typeof type === "string" && Object.hasOwn(ENTRY_TYPE_INFO, type);
}

/** Whether `role` is one of the registry's message roles. */
export function isMessageRole(role: unknown): role is MessageRole {
  return typeof role === "string" && Object.hasOwn(MESSAGE_ROLE_INFO, role);
}

/** The row of a known entry type, or undefined (an unknown type). */
export function entryTypeInfo(type: unknown): EntryTypeInfo | undefined {
  return isEntryType(type) ? ENTRY_TYPE_INFO[type] : undefined;
}

/** The row of a known message role, or undefined. */
export function messageRoleInfo(role: unknown): MessageRoleInfo | undefined {
  return isMessageRole(role) ? MESSAGE_ROLE_INFO[role] : undefined;
}

/** The context role of an entry type (`none` for a type this package does not know). */
export function contextRoleOf(type: unknown): ContextRole {
  return entryTypeInfo(type)?.context ?? "none";
}

/** The index role of an entry type (`none` for a type this package does not know). */
export function indexRoleOf(type: unknown): IndexRole {
  return entryTypeInfo(type)?.index ?? "none";
}

/** The entry types whose row has `context: R`. */
export type EntryTypeWithContext<R extends ContextRole> = {
  [T in SessionEntryType]: EntryRows[T]["context"] extends R ? T : never;
}[SessionEntryType];

/** The entry types whose row has `usage: R`. */
export type EntryTypeWithUsage<R extends UsageRole> = {
  [T in SessionEntryType]: EntryRows[T]["usage"] extends R ? T : never;
}[SessionEntryType];

/** An entry and its context role, the entry typed by the role (`none` for unknown types too). */
export type ContextView =
  | { [R in Exclude<ContextRole, "none">]: { role: R; entry: EntryOfType<EntryTypeWithContext<R>> } }[Exclude<
      ContextRole,
      "none"
    >]
  | { role: "none"; entry: AnyEntry };

/**
 * The entry with its context role, to `switch` on: each case sees the entry as the types of
 * that role (by its tag, as `isEntryOfType` does; the fields are what the file holds).
 */
export function contextView(entry: AnyEntry): ContextView {
  // The row of the entry's own type names the role, so the entry is one of that role's types.
  return { role: contextRoleOf(entry.type), entry } as ContextView;
}

/** The item kinds render's document model gives entries and messages (`ItemKind` but the unknowns). */
export type EntryItemKind = Exclude<EntryRows[SessionEntryType]["summary"], "role">["item"];
export type RoleItemKind = (typeof MESSAGE_ROLE_INFO)[MessageRole]["item"];
