/**
 * What one side of a branch compare did after the common ancestor: its entries briefly, its
 * messages by role, tool calls by tool, the files it read, edited or wrote (the file touches
 * of `file-touches.ts`), its tokens and cost (the usage rows `stats` counts) and how it ended
 * (the last assistant message's stop reason). Pure; `pi-session diff` and the web app's
 * compare view show two of these side by side (the sides themselves come from tree's
 * `branchPair`).
 */
import { type EntryDocument, entryDocument } from "./entry.js";
import { FILE_ACTIONS, type FileAction, type TouchBase, fileTouches } from "./file-touches.js";
import { usageRow } from "./usage-rows.js";

type Obj = Record<string, unknown>;

/** One entry of a side, briefly. */
export interface SideEntry {
  id: string | null;
  type: string;
  role: string | null;
  timestamp: string | null;
  /** Its text on one line, cut (a message's text, a call's tool names, a summary, ...). */
  text: string;
}

/** What a side did. */
export interface SideSummary {
  entries: SideEntry[];
  /** Messages by role. */
  messages: Record<string, number>;
  /** Tool calls by tool name. */
  toolCalls: Record<string, number>;
  /** The files touched, with what was done to each (changes first), in the order first touched. */
  files: { path: string; actions: FileAction[] }[];
  tokens: number;
  /** Dollars, as the entries' usage says. */
  cost: number;
  /** The last assistant message's `stopReason` (`stop`, `toolUse`, `error`, `aborted`, ...), or null. */
  stopReason: string | null;
}

/** Characters of an entry's text a side keeps. */
const TEXT_CHARS = 160;

function isObject(value: unknown): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** An entry's text: a message's, a tool result's output, a call's tool and arguments. */
function textOf(doc: EntryDocument): string {
  const result = doc.role === "toolResult" || doc.role === "bashExecution";
  const text = doc.body || (result ? doc.output || doc.tool : doc.tool || doc.output);
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > TEXT_CHARS ? `${line.slice(0, TEXT_CHARS - 1)}…` : line;
}

/** The summary of a side's entries (v3, root first); `base` resolves their file paths. */
export function summarizeSide(entries: readonly Obj[], base: TouchBase): SideSummary {
  const out: SideSummary = {
    entries: [],
    messages: {},
    toolCalls: {},
    files: [],
    tokens: 0,
    cost: 0,
    stopReason: null,
  };
  const files = new Map<string, Set<FileAction>>();
  for (const entry of entries) {
    const doc = entryDocument(entry);
    out.entries.push({
      id: doc.id,
      type: doc.type,
      role: doc.role,
      timestamp: typeof entry.timestamp === "string" ? entry.timestamp : null,
      text: textOf(doc),
    });
    if (doc.role !== null) out.messages[doc.role] = (out.messages[doc.role] ?? 0) + 1;
    const message = isObject(entry.message) ? entry.message : undefined;
    if (doc.role === "assistant") {
      for (const block of Array.isArray(message?.content) ? message.content : [])
        if (isObject(block) && block.type === "toolCall" && typeof block.name === "string")
          out.toolCalls[block.name] = (out.toolCalls[block.name] ?? 0) + 1;
      if (typeof message?.stopReason === "string") out.stopReason = message.stopReason;
    }
    for (const t of fileTouches(entry, base)) {
      const actions = files.get(t.path) ?? new Set<FileAction>();
      actions.add(t.action);
      files.set(t.path, actions);
    }
    const usage = usageRow(entry);
    if (usage) {
      out.tokens += usage.totalTokens;
      out.cost += usage.cost;
    }
  }
  for (const [path, actions] of files)
    out.files.push({ path, actions: FILE_ACTIONS.filter((a) => actions.has(a)) });
  return out;
}
