/**
 * Opening a session file as `SessionManager` does: read it (never writing), take its lines as
 * pi reads them, migrate a v1/v2 file in memory, and say what the first append owes the file
 * (a migrating rewrite). Use {@link readForOpen} then {@link openedFile}; the manager adopts
 * the entries and hands the contents and the owed rewrite to its `SessionFile`.
 */
import { isValidSessionHeader, type SessionRecord } from "@pi-session/format";
import { migrateRecords } from "@pi-session/migrate";
import {
  firstValueAsPi,
  keepLinesPiReads,
  readLinesAsPi,
  readSessionFileSync,
  type SessionFileContents,
} from "@pi-session/node-store";
import type { FileEntry } from "../types.js";
import { randomEntryId } from "./ids.js";
import type { PendingRewrite } from "./session-file.js";

/** The JSON objects among records, in file order. */
export function jsonValues(records: readonly SessionRecord[]): Record<string, unknown>[] {
  const values: Record<string, unknown>[] = [];
  for (const record of records) if (record.kind === "json") values.push(record.value);
  return values;
}

/**
 * Reads a file for opening: `undefined` when it does not exist. No codec diagnostics are kept
 * (the manager shows none), nor, unless `whole`, the lines pi skips: they matter only to a
 * rewrite, which reads the file whole first (a million broken lines cost no million objects).
 */
export function readForOpen(path: string, whole = false): SessionFileContents | undefined {
  const opts = { missing: "null", maxDiagnostics: 0 } as const;
  return readSessionFileSync(path, whole ? opts : { ...opts, keepRecord: keepLinesPiReads() }) ?? undefined;
}

/** The header's cwd, if the file's first parsed line is a valid header with one. */
export function headerCwd(contents: SessionFileContents | undefined): string | undefined {
  const first = contents ? firstValueAsPi(contents.records) : undefined;
  return isValidSessionHeader(first) && typeof first.cwd === "string" ? first.cwd : undefined;
}

/** What an opened path holds. */
export type OpenedFile =
  /** No file: the session is new, its file is created at the first flush. */
  | { kind: "missing" }
  /** An empty file: the session is new, and pi writes its header into the file at once. */
  | { kind: "empty" }
  | {
      kind: "session";
      /** The header, then the entries, migrated to v3. */
      entries: FileEntry[];
      /** The contents read (the writer starts from their size, lines and inode). */
      contents: SessionFileContents;
      /** The rewrite the first append owes the file: set when it was migrated. */
      pending: PendingRewrite | undefined;
    };

/**
 * Interprets the `contents` read from `path` (undefined: no file). Throws pi's message for a
 * file that is not empty and not a session. A migrated file whose skipped lines were not read
 * is read again, whole, so that its rewrite keeps them.
 */
export function openedFile(path: string, contents: SessionFileContents | undefined): OpenedFile {
  if (!contents) return { kind: "missing" };
  // Lines as pi reads them (a raw line whose U+FFFD text parses to an object is an entry);
  // a torn fragment stays a raw line for the writer (see SessionFile.adopt).
  const torn = contents.tornTail?.kind === "fragment" ? contents.tornTail.offset : undefined;
  const lines = readLinesAsPi(contents.records, torn);
  if (!lines.isSession) {
    if (contents.size > 0) throw new Error(`Session file is not a valid pi session: ${path}`);
    return { kind: "empty" };
  }
  const migration = migrateRecords(lines.records, { randomId: randomEntryId });
  const { report } = migration;
  if (report.changed && contents.omittedRecords > 0) {
    // The file will be rewritten: read it with the lines pi skips, to write them back.
    const whole = readForOpen(path, true);
    if (whole) return openedFile(path, whole);
  }
  const entries = (report.changed ? jsonValues(migration.records) : lines.values) as unknown as FileEntry[];
  if (!report.changed) return { kind: "session", entries, contents, pending: undefined };
  // What a rewrite writes: a raw line that migration left unchanged goes back byte for byte
  // (a changed one is written migrated; its old bytes are in the backup).
  const records = migration.records.map(lines.original);
  return { kind: "session", entries, contents, pending: { records, migratedFrom: report.fromVersion } };
}
