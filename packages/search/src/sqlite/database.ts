/**
 * The session database on SQLite: the {@link SessionDatabase} interface over one file (or
 * memory), with one FTS5 table of words (`unicode61`, each CJK character a word of its own,
 * and each text field's identifier parts in a column of their own); substrings and regexes
 * are narrowed by it and checked exactly by the caller. This class holds the file rows and
 * the transactions (one per file, or a batch's); a file's rows are written by
 * `file-writer.ts`, searches are `search-query.ts`, usage is `usage-queries.ts`. Open one
 * with `openSqliteDatabase` (`open.ts`).
 */
import { statSync } from "node:fs";
import type {
  Candidates,
  FileWriter,
  IndexedFile,
  SearchRequest,
  SessionDatabase,
  EntrySlot,
  SecretMarks,
  SecretMarksUpdate,
  SecretScanTodo,
  StoredFile,
  TouchQuery,
  TouchRow,
  UsageSession,
  UsageSum,
  UsageSumQuery,
  WriteMode,
} from "../database.js";
import type { SqlConnection } from "./driver.js";
import { FILE_SELECT, dirOf, fileOf } from "./file-rows.js";
import { fileWriter } from "./file-writer.js";
import { ENTRY_ID_SCALE } from "./schema.js";
import { searchCandidates } from "./search-query.js";
import { StatementCache } from "./statements.js";
import { addSecretMarks, entrySlots, secretMarks, secretScanTodo } from "./secret-queries.js";
import { touchRows } from "./touch-queries.js";
import { usageSessions, usageSums } from "./usage-queries.js";
import { num, strOrNull } from "./values.js";

/**
 * Ends a transaction that failed. SQLite may have rolled it back itself already (a full disk, an
 * I/O error): then ROLLBACK fails with "no transaction is active", which must not hide the
 * error that ended it.
 */
function rollbackAfter(db: SqlConnection): void {
  try {
    db.exec("ROLLBACK");
  } catch {
    // Rolled back by SQLite already; the caller rethrows what failed.
  }
}

export class SqliteSessionDatabase implements SessionDatabase {
  readonly backend = "sqlite (node:sqlite)";
  private readonly statements: StatementCache;

  constructor(
    private readonly db: SqlConnection,
    readonly location: string,
  ) {
    this.statements = new StatementCache(db);
  }

  private st(sql: string) {
    return this.statements.get(sql);
  }

  files(filter: { notSessions?: boolean } = {}): Map<string, StoredFile> {
    const out = new Map<string, StoredFile>();
    const rows = this.statements
      .arrays(
        `SELECT path, size, mtime_ms, ctime_ms, ino, indexed_offset, version, session_id FROM files${filter.notSessions ? " WHERE version = 0" : ""}`,
      )
      .all();
    for (const [path, size, mtimeMs, ctimeMs, ino, indexedOffset, version, sessionId] of rows) {
      out.set(String(path), {
        path: String(path),
        size: num(size),
        mtimeMs: num(mtimeMs),
        ctimeMs: num(ctimeMs),
        ino: num(ino),
        indexedOffset: num(indexedOffset),
        version: num(version),
        sessionId: strOrNull(sessionId),
      });
    }
    return out;
  }

  file(path: string): IndexedFile | undefined {
    const row = this.st(`${FILE_SELECT} WHERE f.path = ?`).get(path);
    return row ? fileOf(row) : undefined;
  }

  idNeighbours(id: string): { before: string | null; after: string | null } {
    const before = this.st(`SELECT max(session_id) AS v FROM files WHERE session_id < ?`).get(id);
    const after = this.st(`SELECT min(session_id) AS v FROM files WHERE session_id > ?`).get(id);
    return { before: strOrNull(before?.v), after: strOrNull(after?.v) };
  }

  private fileId(path: string): number | undefined {
    const row = this.st(`SELECT id FROM files WHERE path = ?`).get(path);
    return row ? num(row.id) : undefined;
  }

  /** Removes the rows of a file's entries (and the file row unless `keepFile`). */
  private clearFile(fileId: number, keepFile: boolean): void {
    const first = fileId * ENTRY_ID_SCALE;
    const last = first + ENTRY_ID_SCALE - 1;
    this.st(
      `DELETE FROM words WHERE rowid IN (SELECT id FROM entries WHERE id BETWEEN ? AND ? AND fields != 0)`,
    ).run(first, last);
    this.st(`DELETE FROM entries WHERE id BETWEEN ? AND ?`).run(first, last);
    this.st(`DELETE FROM usage WHERE file_id = ?`).run(fileId);
    this.st(`DELETE FROM usage_totals WHERE file_id = ?`).run(fileId);
    this.st(`DELETE FROM touches WHERE file_id = ?`).run(fileId);
    this.st(`DELETE FROM secrets WHERE file_id = ?`).run(fileId);
    this.st(`DELETE FROM secret_scans WHERE file_id = ?`).run(fileId);
    if (keepFile) this.st(`UPDATE details SET tools = '', models = '', paths = '' WHERE id = ?`).run(fileId);
    else {
      this.st(`DELETE FROM details WHERE id = ?`).run(fileId);
      this.st(`DELETE FROM files WHERE id = ?`).run(fileId);
    }
  }

  /** Inside {@link batch}: files share its transaction. */
  private batching = false;
  /** A file's writer was rolled back inside the batch: the batch cannot commit. */
  private batchFailed = false;

  async batch<T>(fn: () => Promise<T> | T): Promise<T> {
    if (this.batching) return await fn();
    this.db.exec("BEGIN IMMEDIATE");
    this.batching = true;
    this.batchFailed = false;
    try {
      const result = await fn();
      if (this.batchFailed) throw new Error("a file's update failed inside a batch; the batch is undone");
      this.db.exec("COMMIT");
      return result;
    } catch (error) {
      rollbackAfter(this.db);
      throw error;
    } finally {
      this.batching = false;
    }
  }

  /**
   * Starts one file's change: a transaction of its own, or (in a batch) the batch's, whose
   * rollback is the batch's. (No savepoint per file: FTS5 writes its pending index at every
   * savepoint, which would undo what batching saves.)
   */
  private begin(): { commit: () => void; rollback: () => void; abandon: () => void } {
    if (this.batching) {
      return {
        commit: () => {},
        rollback: () => {
          this.batchFailed = true;
        },
        // Nothing was written: the batch goes on.
        abandon: () => {},
      };
    }
    this.db.exec("BEGIN IMMEDIATE");
    const rollback = () => rollbackAfter(this.db);
    return { commit: () => this.db.exec("COMMIT"), rollback, abandon: rollback };
  }

  beginFile(
    path: string,
    decide: (current: IndexedFile | undefined) => WriteMode | undefined,
  ): FileWriter | undefined {
    const tx = this.begin();
    let done = false;
    const rollback = () => {
      if (done) return;
      done = true;
      tx.rollback();
    };
    try {
      const current = this.file(path);
      const mode = decide(current);
      if (mode === undefined) {
        done = true;
        tx.abandon();
        return undefined;
      }
      let fileId = this.fileId(path);
      if (fileId === undefined) {
        // A placeholder row, completed by commit.
        const r = this.st(
          `INSERT INTO files (path, dir, size, mtime_ms, ctime_ms, ino, indexed_offset, next_line, version)
           VALUES (?, ?, 0, 0, 0, 0, 0, 1, 0)`,
        ).run(path, dirOf(path));
        fileId = num(r.lastInsertRowid);
        this.st(`INSERT INTO details (id, head, tail) VALUES (?, x'', x'')`).run(fileId);
      } else if (mode === "replace") {
        this.clearFile(fileId, true);
      }
      return fileWriter(this.statements, {
        fileId,
        rollback,
        finished: () => {
          done = true;
          tx.commit();
        },
      });
    } catch (error) {
      rollback();
      throw error;
    }
  }

  deleteFile(path: string): void {
    const tx = this.begin();
    try {
      const id = this.fileId(path);
      if (id !== undefined) this.clearFile(id, false);
      tx.commit();
    } catch (error) {
      tx.rollback();
      throw error;
    }
  }

  optimize(): void {
    const tx = this.begin();
    try {
      // A query merges the doclists of every segment it reads; one segment is read in one pass.
      this.db.exec(`INSERT INTO words (words) VALUES ('optimize')`);
      tx.commit();
    } catch (error) {
      tx.rollback();
      throw error;
    }
  }

  search(request: SearchRequest): Candidates {
    return searchCandidates(this.statements, request);
  }

  usage(
    filter: { dirs?: readonly string[]; paths?: readonly string[]; rows?: boolean } = {},
  ): UsageSession[] {
    return usageSessions(this.statements, filter);
  }

  usageSums(query: UsageSumQuery): UsageSum[] {
    return usageSums(this.statements, query);
  }

  touches(query: TouchQuery): TouchRow[] {
    return touchRows(this.statements, query);
  }

  secretScanTodo(): SecretScanTodo[] {
    return secretScanTodo(this.statements);
  }

  entrySlots(path: string, fromOrdinal: number, limit: number): EntrySlot[] {
    return entrySlots(this.statements, path, fromOrdinal, limit);
  }

  addSecretMarks(update: SecretMarksUpdate): boolean {
    const tx = this.begin();
    try {
      const done = addSecretMarks(this.statements, update);
      tx.commit();
      return done;
    } catch (error) {
      tx.rollback();
      throw error;
    }
  }

  secretMarks(): SecretMarks[] {
    return secretMarks(this.statements);
  }

  sizeOnDisk(): number {
    if (this.location === ":memory:") return 0;
    let total = 0;
    for (const suffix of ["", "-wal"]) {
      try {
        total += statSync(this.location + suffix).size;
      } catch {
        // No WAL file at the moment.
      }
    }
    return total;
  }

  close(): void {
    this.statements.clear();
    this.db.close();
  }
}
