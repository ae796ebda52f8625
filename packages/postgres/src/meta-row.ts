/**
 * A session's facts as `pi_files` holds them (the columns of {@link SessionMeta}), and back:
 * one home for the column list and the row-to-facts rule that the sync, the readers and
 * search's hits all use.
 */
import type { SessionMeta } from "@pi-session/search";

/** The `pi_files` columns of a session's facts, in a `SELECT` list. */
export const META_COLUMNS = `session_id, cwd, created, parent_path, name, first_message, modified_ms, message_count, errored,
  leaf_id, entry_count, usage_repeats`;

/** Those columns as pg returns them. */
export interface MetaColumns {
  session_id: string | null;
  cwd: string | null;
  created: string | null;
  parent_path: string | null;
  name: string | null;
  first_message: string | null;
  modified_ms: number | null;
  message_count: number | null;
  errored: boolean | null;
  leaf_id: string | null;
  entry_count: number | null;
  usage_repeats: number | null;
}

/** The facts of a row (absent values as the local database reads them). */
export function metaOfRow(m: MetaColumns): SessionMeta {
  return {
    sessionId: m.session_id ?? "",
    cwd: m.cwd ?? "",
    created: m.created ?? "",
    parentPath: m.parent_path,
    name: m.name,
    firstMessage: m.first_message ?? "",
    modifiedMs: m.modified_ms ?? 0,
    messageCount: m.message_count ?? 0,
    errored: m.errored ?? false,
    leafId: m.leaf_id,
    entryCount: m.entry_count ?? 0,
    usageRepeats: m.usage_repeats ?? 0,
  };
}

/** The facts of a file's row, or null for a file that is no pi session (no header). */
export function sessionMetaOfFile(r: MetaColumns & { version: number }): SessionMeta | null {
  return r.version > 0 && r.session_id !== null ? metaOfRow(r) : null;
}
