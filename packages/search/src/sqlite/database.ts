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
  UsageSum,
  UsageSumQuery,
  WriteMode,
} from "../database.js";
import {
  type QueryTerm,
  TEXT_FIELDS,
  type TextField,
  type TreeLink,
  type NarrowingPhrase,
  type UsageRow,
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

/** A summed row (`g` the group) as a {@link UsageSum}. */
function sumOf(r: SqlRow): UsageSum {
  return {
    group: r.g === null || r.g === undefined ? null : typeof r.g === "string" ? r.g : num(r.g),
    input: num(r.input),
    output: num(r.output),
    cacheRead: num(r.cache_read),
    cacheWrite: num(r.cache_write),
    totalTokens: num(r.total_tokens),
    cost: num(r.cost),
    records: num(r.records),
    zeroCostWithTokens: num(r.zero),
  };
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

/** The session columns of `files` (the first message is in `details`). */
const SESSION_COLUMNS =
  "session_id, cwd, created, parent_path, name, modified_ms, message_count, errored, leaf_id, entry_count, usage_repeats";

/** A whole file row (its facets, which can be long, left out): `files` joined with `details`. */
const FILE_SELECT = `SELECT f.path, f.size, f.mtime_ms, f.ctime_ms, f.ino, f.indexed_offset, f.next_line, f.version,
  d.head, d.tail, d.first_message, ${SESSION_COLUMNS.split(", ")
    .map((c) => `f.${c}`)
    .join(", ")}
  FROM files f JOIN details d ON d.id = f.id`;

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
    usageRepeats: num(row.usage_repeats),
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

  files(filter: { notSessions?: boolean } = {}): Map<string, StoredFile> {
    const out = new Map<string, StoredFile>();
    const rows = this.st(
      `SELECT path, size, mtime_ms, ctime_ms, ino, indexed_offset, version, session_id FROM files${filter.notSessions ? " WHERE version = 0" : ""}`,
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
          `INSERT INTO files (path, dir, size, mtime_ms, ctime_ms, ino, indexed_offset, next_line, version)
           VALUES (?, ?, 0, 0, 0, 0, 0, 1, 0)`,
        ).run(path, dirOf(path));
        fileId = num(r.lastInsertRowid);
        this.st(`INSERT INTO details (id, head, tail) VALUES (?, x'', x'')`).run(fileId);
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
    // The file's usage summed by model, written with the file row.
    const totals = new Map<string, UsageSum>();
    const insertUsage = this.st(
      `INSERT OR REPLACE INTO usage (file_id, ordinal, key, source, model, time_ms, input, output, cache_read, cache_write, total_tokens, cost)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    return {
      add: (rows: readonly EntryRow[]) => {
        for (const row of rows) {
          const d = row.doc;
          const ix = row.indexed;
          let fields = 0;
          for (const f of TEXT_FIELDS) if (ix.texts[f] !== "") fields |= FIELD_BIT[f];
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
              ix.texts.body,
              ix.texts.thinking,
              ix.texts.tool,
              ix.texts.output,
              ix.parts.body,
              ix.parts.thinking,
              ix.parts.tool,
              ix.parts.output,
            );
          }
          const u = row.usage;
          if (u) {
            let t = totals.get(u.model);
            if (!t) {
              t = {
                group: u.model,
                input: 0,
                output: 0,
                cacheRead: 0,
                cacheWrite: 0,
                totalTokens: 0,
                cost: 0,
                records: 0,
                zeroCostWithTokens: 0,
              };
              totals.set(u.model, t);
            }
            t.input += u.input;
            t.output += u.output;
            t.cacheRead += u.cacheRead;
            t.cacheWrite += u.cacheWrite;
            t.totalTokens += u.totalTokens;
            t.cost += u.cost;
            t.records++;
            if (u.cost === 0 && (u.input + u.output + u.cacheRead + u.cacheWrite > 0 || u.totalTokens > 0))
              t.zeroCostWithTokens++;
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
        const row = this.st(`SELECT tools, models, paths FROM details WHERE id = ?`).get(fileId);
        this.st(`UPDATE details SET tools = ?, models = ?, paths = ? WHERE id = ?`).run(
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
      usageKeys: () =>
        this.st(`SELECT key FROM usage WHERE file_id = ?`)
          .all(fileId)
          .map((r) => String(r.key)),
      setBranch: (changes) => {
        const s = this.st(`UPDATE entries SET on_branch = ? WHERE id = ?`);
        for (const c of changes) s.run(c.onBranch ? 1 : 0, base + c.ordinal);
      },
      commit: (file: IndexedFile) => {
        const m = file.meta;
        this.st(
          `UPDATE files SET size = ?, mtime_ms = ?, ctime_ms = ?, ino = ?, indexed_offset = ?, next_line = ?, version = ?,
             ${SESSION_COLUMNS.split(", ")
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
          m?.sessionId ?? null,
          m?.cwd ?? null,
          m?.created ?? null,
          m?.parentPath ?? null,
          m?.name ?? null,
          m ? m.modifiedMs : null,
          m ? m.messageCount : null,
          m ? (m.errored ? 1 : 0) : null,
          m?.leafId ?? null,
          m ? m.entryCount : null,
          m ? m.usageRepeats : null,
          fileId,
        );
        const upsert = this.st(
          `INSERT INTO usage_totals (file_id, model, input, output, cache_read, cache_write, total_tokens, cost, records, zero_cost)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (file_id, model) DO UPDATE SET input = input + excluded.input, output = output + excluded.output,
             cache_read = cache_read + excluded.cache_read, cache_write = cache_write + excluded.cache_write,
             total_tokens = total_tokens + excluded.total_tokens, cost = cost + excluded.cost,
             records = records + excluded.records, zero_cost = zero_cost + excluded.zero_cost`,
        );
        for (const [model, t] of totals)
          upsert.run(
            fileId,
            model,
            t.input,
            t.output,
            t.cacheRead,
            t.cacheWrite,
            t.totalTokens,
            t.cost,
            t.records,
            t.zeroCostWithTokens,
          );
        totals.clear();
        this.st(`UPDATE details SET head = ?, tail = ?, first_message = ? WHERE id = ?`).run(
          file.head,
          file.tail,
          m?.firstMessage ?? null,
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
        // The word, its stem as a prefix, and (last word) the word as a prefix; a form that
        // another one covers is left out (a phrase less to match and to rank).
        const stem = stemPrefix(t.text);
        const folded = t.text.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
        const forms: string[] = [];
        if (stem !== undefined) forms.push(`${ftsString(stem)}*`);
        if (stem === undefined || !folded.startsWith(stem))
          forms.push(t.prefix ? `${ftsString(t.text)}*` : ftsString(t.text));
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
    // The conditions on an entry `e` of a file `f`, with their parameters, in order.
    const where: string[] = [];
    const params: (string | number)[] = [];
    if (words.length === 0) {
      where.push(`(e.fields & ?) != 0`);
      params.push(mask);
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
        where.push(
          `e.file_id IN (SELECT id FROM details WHERE instr(${column}, ?) > 0 OR instr(${column}, ?) > 0)`,
        );
        params.push(`\n${v}\n`, `/${v}\n`);
      } else {
        where.push(`e.file_id IN (SELECT id FROM details WHERE instr(${column}, ?) > 0)`);
        params.push(`\n${v}\n`);
      }
    };
    if (f.tool !== undefined) facet("tools", f.tool, false);
    if (f.model !== undefined) facet("models", f.model, true);
    if (f.file !== undefined) facet("paths", f.file, true);
    if (f.errored) where.push(`f.errored = 1`);
    if (f.named) where.push(`f.name IS NOT NULL`);

    const match = words.length > 0 ? words.join(" AND ") : undefined;
    // BM25 ranks by the query's words; a query of substrings and regexes only lists newest first.
    const ranked = match !== undefined && request.terms.some((t) => t.kind === "word" && !t.negated);
    const weights = [...TEXT_FIELDS.map((f) => WEIGHTS[f]), ...TEXT_FIELDS.map((f) => WEIGHTS[f] / 2)].join(
      ", ",
    );
    const window = Math.max(1, Math.floor(request.window ?? WINDOW));
    // A window holds what ranking needs; the rest of a row is read when it is yielded.
    const windowSql = (bounded: boolean) =>
      match !== undefined
        ? `SELECT e.id, e.time_ms, e.on_branch FROM words w JOIN entries e ON e.id = w.rowid JOIN files f ON f.id = e.file_id
           WHERE words MATCH ?${bounded ? " AND w.rowid < ?" : ""}${where.length > 0 ? ` AND ${where.join(" AND ")}` : ""}
           ORDER BY w.rowid DESC LIMIT ${window}`
        : `SELECT e.id, e.time_ms, e.on_branch FROM entries e JOIN files f ON f.id = e.file_id
           WHERE ${where.join(" AND ")}${bounded ? " AND e.id < ?" : ""}
           ORDER BY e.id DESC LIMIT ${window}`;
    const scoreSql = `SELECT rowid AS id, bm25(words, ${weights}) AS score FROM words WHERE words MATCH ? AND rowid BETWEEN ? AND ?`;
    const rowSql = `SELECT f.path, e.file_id, e.line, e.offset, e.length, e.entry_id, e.type, e.role
      FROM entries e JOIN files f ON f.id = e.file_id WHERE e.id = ?`;
    const st = (sql: string) => this.st(sql);
    const byBranch = request.order === "branch";
    interface Hit {
      id: number;
      timeMs: number | null;
      onBranch: boolean;
      score: number;
    }
    const full = (h: Hit): CandidateRow | undefined => {
      const r = st(rowSql).get(h.id);
      if (!r) return undefined;
      return {
        path: String(r.path),
        ordinal: h.id - num(r.file_id) * ENTRY_ID_SCALE,
        line: num(r.line),
        offset: num(r.offset),
        length: num(r.length),
        entryId: strOrNull(r.entry_id),
        type: String(r.type),
        role: strOrNull(r.role),
        timeMs: h.timeMs,
        onBranch: h.onBranch,
        score: h.score,
      };
    };
    // BM25 (lower is better), then recency, then index order (newest first).
    const byRank = (a: Hit, b: Hit) =>
      a.score - b.score ||
      (b.timeMs ?? Number.NEGATIVE_INFINITY) - (a.timeMs ?? Number.NEGATIVE_INFINITY) ||
      b.id - a.id;
    function* rows(): Generator<CandidateRow> {
      // With the current branch first, the other hits wait until every window was seen.
      const later: Hit[][] = [];
      let upper: number | undefined;
      for (;;) {
        const args: (string | number)[] = [];
        if (match !== undefined) {
          args.push(match);
          if (upper !== undefined) args.push(upper);
          args.push(...params);
        } else {
          args.push(...params);
          if (upper !== undefined) args.push(upper);
        }
        const batch = st(windowSql(upper !== undefined)).all(...args);
        if (batch.length === 0) break;
        const hits: Hit[] = batch.map((r) => ({
          id: num(r.id),
          timeMs: r.time_ms === null ? null : num(r.time_ms),
          onBranch: num(r.on_branch) === 1,
          score: 0,
        }));
        const newest = (hits[0] as Hit).id;
        const oldest = (hits[hits.length - 1] as Hit).id;
        if (ranked) {
          const scores = new Map<number, number>();
          for (const r of st(scoreSql).iterate(match as string, oldest, newest))
            scores.set(num(r.id), num(r.score));
          for (const h of hits) h.score = scores.get(h.id) ?? 0;
          hits.sort(byRank);
        }
        const off: Hit[] = [];
        for (const h of hits) {
          if (byBranch && !h.onBranch) off.push(h);
          else {
            const row = full(h);
            if (row) yield row;
          }
        }
        if (off.length > 0) later.push(off);
        if (batch.length < window) break;
        upper = oldest;
      }
      for (const off of later)
        for (const h of off) {
          const row = full(h);
          if (row) yield row;
        }
    }
    return { rows: rows(), undecided };
  }

  /** `f.dir IN (...)` and `f.path IN / NOT IN (...)` conditions, with their parameters. */
  private fileConditions(filter: {
    dirs?: readonly string[] | undefined;
    paths?: readonly string[] | undefined;
    except?: readonly string[] | undefined;
  }): { sql: string; params: string[] } {
    const conds: string[] = [];
    const params: string[] = [];
    const list = (values: readonly string[]) => values.map(() => "?").join(", ");
    if (filter.dirs) {
      conds.push(`f.dir IN (${list(filter.dirs)})`);
      params.push(...filter.dirs);
    }
    if (filter.paths) {
      conds.push(`f.path IN (${list(filter.paths)})`);
      params.push(...filter.paths);
    }
    if (filter.except && filter.except.length > 0) {
      conds.push(`f.path NOT IN (${list(filter.except)})`);
      params.push(...filter.except);
    }
    return { sql: conds.map((c) => ` AND ${c}`).join(""), params };
  }

  usage(
    filter: { dirs?: readonly string[]; paths?: readonly string[]; rows?: boolean } = {},
  ): UsageSession[] {
    const where = this.fileConditions(filter);
    const files = this.st(
      `SELECT f.id, f.path, ${SESSION_COLUMNS.split(", ")
        .map((c) => `f.${c}`)
        .join(", ")} FROM files f WHERE f.version > 0${where.sql} ORDER BY f.id`,
    ).all(...where.params);
    const byId = new Map<number, UsageSession>();
    for (const row of files) {
      const meta = metaOf(row);
      if (meta) byId.set(num(row.id), { path: String(row.path), meta, usage: [] });
    }
    if (filter.rows === false || byId.size === 0) return [...byId.values()];
    const usageSql = `SELECT u.* FROM usage u JOIN files f ON f.id = u.file_id WHERE f.version > 0${where.sql} ORDER BY u.file_id, u.ordinal`;
    for (const r of this.st(usageSql).iterate(...where.params)) {
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

  usageSums(query: UsageSumQuery): UsageSum[] {
    const where = this.fileConditions(query);
    if (query.sinceMs === undefined && query.by !== "quarter") {
      // Without a time, the per-file sums by model add up to the answer.
      const group = query.by === "model" ? "t.model" : query.by === "file" ? "f.path" : "NULL";
      const rows = this.st(
        `SELECT ${group} AS g, sum(t.input) AS input, sum(t.output) AS output, sum(t.cache_read) AS cache_read,
           sum(t.cache_write) AS cache_write, sum(t.total_tokens) AS total_tokens, sum(t.cost) AS cost,
           sum(t.records) AS records, sum(t.zero_cost) AS zero
         FROM usage_totals t JOIN files f ON f.id = t.file_id
         WHERE f.version > 0${where.sql}
         GROUP BY g`,
      ).all(...where.params);
      return rows.map(sumOf);
    }
    const group =
      query.by === "model"
        ? "u.model"
        : query.by === "file"
          ? "f.path"
          : query.by === "quarter"
            ? `CAST(u.time_ms / ${QUARTER_HOUR_MS} AS INTEGER) * ${QUARTER_HOUR_MS}`
            : "NULL";
    const params: (string | number)[] = [...where.params];
    let since = "";
    if (query.sinceMs !== undefined) {
      since = " AND u.time_ms >= ?";
      params.push(query.sinceMs);
    }
    const rows = this.st(
      `SELECT ${group} AS g, sum(u.input) AS input, sum(u.output) AS output, sum(u.cache_read) AS cache_read,
         sum(u.cache_write) AS cache_write, sum(u.total_tokens) AS total_tokens, sum(u.cost) AS cost, count(*) AS records,
         sum(u.cost = 0 AND (u.input + u.output + u.cache_read + u.cache_write > 0 OR u.total_tokens > 0)) AS zero
       FROM usage u JOIN files f ON f.id = u.file_id
       WHERE f.version > 0${where.sql}${since}
       GROUP BY g`,
    ).all(...params);
    return rows.map(sumOf);
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
 * Matches ranked at a time: the newest (in index order, which follows files as they were first
 * indexed, most recently changed last) this many, then the next. Ranking every match of a word
 * found in most entries costs a second per million; a window bounds it.
 */
const WINDOW = 10_000;

/**
 * Column weights of the BM25 rank: conversation text counts most, tool output least; a word
 * found in an identifier part counts half as much as in the field's text.
 */
const WEIGHTS: Record<TextField, number> = { body: 1, thinking: 0.5, tool: 0.7, output: 0.4 };

/** Quarter hours: every time zone's offset is a whole number of them, so a day is a set of them. */
const QUARTER_HOUR_MS = 15 * 60 * 1000;

/** The pending index FTS5 holds in memory before it writes a segment (see `createSchema`). */
const FTS_HASH_BYTES = 32 * 1024 * 1024;

/** The connection settings every database gets. */
function configure(db: SqlConnection, persistent: boolean): void {
  db.exec("PRAGMA busy_timeout = 30000");
  if (persistent) {
    // Index pages read straight from the page cache: a query reads many (FTS5 doclists).
    db.exec("PRAGMA mmap_size = 268435456");
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
    // FTS5 writes its pending index out as a segment each time it holds this much (default
    // 1 MB), and merges the segments as they pile up: larger ones make far fewer merges.
    db.exec(`INSERT INTO words (words, rank) VALUES ('hashsize', ${FTS_HASH_BYTES})`);
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
