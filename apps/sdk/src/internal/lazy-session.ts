/**
 * A session opened lazily (decision 101): node-store's `LazySessionFile` (one scan of the
 * bytes, entries parsed on demand) and tree's `SlotIndex` over it, answering the read side of
 * `SessionManager` (leaf, entries by id, branches, labels, name, context) while parsing only
 * what each answer returns. Appends and a moved leaf stay lazy: an appended entry becomes a
 * new slot with its object cached ({@link LazySession.append}), `branch`/`resetLeaf` move the
 * slot index's leaf. `SessionView` asks it while it is there; anything else (children, the
 * tree, entries another process appended, a whole rewrite) first turns the session into the
 * eager `SessionEntries` over the same entry objects ({@link LazySession.entries}).
 *
 * Use {@link openLazy} at open; it gives undefined where the eager path must read the file
 * (see `openLazySessionFile`), and always when {@link setLazyOpen} turned it off.
 */
import {
  contextOfPathAccess,
  type PathAccess,
  projectPathAccess,
  type SessionContext,
  type SessionProjection,
  selectContextAccess,
} from "@pi-session/context";
import { ENTRY_TYPES, indexRoleOf } from "@pi-session/format";
import { type LazySessionFile, openLazySessionFile } from "@pi-session/node-store";
import { SlotIndex } from "@pi-session/tree";
import type { SessionEntry, SessionHeader } from "../types.js";

/** The entry types whose values the index keeps (labels, the name): read whole at open. */
const INDEXED_TYPES = ENTRY_TYPES.filter((type) => indexRoleOf(type) !== "none");

let lazyOpen = process.env.PI_SESSION_EAGER_OPEN !== "1";

/** Turns the lazy open on or off (tests compare both; `PI_SESSION_EAGER_OPEN=1` starts it off). */
export function setLazyOpen(enabled: boolean): void {
  lazyOpen = enabled;
}

/** Opens `path` lazily, or undefined when the eager path must read it. */
export function openLazy(path: string): LazySession | undefined {
  if (!lazyOpen) return undefined;
  const file = openLazySessionFile(path);
  return file ? new LazySession(file) : undefined;
}

export class LazySession {
  readonly file: LazySessionFile;
  #index: SlotIndex | undefined;

  constructor(file: LazySessionFile) {
    this.file = file;
  }

  /**
   * The slot index, built on first use: `getEntries()` and the header need none, and an
   * index is made before any slot is appended (appends and leaf moves go through it).
   */
  get index(): SlotIndex {
    if (this.#index === undefined) {
      const file = this.file;
      // Label and session_info lines were parsed at open (the scanner calls them SLOW).
      const meta = file.scannedSlotsOfType(INDEXED_TYPES).map((slot) => ({ slot, entry: file.entry(slot) }));
      this.#index = new SlotIndex(file, meta);
    }
    return this.#index;
  }

  /** Whether the leaf may differ from the last entry's (the index was built, so it may have moved). */
  get leafMayHaveMoved(): boolean {
    return this.#index !== undefined;
  }

  /** The header, under pi's type (see `types.ts`). */
  get header(): SessionHeader {
    return this.file.header as SessionHeader;
  }

  get leafId(): string | null {
    return this.index.leafId;
  }

  /** Whether some entry has this id. */
  has(id: string): boolean {
    return this.index.has(id);
  }

  /** Adds an entry this process wrote (already in the file) as the new leaf, parsing nothing. */
  append(entry: SessionEntry): void {
    const record = entry as unknown as Record<string, unknown>;
    // The index first: built after the new slot, it would count that slot twice.
    const index = this.index;
    const slot = this.file.appendEntry(record);
    index.append(slot, record);
  }

  /** Moves the leaf (pi's `branch`; null: `resetLeaf`). Throws `Entry <id> not found`. */
  setLeaf(id: string | null): void {
    this.index.setLeaf(id);
  }

  /** The entry with this id (its last occurrence). */
  get(id: string): SessionEntry | undefined {
    const slot = this.index.find(id);
    return slot < 0 ? undefined : this.entryAt(slot);
  }

  get leafEntry(): SessionEntry | undefined {
    const slot = this.index.leafSlot;
    return slot < 0 ? undefined : this.entryAt(slot);
  }

  /** Root-to-entry path of `id` (`[]` when unknown), as `SessionIndex.pathTo`. */
  pathTo(id: string): SessionEntry[] {
    return Array.from(this.index.pathTo(id), (slot) => this.entryAt(slot));
  }

  /** Every entry after the header, in file order (the eager path's list). */
  entries(): SessionEntry[] {
    return this.file.entries() as unknown as SessionEntry[];
  }

  contextEntries(): SessionEntry[] {
    return selectContextAccess(this.#leafPath());
  }

  projection(): SessionProjection<SessionEntry> {
    return projectPathAccess(this.#leafPath());
  }

  context(): SessionContext {
    return contextOfPathAccess(this.#leafPath());
  }

  close(): void {
    this.file.close();
  }

  entryAt(slot: number): SessionEntry {
    return this.file.entry(slot) as unknown as SessionEntry;
  }

  /** The path to the leaf as the context reads it: codes first, entries parsed when read. */
  #leafPath(): PathAccess<SessionEntry> {
    const leaf = this.index.leafSlot;
    const slots = leaf < 0 ? new Int32Array(0) : this.index.pathFrom(leaf);
    const file = this.file;
    return {
      length: slots.length,
      typeAt: (i) => file.typeOf(slots[i] as number),
      isAssistantAt: (i) => file.isAssistantMessage(slots[i] as number),
      idAt: (i) => file.idOf(slots[i] as number) as string,
      // Every slot of a path is the one the index keeps for its id (the last occurrence), so
      // the first position with an id is where the index's slot for it is.
      indexOfId: (id, end) => {
        const slot = typeof id === "string" ? this.index.find(id) : -1;
        const at = slot < 0 ? -1 : slots.indexOf(slot);
        return at < end ? at : -1;
      },
      entryAt: (i) => this.entryAt(slots[i] as number),
    };
  }
}
