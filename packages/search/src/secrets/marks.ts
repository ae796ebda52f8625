/**
 * The session database's secret marks, brought up to date: each session file's entries not
 * scanned yet are read again from the file (by the place the index keeps), scanned with the
 * shared detector, and their kinds and counts stored (never a secret), a file's range at a
 * time and only while the file is as indexed. Slow for a large store the first time (the
 * detector reads about a megabyte a second, decision 153), then only what was appended.
 *
 * Use through `SearchDatabase.scanSecrets` after `sync`.
 */
import type { SecretDetector } from "@pi-session/render";
import type { SessionDatabase } from "../database.js";
import { readEntryLine } from "../indexer.js";
import { redactSecrets } from "./scan.js";

/** Entries scanned per transaction. */
const SLICE = 256;

export interface SecretScanOptions {
  detector: SecretDetector;
  /** Stop after about this many entries (the rest another time): a server's slice of work. */
  maxEntries?: number;
  /** Told after each slice: entries scanned so far, of the entries left when it started. */
  onProgress?: (done: number, total: number) => void;
  signal?: AbortSignal;
}

export interface SecretScanStats {
  /** Entries scanned. */
  entries: number;
  /** Entries left unscanned: a file changed since it was indexed (sync again), or the budget ran out. */
  left: number;
}

export function scanSecretMarks(db: SessionDatabase, options: SecretScanOptions): SecretScanStats {
  const todo = db.secretScanTodo();
  const total = todo.reduce((n, f) => n + (f.entries - f.from), 0);
  const budget = options.maxEntries ?? Number.POSITIVE_INFINITY;
  let done = 0;
  for (const file of todo) {
    let from = file.from;
    while (from < file.entries && done < budget) {
      options.signal?.throwIfAborted();
      const slots = db.entrySlots(file.path, from, Math.min(SLICE, budget - done));
      if (slots.length === 0) break;
      const marks: { ordinal: number; kind: string; count: number }[] = [];
      let readable = true;
      for (const slot of slots) {
        const value = readEntryLine(file.path, slot.offset, slot.length);
        if (value === undefined) {
          readable = false;
          break;
        }
        const counts = new Map<string, number>();
        for (const f of redactSecrets(value, options.detector).findings)
          counts.set(f.kind, (counts.get(f.kind) ?? 0) + 1);
        for (const [kind, count] of counts) marks.push({ ordinal: slot.ordinal, kind, count });
      }
      const to = (slots[slots.length - 1] as { ordinal: number }).ordinal + 1;
      // A line that moved (the file was rewritten since it was indexed): the next sync re-indexes it.
      if (!readable || !db.addSecretMarks({ path: file.path, identity: file, from, to, marks })) break;
      done += to - from;
      from = to;
      options.onProgress?.(done, total);
    }
  }
  return { entries: done, left: total - done };
}
