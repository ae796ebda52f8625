/**
 * The session view: records -> header, entries and what does not fit, with pi's header rule.
 *
 * pi accepts a file only if its first parsed JSON line is `type:"session"` with a string
 * `id`; later `type:"session"` lines (an old duplicate-header bug) are ignored. This module
 * applies that rule but never drops anything: every record lands in exactly one of
 * `header`, `entries`, `extraHeaders` or `raw`, and each deviation gets a diagnostic.
 */
import type { Diagnostic, JsonRecord, RawRecord, SessionRecord } from "./records.js";
import { type SessionHeader, headerVersion, isValidSessionHeader } from "./types.js";

export interface SessionView {
  /** The header, if the file has a usable one (`type:"session"`, string `id`). */
  header?: JsonRecord<SessionHeader>;
  /** Every other JSON line, in file order (header and other `type:"session"` lines excluded). */
  entries: JsonRecord[];
  /**
   * `type:"session"` lines that are not the header: later duplicates, and a first one
   * without a string `id`. Kept so a rewrite can preserve them.
   */
  extraHeaders: JsonRecord[];
  /** Lines that are not JSON objects (see the codec's diagnostics). */
  raw: RawRecord[];
  /** `missing-header`, `header-not-first` and `duplicate-header` problems. */
  diagnostics: Diagnostic[];
}

/** Splits records into header, entries and raw lines (see {@link SessionView}). */
export function splitSession(records: readonly SessionRecord[]): SessionView {
  const view: SessionView = { entries: [], extraHeaders: [], raw: [], diagnostics: [] };
  // The first type:"session" line decides whether there is a header at all.
  let decided = false;
  let firstJson: JsonRecord | undefined;
  for (const rec of records) {
    if (rec.kind === "raw") {
      view.raw.push(rec);
      continue;
    }
    firstJson ??= rec;
    if (rec.value.type !== "session") {
      view.entries.push(rec);
      continue;
    }
    if (decided) {
      view.extraHeaders.push(rec);
      view.diagnostics.push({
        code: "duplicate-header",
        severity: "warning",
        line: rec.line,
        offset: rec.offset,
        reason: `another "session" header line${view.header ? ` (the header is line ${view.header.line})` : ""}; ignored, as pi does`,
      });
      continue;
    }
    decided = true;
    if (!isValidSessionHeader(rec.value)) {
      view.extraHeaders.push(rec);
      view.diagnostics.push({
        code: "missing-header",
        severity: "error",
        line: rec.line,
        offset: rec.offset,
        reason: `the "session" header line has no string "id" (got ${describe(rec.value.id)}); pi treats the file as not a session`,
      });
      continue;
    }
    // Its value passed isValidSessionHeader just above.
    view.header = rec as unknown as JsonRecord<SessionHeader>;
    if (firstJson !== rec) {
      view.diagnostics.push({
        code: "header-not-first",
        severity: "error",
        line: rec.line,
        offset: rec.offset,
        reason: `the header is preceded by a JSON entry on line ${firstJson.line}; pi requires the header to be the first parsed line`,
      });
    }
  }
  if (!decided) {
    view.diagnostics.push({
      code: "missing-header",
      severity: "error",
      line: firstJson?.line ?? 0,
      offset: firstJson?.offset ?? 0,
      reason:
        firstJson === undefined
          ? 'no JSON lines at all; a session file starts with a {"type":"session"} header'
          : firstJson.value.type === undefined
            ? `no "session" header; the first JSON line has no "type"`
            : `no "session" header; the first JSON line has type ${describe(firstJson.value.type)}`,
    });
  }
  // Diagnostics in line order regardless of which rule found them.
  view.diagnostics.sort((a, b) => a.line - b.line);
  return view;
}

function describe(v: unknown): string {
  if (v === undefined) return "nothing";
  const s = JSON.stringify(v);
  return s.length > 40 ? `${s.slice(0, 40)}…` : s;
}

/** The format version of a header: its numeric `version`, else 1 (v1 files have none). */
export function detectVersion(header: { version?: unknown } | undefined): number {
  return header === undefined ? 1 : headerVersion(header);
}
