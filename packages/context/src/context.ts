/**
 * The context pi 1.6.0 rebuilds from a session: which entries are selected (compaction-aware),
 * what each contributes (with context edits applied), and the final message list.
 *
 * Three levels, as in pi:
 * - `buildContextEntries`: the selected entries (latest compaction, its kept range, the rest);
 * - `buildSessionProjection`: each selected entry with the messages it contributes, plus settings;
 * - `buildSessionContext`: just `{ messages, thinkingLevel, model }`.
 *
 * One deliberate extension: a compaction carrying a `retainedTail` array is a self-contained
 * checkpoint (as in pi's newer harness): its summary, then the retained messages, then what
 * follows it on the path; nothing before it is kept and `firstKeptEntryId` is ignored.
 */
import {
  type AgentMessage,
  type AnyEntry,
  type CompactionEntry,
  type ContextEditEntry,
  contextRoleOf,
  contextView,
  isEntryOfType,
} from "@pi-session/format";
import {
  createBranchSummaryMessage,
  createCompactionSummaryMessage,
  createCustomMessage,
} from "./messages.js";
import {
  arrayPathAccess,
  buildSessionPath,
  type EntryLookup,
  isMessageEntryWithRole,
  type PathAccess,
  type SessionModel,
  scanPathAccess,
} from "./path.js";

/** One selected entry and what it contributes to the model context. */
export interface ProjectedSessionEntry<E extends AnyEntry = AnyEntry> {
  /** The append-only entry that owns this contribution. */
  sourceEntry: E;
  /** Model-visible messages after context edits; empty for state-only entries and removals. */
  messages: AgentMessage[];
}

/** pi 1.6.0's `SessionProjection`. */
export interface SessionProjection<E extends AnyEntry = AnyEntry> {
  entries: ProjectedSessionEntry<E>[];
  messages: AgentMessage[];
  thinkingLevel: string;
  model: SessionModel | null;
}

/** pi 1.6.0's `SessionContext`: what the agent is started with. */
export interface SessionContext {
  messages: AgentMessage[];
  thinkingLevel: string;
  model: SessionModel | null;
}

const CONTENT_LIST_ROLES = new Set(["user", "assistant", "toolResult"]);
const EDITABLE_ROLES = new Set(["user", "assistant", "toolResult", "custom"]);

/**
 * Whether a value is an object, arrays included: where pi reads a stored message or a context
 * edit's replacement it reads any object (an array too), so the context does the same. For
 * a JSON object alone, format's `isObject`.
 */
function isNonNullObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

/**
 * Files are read without validation, so a stored message may lack `content`: pi repairs it to
 * `[]` for user/assistant/toolResult and `""` for system (a copy; the entry is not touched).
 */
function repairMessage(message: AgentMessage): AgentMessage {
  if ((message as { content?: unknown }).content != null) return message;
  if (message.role === "system") return { ...message, content: "" };
  if (CONTENT_LIST_ROLES.has(message.role)) return { ...message, content: [] } as AgentMessage;
  return message;
}

function hasRetainedTail(entry: CompactionEntry): entry is CompactionEntry & { retainedTail: unknown[] } {
  return Array.isArray(entry.retainedTail);
}

function retainedMessages(entry: CompactionEntry): AgentMessage[] {
  if (!hasRetainedTail(entry)) return [];
  const out: AgentMessage[] = [];
  for (const message of entry.retainedTail) {
    if (isNonNullObject(message)) out.push(repairMessage(message as AgentMessage));
  }
  return out;
}

// What an entry contributes by its context role (format's registry), without a compaction's
// retained tail (edits never reach the tail: retained messages are not entries, so no
// context_edit can address them).
function ownMessages(entry: AnyEntry): AgentMessage[] {
  const view = contextView(entry);
  switch (view.role) {
    case "message": {
      const message = view.entry.message;
      // pi would throw on a message entry without a message object; it contributes nothing here.
      if (!isNonNullObject(message)) return [];
      return [repairMessage(message)];
    }
    case "custom-message": {
      const { customType, content, display, details, timestamp } = view.entry;
      return [createCustomMessage(customType, content ?? [], display, details, timestamp)];
    }
    case "branch-summary": {
      const { summary, fromId, timestamp } = view.entry;
      // An empty summary contributes nothing. `fromId` may be absent in early files (pi passes it on).
      return summary ? [createBranchSummaryMessage(summary, fromId as string, timestamp)] : [];
    }
    case "compaction": {
      const { summary, tokensBefore, timestamp, systemMessage } = view.entry;
      const message = createCompactionSummaryMessage(summary, tokensBefore, timestamp);
      return systemMessage ? [systemMessage, message] : [message];
    }
    // Settings and edits act on the path, not as messages; unknown entry types contribute nothing.
    case "thinking-level":
    case "model":
    case "edit":
    case "none":
      return [];
    default:
      return view satisfies never;
  }
}

/**
 * The messages one entry contributes to the context, before context edits.
 * A compaction yields `[systemMessage?, compactionSummary, ...retainedTail]`.
 */
export function sessionEntryToContextMessages(entry: AnyEntry): AgentMessage[] {
  const own = ownMessages(entry);
  const view = contextView(entry);
  if (view.role !== "compaction") return own;
  const tail = retainedMessages(view.entry);
  return tail.length === 0 ? own : own.concat(tail);
}

/**
 * What an entry contributes after the winning context edit for it (if any): `null` replacement
 * removes the messages; otherwise only `content` of user/assistant/toolResult/custom messages is
 * replaced, a string becoming one text block for assistant and toolResult (user and custom accept
 * a string as is).
 */
export function projectContextEntry(entry: AnyEntry, edit?: ContextEditEntry): AgentMessage[] {
  const view = contextView(entry);
  const tail = view.role === "compaction" ? retainedMessages(view.entry) : [];
  let messages = ownMessages(entry);
  if (edit) {
    const replacement = edit.replacement as unknown;
    if (replacement === null) {
      messages = [];
    } else if (isNonNullObject(replacement)) {
      const content = replacement.content;
      messages = messages.map((message) => {
        if (!EDITABLE_ROLES.has(message.role)) return message;
        const normalised =
          (message.role === "assistant" || message.role === "toolResult") && typeof content === "string"
            ? [{ type: "text", text: content }]
            : content;
        return { ...message, content: normalised } as AgentMessage;
      });
    }
    // A replacement that is neither null nor an object is malformed (pi would throw); ignored.
  }
  return tail.length === 0 ? messages : messages.concat(tail);
}

/** The selected entries of an already-built path (see `buildContextEntries`). */
export function selectContextEntries<E extends AnyEntry>(path: readonly E[]): E[] {
  return selectContextAccess(arrayPathAccess(path));
}

/** {@link selectContextEntries} over a {@link PathAccess}: only the selected entries are read whole. */
export function selectContextAccess<E extends AnyEntry>(path: PathAccess<E>): E[] {
  let compactionIndex = -1;
  for (let i = path.length - 1; i >= 0; i--) {
    if (contextRoleOf(path.typeAt(i)) === "compaction") {
      compactionIndex = i;
      break;
    }
  }
  return compactionIndex < 0 ? allOf(path) : selectAfterCompaction(path, compactionIndex);
}

/** Every entry of the path, as a new array. */
function allOf<E extends AnyEntry>(path: PathAccess<E>): E[] {
  if (path.array !== undefined) return path.array.slice();
  const out: E[] = new Array(path.length);
  for (let i = 0; i < path.length; i++) out[i] = path.entryAt(i);
  return out;
}

/** The first position before `end` whose id is `id`, or -1. */
function firstKept<E extends AnyEntry>(path: PathAccess<E>, id: unknown, end: number): number {
  if (path.indexOfId !== undefined) return path.indexOfId(id, end);
  for (let i = 0; i < end; i++) if (path.idAt(i) === id) return i;
  return -1;
}

/** The selection when the latest compaction of `path` is at `compactionIndex`. */
function selectAfterCompaction<E extends AnyEntry>(path: PathAccess<E>, compactionIndex: number): E[] {
  // The caller found a compaction at this index.
  const compaction = path.entryAt(compactionIndex) as E & CompactionEntry;
  const selected: E[] = [compaction];
  if (!hasRetainedTail(compaction)) {
    // Keep from the first path entry whose id is firstKeptEntryId up to the compaction. Not
    // found (another branch, missing, or the compaction's own id) keeps nothing. System
    // messages are left out: the compaction's systemMessage replaces them.
    const first = firstKept(path, compaction.firstKeptEntryId, compactionIndex);
    for (let i = first < 0 ? compactionIndex : first; i < compactionIndex; i++) {
      const entry = path.entryAt(i);
      if (!isMessageEntryWithRole(entry, "system")) selected.push(entry);
    }
  }
  for (let i = compactionIndex + 1; i < path.length; i++) selected.push(path.entryAt(i));
  return selected;
}

/**
 * The entries that make up the context, in order: with no compaction on the path, the whole
 * path; otherwise the latest compaction, then the path entries from its `firstKeptEntryId`
 * (exclusive of the compaction and of `system` messages), then every entry after it.
 * Non-message entries inside the ranges are kept (for rendering); they contribute nothing.
 */
export function buildContextEntries<E extends AnyEntry>(
  entries: readonly E[],
  leafId?: string | null,
  byId?: EntryLookup<E>,
): E[] {
  return selectContextEntries(buildSessionPath(entries, leafId, byId));
}

/** Projects an already-built path (see `buildSessionProjection`). */
export function projectSessionPath<E extends AnyEntry>(path: readonly E[]): SessionProjection<E> {
  return projectPathAccess(arrayPathAccess(path));
}

/** {@link projectSessionPath} over a {@link PathAccess}. */
export function projectPathAccess<E extends AnyEntry>(path: PathAccess<E>): SessionProjection<E> {
  const projected: ProjectedSessionEntry<E>[] = [];
  const { messages, thinkingLevel, model } = collectContext(path, projected);
  return { entries: projected, messages, thinkingLevel, model };
}

/** The context (`buildSessionContext`) of a path given as a {@link PathAccess}. */
export function contextOfPathAccess<E extends AnyEntry>(path: PathAccess<E>): SessionContext {
  return collectContext(path, undefined);
}

/**
 * Settings, selection, edits and messages of a path in one pass over the selection; fills
 * `projected` when given (the projection), else builds only the message list (the context).
 */
function collectContext<E extends AnyEntry>(
  path: PathAccess<E>,
  projected: ProjectedSessionEntry<E>[] | undefined,
): SessionContext {
  const { thinkingLevel, model, lastCompaction, hasContextEdits } = scanPathAccess(path);
  // Read-only below, so the path itself serves when nothing is compacted.
  const selected: readonly E[] =
    lastCompaction < 0 ? (path.array ?? allOf(path)) : selectAfterCompaction(path, lastCompaction);

  // The last edit per target within the selected entries wins; edits are therefore relative
  // to the branch (and to the compaction window).
  let edits: Map<string, ContextEditEntry> | undefined;
  if (hasContextEdits) {
    edits = new Map();
    for (const entry of selected) {
      const view = contextView(entry);
      if (view.role === "edit") edits.set(view.entry.targetId, view.entry);
    }
  }

  const messages: AgentMessage[] = [];
  for (let i = 0; i < selected.length; i++) {
    const sourceEntry = selected[i] as E;
    const edit = edits?.get(sourceEntry.id);
    // An older compaction can sit inside the kept range; only the one at index 0 contributes.
    const silent = i > 0 && contextRoleOf(sourceEntry.type) === "compaction";
    if (projected !== undefined) {
      const contributed = silent ? [] : projectContextEntry(sourceEntry, edit);
      projected.push({ sourceEntry, messages: contributed });
      for (const message of contributed) messages.push(message);
    } else if (!silent) {
      // The common case, a message entry without an edit, needs no intermediate array.
      const message = isEntryOfType(sourceEntry, "message") ? sourceEntry.message : undefined;
      if (edit === undefined && isNonNullObject(message)) messages.push(repairMessage(message));
      else for (const m of projectContextEntry(sourceEntry, edit)) messages.push(m);
    }
  }
  return { messages, thinkingLevel, model };
}

/**
 * pi 1.6.0's provenance-preserving projection: each selected entry with the messages it
 * contributes, the concatenated messages, and thinking level and model over the whole path.
 */
export function buildSessionProjection<E extends AnyEntry>(
  entries: readonly E[],
  leafId?: string | null,
  byId?: EntryLookup<E>,
): SessionProjection<E> {
  return projectSessionPath(buildSessionPath(entries, leafId, byId));
}

/** The context pi 1.6.0 starts the agent with: `{ messages, thinkingLevel, model }`. */
export function buildSessionContext<E extends AnyEntry>(
  entries: readonly E[],
  leafId?: string | null,
  byId?: EntryLookup<E>,
): SessionContext {
  // Same result as the projection's messages and settings, without a record per entry.
  return collectContext(arrayPathAccess(buildSessionPath(entries, leafId, byId)), undefined);
}
