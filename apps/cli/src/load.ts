/**
 * Loading one session for display: read with node-store (lines as pi reads them), decode with
 * `format`, migrate to v3 in memory with `migrate` (the file is never touched), index with
 * `tree`. Every command that reads a session reads it here; the rules live in those packages.
 */
import {
  type AnyEntry,
  type Diagnostic,
  type SessionHeader,
  type SessionRecord,
  type TornTail,
  detectVersion,
  splitSession,
} from "@pi-session/format";
import {
  type PathStat,
  keepLinesPiReads,
  readLinesAsPi,
  readSessionFile,
  statPath,
} from "@pi-session/node-store";
import { SessionIndex } from "@pi-session/tree";
import { CliError } from "./errors.js";
import { migrateForReading } from "./migration.js";
import { readFailure } from "./unreadable.js";

export interface LoadedSession {
  path: string;
  size: number;
  mtimeMs: number;
  /**
   * The records pi reads, as read: the lines pi skips are left out (a loaded session is shown,
   * never written back, so a million broken lines cost no million records).
   */
  records: SessionRecord[];
  /** Codec and header diagnostics, with `file` set (of the codec's, the first {@link LOAD_DIAGNOSTICS}). */
  diagnostics: Diagnostic[];
  header: SessionHeader;
  /** The version the file is written in (1 when the header has none). */
  version: number;
  /** The entries after the header, migrated to v3 in memory, in file order. */
  entries: AnyEntry[];
  index: SessionIndex<AnyEntry>;
}

/** The records of one file, read by node-store's streaming reader. */
export interface FileRecords {
  path: string;
  /** The records as pi reads the lines (a raw line that parses to an object is a JSON record). */
  records: SessionRecord[];
  /** The record to write back for one of `records`: a line read as pi reads it goes back as its bytes. */
  original(record: SessionRecord): SessionRecord;
  /** Codec diagnostics (invalid lines, torn tail), each with `file` set. */
  diagnostics: Diagnostic[];
  /** Codec diagnostics not kept because of `maxDiagnostics` (all are errors). */
  omittedDiagnostics: number;
  /** Present when the file does not end with `\n`. */
  tornTail?: TornTail;
  size: number;
  mtimeMs: number;
}

export interface ReadRecordsOptions {
  /** Keep at most this many codec diagnostics; the others are counted (default: all). */
  maxDiagnostics?: number;
  /**
   * Drop the lines pi skips (node-store's `keepLinesPiReads`): for a command that reports on a
   * file and never writes it back, so a million broken lines cost no million records.
   */
  onlyLinesPiReads?: boolean;
}

/** Throws a clear {@link CliError} unless `path` is an existing regular file. */
export function assertFile(path: string): void {
  let st: PathStat | null;
  try {
    st = statPath(path);
  } catch (error) {
    st = null;
    const code = (error as { code?: string }).code ?? "ENOENT";
    if (code !== "ENOENT") {
      throw new CliError(`${path}: cannot read (${code})`, {
        hint: "Check the path, or pass a session id (see `pi-session ls`).",
        code,
      });
    }
  }
  if (!st) {
    throw new CliError(`${path}: no such file`, {
      hint: "Check the path, or pass a session id (see `pi-session ls`).",
      code: "ENOENT",
    });
  }
  if (st.kind !== "file") {
    throw new CliError(`${path}: not a regular file`, {
      code: st.kind === "a directory" ? "EISDIR" : "ENOTREG",
    });
  }
}

/**
 * Reads a session file into records through node-store's chunked reader (1 MiB reads through
 * the codec), so files beyond V8's string limit and Node's 2 GiB `readFile` limit work, and
 * reads its lines as pi and the SDK do (a torn fragment stays raw, as the SDK keeps it).
 */
export async function readRecords(path: string, opts: ReadRecordsOptions = {}): Promise<FileRecords> {
  assertFile(path);
  let contents: Awaited<ReturnType<typeof readSessionFile>>;
  try {
    contents = await readSessionFile(path, {
      ...(opts.maxDiagnostics !== undefined ? { maxDiagnostics: opts.maxDiagnostics } : {}),
      ...(opts.onlyLinesPiReads ? { keepRecord: keepLinesPiReads() } : {}),
    });
  } catch (error) {
    throw readFailure(path, error);
  }
  const torn = contents.tornTail?.kind === "fragment" ? contents.tornTail.offset : undefined;
  const lines = readLinesAsPi(contents.records, torn);
  const out: FileRecords = {
    path,
    records: lines.records,
    original: lines.original,
    diagnostics: contents.diagnostics,
    omittedDiagnostics: contents.omittedDiagnostics,
    size: contents.size,
    mtimeMs: contents.mtimeMs,
  };
  if (contents.tornTail) out.tornTail = contents.tornTail;
  return out;
}

/** Codec diagnostics a loaded session keeps (none is listed by the commands that load one). */
export const LOAD_DIAGNOSTICS = 1000;

/** Loads a session; throws a {@link CliError} naming the file when it is not a pi session. */
export async function loadSession(path: string): Promise<LoadedSession> {
  const parsed = await readRecords(path, { onlyLinesPiReads: true, maxDiagnostics: LOAD_DIAGNOSTICS });
  const { size, mtimeMs } = parsed;
  const view = splitSession(parsed.records);
  const diagnostics = [...parsed.diagnostics, ...view.diagnostics]
    .map((d) => ({ ...d, file: path }))
    .sort((a, b) => a.line - b.line);
  if (!view.header) {
    const first = view.diagnostics.find((d) => d.code === "missing-header");
    const where = first ? `:${first.line} (byte ${first.offset})` : "";
    throw new CliError(`${path}${where}: not a pi session: ${first?.reason ?? "no session header"}`, {
      hint: "Run `pi-session validate` on it for every problem in the file.",
    });
  }
  const version = detectVersion(view.header.value);
  const migrated = migrateForReading(parsed.records);
  const positions = migrated.entries.map((e) => e.position);
  const entries = migrated.entries.map((e) => e.entry);
  const index = new SessionIndex<AnyEntry>(entries, { positions });
  return {
    path,
    size,
    mtimeMs,
    records: parsed.records,
    diagnostics,
    header: migrated.header ?? view.header.value,
    version,
    entries,
    index,
  };
}
