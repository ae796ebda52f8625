/**
 * pi 1.6.0's free functions around sessions, same names and signatures, each composed from a
 * layer: migration from `@pi-session/migrate`, parsing from `@pi-session/format`, context
 * from `@pi-session/context`, files and paths from `@pi-session/node-store`.
 * `loadEntriesFromFile` differs in one way: it never writes (pi appends a `\n` to a file whose
 * last line is torn).
 */
import { mkdirSync, readdirSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { projectContextEntry as projectEntry } from "@pi-session/context";
import {
  type AgentMessage,
  type AnyEntry,
  type ContextEditEntry,
  type FileEntry,
  parseSessionText,
  type SessionRecord,
} from "@pi-session/format";
import { migrateEntries } from "@pi-session/migrate";
import {
  getAgentDir,
  getDefaultSessionsRoot,
  keepLinesPiReads,
  readLinesAsPi,
  readSessionFileSync,
  resolvePiPath,
  scanHeaderSync,
  sessionDirForCwd,
} from "@pi-session/node-store";
import { randomEntryId } from "./internal/ids.js";

export {
  buildContextEntries,
  buildSessionContext,
  buildSessionProjection,
  getLatestCompactionEntry,
  sessionEntryToContextMessages,
} from "@pi-session/context";

/** One entry's messages with a context edit applied (pi's signature: the edit is optional). */
export function projectContextEntry(entry: AnyEntry, edit?: ContextEditEntry): AgentMessage[] {
  return projectEntry(entry, edit);
}

/** pi's `resolvePath`: a leading `~` expanded, a `file://` URL converted, made absolute. */
export function resolvePath(path: string): string {
  return resolvePiPath(path);
}

/** The JSON objects among records, in file order. */
export function jsonValues(records: readonly SessionRecord[]): Record<string, unknown>[] {
  const values: Record<string, unknown>[] = [];
  for (const record of records) if (record.kind === "json") values.push(record.value);
  return values;
}

/** Migrates v1/v2 entries to v3, in place; without a header they are read as v1, as pi does. */
export function migrateSessionEntries(entries: FileEntry[]): void {
  // pi reads a missing header as version 1: header-less entries get new ids in one chain.
  migrateEntries(entries, { inPlace: true, randomId: randomEntryId, assumeVersion: 1 });
}

/** Parses JSONL text; blank and malformed lines are skipped (as pi). */
export function parseSessionEntries(content: string): FileEntry[] {
  return jsonValues(parseSessionText(content, { maxDiagnostics: 0 }).records) as unknown as FileEntry[];
}

/**
 * The parsed lines of a session file, as pi reads them (a line with invalid UTF-8 is decoded
 * with U+FFFD and kept if it parses): `[]` if it is missing, empty, or its first truthy parsed
 * line is not a header with a string id. Malformed lines are skipped. Streams; never writes.
 */
export function loadEntriesFromFile(filePath: string): FileEntry[] {
  const contents = readSessionFileSync(resolvePath(filePath), {
    missing: "null",
    maxDiagnostics: 0,
    keepRecord: keepLinesPiReads(),
  });
  if (!contents) return [];
  const lines = readLinesAsPi(contents.records);
  return lines.isSession ? (lines.values as unknown as FileEntry[]) : [];
}

/** The per-cwd directory `<agentDir>/sessions/--<cwd>--`, without creating it. */
export function defaultSessionDirPath(cwd: string, agentDir: string = getAgentDir()): string {
  return sessionDirForCwd(resolvePath(cwd), getDefaultSessionsRoot(resolvePath(agentDir)));
}

/** The per-cwd session directory, created if missing (as pi does). */
export function getDefaultSessionDir(cwd: string, agentDir: string = getAgentDir()): string {
  const dir = defaultSessionDirPath(cwd, agentDir);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Does a header's `cwd` name the (resolved) directory `resolvedCwd`? */
export function cwdMatches(cwd: unknown, resolvedCwd: string): boolean {
  return typeof cwd === "string" && cwd !== "" && resolvePath(cwd) === resolvedCwd;
}

/** The header of a file, or null when it has none, cannot be read, or is over the scan limit. */
export function headerOrNull(path: string): ReturnType<typeof scanHeaderSync> {
  try {
    return scanHeaderSync(path);
  } catch {
    return null;
  }
}

/** Newest `.jsonl` regular file (by mtime) with a valid header, optionally of one cwd; `null` if none. */
export function findMostRecentSession(sessionDir: string, cwd?: string): string | null {
  const dir = resolvePath(sessionDir);
  const resolvedCwd = cwd ? resolvePath(cwd) : undefined;
  try {
    const files = readdirSync(dir)
      .filter((file) => file.endsWith(".jsonl"))
      .map((file) => resolve(dir, file))
      .map((path) => {
        const st = statSync(path);
        return { path, mtime: st.mtimeMs, file: st.isFile() };
      })
      // Only regular files are sessions (a FIFO named `*.jsonl` is never opened).
      .filter((f) => f.file)
      .sort((a, b) => b.mtime - a.mtime);
    for (const { path } of files) {
      const header = headerOrNull(path);
      if (header && (!resolvedCwd || cwdMatches(header.cwd, resolvedCwd))) return path;
    }
    return null;
  } catch {
    return null;
  }
}
