/**
 * What the render layer reads: one session as its header, its v3 entries in file order and
 * their tree index, built once. Use `sessionFromText` / `sessionFromBytes` /
 * `sessionFromRecords` for a file in any version (it is migrated in memory, nothing is
 * written), or `createRenderSession` for entries you already hold (the SDK's, a store's).
 */
import {
  type AnyEntry,
  type Diagnostic,
  type SessionHeader,
  type SessionRecord,
  detectVersion,
  parseSessionBytes,
  parseSessionText,
  splitSession,
} from "@pi-session/format";
import { migrateRecords } from "@pi-session/migrate";
import { SessionIndex } from "@pi-session/tree";

export interface RenderSession {
  /** The session header, when the input has one. */
  header: SessionHeader | undefined;
  /** Every entry after the header, v3, in file order. */
  entries: readonly AnyEntry[];
  /** The tree index of `entries` (leaf = last entry in file order unless moved). */
  index: SessionIndex<AnyEntry>;
  /** The version the file is written in (1 when its header has none). */
  formatVersion: number;
  /** Problems found while reading: lines that are not JSON objects, header problems. */
  diagnostics: Diagnostic[];
}

export interface RenderSessionInput {
  header?: SessionHeader | undefined;
  entries: readonly AnyEntry[];
  /** An index of exactly these entries, when the caller has one already. */
  index?: SessionIndex<AnyEntry>;
  formatVersion?: number;
  diagnostics?: Diagnostic[];
}

/** A {@link RenderSession} from v3 entries (and optionally their header and index). */
export function createRenderSession(input: RenderSessionInput): RenderSession {
  const header = input.header;
  return {
    header,
    entries: input.entries,
    index: input.index ?? new SessionIndex<AnyEntry>(input.entries),
    formatVersion: input.formatVersion ?? (header ? detectVersion(header) : 3),
    diagnostics: input.diagnostics ?? [],
  };
}

/**
 * A session from the records of a file (the line codec's output), any version: v1/v2 are
 * migrated to v3 in memory, with deterministic ids for v1 entries (the same on every run).
 */
export function sessionFromRecords(
  records: readonly SessionRecord[],
  codecDiagnostics: readonly Diagnostic[] = [],
): RenderSession {
  const view = splitSession(records);
  const formatVersion = view.header ? detectVersion(view.header.value) : 3;
  const migrated = migrateRecords(records);
  const after = splitSession(migrated.records);
  const entries = after.entries.map((rec) => rec.value as AnyEntry);
  const positions = after.entries.map((rec) => ({ line: rec.line, offset: rec.offset }));
  return {
    header: after.header?.value,
    entries,
    index: new SessionIndex<AnyEntry>(entries, { positions }),
    formatVersion,
    diagnostics: [...codecDiagnostics, ...view.diagnostics].sort((a, b) => a.line - b.line),
  };
}

/** A session from the text of a `.jsonl` file. */
export function sessionFromText(text: string): RenderSession {
  const parsed = parseSessionText(text);
  return sessionFromRecords(parsed.records, parsed.diagnostics);
}

/** A session from the bytes of a `.jsonl` file. */
export function sessionFromBytes(bytes: Uint8Array): RenderSession {
  const parsed = parseSessionBytes(bytes);
  return sessionFromRecords(parsed.records, parsed.diagnostics);
}
