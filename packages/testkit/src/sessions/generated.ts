/**
 * What the session generators return: a session as structured data ({@link GeneratedSession}),
 * the options of the tree generators, the ids they assign ({@link idFor}), and the session as a
 * file ({@link toJsonl}, {@link toBytes}).
 */
import type { AnyEntry, SessionHeader } from "@pi-session/format";
import type { DraftType } from "../arbitraries.js";

/** A generated session file as structured data. */
export interface GeneratedSession<E extends { type: string } = AnyEntry> {
  /** The format version the file is written in (v1 headers carry no `version`). */
  version: 1 | 2 | 3;
  header: SessionHeader;
  /** Entries in file order. */
  entries: E[];
  /**
   * Id of the last entry in file order: the leaf pi selects on load. Absent for v1 files
   * (no ids) and for sessions without entries.
   */
  leafId?: string;
  /** Human-readable list of the faults injected (only with `faults: true`). */
  faults?: string[];
}

export interface SessionOptions {
  /** Upper bound on the number of entries (default 40). */
  maxEntries?: number;
  /** Lower bound on the number of entries (default 0). */
  minEntries?: number;
  /** Only generate these entry types (default: all, including unknown types). */
  entryTypes?: readonly DraftType[];
  /**
   * Inject at least one structural fault when there is an entry: an orphan (missing
   * parent), a duplicate id, a self-parent or a parent cycle. Off by default.
   */
  faults?: boolean;
  /** Write entries in a random file order instead of parents-before-children. */
  shuffle?: boolean;
}

/**
 * The 8-hex id number `i` of a session salted with `salt`: a bijection on 32-bit
 * integers, so distinct `i` always give distinct ids (no collision checks needed), and
 * `idFor(n + k, salt)` is guaranteed not to be one of the first `n` ids.
 */
export function idFor(i: number, salt: number): string {
  let x = (i + salt) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x45d9f3b) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x45d9f3b) >>> 0;
  x = (x ^ (x >>> 16)) >>> 0;
  return x.toString(16).padStart(8, "0");
}

/** The session as JSONL text: header line, then one line per entry, each ending in `\n`. */
export function toJsonl(session: { header: unknown; entries: readonly unknown[] }): string {
  const lines = [JSON.stringify(session.header)];
  for (const e of session.entries) lines.push(JSON.stringify(e));
  return `${lines.join("\n")}\n`;
}

const encoder = new TextEncoder();

/** {@link toJsonl} encoded as UTF-8. */
export function toBytes(session: { header: unknown; entries: readonly unknown[] }): Uint8Array {
  return encoder.encode(toJsonl(session));
}
