/**
 * A branch as a clean session file: the header (as v3) and the entries from the root to the
 * leaf, one JSON line each, in pi's key order. Hand the result to any tool that reads pi
 * sessions; it is a valid v3 file whose leaf is the chosen entry.
 */
import {
  type AnyEntry,
  CURRENT_SESSION_VERSION,
  type SessionHeader,
  serializeLine,
} from "@pi-session/format";
import type { RenderSession } from "./source.js";

export interface JsonlOptions {
  /** The branch's leaf (default: the session's leaf); `null` gives the header alone. */
  leafId?: string | null;
  /** Every entry in file order instead of one branch. */
  allBranches?: boolean;
}

/** The lines (without `\n`) of the branch as a v3 file: header first. */
export function branchJsonlLines(session: RenderSession, options: JsonlOptions = {}): Generator<string> {
  const { index } = session;
  const entries: readonly AnyEntry[] = options.allBranches
    ? index.entries
    : index.activePath(options.leafId === undefined ? index.leafId : options.leafId);
  return jsonlLines(session.header, entries);
}

/** The lines of a v3 file holding `entries` (read once, in order) under `header`. */
export function* jsonlLines(
  header: SessionHeader | undefined,
  entries: Iterable<AnyEntry>,
): Generator<string> {
  if (header) yield line({ ...header, version: CURRENT_SESSION_VERSION });
  for (const entry of entries) yield line(entry);
}

/** pi's line of an entry (format's serializer writes one nested beyond JSON.stringify's stack too). */
function line(entry: object): string {
  return serializeLine(entry);
}
