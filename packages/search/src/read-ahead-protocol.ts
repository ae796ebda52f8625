/**
 * What the index worker (`index-worker.ts`) and the thread that starts it (`read-ahead.ts`)
 * share: the worker's start data, its messages and the slots of the shared counters. Apart from
 * the worker, so that importing the reader side never loads the worker module (and
 * `node:worker_threads` with it) into a process that only reads files in-process.
 */
import type { MessagePort } from "node:worker_threads";
import type { EntryRow } from "./database.js";
import { TEXT_FIELDS } from "./documents/index.js";
import type { ReadResult } from "./read-file.js";

/** What the worker is started with. */
export interface ReadAheadData {
  files: { path: string; size: number; mtimeMs: number }[];
  port: MessagePort;
  /** Int32 counters: [0] KiB of row text sent, [1] KiB the writer has taken, [2] the worker waits. */
  control: SharedArrayBuffer;
  limitKiB: number;
}

/** A message of the worker, about file `file` (its index in `files`). */
export type ReadAheadMessage =
  | { file: number; kind: "rows"; rows: EntryRow[]; kib: number }
  | { file: number; kind: "branch"; changes: { ordinal: number; onBranch: boolean }[] }
  | { file: number; kind: "facets"; tools: string[]; models: string[]; files: string[] }
  | { file: number; kind: "done"; read: ReadResult }
  | {
      file: number;
      kind: "error";
      error: { name: string; message: string; code?: string; syscall?: string };
    };

/** Row text in KiB: the index texts the writer holds until it has written the rows. */
export function rowsKiB(rows: readonly EntryRow[]): number {
  let chars = 0;
  for (const { indexed } of rows)
    for (const field of TEXT_FIELDS) chars += indexed.texts[field].length + indexed.parts[field].length;
  return Math.ceil(chars / 1024);
}

export const SENT = 0;
export const TAKEN = 1;
/** Set while the worker waits for the writer (so the writer wakes it only then). */
export const WAITING = 2;
