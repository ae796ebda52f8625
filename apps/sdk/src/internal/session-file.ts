/**
 * One session file as the manager writes it, composed from `@pi-session/node-store`:
 * the first write is `createSessionFile` (exclusive, one write), each later entry goes through
 * a `SessionWriter` (one write, cross-process lock, foreign records handed back, torn tail
 * repaired), and a file that was opened in a form that must change first (a migrated v1/v2
 * file, or a torn fragment to keep in place) is replaced by `rewriteSessionFile` (atomic, with
 * a backup for migrations, malformed lines kept where they were) at the first append.
 *
 * The writer is opened per append and closed right after, as pi's `appendFileSync` does: pi's
 * API has no `close()`, so a writer kept open would leak one descriptor per abandoned manager.
 * The size, line count and inode it ends with are kept, so the next open reads nothing back
 * and a file replaced in between is still refused (the writer checks the inode only while open).
 */
import { existsSync, statSync } from "node:fs";
import type { SessionRecord } from "@pi-session/format";
import {
  createSessionFile,
  type Durability,
  readSessionFileSync,
  rewriteSessionFile,
  SessionFileChangedError,
  type SessionFileContents,
  SessionFileNotFoundError,
  SessionWriter,
  withLock,
} from "@pi-session/node-store";

/** A replacement owed to the file before anything may be appended to it. */
export interface PendingRewrite {
  /** The records to write back, in file order (migrated JSON, raw lines as read). */
  records: SessionRecord[];
  /** Version the file was migrated from: the old bytes are kept as `<file>.v<N>.bak`. */
  migratedFrom?: number;
}

/** Receives the records other processes appended, before our entry is written. */
export type AbsorbForeign = (records: SessionRecord[]) => void;

/** A backup path beside `path` that does not exist yet. */
function freeBackupPath(path: string, tag: string): string {
  let candidate = `${path}.${tag}.bak`;
  for (let n = 1; existsSync(candidate); n++) candidate = `${path}.${tag}.${n}.bak`;
  return candidate;
}

export class SessionFile {
  /** Bytes, lines and inode this process knows the file to have; undefined until it exists. */
  private known: { size: number; lines: number; ino: number } | undefined;
  private pending: (PendingRewrite & { size: number; ino: number }) | undefined;
  durability: Durability = "none";

  constructor(readonly path: string) {}

  /** True once the file exists with our header (created, adopted or initialised). */
  get flushed(): boolean {
    return this.known !== undefined;
  }

  /** Takes over a file just read; `pending` is what must replace it before the first append. */
  adopt(contents: SessionFileContents, pending?: PendingRewrite): void {
    this.known = { size: contents.size, lines: contents.lines, ino: contents.ino };
    this.pending = pending && { ...pending, size: contents.size, ino: contents.ino };
  }

  /** Creates the file with `lines` in one exclusive write (fails if it exists). */
  create(lines: readonly object[]): void {
    const result = createSessionFile(this.path, lines, { durability: this.durability });
    this.known = { size: result.size, lines: lines.length, ino: statSync(this.path).ino };
    this.pending = undefined;
  }

  /** Puts a header into an empty file atomically (refused if the file is no longer empty). */
  initEmpty(header: object): void {
    const result = rewriteSessionFile(this.path, [header], { expectedSize: 0 });
    this.known = { size: result.size, lines: 1, ino: statSync(this.path).ino };
  }

  /**
   * Appends `entry`. `absorb` sees the records other processes appended first (and may change
   * `entry`, e.g. its id); `whole` gives every line of the session, header first, in case the
   * file was deleted and must be written back.
   */
  append(entry: object, absorb: AbsorbForeign, whole: () => object[]): void {
    if (this.pending) {
      this.rewriteWith(entry, absorb, whole);
      return;
    }
    const known = this.known ?? { size: 0, lines: 0, ino: 0 };
    let writer: SessionWriter;
    try {
      if (statSync(this.path).ino !== known.ino) throw new SessionFileChangedError(this.path, "replaced");
      writer = SessionWriter.open(this.path, {
        expectedSize: known.size,
        expectedLines: known.lines,
        durability: this.durability,
      });
    } catch (error) {
      const missing =
        error instanceof SessionFileNotFoundError || (error as { code?: unknown }).code === "ENOENT";
      if (!missing) throw error;
      this.create([...whole(), entry]);
      return;
    }
    try {
      writer.append((foreign) => {
        absorb(foreign);
        return entry;
      });
      this.known = { size: writer.size, lines: writer.lineCount, ino: known.ino };
    } catch (error) {
      if (!(error instanceof SessionFileChangedError && error.reason === "deleted")) throw error;
      this.create([...whole(), entry]);
    } finally {
      writer.close();
    }
  }

  /** The owed replacement plus `entry`, under the lock, taking in what others appended since we read. */
  private rewriteWith(entry: object, absorb: AbsorbForeign, whole: () => object[]): void {
    const pending = this.pending as NonNullable<SessionFile["pending"]>;
    withLock(this.path, {}, () => {
      let stats: { size: number; ino: number };
      try {
        stats = statSync(this.path);
      } catch (error) {
        if ((error as { code?: unknown }).code !== "ENOENT") throw error;
        this.create([...whole(), entry]);
        return;
      }
      if (stats.ino !== pending.ino) throw new SessionFileChangedError(this.path, "replaced");
      if (stats.size < pending.size) throw new SessionFileChangedError(this.path, "truncated");
      let foreign: SessionRecord[] = [];
      let size = stats.size;
      if (stats.size > pending.size) {
        const now = readSessionFileSync(this.path);
        foreign = now.records.filter((record) => record.offset >= pending.size);
        size = now.size;
      }
      absorb(foreign);
      const records = [...pending.records, ...foreign, entry];
      const options: Parameters<typeof rewriteSessionFile>[2] = { lock: false, expectedSize: size };
      if (pending.migratedFrom !== undefined) {
        options.backup = freeBackupPath(this.path, `v${pending.migratedFrom}`);
      }
      const result = rewriteSessionFile(this.path, records, options);
      this.known = { size: result.size, lines: records.length, ino: statSync(this.path).ino };
      this.pending = undefined;
    });
  }
}
