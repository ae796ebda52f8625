/**
 * The entries of a branched session (`createBranchedSession`), as pi 1.6.0 makes them: the
 * path to the chosen leaf without its label entries, re-parented into one chain, then one new
 * label entry per label on a kept entry (with the label's own timestamp). Use it to build the
 * body; the manager writes the header and decides where the file goes.
 */
import { indexRoleOf } from "@pi-session/format";
import type { CompactionEntry, LabelEntry, SessionEntry } from "../types.js";
import { generateId } from "./ids.js";

/** The labels of the source session: target id -> label, and when each was set. */
export interface SourceLabels {
  labels: Iterable<[targetId: string, label: string]>;
  timestampOf(targetId: string): string | undefined;
}

/**
 * The path (root first) as one chain. A compaction whose `firstKeptEntryId` names a dropped
 * label entry points at the entry that follows that label instead.
 */
function chainWithoutLabels(path: readonly SessionEntry[]): SessionEntry[] {
  const kept: SessionEntry[] = [];
  const replacementByLabelId = new Map<string, string>();
  const pendingLabels: string[] = [];
  let parentId: string | null = null;
  for (const entry of path) {
    // Labels are carried by the index (format's registry: the entries of the label role).
    if (indexRoleOf(entry.type) === "label") {
      pendingLabels.push(entry.id);
      continue;
    }
    for (const labelId of pendingLabels) replacementByLabelId.set(labelId, entry.id);
    pendingLabels.length = 0;
    if (entry.type === "compaction") {
      const first = entry.firstKeptEntryId;
      const redirected =
        first === entry.id || first === undefined ? first : (replacementByLabelId.get(first) ?? first);
      const compaction: CompactionEntry = { ...entry, parentId, firstKeptEntryId: redirected };
      kept.push(compaction);
    } else kept.push({ ...entry, parentId });
    parentId = entry.id;
  }
  return kept;
}

/** The body of the branched session: the chain to the leaf, then its labels re-created after it. */
export function branchedSessionEntries(path: readonly SessionEntry[], source: SourceLabels): SessionEntry[] {
  const kept = chainWithoutLabels(path);
  const keptIds = new Set(kept.map((e) => e.id));
  const labels: LabelEntry[] = [];
  let labelParent = kept[kept.length - 1]?.id || null;
  for (const [targetId, label] of source.labels) {
    if (!keptIds.has(targetId)) continue;
    const labelEntry: LabelEntry = {
      type: "label",
      id: generateId(keptIds),
      parentId: labelParent,
      timestamp: source.timestampOf(targetId) as string,
      targetId,
      label,
    };
    keptIds.add(labelEntry.id);
    labels.push(labelEntry);
    labelParent = labelEntry.id;
  }
  return [...kept, ...labels];
}
