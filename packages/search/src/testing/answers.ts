/**
 * The fault-injection suite's measure of an answer (test helper, built to `dist/testing/` so
 * child processes can run it): a few searches and a stats report from the session database
 * of a root, in a form two answers can be compared in; and the ways it damages a database
 * file (a page overwritten, the WAL folded into the file first).
 */
import { openSync, closeSync, writeSync } from "node:fs";
import { type OpenSearchOptions, openSearchDatabase } from "../search.js";
import { openConnection } from "../sqlite/driver.js";

/** The queries every case is answered with: a word, a substring, a regex, CJK, a phrase. */
export const FAULT_QUERIES = ["parse", '"auth.ts"', "re:time\\w+", "日本", '"the error"'] as const;

export interface Answer {
  hits: Record<string, string[]>;
  stats: { sessions: number; sessionsRead: number; tokens: number; cost: number; rows: string[] };
}

/**
 * Opens the database as `options` say, syncs, answers every query and a stats report by
 * session, closes; warnings go to `warnings`.
 */
export async function answerOf(options: OpenSearchOptions, warnings: string[] = []): Promise<Answer> {
  const db = await openSearchDatabase({ ...options, onWarning: (m) => warnings.push(m) });
  try {
    await db.sync();
    const hits: Record<string, string[]> = {};
    for (const q of FAULT_QUERIES) {
      const r = await db.search(q, {
        limit: Number.POSITIVE_INFINITY,
        hitsPerSession: Number.POSITIVE_INFINITY,
      });
      hits[q] = r.sessions.flatMap((s) => s.hits.map((h) => `${s.path}:${h.line}`)).sort();
    }
    const s = await db.stats({ by: "session" });
    return {
      hits,
      stats: {
        sessions: s.sessions,
        sessionsRead: s.sessionsRead,
        tokens: s.totals.totalTokens,
        cost: Math.round(s.totals.cost * 1e6),
        rows: s.rows.map((r) => `${r.key}:${r.totalTokens}:${Math.round(r.cost * 1e6)}`).sort(),
      },
    };
  } finally {
    db.close();
  }
}

/** The tables and indexes of a database file with their root pages, and its page size. */
export async function rootPages(path: string): Promise<{ pageSize: number; roots: Map<string, number> }> {
  const db = await openConnection(path);
  try {
    // Everything in the WAL goes into the file, so a page written there is the page read.
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    const pageSize = Number(db.prepare("PRAGMA page_size").get()?.page_size);
    const roots = new Map<string, number>();
    for (const row of db.prepare(`SELECT name, rootpage FROM sqlite_master WHERE rootpage > 0`).all())
      roots.set(String(row.name), Number(row.rootpage));
    return { pageSize, roots };
  } finally {
    db.close();
  }
}

/** Overwrites page `page` (1-based) of a database file with `fill` bytes. */
export function overwritePage(path: string, page: number, pageSize: number, fill: Uint8Array): void {
  const fd = openSync(path, "r+");
  try {
    writeSync(fd, fill.subarray(0, pageSize), 0, Math.min(fill.length, pageSize), (page - 1) * pageSize);
  } finally {
    closeSync(fd);
  }
}
