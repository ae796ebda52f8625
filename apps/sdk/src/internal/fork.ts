/**
 * `SessionManager.forkFrom`'s file: a copy of a session (all branches, same entry ids) under a
 * new header for another cwd, written at once and atomically. Unlike pi 1.6.0 a v1/v2 source
 * is migrated first; the source is never written.
 */
import { migrateEntries } from "@pi-session/migrate";
import {
  assertValidSessionId,
  createSessionFile,
  readLinesAsPi,
  sessionFilePath,
} from "@pi-session/node-store";
import type { FileEntry, NewSessionOptions } from "../types.js";
import { sessionHeader } from "./entries.js";
import { createSessionId, randomEntryId } from "./ids.js";
import { readForOpen } from "./open-file.js";
import { sessionDirOf } from "./session-dirs.js";

export interface ForkRequest {
  /** The source file, resolved. */
  source: string;
  /** The fork's cwd, resolved. */
  cwd: string;
  /** The directory to write the fork into (default: the cwd's, created once the source is read). */
  sessionDir: string | undefined;
  options: NewSessionOptions | undefined;
}

/** Writes the fork; returns its path and directory. Throws pi's message for an empty or invalid source. */
export function writeFork({ source, cwd, sessionDir, options }: ForkRequest): { file: string; dir: string } {
  const contents = readForOpen(source);
  const lines = contents ? readLinesAsPi(contents.records) : undefined;
  if (!lines?.isSession) throw new Error(`Cannot fork: source session file is empty or invalid: ${source}`);
  const entries = lines.values as unknown as FileEntry[];
  migrateEntries(entries, { inPlace: true, randomId: randomEntryId });
  const dir = sessionDirOf(cwd, sessionDir);
  if (options?.id !== undefined) assertValidSessionId(options.id);
  const id = options?.id ?? createSessionId();
  const timestamp = new Date().toISOString();
  const file = sessionFilePath(dir, timestamp, id);
  const header = sessionHeader({ id, timestamp, cwd, parentSession: source });
  const body = entries.filter((e) => e.type !== "session");
  createSessionFile(file, [header, ...body]);
  return { file, dir };
}
