/**
 * The benchmark's `search` task: the session database against pi's `/resume` search and the
 * file-reading `stats --all` of before the database. The ops:
 * - `build`: open the session database of `root` in `cacheDir` (deleted by the runner first)
 *   and bring it up to date: the cold index build, timed in the process (module loading left
 *   out, as for pi's `listAll`); extra: the database's size on disk once closed;
 * - `peer-search` (pi): `SessionManager.listAll()` then the picker's `filterAndSortSessions`
 *   with `query`, what pi's `/resume` does for a search (timed in the process);
 * - `read-parse`: the cold build's ceiling: every file of the store read and each line given
 *   to `JSON.parse` in one process, nothing kept (timed in the process);
 * - `words-alone`: the floor under the cold build that the word index sets: an empty session
 *   database (the package's own schema and FTS5 settings), then only its `words` rows inserted,
 *   committed per 32 MiB of lines (the indexer's default transaction) and merged (`optimize`),
 *   as a build does; only the SQLite work is timed, the rows' texts are made untimed beforehand,
 *   a transaction's worth at a time, by the package's own `entryDocument` and `indexTexts`;
 * - `stats-files`: `stats --all` as it was before the database: every file read (node-store's
 *   reader, lines as pi reads them), usage rows, the lineage-aware totals; run as a whole
 *   process by the runner, which times it from spawn to exit.
 */
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { type Rec, fn, loadLayers, loadPeer, loadPeerFilter } from "./layers.js";
import { type WorkerResult, nowMs } from "./measure.js";
import { type Task, need } from "./worker-task.js";

export type SearchOp = "build" | "peer-search" | "read-parse" | "stats-files" | "words-alone";

/** Every `*.jsonl` of a store: in the root and in its project directories. */
function storeFiles(root: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    if (entry.isFile() && entry.name.endsWith(".jsonl")) out.push(join(root, entry.name));
    else if (entry.isDirectory())
      for (const name of readdirSync(join(root, entry.name)))
        if (name.endsWith(".jsonl")) out.push(join(root, entry.name, name));
  }
  return out;
}

export async function searchTask(t: Task): Promise<WorkerResult> {
  const op = need(t.op, "op") as SearchOp;
  const root = need(t.root, "root");
  if (op === "peer-search") {
    const t0 = nowMs();
    const peer = await loadPeer(t.peer);
    const filter = need(fn(await loadPeerFilter(), "filterAndSortSessions"), "peer filterAndSortSessions");
    const SM = peer.SessionManager as { listAll(): Promise<unknown[]> };
    const t1 = nowMs();
    const infos = await SM.listAll();
    const t2 = nowMs();
    const hits = filter(infos, need(t.query, "query"), "relevance") as unknown[];
    const t3 = nowMs();
    return {
      ok: true,
      samples: [t3 - t1],
      extra: {
        importMs: t1 - t0,
        listMs: t2 - t1,
        filterMs: t3 - t2,
        sessions: infos.length,
        hits: hits.length,
      },
    };
  }
  if (op === "read-parse") {
    const t0 = nowMs();
    let lines = 0;
    let bytes = 0;
    for (const file of storeFiles(root)) {
      const text = readFileSync(file, "utf8");
      bytes += text.length;
      let at = 0;
      for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", at)) {
        if (nl > at) {
          JSON.parse(text.slice(at, nl));
          lines++;
        }
        at = nl + 1;
      }
    }
    return { ok: true, samples: [nowMs() - t0], extra: { lines, chars: bytes } };
  }
  if (op === "build") {
    const L = await loadLayers(["search"]);
    const open = need(
      fn(L.search, "openSearchDatabase"),
      `search ${L.missing.search ?? "has no openSearchDatabase"}`,
    );
    const pathOf = need(fn(L.search, "databasePath"), "search databasePath");
    const cacheDir = need(t.cacheDir, "cacheDir");
    const t0 = nowMs();
    const db = (await open({ root, cacheDir })) as {
      sync(): Promise<{ files: number; indexed: number; bytesRead: number }>;
      close(): void;
    };
    const stats = await db.sync();
    db.close();
    const ms = nowMs() - t0;
    const path = pathOf(cacheDir, root) as string;
    let bytes = 0;
    for (const suffix of ["", "-wal"]) {
      try {
        bytes += statSync(path + suffix).size;
      } catch {
        // No WAL once closed.
      }
    }
    return {
      ok: true,
      samples: [ms],
      extra: { files: stats.files, indexed: stats.indexed, bytesRead: stats.bytesRead, dbBytes: bytes },
    };
  }
  if (op === "words-alone") return await wordsAlone(root, need(t.cacheDir, "cacheDir"));
  if (op === "stats-files") {
    const L = await loadLayers(["format", "store", "searchDocuments"]);
    const read = need(
      fn(L.store, "readSessionFile"),
      `node-store ${L.missing.store ?? "has no readSessionFile"}`,
    );
    const asPi = need(fn(L.store, "readLinesAsPi"), "node-store readLinesAsPi");
    const split = need(fn(L.format, "splitSession"), "format splitSession");
    const statsSessionOf = need(fn(L.searchDocuments, "statsSessionOf"), "search/documents statsSessionOf");
    const computeStats = need(fn(L.searchDocuments, "computeStats"), "search/documents computeStats");
    // The old `stats --all`: every *.jsonl in the root and its project directories.
    const files: { path: string; project: string }[] = [];
    for (const entry of readdirSync(root, { withFileTypes: true })) {
      if (entry.isFile() && entry.name.endsWith(".jsonl"))
        files.push({ path: join(root, entry.name), project: "" });
      else if (entry.isDirectory())
        for (const name of readdirSync(join(root, entry.name)))
          if (name.endsWith(".jsonl"))
            files.push({ path: join(root, entry.name, name), project: entry.name });
    }
    const sessions: unknown[] = [];
    for (const f of files) {
      const lines = asPi((await read(f.path)).records) as { records: Rec[]; isSession: boolean };
      const view = split(lines.records) as { header?: { value: Record<string, unknown> }; entries: Rec[] };
      if (!view.header || !lines.isSession) continue;
      sessions.push(
        statsSessionOf({
          path: f.path,
          project: f.project,
          header: view.header.value,
          entries: view.entries.map((r) => r.value),
        }),
      );
    }
    const result = computeStats(sessions, {}) as { sessions: number; totals: Record<string, number> };
    return { ok: true, samples: [0], extra: { sessions: result.sessions, totals: result.totals } };
  }
  return { ok: false, error: `unknown search op ${String(op)}` };
}

/** Lines of a build's transaction (the indexer's default `transactionBytes`). */
const TRANSACTION_BYTES = 32 * 1024 * 1024;

interface SqliteSync {
  exec(sql: string): void;
  prepare(sql: string): {
    run(...params: unknown[]): unknown;
    all(...params: unknown[]): Record<string, unknown>[];
  };
  close(): void;
}

/** See `words-alone` above. */
async function wordsAlone(root: string, cacheDir: string): Promise<WorkerResult> {
  const L = await loadLayers(["search", "searchDocuments"]);
  const open = need(
    fn(L.search, "openSearchDatabase"),
    `search ${L.missing.search ?? "has no openSearchDatabase"}`,
  );
  const pathOf = need(fn(L.search, "databasePath"), "search databasePath");
  const entryDocument = need(fn(L.searchDocuments, "entryDocument"), "search/documents entryDocument");
  const indexTexts = need(fn(L.searchDocuments, "indexTexts"), "search/documents indexTexts");
  // The package creates its schema (and the word index's settings) in a database of its own.
  const made = (await open({ root, cacheDir })) as { close(): void };
  made.close();
  const { DatabaseSync } = process.getBuiltinModule("node:sqlite") as {
    DatabaseSync: new (path: string) => SqliteSync;
  };
  const db = new DatabaseSync(pathOf(cacheDir, root) as string);
  db.exec("PRAGMA synchronous = NORMAL");
  // The columns in the schema's order: a field's text, or its identifier parts (`<field>_parts`).
  const columns = db
    .prepare("SELECT name FROM pragma_table_info('words')")
    .all()
    .map((r) => String(r.name));
  const insert = db.prepare(
    `INSERT INTO words (rowid, ${columns.join(", ")}) VALUES (?${", ?".repeat(columns.length)})`,
  );
  type Texts = { texts: Record<string, string>; parts: Record<string, string> };
  const valuesOf = (ix: Texts) =>
    columns.map((c) => (c.endsWith("_parts") ? ix.parts[c.slice(0, -"_parts".length)] : ix.texts[c]) ?? "");
  let ms = 0;
  let rows = 0;
  // Row ids as the index gives them (the file's id times 2^32 plus the entry's ordinal).
  let group: { id: number; values: string[] }[] = [];
  let groupBytes = 0;
  const flush = () => {
    const t0 = nowMs();
    db.exec("BEGIN IMMEDIATE");
    for (const row of group) insert.run(row.id, ...row.values);
    rows += group.length;
    db.exec("COMMIT");
    ms += nowMs() - t0;
    group = [];
    groupBytes = 0;
  };
  for (const [index, file] of storeFiles(root).entries()) {
    const text = readFileSync(file, "utf8");
    let ordinal = 0;
    let at = 0;
    for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", at)) {
      const line = text.slice(at, nl);
      const first = at === 0;
      at = nl + 1;
      if (first || line === "") continue;
      const entry = JSON.parse(line) as Record<string, unknown>;
      const values = valuesOf(indexTexts(entryDocument(entry)) as Texts);
      if (values.some((v) => v !== "")) group.push({ id: (index + 1) * 2 ** 32 + ordinal, values });
      ordinal++;
    }
    groupBytes += text.length;
    if (groupBytes >= TRANSACTION_BYTES) flush();
  }
  if (group.length > 0) flush();
  const t0 = nowMs();
  db.exec("BEGIN IMMEDIATE");
  db.exec("INSERT INTO words (words) VALUES ('optimize')");
  db.exec("COMMIT");
  ms += nowMs() - t0;
  db.close();
  return { ok: true, samples: [ms], extra: { rows } };
}
