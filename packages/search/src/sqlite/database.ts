/**
 * The session database on SQLite: the {@link SessionDatabase} interface over one file (or
 * memory), with one FTS5 table of words (`unicode61`, each CJK character a word of its own,
 * and each text field's identifier parts in a column of their own); substrings and regexes
 * are narrowed by it and checked exactly by the caller. Use `openSqliteDatabase`; the indexer
 * and the queries only see the interface.
 */
import { statSync } from "node:fs";
import type {
  CandidateRow,
  Candidates,
  EntryRow,
  Facets,
  FileWriter,
  IndexedFile,
  SearchRequest,
  SessionDatabase,
  SessionMeta,
  StoredFile,
  UsageSession,
  WriteMode,
} from "../database.js";
import {
  type QueryTerm,
  TEXT_FIELDS,
  type TextField,
  type TreeLink,
  type NarrowingPhrase,
  type UsageRow,
  identifierParts,
  segmentCjk,
  stemPrefix,
  substringNarrowing,
} from "../documents/index.js";
import {
  type DriverName,
  type SqlConnection,
  type SqlRow,
  type SqlStatement,
  openConnection,
} from "./driver.js";
import { ENTRY_ID_SCALE, FIELD_BIT, PARTS_COLUMN, SCHEMA, SCHEMA_VERSION } from "./schema.js";

/** What opening found, for the caller to warn about. */
export type OpenOutcome = "opened" | "created" | "rebuilt-older";

/** The database file was written by a newer pi-session (a newer schema). */
export class NewerSchemaError extends Error {
  override readonly name = "NewerSchemaError";
  constructor(
    readonly path: string,
    readonly version: number,
  ) {
    super(`${path}: the session database has schema version ${version}, newer than ${SCHEMA_VERSION}`);
  }
}

/** Whether an error is SQLite saying the file is not a database, or a damaged one. */
export function isCorruptionError(error: unknown): boolean {
  const e = error as { code?: unknown; errcode?: unknown; message?: unknown } | null;
  const code = typeof e?.code === "string" ? e.code : "";
  const message = typeof e?.message === "string" ? e.message : "";
  const errcode = typeof e?.errcode === "number" ? e.errcode & 0xff : -1;
  return (
    code.startsWith("SQLITE_CORRUPT") ||
    code.startsWith("SQLITE_NOTADB") ||
    errcode === 11 ||
    errcode === 26 ||
    /database disk image is malformed|file is not a database|malformed/i.test(message)
  );
}

function num(v: unknown): number {
  return typeof v === "bigint" ? Number(v) : typeof v === "number" ? v : 0;
}

function strOrNull(v: unknown): string | null {
  return typeof v === "string" ? v : null;
}

function bytes(v: unknown): Uint8Array {
  return v instanceof Uint8Array ? v : new Uint8Array(0);
}

/** A string as an FTS5 string literal. */
function ftsString(text: string): string {
  return `"${text.replace(/"/g, '""')}"`;
}

/** A facet value as stored: one line (a newline inside one would end it). */
function facetValue(value: string): string {
  return value.replace(/[\n\r]/g, " ");
}

/** The facet text of `stored` with `values` added (each distinct value once, first seen first). */
function facetText(stored: unknown, values: Iterable<string>): string {
  const old = typeof stored === "string" && stored !== "" ? stored.slice(1, -1).split("\n") : [];
  const all = new Set(old);
  for (const v of values) all.add(facetValue(v));
  return all.size === 0 ? "" : `\n${[...all].join("\n")}\n`;
}

const SESSION_COLUMNS =
  "session_id, cwd, created, parent_path, name, first_message, modified_ms, message_count, errored, leaf_id, entry_count";

/** The columns of a whole file row (its facets, which can be long, left out). */
const FILE_COLUMNS = `path, size, mtime_ms, ctime_ms, ino, indexed_offset, next_line, version, head, tail, ${SESSION_COLUMNS}`;

function metaOf(row: SqlRow): SessionMeta | null {
  if (row.session_id === null || row.session_id === undefined) return null;
  return {
    sessionId: String(row.session_id),
    cwd: strOrNull(row.cwd) ?? "",
    created: strOrNull(row.created) ?? "",
    parentPath: strOrNull(row.parent_path),
    name: strOrNull(row.name),
    firstMessage: strOrNull(row.first_message) ?? "",
    modifiedMs: num(row.modified_ms),
    messageCount: num(row.message_count),
    errored: num(row.errored) === 1,
    leafId: strOrNull(row.leaf_id),
    entryCount: num(row.entry_count),
  };
}

function fileOf(row: SqlRow): IndexedFile {
  return {
    path: String(row.path),
    size: num(row.size),
    mtimeMs: num(row.mtime_ms),
    ctimeMs: num(row.ctime_ms),
    ino: num(row.ino),
    indexedOffset: num(row.indexed_offset),
    nextLine: num(row.next_line),
    version: num(row.version),
    head: bytes(row.head),
    tail: bytes(row.tail),
    meta: metaOf(row),
  };
}

function dirOf(path: string): string {
  const cut = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"));
  return cut > 0 ? path.slice(0, cut) : cut === 0 ? path.slice(0, 1) : "";
}

export interface OpenSqliteOptions {
  driver?: DriverName;
}

class SqliteSessionDatabase implements SessionDatabase {
  readonly backend: string;
  private readonly statements = new Map<string, SqlStatement>();

  constructor(
    private readonly db: SqlConnection,
    readonly location: string,
  ) {
    this.backend = `sqlite (${db.driver})`;
  }

  private st(sql: string): SqlStatement {
    let s = this.statements.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.statements.set(sql, s);
    }
    return s;
  }

  files(): Map<string, StoredFile> {
    const out = new Map<string, StoredFile>();
    const rows = this.st(
      `SELECT path, size, mtime_ms, ctime_ms, ino, indexed_offset, version, session_id FROM files`,
    ).all();
    for (const row of rows) {
      const path = String(row.path);
      out.set(path, {
        path,
        size: num(row.size),
        mtimeMs: num(row.mtime_ms),
        ctimeMs: num(row.ctime_ms),
        ino: num(row.ino),
        indexedOffset: num(row.indexed_offset),
        version: num(row.version),
        sessionId: strOrNull(row.session_id),
      });
    }
    return out;
  }

  file(path: string): IndexedFile | undefined {
    const row = this.st(`SELECT ${FILE_COLUMNS} FROM files WHERE path = ?`).get(path);
    return row ? fileOf(row) : undefined;
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
    if (keepFile) this.st(`UPDATE files SET tools = '', models = '', paths = '' WHERE id = ?`).run(fileId);
    else this.st(`DELETE FROM files WHERE id = ?`).run(fileId);
  }

  /** Inside {@link batch}: files share its transaction. */
  private batching = false;
  /** A file's writer was rolled back inside the batch: the batch cannot commit. */
  private batchFailed = false;

  batch<T>(fn: () => T): T {
    if (this.batching) return fn();
    this.db.exec("BEGIN IMMEDIATE");
    this.batching = true;
    this.batchFailed = false;
    try {
      const result = fn();
      if (this.batchFailed) throw new Error("a file's update failed inside a batch; the batch is undone");
      this.db.exec("COMMIT");
      return result;
    } catch (error) {
      this.db.exec("ROLLBACK");
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
    const rollback = () => this.db.exec("ROLLBACK");
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
          `INSERT INTO files (path, dir, size, mtime_ms, ctime_ms, ino, indexed_offset, next_line, version, head, tail)
           VALUES (?, ?, 0, 0, 0, 0, 0, 1, 0, x'', x'')`,
        ).run(path, dirOf(path));
        fileId = num(r.lastInsertRowid);
      } else if (mode === "replace") {
        this.clearFile(fileId, true);
      }
      return this.writer(fileId, rollback, () => {
        done = true;
        tx.commit();
      });
    } catch (error) {
      rollback();
      throw error;
    }
  }

  private writer(fileId: number, rollback: () => void, finished: () => void): FileWriter {
    const insertEntry = this.st(
      `INSERT INTO entries (id, file_id, line, offset, length, entry_id, parent_id, type, role, time_ms, on_branch, fields)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const base = fileId * ENTRY_ID_SCALE;
    const insertWords = this.st(
      `INSERT INTO words (rowid, body, thinking, tool, output, body_parts, thinking_parts, tool_parts, output_parts)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const insertUsage = this.st(
      `INSERT OR REPLACE INTO usage (file_id, ordinal, key, source, model, time_ms, input, output, cache_read, cache_write, total_tokens, cost)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    return {
      add: (rows: readonly EntryRow[]) => {
        for (const row of rows) {
          const d = row.doc;
          let fields = 0;
          for (const f of TEXT_FIELDS) if (d[f] !== "") fields |= FIELD_BIT[f];
          const id = base + row.ordinal;
          insertEntry.run(
            id,
            fileId,
            row.line,
            row.offset,
            row.length,
            d.id,
            d.parentId,
            d.type,
            d.role,
            d.time,
            row.onBranch ? 1 : 0,
            fields,
          );
          if (fields !== 0) {
            insertWords.run(
              id,
              segmentCjk(d.body),
              segmentCjk(d.thinking),
              segmentCjk(d.tool),
              segmentCjk(d.output),
              identifierParts(d.body),
              identifierParts(d.thinking),
              identifierParts(d.tool),
              identifierParts(d.output),
            );
          }
          const u = row.usage;
          if (u) {
            insertUsage.run(
              fileId,
              row.ordinal,
              u.key,
              u.source,
              u.model,
              Number.isNaN(u.time) ? null : u.time,
              u.input,
              u.output,
              u.cacheRead,
              u.cacheWrite,
              u.totalTokens,
              u.cost,
            );
          }
        }
      },
      addFacets: (facets: Facets) => {
        const row = this.st(`SELECT tools, models, paths FROM files WHERE id = ?`).get(fileId);
        this.st(`UPDATE files SET tools = ?, models = ?, paths = ? WHERE id = ?`).run(
          facetText(row?.tools, facets.tools),
          facetText(row?.models, facets.models),
          facetText(row?.paths, facets.files),
          fileId,
        );
      },
      links: () =>
        this.st(
          `SELECT type, entry_id, parent_id, on_branch FROM entries WHERE id BETWEEN ? AND ? ORDER BY id`,
        )
          .all(base, base + ENTRY_ID_SCALE - 1)
          .map((r) => ({
            type: String(r.type),
            id: strOrNull(r.entry_id),
            parentId: strOrNull(r.parent_id),
            onBranch: num(r.on_branch) === 1,
          })) as (TreeLink & { onBranch: boolean })[],
      setBranch: (changes) => {
        const s = this.st(`UPDATE entries SET on_branch = ? WHERE id = ?`);
        for (const c of changes) s.run(c.onBranch ? 1 : 0, base + c.ordinal);
      },
      commit: (file: IndexedFile) => {
        const m = file.meta;
        this.st(
          `UPDATE files SET size = ?, mtime_ms = ?, ctime_ms = ?, ino = ?, indexed_offset = ?, next_line = ?, version = ?,
             head = ?, tail = ?, ${SESSION_COLUMNS.split(", ")
               .map((c) => `${c} = ?`)
               .join(", ")}
           WHERE id = ?`,
        ).run(
          file.size,
          file.mtimeMs,
          file.ctimeMs,
          file.ino,
          file.indexedOffset,
          file.nextLine,
          file.version,
          file.head,
          file.tail,
          m?.sessionId ?? null,
          m?.cwd ?? null,
          m?.created ?? null,
          m?.parentPath ?? null,
          m?.name ?? null,
          m?.firstMessage ?? null,
          m ? m.modifiedMs : null,
          m ? m.messageCount : null,
          m ? (m.errored ? 1 : 0) : null,
          m?.leafId ?? null,
          m ? m.entryCount : null,
          fileId,
        );
        finished();
      },
      rollback,
    };
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

  search(request: SearchRequest): Candidates {
    const mask = request.fields.reduce((m, f) => m | FIELD_BIT[f], 0);
    const texts = request.fields.join(" ");
    const parts = request.fields.map((f) => PARTS_COLUMN[f]).join(" ");
    const inColumns = (cols: string, expr: string) => `{${cols}} : (${expr})`;
    const phrase = (p: NarrowingPhrase) => ftsString(p.tokens.join(" ")) + (p.prefix ? "*" : "");
    const phrases = (ps: readonly NarrowingPhrase[]) => ps.map((p) => inColumns(texts, phrase(p)));
    const words: string[] = [];
    const wordsNot: string[] = [];
    const undecided: QueryTerm[] = [];
    for (const t of request.terms) {
      if (t.kind === "word") {
        const forms = [ftsString(t.text)];
        const stem = stemPrefix(t.text);
        if (stem !== undefined) forms.push(`${ftsString(stem)}*`);
        if (t.prefix) forms.push(`${ftsString(t.text)}*`);
        // Words are found in whole tokens and in identifier parts alike.
        (t.negated ? wordsNot : words).push(inColumns(`${texts} ${parts}`, forms.join(" OR ")));
        continue;
      }
      undecided.push(t);
      // A substring narrows through the tokens it must contain (negations cannot: an entry
      // with the tokens may still lack the substring): at a word start, or from an identifier part.
      if (t.kind !== "substring" || t.negated) continue;
      const n = substringNarrowing(t.text);
      const atWord = phrases(n.phrases);
      if (atWord.length === 0) continue;
      if (!n.part) {
        words.push(...atWord);
        continue;
      }
      const fromPart = [
        inColumns(parts, ftsString(n.part.token) + (n.part.prefix ? "*" : "")),
        ...phrases(n.part.phrases),
      ];
      words.push(`((${atWord.join(" AND ")}) OR (${fromPart.join(" AND ")}))`);
    }
    const params: (string | number)[] = [];
    const where: string[] = [];
    let from: string;
    let score: string;
    const weights = [...TEXT_FIELDS.map((f) => WEIGHTS[f]), ...TEXT_FIELDS.map((f) => WEIGHTS[f] / 2)].join(
      ", ",
    );
    if (words.length > 0) {
      from = `words JOIN entries e ON e.id = words.rowid`;
      where.push(`words MATCH ?`);
      params.push(words.join(" AND "));
      score = `bm25(words, ${weights})`;
    } else {
      from = `entries e`;
      where.push(`(e.fields & ?) != 0`);
      params.push(mask);
      score = "0";
    }
    if (wordsNot.length > 0) {
      where.push(`e.id NOT IN (SELECT rowid FROM words WHERE words MATCH ?)`);
      params.push(wordsNot.join(" OR "));
    }
    const f = request.filters;
    if (f.projects && f.projects.length > 0) {
      const ors: string[] = [];
      for (const dir of f.projects) {
        const prefix = dir.endsWith("/") ? dir : `${dir}/`;
        ors.push(`f.cwd = ? OR substr(f.cwd, 1, ?) = ?`);
        params.push(dir, prefix.length, prefix);
      }
      where.push(`(${ors.join(" OR ")})`);
    }
    if (f.sinceMs !== undefined) {
      where.push(`e.time_ms >= ?`);
      params.push(f.sinceMs);
    }
    if (f.untilMs !== undefined) {
      where.push(`e.time_ms < ?`);
      params.push(f.untilMs);
    }
    if (f.roles && f.roles.length > 0) {
      const roles = f.roles.flatMap((r) => (r === "tool" ? ["toolResult", "bashExecution"] : [r]));
      where.push(`e.role IN (${roles.map(() => "?").join(", ")})`);
      params.push(...roles);
    }
    // A facet value between newlines (see the schema); `suffix`: or ending in `/<value>`.
    const facet = (column: string, value: string, suffix: boolean) => {
      const v = facetValue(value);
      if (suffix) {
        where.push(`(instr(f.${column}, ?) > 0 OR instr(f.${column}, ?) > 0)`);
        params.push(`\n${v}\n`, `/${v}\n`);
      } else {
        where.push(`instr(f.${column}, ?) > 0`);
        params.push(`\n${v}\n`);
      }
    };
    if (f.tool !== undefined) facet("tools", f.tool, false);
    if (f.model !== undefined) facet("models", f.model, true);
    if (f.file !== undefined) facet("paths", f.file, true);
    if (f.errored) where.push(`f.errored = 1`);
    if (f.named) where.push(`f.name IS NOT NULL`);
    const order =
      request.order === "branch" ? "e.on_branch DESC, score, e.time_ms DESC" : "score, e.time_ms DESC";
    const sql = `SELECT f.path, e.id - e.file_id * ${ENTRY_ID_SCALE} AS ordinal, e.line, e.offset, e.length, e.entry_id, e.type, e.role, e.time_ms, e.on_branch, ${score} AS score
      FROM ${from} JOIN files f ON f.id = e.file_id
      WHERE ${where.join(" AND ")}
      ORDER BY ${order}, f.path, e.id`;
    const statement = this.db.prepare(sql);
    function* rows(): Generator<CandidateRow> {
      for (const r of statement.iterate(...params)) {
        yield {
          path: String(r.path),
          ordinal: num(r.ordinal),
          line: num(r.line),
          offset: num(r.offset),
          length: num(r.length),
          entryId: strOrNull(r.entry_id),
          type: String(r.type),
          role: strOrNull(r.role),
          timeMs: r.time_ms === null ? null : num(r.time_ms),
          onBranch: num(r.on_branch) === 1,
          score: num(r.score),
        };
      }
    }
    return { rows: rows(), undecided };
  }

  usage(filter: { dirs?: readonly string[] } = {}): UsageSession[] {
    const dirs = filter.dirs;
    const where = dirs ? `AND dir IN (${dirs.map(() => "?").join(", ")})` : "";
    const files = this.st(
      `SELECT id, path, ${SESSION_COLUMNS} FROM files WHERE version > 0 ${where} ORDER BY id`,
    ).all(...(dirs ?? []));
    const byId = new Map<number, UsageSession>();
    for (const row of files) {
      const meta = metaOf(row);
      if (meta) byId.set(num(row.id), { path: String(row.path), meta, usage: [] });
    }
    const usageSql = `SELECT u.* FROM usage u ${dirs ? `JOIN files f ON f.id = u.file_id WHERE f.dir IN (${dirs.map(() => "?").join(", ")})` : ""} ORDER BY u.file_id, u.ordinal`;
    for (const r of this.st(usageSql).iterate(...(dirs ?? []))) {
      const s = byId.get(num(r.file_id));
      if (!s) continue;
      const row: UsageRow = {
        key: String(r.key),
        source: String(r.source) as UsageRow["source"],
        model: String(r.model),
        time: r.time_ms === null ? Number.NaN : num(r.time_ms),
        input: num(r.input),
        output: num(r.output),
        cacheRead: num(r.cache_read),
        cacheWrite: num(r.cache_write),
        totalTokens: num(r.total_tokens),
        cost: num(r.cost),
      };
      s.usage.push(row);
    }
    return [...byId.values()];
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

/**
 * Column weights of the BM25 rank: conversation text counts most, tool output least; a word
 * found in an identifier part counts half as much as in the field's text.
 */
const WEIGHTS: Record<TextField, number> = { body: 1, thinking: 0.5, tool: 0.7, output: 0.4 };

/** The connection settings every database gets. */
function configure(db: SqlConnection, persistent: boolean): void {
  db.exec("PRAGMA busy_timeout = 30000");
  if (persistent) {
    db.exec("PRAGMA journal_mode = WAL");
    // A cache: losing the last transactions to a power cut only costs re-indexing them.
    db.exec("PRAGMA synchronous = NORMAL");
  }
}

function schemaVersion(db: SqlConnection): number | undefined {
  const table = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'meta'`).get();
  if (!table) return undefined;
  const row = db.prepare(`SELECT value FROM meta WHERE key = 'schema'`).get();
  return row ? Number(row.value) : 0;
}

function createSchema(db: SqlConnection): void {
  db.exec("BEGIN IMMEDIATE");
  try {
    // Another process may have created it while this one waited for the lock.
    if (schemaVersion(db) === SCHEMA_VERSION) {
      db.exec("COMMIT");
      return;
    }
    const tables = db
      .prepare(
        `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '%\\_%' ESCAPE '\\'`,
      )
      .all()
      .map((r) => String(r.name));
    for (const t of tables) db.exec(`DROP TABLE IF EXISTS "${t.replace(/"/g, '""')}"`);
    db.exec(SCHEMA);
    db.prepare(`INSERT INTO meta (key, value) VALUES ('schema', ?)`).run(String(SCHEMA_VERSION));
    db.exec("COMMIT");
  } catch (error) {
    db.exec("ROLLBACK");
    throw error;
  }
}

/**
 * Opens (or creates) the session database at `path` (`:memory:` for none). A database of an
 * older schema is rebuilt empty; one of a newer schema throws {@link NewerSchemaError}; a file
 * that is not a database or is damaged throws an error {@link isCorruptionError} recognizes.
 */
export async function openSqliteDatabase(
  path: string,
  options: OpenSqliteOptions = {},
): Promise<{ database: SessionDatabase; outcome: OpenOutcome }> {
  const db = await openConnection(path, options.driver);
  try {
    const persistent = path !== ":memory:";
    configure(db, persistent);
    const version = schemaVersion(db);
    let outcome: OpenOutcome = "opened";
    if (version === undefined || version < SCHEMA_VERSION) {
      outcome = version === undefined ? "created" : "rebuilt-older";
      createSchema(db);
    } else if (version > SCHEMA_VERSION) {
      throw new NewerSchemaError(path, version);
    }
    return { database: new SqliteSessionDatabase(db, path), outcome };
  } catch (error) {
    db.close();
    throw error;
  }
}
