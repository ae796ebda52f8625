/**
 * Documents: one view of a session (a branch, every branch, or the context at a leaf) as a
 * {@link RenderDocument}, with its title and facts. Use {@link buildDocument} for a whole view,
 * {@link treeItem} for the item of one entry as the tree-aware views show it.
 */
import { buildSessionProjection, convertToLlm } from "@pi-session/context";
import type { AnyEntry, SessionHeader } from "@pi-session/format";
import { isObject } from "@pi-session/format";
import type { RenderSession } from "../source.js";
import { layoutTree, siblingsOf, type TreeLayout } from "../tree-layout.js";
import { displayJson, stringOrEmpty } from "../values.js";
import { entryItem } from "./entry-item.js";
import { messageItem } from "./message-item.js";
import {
  DOCUMENT_FORMAT,
  DOCUMENT_VERSION,
  type DocumentItem,
  type DocumentSession,
  type DocumentView,
  type ItemOrigin,
  type RenderDocument,
  type ViewKind,
} from "./shapes.js";
import { type ToolCallLookup, collectToolCalls } from "./tool-calls.js";

type Obj = Record<string, unknown>;

export interface DocumentOptions {
  /** Which view (default `branch`). */
  view?: ViewKind;
  /**
   * The leaf of the branch (`branch`, `context`); default the session's leaf. An unknown id
   * falls back to the last entry, as pi does; `null` is an empty branch.
   */
  leafId?: string | null;
  /**
   * With the `context` view: the messages as a provider is sent them (`convertToLlm`:
   * summaries, bash runs and custom messages become user text; items then have no entry ids).
   */
  llm?: boolean;
}

/**
 * What to call a session: its name, else its first user message (as pi's session list shows
 * it: the first in file order, text blocks joined by spaces, on one line), else its id.
 */
export function sessionTitle(session: RenderSession): string {
  return titleOf(session.index.sessionName, session.header, session.index.entries);
}

/**
 * {@link sessionTitle} from its parts: `entries` in file order, read only up to the first user
 * message with text (a caller that streams a session gives them lazily).
 */
export function titleOf(
  name: string | undefined,
  header: SessionHeader | undefined,
  entries: Iterable<AnyEntry>,
): string {
  if (name !== undefined) return name;
  for (const entry of entries) {
    if (entry.type !== "message") continue;
    const message = (entry as Obj).message;
    if (!isObject(message) || message.role !== "user") continue;
    const content = message.content;
    const text =
      typeof content === "string"
        ? content
        : Array.isArray(content)
          ? content
              .filter((b): b is Obj => isObject(b) && b.type === "text" && typeof b.text === "string")
              .map((b) => b.text as string)
              .join(" ")
          : "";
    const flat = text.slice(0, 400).replace(/\s+/g, " ").trim();
    if (flat !== "") return flat.length > 80 ? `${flat.slice(0, 79)}…` : flat;
  }
  const id = stringOrEmpty((header as Obj | undefined)?.id);
  return id ? `pi session ${id.slice(0, 8)}` : "pi session";
}

/** What a document says of its session, from the parts an index (or a streamed read) has. */
export interface DocumentSessionParts {
  header: SessionHeader | undefined;
  formatVersion: number;
  title: string;
  /** The session's leaf (not the view's). */
  leafId: string | null;
  entryCount: number;
  labels: ReadonlyMap<string, string>;
  name: string | undefined;
}

/** The `session` of a document. */
export function documentSessionOf(parts: DocumentSessionParts): DocumentSession {
  const header = parts.header as (SessionHeader & Obj) | undefined;
  const out: DocumentSession = {
    id: stringOrEmpty(header?.id),
    title: parts.title,
    formatVersion: parts.formatVersion,
    leafId: parts.leafId,
    entryCount: parts.entryCount,
    labels: Object.fromEntries(parts.labels),
  };
  if (parts.name !== undefined) out.name = parts.name;
  if (typeof header?.cwd === "string") out.cwd = header.cwd;
  if (typeof header?.timestamp === "string") out.createdAt = header.timestamp;
  const parent = stringOrEmpty(header?.parentSession) || stringOrEmpty(header?.branchedFrom);
  if (parent) out.parentSession = parent;
  return out;
}

function documentSession(session: RenderSession): DocumentSession {
  const { index } = session;
  return documentSessionOf({
    header: session.header,
    formatVersion: session.formatVersion,
    title: sessionTitle(session),
    leafId: index.leafId,
    entryCount: session.entries.length,
    labels: index.labels,
    name: index.sessionName,
  });
}

/**
 * Builds one view of a session: the items of a branch (root to leaf), of every branch
 * (depth first), or of the context at a leaf.
 */
export function buildDocument(session: RenderSession, options: DocumentOptions = {}): RenderDocument {
  const view = options.view ?? "branch";
  const { index } = session;
  const toolCalls = collectToolCalls(session.entries);
  const layout = layoutTree(index);
  const leafId = options.leafId === undefined ? index.leafId : options.leafId;
  const doc = (v: DocumentView, items: DocumentItem[]): RenderDocument => ({
    format: DOCUMENT_FORMAT,
    version: DOCUMENT_VERSION,
    session: documentSession(session),
    view: v,
    items,
  });
  const labelled = (entry: AnyEntry) => {
    const id = (entry as Obj).id;
    return typeof id === "string" ? index.getLabel(id) : undefined;
  };
  if (view === "all-branches") {
    const items: DocumentItem[] = [];
    for (const at of layout.order) items.push(treeItem(session, layout, at, toolCalls));
    // Entries without an id are not in the tree; they are still shown, after it.
    for (const entry of session.entries) {
      if (typeof (entry as Obj).id === "string") continue;
      const item = entryItem(entry, { toolCalls });
      item.blocks.push({ type: "note", text: "not in the tree: this entry has no id" });
      items.push(item);
    }
    return doc({ kind: "all-branches" }, items);
  }
  if (view === "context") {
    const projection = buildSessionProjection(index.entries, leafId, index);
    const items: DocumentItem[] = [];
    if (options.llm === true) {
      for (const message of convertToLlm(projection.messages)) {
        const item = messageItem(message, { entryType: "message" }, { toolCalls });
        item.contextMessage = true;
        items.push(item);
      }
    } else {
      for (const { sourceEntry, messages } of projection.entries) {
        const e = sourceEntry as Obj;
        const origin: ItemOrigin = { entryType: stringOrEmpty(e.type) };
        if (typeof e.id === "string") origin.id = e.id;
        const label = labelled(sourceEntry);
        if (label !== undefined) origin.label = label;
        for (const message of messages) {
          const item = messageItem(message, origin, { toolCalls });
          item.contextMessage = true;
          items.push(item);
        }
      }
    }
    const path = index.activePath(leafId);
    return doc(
      {
        kind: "context",
        leafId: path.length > 0 ? ((path[path.length - 1] as AnyEntry).id ?? null) : null,
        model: projection.model,
        // As the file has it: a thinking_level_change may carry no level, or not a string.
        thinkingLevel:
          typeof projection.thinkingLevel === "string"
            ? projection.thinkingLevel
            : displayJson(projection.thinkingLevel),
        messageCount: items.length,
        ...(options.llm === true ? { llm: true } : {}),
      },
      items,
    );
  }
  const path = index.activePath(leafId);
  const items: DocumentItem[] = [];
  for (const entry of path) {
    const at = layout.positionOf(entry);
    items.push(
      at === undefined
        ? entryItem(entry, { toolCalls, label: labelled(entry) })
        : treeItem(session, layout, at, toolCalls),
    );
  }
  const last = path[path.length - 1];
  return doc({ kind: "branch", leafId: last?.id ?? null }, items);
}

/**
 * The item of the entry at file position `at`, as every tree-aware view shows it: its label,
 * its branch mark (when its parent has other children) and its depth in the tree.
 */
export function treeItem(
  session: RenderSession,
  layout: TreeLayout,
  at: number,
  toolCalls: ToolCallLookup,
): DocumentItem {
  const entry = session.index.entries[at] as AnyEntry;
  const siblings = siblingsOf(layout, at);
  const parent = layout.parent[at] as number;
  return placedItem(entry, {
    toolCalls,
    label: session.index.getLabel(entry.id),
    siblings: siblings.length,
    siblingIndex: layout.siblingIndex[at] as number,
    parentId: parent === -1 ? null : ((session.index.entries[parent] as AnyEntry).id ?? null),
    depth: layout.depth[at] as number,
  });
}

/** Where an entry sits in the tree, as a tree-aware view shows it. */
export interface TreePlace {
  /** Its parent's children (the roots, for a root), itself included, and its position among them from 0. */
  siblings: number;
  siblingIndex: number;
  /** Its parent's id in the display tree (null for a root). */
  parentId: string | null;
  depth: number;
}

/**
 * The item of an entry at a place in the tree: its label, its branch mark (when its parent has
 * other children) and its depth ({@link treeItem} from a layout; a streamed branch from its own
 * count of the siblings).
 */
export function placedItem(
  entry: AnyEntry,
  place: TreePlace & { toolCalls: ToolCallLookup; label: string | undefined },
): DocumentItem {
  const item = entryItem(entry, { toolCalls: place.toolCalls, label: place.label });
  if (place.siblings >= 2)
    item.branch = { index: place.siblingIndex + 1, count: place.siblings, parentId: place.parentId };
  item.depth = place.depth;
  return item;
}
