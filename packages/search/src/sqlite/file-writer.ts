/**
 * Writing one file's rows: its entries, their words (text and identifier parts per field),
 * usage rows and per-model usage totals, facets and branch flags, then the file row itself.
 * The SQLite backend's `beginFile` makes one inside the file's transaction; use it through
 * the {@link FileWriter} interface.
 */
import type { EntryRow, Facets, FileWriter, IndexedFile } from "../database.js";
import {
  type Accumulator,
  TEXT_FIELDS,
  type TreeLink,
  addUsage,
  emptyAccumulator,
} from "../documents/index.js";
import { SESSION_COLUMNS, facetText } from "./file-rows.js";
import { ENTRY_ID_SCALE, FIELD_BIT } from "./schema.js";
import type { StatementCache } from "./statements.js";
import { num, strOrNull } from "./values.js";

/** What a file writer is given: its file's id, and what ends its transaction either way. */
export interface FileWriterContext {
  fileId: number;
  rollback: () => void;
  finished: () => void;
}

export function fileWriter(
  st: StatementCache,
  { fileId, rollback, finished }: FileWriterContext,
): FileWriter {
  const insertEntry = st.get(
    `INSERT INTO entries (id, file_id, line, offset, length, entry_id, parent_id, type, role, time_ms, on_branch, fields)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const base = fileId * ENTRY_ID_SCALE;
  const insertWords = st.get(
    `INSERT INTO words (rowid, body, thinking, tool, output, body_parts, thinking_parts, tool_parts, output_parts)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  // The file's usage summed by model (and its first and last time), written with the file row.
  const totals = new Map<string, Accumulator & { first: number; last: number }>();
  const insertUsage = st.get(
    `INSERT OR REPLACE INTO usage (file_id, ordinal, key, source, model, time_ms, input, output, cache_read, cache_write, total_tokens, cost)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertTouch = st.get(
    `INSERT OR REPLACE INTO touches (file_id, ordinal, seq, tool, action, path) VALUES (?, ?, ?, ?, ?, ?)`,
  );
  return {
    add: (rows: readonly EntryRow[]) => {
      for (const row of rows) {
        const d = row.doc;
        const ix = row.indexed;
        let fields = 0;
        for (const f of TEXT_FIELDS) if (ix.texts[f] !== "") fields |= FIELD_BIT[f];
        const id = base + row.ordinal;
        insertEntry.run(
          id,
          fileId,
          row.line,
          row.offset,
          row.length,
          d.id,
          d.parentId,
          d.type,
          d.role,
          d.time,
          row.onBranch ? 1 : 0,
          fields,
        );
        if (fields !== 0) {
          insertWords.run(
            id,
            ix.texts.body,
            ix.texts.thinking,
            ix.texts.tool,
            ix.texts.output,
            ix.parts.body,
            ix.parts.thinking,
            ix.parts.tool,
            ix.parts.output,
          );
        }
        for (const [seq, t] of row.touches.entries())
          insertTouch.run(fileId, row.ordinal, seq, t.tool, t.action, t.path);
        const u = row.usage;
        if (u) {
          let t = totals.get(u.model);
          if (!t) {
            t = { ...emptyAccumulator(), first: Number.NaN, last: Number.NaN };
            totals.set(u.model, t);
          }
          addUsage(t, u);
          if (!Number.isNaN(u.time)) {
            if (!(u.time >= t.first)) t.first = u.time;
            if (!(u.time <= t.last)) t.last = u.time;
          }
          insertUsage.run(
            fileId,
            row.ordinal,
            u.key,
            u.source,
            u.model,
            Number.isNaN(u.time) ? null : u.time,
            u.input,
            u.output,
            u.cacheRead,
            u.cacheWrite,
            u.totalTokens,
            u.cost,
          );
        }
      }
    },
    addFacets: (facets: Facets) => {
      const row = st.get(`SELECT tools, models, paths FROM details WHERE id = ?`).get(fileId);
      st.get(`UPDATE details SET tools = ?, models = ?, paths = ? WHERE id = ?`).run(
        facetText(row?.tools, facets.tools),
        facetText(row?.models, facets.models),
        facetText(row?.paths, facets.files),
        fileId,
      );
    },
    links: () =>
      st
        .get(`SELECT type, entry_id, parent_id, on_branch FROM entries WHERE id BETWEEN ? AND ? ORDER BY id`)
        .all(base, base + ENTRY_ID_SCALE - 1)
        .map((r) => ({
          type: String(r.type),
          id: strOrNull(r.entry_id),
          parentId: strOrNull(r.parent_id),
          onBranch: num(r.on_branch) === 1,
        })) as (TreeLink & { onBranch: boolean })[],
    usageKeys: () =>
      st
        .get(`SELECT key FROM usage WHERE file_id = ?`)
        .all(fileId)
        .map((r) => String(r.key)),
    setBranch: (changes) => {
      const s = st.get(`UPDATE entries SET on_branch = ? WHERE id = ?`);
      for (const c of changes) s.run(c.onBranch ? 1 : 0, base + c.ordinal);
    },
    commit: (file: IndexedFile) => {
      const m = file.meta;
      st.get(
        `UPDATE files SET size = ?, mtime_ms = ?, ctime_ms = ?, ino = ?, indexed_offset = ?, next_line = ?, version = ?,
           ${SESSION_COLUMNS.split(", ")
             .map((c) => `${c} = ?`)
             .join(", ")}
         WHERE id = ?`,
      ).run(
        file.size,
        file.mtimeMs,
        file.ctimeMs,
        file.ino,
        file.indexedOffset,
        file.nextLine,
        file.version,
        m?.sessionId ?? null,
        m?.cwd ?? null,
        m?.created ?? null,
        m?.parentPath ?? null,
        m?.name ?? null,
        m ? m.modifiedMs : null,
        m ? m.messageCount : null,
        m ? (m.errored ? 1 : 0) : null,
        m?.leafId ?? null,
        m ? m.entryCount : null,
        m ? m.usageRepeats : null,
        fileId,
      );
      const upsert = st.get(
        `INSERT INTO usage_totals (file_id, model, input, output, cache_read, cache_write, total_tokens, cost_nanos,
           records, zero_cost, unpriced_tokens, first_ms, last_ms)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (file_id, model) DO UPDATE SET input = input + excluded.input, output = output + excluded.output,
           cache_read = cache_read + excluded.cache_read, cache_write = cache_write + excluded.cache_write,
           total_tokens = total_tokens + excluded.total_tokens, cost_nanos = cost_nanos + excluded.cost_nanos,
           records = records + excluded.records, zero_cost = zero_cost + excluded.zero_cost,
           unpriced_tokens = unpriced_tokens + excluded.unpriced_tokens,
           first_ms = min(coalesce(first_ms, excluded.first_ms), coalesce(excluded.first_ms, first_ms)),
           last_ms = max(coalesce(last_ms, excluded.last_ms), coalesce(excluded.last_ms, last_ms))`,
      );
      for (const [model, t] of totals)
        upsert.run(
          fileId,
          model,
          t.input,
          t.output,
          t.cacheRead,
          t.cacheWrite,
          t.totalTokens,
          t.costNanos,
          t.records,
          t.zeroCostWithTokens,
          t.unpricedTokens,
          Number.isNaN(t.first) ? null : t.first,
          Number.isNaN(t.last) ? null : t.last,
        );
      totals.clear();
      st.get(`UPDATE details SET head = ?, tail = ?, first_message = ? WHERE id = ?`).run(
        file.head,
        file.tail,
        m?.firstMessage ?? null,
        fileId,
      );
      finished();
    },
    rollback,
  };
}
