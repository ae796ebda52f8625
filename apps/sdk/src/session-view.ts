/**
 * The read side of a session, as pi 1.6.0's `SessionManager` has it: where it lives, its
 * header, entries, leaf, branches, labels, name, tree and context. `SessionManager` extends it
 * with everything that changes the session; `ReadonlySessionManager` (pi's read-only subset
 * for extensions) is a part of it.
 */
import { buildContextEntries, buildSessionProjection } from "@pi-session/context";
import { pathsEqual, resolvePiPath } from "@pi-session/node-store";
import type { SessionIndex } from "@pi-session/tree";
import type { LazySession } from "./internal/lazy-session.js";
import { defaultSessionDirPath } from "./internal/session-dirs.js";
import { SessionEntries } from "./internal/session-entries.js";
import type {
  SessionContext,
  SessionEntry,
  SessionHeader,
  SessionProjection,
  SessionTreeNode,
} from "./types.js";

/** Where a session view lives; the manager's constructor options extend it. */
export interface SessionPlace {
  cwd: string;
  /** The session directory; "" for a session in memory. */
  sessionDir: string;
  /** False for a session that never touches the disk. */
  persist: boolean;
  /** A read-only view: nothing is ever written. */
  readOnly?: boolean;
}

export class SessionView {
  protected sessionId = "";
  protected sessionFile: string | undefined;
  protected readonly sessionDir: string;
  protected cwd: string;
  protected readonly persist: boolean;
  protected readonly readOnly: boolean;
  protected header!: SessionHeader;
  #session = new SessionEntries();
  /**
   * A session opened lazily (decision 101): while set, the read methods below ask it, and
   * {@link session} (everything else) first turns it into the eager entries.
   */
  protected lazy: LazySession | undefined;

  protected constructor(place: SessionPlace) {
    this.cwd = resolvePiPath(place.cwd);
    this.sessionDir = place.sessionDir ? resolvePiPath(place.sessionDir) : "";
    this.persist = place.persist;
    this.readOnly = place.readOnly ?? false;
  }

  /** The entries and their index; a lazily opened session is parsed whole first (its leaf kept). */
  protected get session(): SessionEntries {
    const lazy = this.lazy;
    if (lazy !== undefined) {
      this.lazy = undefined;
      const session = new SessionEntries(lazy.entries());
      // An index never built is a leaf never moved: the eager index finds the same one.
      if (lazy.leafMayHaveMoved) {
        const leaf = lazy.leafId;
        if (session.index.leafId !== leaf) session.index.setLeaf(leaf);
      }
      this.#session = session;
      lazy.close();
    }
    return this.#session;
  }

  /** Whether some entry has this id (without parsing a lazily opened session). */
  protected hasEntry(id: string): boolean {
    return this.lazy ? this.lazy.has(id) : this.index.has(id);
  }

  /** Moves the leaf (`branch`, `resetLeaf`); a lazily opened session stays lazy. */
  protected setLeaf(id: string | null): void {
    if (this.lazy) this.lazy.setLeaf(id);
    else this.index.setLeaf(id);
  }

  /** Adds an entry (already written) as the new leaf; a lazily opened session stays lazy. */
  protected appendToSession(entry: SessionEntry): void {
    if (this.lazy) this.lazy.append(entry);
    else this.session.append(entry);
  }

  /** Replaces the session (a lazily opened one is dropped). */
  protected set session(entries: SessionEntries) {
    this.lazy?.close();
    this.lazy = undefined;
    this.#session = entries;
  }

  /** Every entry after the header, in file order (including any the index would not take). */
  protected get entries(): SessionEntry[] {
    return this.session.list;
  }

  protected get index(): SessionIndex<SessionEntry> {
    return this.session.index;
  }

  isPersisted(): boolean {
    return this.persist;
  }

  getCwd(): string {
    return this.cwd;
  }

  getSessionDir(): string {
    return this.sessionDir;
  }

  usesDefaultSessionDir(): boolean {
    return pathsEqual(this.sessionDir, defaultSessionDirPath(this.cwd));
  }

  getSessionId(): string {
    return this.sessionId;
  }

  getSessionFile(): string | undefined {
    return this.sessionFile;
  }

  /** Not in pi: is this a read-only view (from `SessionManager.openReadonly`)? */
  isReadonly(): boolean {
    return this.readOnly;
  }

  getLeafId(): string | null {
    if (this.lazy) return this.lazy.leafId;
    return this.index.leafId;
  }

  getLeafEntry(): SessionEntry | undefined {
    if (this.lazy) return this.lazy.leafEntry;
    return this.index.leafEntry;
  }

  getEntry(id: string): SessionEntry | undefined {
    if (this.lazy) return this.lazy.get(id);
    return this.index.get(id);
  }

  /**
   * Direct children of an entry. As pi, one entry per id (the one `getEntry` returns), in the
   * order each id was first seen.
   */
  getChildren(parentId: string): SessionEntry[] {
    return this.session.children(parentId);
  }

  getLabel(id: string): string | undefined {
    if (this.lazy) return this.lazy.index.getLabel(id);
    return this.index.getLabel(id);
  }

  /** Root-to-entry path (default: the leaf). Stops at a cycle instead of looping. */
  getBranch(fromId?: string): SessionEntry[] {
    const lazy = this.lazy;
    const startId = fromId ?? (lazy ? lazy.leafId : this.index.leafId);
    if (!startId) return [];
    return lazy ? lazy.pathTo(startId) : this.index.pathTo(startId);
  }

  buildContextEntries(): SessionEntry[] {
    if (this.lazy) return this.lazy.contextEntries();
    return buildContextEntries(this.entries, this.index.leafId, this.index);
  }

  buildSessionProjection(): SessionProjection {
    if (this.lazy) return this.lazy.projection();
    return buildSessionProjection(this.entries, this.index.leafId, this.index);
  }

  buildSessionContext(): SessionContext {
    if (this.lazy) return this.lazy.context();
    const { messages, thinkingLevel, model } = this.buildSessionProjection();
    return { messages, thinkingLevel, model };
  }

  getHeader(): SessionHeader | null {
    return this.header;
  }

  getEntryCount(): number {
    if (this.lazy) return this.lazy.index.distinctIds;
    return this.index.byId.size;
  }

  /** All entries except the header, in file order (a shallow copy). */
  getEntries(): SessionEntry[] {
    if (this.lazy) return this.lazy.entries().slice();
    return this.entries.slice();
  }

  /**
   * The session as a forest; children sorted by timestamp, labels with their timestamps.
   * Unlike pi, each line is its own node and an entry is never its own descendant, so
   * duplicate ids or cycles cannot make the result infinite (one member of a cycle is a root).
   */
  getTree(): SessionTreeNode[] {
    return this.index.getTree();
  }

  /** The name from the latest `session_info` entry (an empty name clears it). */
  getSessionName(): string | undefined {
    if (this.lazy) return this.lazy.index.sessionName;
    return this.index.sessionName;
  }
}

/** The read-only subset pi hands to extensions. */
export type ReadonlySessionManager = Pick<
  SessionView,
  | "getCwd"
  | "getSessionDir"
  | "getSessionId"
  | "getSessionFile"
  | "getLeafId"
  | "getLeafEntry"
  | "getEntry"
  | "getLabel"
  | "getBranch"
  | "buildContextEntries"
  | "buildSessionProjection"
  | "getHeader"
  | "getEntries"
  | "getTree"
  | "getSessionName"
>;
