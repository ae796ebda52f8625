/**
 * The search worker: a thread of `pi-session serve` that owns a read-only use of the session
 * database (its own connection to the file the server keeps up to date) and answers searches,
 * so that a search (tenths of a second of SQLite work) never holds up the server's thread.
 * It never syncs: the server does, and this connection sees what the server committed.
 * Started by `search-pool.ts`; a search at a time in (`SearchRequestMessage`), its answer out.
 */
import { parentPort, workerData } from "node:worker_threads";
import { type SearchDatabase, type SearchOptions, openSearchDatabase } from "@pi-session/search";
import { type UsageCells, usageCells } from "./usage.js";

/** What the worker is started with. */
export interface SearchWorkerData {
  root: string;
  /** The directory of the server's database file (so this opens the same file). */
  cacheDir: string;
}

/** A search, or the usage charts (all six: one pass of `stats`, off the server's thread). */
export type SearchRequestMessage =
  | { kind: "search"; query: string; options: SearchOptions }
  | { kind: "usage" };

export type SearchReplyMessage =
  /** `ms`: the search's time in this thread (wall clock), for the server's counters. */
  | { kind: "result"; result: import("@pi-session/search").SearchResult; ms: number }
  | { kind: "usage"; cells: UsageCells; ms: number }
  | { kind: "error"; error: { name: string; message: string } }
  | { kind: "ready" }
  | { kind: "failed"; error: { name: string; message: string } };

const errorOf = (error: unknown) => ({
  name: (error as Error)?.name ?? "Error",
  message: (error as Error)?.message ?? String(error),
});

async function main(): Promise<void> {
  const port = parentPort;
  if (!port) return;
  const data = workerData as SearchWorkerData;
  let db: SearchDatabase;
  try {
    db = await openSearchDatabase({ root: data.root, cacheDir: data.cacheDir, recover: false });
    // Not the server's file (it could not be opened here): an empty database would answer nothing.
    if (db.location === ":memory:") {
      db.close();
      throw new Error("the session database could not be opened in the search thread");
    }
  } catch (error) {
    port.postMessage({ kind: "failed", error: errorOf(error) } satisfies SearchReplyMessage);
    return;
  }
  port.on("message", (message: SearchRequestMessage | "close") => {
    if (message === "close") {
      db.close();
      port.close();
      return;
    }
    const started = performance.now();
    if (message.kind === "usage") {
      usageCells(db).then(
        (cells) =>
          port.postMessage({
            kind: "usage",
            cells,
            ms: performance.now() - started,
          } satisfies SearchReplyMessage),
        (error) => port.postMessage({ kind: "error", error: errorOf(error) } satisfies SearchReplyMessage),
      );
      return;
    }
    db.search(message.query, message.options).then(
      (result) =>
        port.postMessage({
          kind: "result",
          result,
          ms: performance.now() - started,
        } satisfies SearchReplyMessage),
      (error) => port.postMessage({ kind: "error", error: errorOf(error) } satisfies SearchReplyMessage),
    );
  });
  port.postMessage({ kind: "ready" } satisfies SearchReplyMessage);
}

void main();
