/**
 * v1 -> v2 -> v3 migration, in place, with pi's rules (header-inclusive `firstKeptEntryIndex`,
 * `hookMessage` -> `custom`). The SDK's own adapter; `@pi-session/migrate` holds the same rules.
 * One improvement: ids minted during v1 -> v2 are checked against each other (pi forgot to).
 */
import { CURRENT_SESSION_VERSION } from "@pi-session/format";
import { generateId } from "./ids.js";

type Loose = Record<string, unknown>;

function migrateV1ToV2(entries: Loose[]): void {
  const taken = new Set<string>();
  let previous: string | null = null;
  for (const entry of entries) {
    if (entry.type === "session") {
      entry.version = 2;
      continue;
    }
    const id = generateId(taken);
    taken.add(id);
    entry.id = id;
    entry.parentId = previous;
    previous = id;
    if (entry.type === "compaction") {
      if (typeof entry.firstKeptEntryIndex === "number") {
        const target = entries[entry.firstKeptEntryIndex];
        if (target && target.type !== "session") entry.firstKeptEntryId = target.id;
      }
      // pi deletes the index only when it was a number; same here.
      if (typeof entry.firstKeptEntryIndex === "number") delete entry.firstKeptEntryIndex;
    }
  }
}

function migrateV2ToV3(entries: Loose[]): void {
  for (const entry of entries) {
    if (entry.type === "session") {
      entry.version = 3;
      continue;
    }
    const message = entry.message as Loose | undefined;
    if (entry.type === "message" && message && message.role === "hookMessage") message.role = "custom";
  }
}

/** Migrates in place; returns the version found, or `undefined` when nothing had to change. */
export function migrateToCurrentVersion(entries: object[]): number | undefined {
  const loose = entries as Loose[];
  const header = loose.find((e) => e.type === "session");
  const version = (header?.version as number | undefined) ?? 1;
  if (version >= CURRENT_SESSION_VERSION) return undefined;
  if (version < 2) migrateV1ToV2(loose);
  if (version < 3) migrateV2ToV3(loose);
  return version;
}
