/**
 * One session file as the manager writes it, through node-store: created in one exclusive
 * write, then appended to by one `SessionWriter` kept open (one write per entry under the lease
 * lock of decision 005, foreign lines handed back, a torn tail moved aside); a migrated file is
 * first replaced atomically, with a backup. pi has no `close()`: the writer is also released on
 * garbage collection and at exit, and dropped after a failed append. Use it for every write.
 */
import type { SessionRecord } from "@pi-session/format";
import {
  createSessionFile,
  type Durability,
  statPath,
  type LockOptions,
  migrationBackupPath,
  readSessionFileSync,
  rewriteSessionFile,
  SessionFileChangedError,
  type SessionFileContents,
  SessionFileNotFoundError,
  SessionWriter,
  withLock,
} from "@pi-session/node-store";

/** Attempts of a rewrite that finds the file grown by a writer that takes no lock. */
const REWRITE_ATTEMPTS = 3;

/** A replacement owed to the file before anything may be appended to it. */
export interface PendingRewrite {
  /** The records to write back, in file order (migrated JSON, raw lines as read). */
  records: SessionRecord[];
  /** Version the file was migrated from: the old bytes are kept as `<file>.v<N>.bak`. */
  migratedFrom?: number;
}

/** An owed rewrite with the size and inode of the file it replaces. */
type OwedRewrite = PendingRewrite & { size: number; ino: number };

/** Receives the records other processes appended, before our entry is written. */
export type AbsorbForeign = (records: SessionRecord[]) => void;

/**
 * The open writer of one `SessionFile`, in a box of its own: the finalizer and the exit hook
 * hold the box, never the `SessionFile` (or the manager), so holding it keeps nothing alive.
 */
interface WriterSlot {
  writer: SessionWriter | undefined;
}

/** Slots with an open writer, closed by the exit hook (releases a held lock lease). */
const openSlots = new Set<WriterSlot>();
let exitHookInstalled = false;

function closeSlot(slot: WriterSlot): void {
  const writer = slot.writer;
  slot.writer = undefined;
  openSlots.delete(slot);
  if (!writer) return;
  try {
    writer.close();
  } catch {
    // Closing an fd that is already gone; nothing else to release.
  }
}

/** Closes the writer of a `SessionFile` that was garbage-collected without being closed. */
const finalizer = new FinalizationRegistry<WriterSlot>(closeSlot);

function closeAllSlots(): void {
  for (const slot of [...openSlots]) closeSlot(slot);
}

/** The inode of the file at `path`; {@link SessionFileNotFoundError} when there is none. */
function inodeOf(path: string): number {
  const identity = statPath(path);
  if (!identity) throw new SessionFileNotFoundError(path);
  return identity.ino;
}

export class SessionFile {
  /** Bytes, lines and inode this process knows the file to have; undefined until it exists. */
  private known: { size: number; lines: number; ino: number } | undefined;
  private pending: OwedRewrite | undefined;
  private durabilityMode: Durability = "none";
  /** Lock options of every write (a shorter timeout, say); changing them reopens the writer. */
  private lockOpts: LockOptions = {};
  private readonly slot: WriterSlot = { writer: undefined };
  /** The entry and absorber of the append in progress, for {@link produce}. */
  private appending: object | undefined;
  private absorbing: AbsorbForeign | undefined;
  /** What the writer is handed: one function for every append, not a closure each (decision 132). */
  private readonly produce = (foreign: SessionRecord[]): object => {
    (this.absorbing as AbsorbForeign)(foreign);
    return this.appending as object;
  };

  constructor(readonly path: string) {
    finalizer.register(this, this.slot, this.slot);
  }

  get durability(): Durability {
    return this.durabilityMode;
  }

  /** Changing it reopens the writer at the next append (a writer's durability is fixed). */
  set durability(mode: Durability) {
    if (mode !== this.durabilityMode) this.close();
    this.durabilityMode = mode;
  }

  get lockOptions(): LockOptions {
    return this.lockOpts;
  }

  set lockOptions(options: LockOptions) {
    this.close();
    this.lockOpts = options;
  }

  /** True while a writer (an open descriptor) is held. */
  get isOpen(): boolean {
    return this.slot.writer !== undefined;
  }

  /** Closes the writer and gives up its lock lease; the next append opens a new one. */
  close(): void {
    closeSlot(this.slot);
  }

  /** True once the file exists with our header (created, adopted or initialised). */
  get flushed(): boolean {
    return this.known !== undefined;
  }

  /** Takes over a file just read; `pending` is what must replace it before the first append. */
  adopt(
    contents: Pick<SessionFileContents, "size" | "lines" | "ino" | "tornTail">,
    pending?: PendingRewrite,
  ): void {
    // A torn fragment may be another process's append still being written (a read is not
    // atomic with a write): what we know ends before it, and the next append reads the line
    // there again: whole, as a foreign one; still torn, it is moved to a sidecar (by the
    // writer's repair, or the owed rewrite), both after checks that it is not growing.
    const torn = contents.tornTail?.kind === "fragment" ? contents.tornTail : undefined;
    const size = torn ? torn.offset : contents.size;
    this.known = { size, lines: torn ? contents.lines - 1 : contents.lines, ino: contents.ino };
    if (!pending) {
      this.pending = undefined;
      return;
    }
    const records = torn
      ? pending.records.filter((r) => !(r.kind === "raw" && r.offset === torn.offset))
      : pending.records;
    this.pending = { ...pending, records, size, ino: contents.ino };
  }

  /** Creates the file with `lines` in one exclusive write (fails if it exists). */
  create(lines: readonly object[]): void {
    this.close();
    const result = createSessionFile(this.path, lines, { durability: this.durability });
    this.known = { size: result.size, lines: lines.length, ino: inodeOf(this.path) };
    this.pending = undefined;
  }

  /** Puts a header into an empty file atomically (refused if the file is no longer empty). */
  initEmpty(header: object): void {
    this.close();
    const result = rewriteSessionFile(this.path, [header], { expectedSize: 0, lockOptions: this.lockOpts });
    this.known = { size: result.size, lines: 1, ino: inodeOf(this.path) };
  }

  /**
   * Appends `entry`. `absorb` sees the records other processes appended first (and may change
   * `entry`, e.g. its id); `whole` gives every line of the session, header first, in case the
   * file was deleted and must be written back.
   */
  append(entry: object, absorb: AbsorbForeign, whole: () => object[]): void {
    const pending = this.pending;
    if (pending) {
      this.close();
      this.rewriteWith(pending, entry, absorb, whole);
      return;
    }
    const known = this.known ?? { size: 0, lines: 0, ino: 0 };
    let writer = this.slot.writer;
    if (!writer) {
      try {
        if (inodeOf(this.path) !== known.ino) throw new SessionFileChangedError(this.path, "replaced");
        writer = SessionWriter.open(this.path, {
          expectedSize: known.size,
          expectedLines: known.lines,
          durability: this.durabilityMode,
          lockOptions: this.lockOpts,
        });
      } catch (error) {
        const missing =
          error instanceof SessionFileNotFoundError || (error as { code?: unknown }).code === "ENOENT";
        if (!missing) throw error;
        this.create([...whole(), entry]);
        return;
      }
      this.attach(writer);
    }
    this.appending = entry;
    this.absorbing = absorb;
    try {
      writer.append(this.produce);
      if (this.known) {
        this.known.size = writer.size;
        this.known.lines = writer.lineCount;
      } else {
        this.known = { size: writer.size, lines: writer.lineCount, ino: known.ino };
      }
    } catch (error) {
      // Start the next append afresh from what we know (size, lines, inode).
      this.close();
      if (!(error instanceof SessionFileChangedError && error.reason === "deleted")) throw error;
      this.create([...whole(), entry]);
    } finally {
      this.appending = undefined;
      this.absorbing = undefined;
    }
  }

  private attach(writer: SessionWriter): void {
    this.slot.writer = writer;
    openSlots.add(this.slot);
    if (!exitHookInstalled) {
      exitHookInstalled = true;
      process.once("exit", closeAllSlots);
    }
  }

  /**
   * The owed replacement plus `entry`, under the lock, taking in what others appended since we
   * read. A writer that takes no lock (pi) may append while the new file is written: the
   * rewrite then refuses (reason `appended`, nothing lost) and is tried again with those lines.
   */
  private rewriteWith(
    pending: OwedRewrite,
    entry: object,
    absorb: AbsorbForeign,
    whole: () => object[],
  ): void {
    for (let attempt = 1; ; attempt++) {
      try {
        this.rewriteOnce(pending, entry, absorb, whole);
        return;
      } catch (error) {
        const grew = error instanceof SessionFileChangedError && error.reason === "appended";
        if (!grew || attempt >= REWRITE_ATTEMPTS) throw error;
      }
    }
  }

  private rewriteOnce(
    pending: OwedRewrite,
    entry: object,
    absorb: AbsorbForeign,
    whole: () => object[],
  ): void {
    withLock(this.path, this.lockOpts, () => {
      const stats = statPath(this.path);
      if (!stats) {
        this.create([...whole(), entry]);
        return;
      }
      if (stats.ino !== pending.ino) throw new SessionFileChangedError(this.path, "replaced");
      if (stats.size < pending.size) throw new SessionFileChangedError(this.path, "truncated");
      let foreign: SessionRecord[] = [];
      let torn: SessionRecord[] = [];
      let size = stats.size;
      if (stats.size > pending.size) {
        const now = readSessionFileSync(this.path, { maxDiagnostics: 0 });
        // A torn last line may be an append still being written: not taken in (a retry reads
        // it again); the rewrite moves it aside, unless it grows meanwhile.
        const tail = now.tornTail?.kind === "fragment" ? now.tornTail.offset : Number.POSITIVE_INFINITY;
        foreign = now.records.filter((record) => record.offset >= pending.size && record.offset < tail);
        torn = now.records.filter((record) => record.offset >= tail);
        size = now.size;
        // Taken in for good: a retry reads only what comes after.
        pending.records = [...pending.records, ...foreign];
        pending.size = Math.min(size, tail);
      }
      absorb(foreign);
      // A fragment still torn goes to a `.torn-*` sidecar, not back into the file; if it was an
      // append in flight, the file grows before the rename, the rewrite refuses (the sidecar
      // is removed again) and the next try reads the line whole.
      const records = [...pending.records, ...torn, entry];
      const options: Parameters<typeof rewriteSessionFile>[2] = {
        lock: false,
        expectedSize: size,
        quarantineTornTail: true,
      };
      if (pending.migratedFrom !== undefined) {
        options.backup = migrationBackupPath(this.path, pending.migratedFrom);
      }
      const result = rewriteSessionFile(this.path, records, options);
      this.known = { size: result.size, lines: records.length, ino: inodeOf(this.path) };
      this.pending = undefined;
    });
  }
}
