/**
 * The one place this package touches the `@pi-session/format` line codec, so the readers,
 * the appender and the lister share one adapter (and one notion of a torn tail).
 */
import { type Diagnostic, type SessionRecord, SessionLineDecoder, type TornTail } from "@pi-session/format";

export type { TornTail } from "@pi-session/format";

export interface DecoderStart {
  /** Byte offset of the first byte that will be pushed (default 0). */
  startOffset?: number;
  /** Line number of the line that starts at `startOffset` (default 1). */
  startLine?: number;
  /** Keep at most this many diagnostics of malformed lines; the others are only counted. */
  maxDiagnostics?: number;
  /** Records it returns false for are not returned (see the format codec's `keepRecord`). */
  keepRecord?: (record: SessionRecord) => boolean;
}

/** Incremental decoder over file bytes; records are yielded in file order. */
export class RecordDecoder {
  private readonly inner: SessionLineDecoder;

  constructor(start: DecoderStart = {}) {
    const startOffset = start.startOffset ?? 0;
    this.inner = new SessionLineDecoder({
      startOffset,
      startLine: start.startLine ?? 1,
      firstLineIsFileStart: startOffset === 0,
      ...(start.maxDiagnostics !== undefined ? { maxDiagnostics: start.maxDiagnostics } : {}),
      ...(start.keepRecord !== undefined ? { keepRecord: start.keepRecord } : {}),
    });
  }

  push(chunk: Uint8Array): SessionRecord[] {
    return this.inner.push(chunk);
  }

  end(): SessionRecord[] {
    return this.inner.end();
  }

  get diagnostics(): Diagnostic[] {
    return this.inner.diagnostics;
  }

  /** Records `keepRecord` dropped. */
  get omittedRecords(): number {
    return this.inner.omittedRecords;
  }

  /** Diagnostics not kept because of `maxDiagnostics` (all are errors). */
  get omittedDiagnostics(): number {
    return this.inner.omittedDiagnostics;
  }

  get blankLines(): number {
    return this.inner.blankLines;
  }

  get lines(): number {
    return this.inner.lines;
  }

  /** Byte offset where the next (not yet complete) line starts: a safe resume point. */
  get committedOffset(): number {
    return this.inner.committedOffset;
  }

  /** Line number the next line will get. */
  get nextLine(): number {
    return this.inner.nextLine;
  }

  /** Set after {@link end} when the input did not end with `\n` and the last line was not blank. */
  get tornTail(): TornTail | undefined {
    return this.inner.tornTail;
  }
}

/** Sets `file` on the decoder's own diagnostics (fresh objects no one else holds): no copies. */
export function withFile(diagnostics: Diagnostic[], path: string): Diagnostic[] {
  for (const d of diagnostics) d.file = path;
  return diagnostics;
}

/** Appends `source` to `target` (the records of one chunk to those read so far). */
export function pushAll(target: SessionRecord[], source: SessionRecord[]): void {
  for (const r of source) target.push(r);
}
