/**
 * A session's branch read for `export` without holding the session: node-store's lazy open
 * (each entry's byte range, type, id and parent from one scan; ids kept as bytes) and tree's
 * `SlotIndex` give the branch and each entry's place in the tree, and the entries are parsed
 * one at a time as the export is written, then dropped. Memory grows with the number of
 * entries (tens of bytes each), not with their text: a 2-million-entry, 1.2 GB session
 * exports in a heap smaller than the file (decision 155).
 *
 * Use {@link streamedBranch} on node-store's `openLazySessionFile` (undefined for a file it
 * leaves to the eager read: not v3, a torn last line, no WebAssembly) for the branch view of
 * Markdown, JSON and JSONL; it returns undefined where the in-memory export must decide (an id
 * on two entries or a cycle, where the tree view's own rules apply). The bytes are those of
 * the in-memory export.
 */
import { type AnyEntry, indexRoleOf, type SessionHeader } from "@pi-session/format";
import { type LazySessionFile, RoleCode } from "@pi-session/node-store";
import {
  type Redactor,
  type StreamedBranch,
  type StreamedEntry,
  addToolCalls,
  titleOf,
} from "@pi-session/render";
import { SlotIndex, timeKey } from "@pi-session/tree";

/** Whether following parents from some slot comes back to it (`parents`: -1 for none). */
function hasCycle(parents: Int32Array): boolean {
  // 0: not seen, 1: on the walk under way, 2: known to end at a root.
  const state = new Uint8Array(parents.length);
  for (let start = 0; start < parents.length; start++) {
    let at = start;
    while (at !== -1 && state[at] === 0) {
      state[at] = 1;
      at = parents[at] as number;
    }
    if (at !== -1 && state[at] === 1) return true;
    for (at = start; at !== -1 && state[at] === 1; at = parents[at] as number) state[at] = 2;
  }
  return false;
}

export interface StreamedBranchOptions {
  /** The branch's leaf: a full entry id (default: the session's leaf). */
  leafId?: string | undefined;
  /**
   * Redaction: `report` counts every entry of the session once (the in-memory export's
   * counts); `again` redacts the entries read a second time, its counts thrown away.
   */
  redact?: { report: Redactor; again: Redactor };
}

/** Every id of the session's entries, in file order, read from the lazy open's scan. */
export function* lazyIds(file: LazySessionFile): Generator<string> {
  for (let slot = 0; slot < file.count; slot++) {
    const id = file.idOf(slot);
    if (id !== undefined) yield id;
  }
}

/**
 * The branch of `file` for a streamed export, or undefined where the in-memory export must
 * decide (an id on two entries, a cycle on the branch).
 */
export function streamedBranch(
  file: LazySessionFile,
  options: StreamedBranchOptions = {},
): StreamedBranch | undefined {
  const redactor = options.redact?.report;
  const again = options.redact?.again;
  const read = (slot: number) => file.read(slot) as AnyEntry;
  const header = (redactor ? redactor.value(file.header) : file.header) as SessionHeader;
  // One pass in file order: every entry redacted once when redacting (the report's counts),
  // the tool calls of assistant messages and their results' details (an edit's diff), the
  // label and name entries the index needs.
  const toolCalls = new Map();
  const meta: { slot: number; entry: Record<string, unknown> }[] = [];
  for (let slot = 0; slot < file.count; slot++) {
    // The entries whose values the tree index keeps (labels, the name), by the format's registry.
    const isMeta = indexRoleOf(file.typeOf(slot)) !== "none";
    const callsOrResults =
      file.isAssistantMessage(slot) ||
      (file.typeOf(slot) === "message" && file.roles[slot] === RoleCode.Other);
    if (!redactor && !isMeta && !callsOrResults) continue;
    const entry = redactor ? redactor.value<AnyEntry>(read(slot)) : read(slot);
    if (isMeta) meta.push({ slot, entry: entry as unknown as Record<string, unknown> });
    else addToolCalls(toolCalls, entry);
  }
  const index = new SlotIndex(file, meta);
  if (index.hasDuplicateIds) return undefined;
  // Every entry's parent (-1: a root, or no id), and no cycle anywhere: the tree view breaks a
  // cycle into a root of its own, which a branch elsewhere would count among its siblings.
  const parents = new Int32Array(file.count).fill(-1);
  for (let slot = 0; slot < file.count; slot++)
    if (file.hasId(slot)) parents[slot] = index.parentSlotOf(slot);
  if (hasCycle(parents)) return undefined;
  const leafSlot = options.leafId === undefined ? index.leafSlot : index.find(options.leafId);
  const path = leafSlot < 0 ? new Int32Array(0) : index.pathFrom(leafSlot);

  // The siblings of each entry on the branch: the children of the entry before it (or the
  // roots), in the tree's order: roots in file order, children by time, then file order.
  const onPath = new Uint8Array(file.count);
  for (const slot of path) onPath[slot] = 1;
  const children = new Map<number, number[]>();
  const roots: number[] = [];
  for (let slot = 0; slot < file.count; slot++) {
    if (!file.hasId(slot)) continue;
    const parent = parents[slot] as number;
    if (parent === -1) roots.push(slot);
    else if (onPath[parent] === 1) {
      const list = children.get(parent);
      if (list) list.push(slot);
      else children.set(parent, [slot]);
    }
  }
  const rank = (siblings: number[], slot: number): number => {
    if (siblings.length < 2) return 0;
    const keys = new Map(siblings.map((s) => [s, timeKey(file.read(s))] as const));
    const ordered = [...siblings].sort((a, b) => {
      const ka = keys.get(a) as number;
      const kb = keys.get(b) as number;
      return ka === kb ? a - b : ka < kb ? -1 : 1;
    });
    return ordered.indexOf(slot);
  };

  const title = titleOf(
    index.sessionName,
    header,
    (function* () {
      for (let slot = 0; slot < file.count; slot++)
        if (file.typeOf(slot) === "message" && file.roles[slot] === RoleCode.User)
          yield again ? again.value<AnyEntry>(read(slot)) : read(slot);
    })(),
  );
  const entries = function* (): Generator<StreamedEntry> {
    for (let k = 0; k < path.length; k++) {
      const slot = path[k] as number;
      const siblings = k === 0 ? roots : (children.get(path[k - 1] as number) as number[]);
      const entry = read(slot);
      yield {
        entry: again ? again.value<AnyEntry>(entry) : entry,
        place: {
          siblings: siblings.length,
          siblingIndex: k === 0 ? roots.indexOf(slot) : rank(siblings, slot),
          parentId: k === 0 ? null : (file.idOf(path[k - 1] as number) ?? null),
          depth: k,
        },
      };
    }
  };
  return {
    header,
    formatVersion: 3,
    title,
    leafId: index.leafId,
    entryCount: file.count,
    labels: index.labels,
    name: index.sessionName,
    toolCalls,
    viewLeafId: path.length === 0 ? null : (file.idOf(path[path.length - 1] as number) ?? null),
    pathLength: path.length,
    path: { [Symbol.iterator]: entries },
  };
}
