/**
 * A search request as SQL: the query's words as one FTS5 match over the chosen fields (text
 * and identifier-part columns), substrings narrowed through the tokens they must contain, the
 * filters as conditions on the entry and its file; then the candidates in windows of the
 * newest matches, ranked by BM25 within a window, current-branch hits first when asked.
 * Regexes and substrings stay `undecided`: the caller checks them exactly. `newest` (search as
 * you type) ranks nothing: the matches in index order, newest first, read a small window at a
 * time, a prefix spelled out as its terms so that FTS5 can stop early. The SQLite backend's
 * `search` is this.
 */
import type { CandidateRow, Candidates, SearchRequest } from "../database.js";
import {
  type NarrowingPhrase,
  type QueryTerm,
  TEXT_FIELDS,
  type TextField,
  rolesOfFilter,
  stemPrefix,
  substringNarrowing,
} from "../documents/index.js";
import { facetValue } from "./file-rows.js";
import { ENTRY_ID_SCALE, FIELD_BIT, PARTS_COLUMN } from "./schema.js";
import type { StatementCache } from "./statements.js";
import { num, strOrNull } from "./values.js";

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

/** A string as an FTS5 string literal. */
function ftsString(text: string): string {
  return `"${text.replace(/"/g, '""')}"`;
}

/** A prefixed last token of at most this many characters is left out of an unranked phrase. */
const SHORT_PREFIX = 3;

/**
 * The most terms a prefix is spelled out as (`newest`): FTS5 steps an OR through each of them
 * per match, and merges a prefix's doclists whole before the first one.
 */
const MAX_PREFIX_TERMS = 256;

/** The first window of `newest` (then four times larger, up to {@link WINDOW}). */
const FIRST_NEWEST_WINDOW = 128;

/**
 * `prefix*` as an OR of the index's terms that start with it, if it is ASCII letters and digits
 * (what the tokenizer keeps as it is, but for case) and there are 1 to {@link MAX_PREFIX_TERMS}
 * of them; undefined otherwise (the prefix query as it is). FTS5 reads an OR's terms lazily in
 * rowid order, so `ORDER BY rowid DESC LIMIT n` stops after n; a prefix query first merges the
 * doclists of all its terms (`e*`: 0.5-1.8 s on the 1 GB bench store, 54 terms: 1 ms as an OR).
 */
function spelledOut(statements: StatementCache, prefix: string): string | undefined {
  const lower = prefix.toLowerCase();
  if (!/^[a-z0-9]+$/.test(lower)) return undefined;
  // Reading the terms reads their doclists (40 ms for a common prefix): kept per connection
  // until the index changes, here (total_changes) or from another connection (data_version).
  const dataVersion = num(statements.get(`PRAGMA data_version`).get()?.data_version);
  const version = `${dataVersion}:${num(statements.get(`SELECT total_changes() AS n`).get()?.n)}`;
  let kept = spelledOutKept.get(statements);
  if (kept?.version !== version) {
    kept = { version, forms: new Map() };
    spelledOutKept.set(statements, kept);
  }
  if (kept.forms.has(lower)) return kept.forms.get(lower);
  const form = readSpelledOut(statements, lower);
  if (kept.forms.size >= MAX_KEPT_PREFIXES) kept.forms.clear();
  kept.forms.set(lower, form);
  return form;
}

/** Spelled-out prefixes per connection, while its index is at `version`. */
const spelledOutKept = new WeakMap<
  StatementCache,
  { version: string; forms: Map<string, string | undefined> }
>();
const MAX_KEPT_PREFIXES = 1_000;

function readSpelledOut(statements: StatementCache, lower: string): string | undefined {
  statements
    .get(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.words_terms USING fts5vocab(main, words, row)`)
    .run();
  const upper = lower.slice(0, -1) + String.fromCharCode(lower.charCodeAt(lower.length - 1) + 1);
  const terms: string[] = [];
  for (const r of statements
    .get(`SELECT term FROM temp.words_terms WHERE term >= ? AND term < ? LIMIT ${MAX_PREFIX_TERMS + 1}`)
    .iterate(lower, upper)) {
    const term = String(r.term);
    if (term.startsWith(lower)) terms.push(term);
  }
  if (terms.length === 0 || terms.length > MAX_PREFIX_TERMS) return undefined;
  return terms.map(ftsString).join(" OR ");
}

export function searchCandidates(statements: StatementCache, request: SearchRequest): Candidates {
  const mask = request.fields.reduce((m, f) => m | FIELD_BIT[f], 0);
  const texts = request.fields.join(" ");
  const parts = request.fields.map((f) => PARTS_COLUMN[f]).join(" ");
  const inColumns = (cols: string, expr: string) => `{${cols}} : (${expr})`;
  const newest = request.order === "newest";
  // Whether BM25 ranks the matches (by the whole match expression): only with a word.
  const ranks = !newest && request.terms.some((t) => t.kind === "word" && !t.negated);
  const phrase = (p: NarrowingPhrase) => {
    // A short prefixed last token (`ts` of `auth.ts`) makes FTS5 merge the doclists of every
    // term it starts. When nothing is ranked, a superset of the rows is all a phrase must give
    // (each row is checked for the substring), so it is left out where the rest still names
    // two tokens of three characters or more (decision 133).
    const last = p.tokens[p.tokens.length - 1] ?? "";
    const loose =
      !ranks &&
      p.prefix &&
      last.length <= SHORT_PREFIX &&
      p.tokens.slice(0, -1).filter((t) => t.length >= 3).length >= 2;
    return loose
      ? ftsString(p.tokens.slice(0, -1).join(" "))
      : ftsString(p.tokens.join(" ")) + (p.prefix ? "*" : "");
  };
  const phrases = (ps: readonly NarrowingPhrase[]) => ps.map((p) => inColumns(texts, phrase(p)));
  // A prefix form: spelled out as its terms for `newest` (BM25 would rank an OR differently).
  // Whether FTS5 can seek in the match (no prefix merged whole at every statement run).
  let seekable = true;
  const prefixed = (text: string) => {
    const out = newest ? spelledOut(statements, text) : undefined;
    if (out === undefined) seekable = false;
    return out ?? `${ftsString(text)}*`;
  };
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
      if (stem !== undefined) forms.push(prefixed(stem));
      if (stem === undefined || !folded.startsWith(stem))
        forms.push(t.prefix ? prefixed(t.text) : ftsString(t.text));
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
    // A match from an identifier part needs the part token in a parts column. Most lead tokens
    // (`src` of `src/auth.ts`) end no identifier in the store: then the phrases of the rest,
    // which FTS5 would match in full for that branch, are not looked at.
    const partToken = inColumns(parts, ftsString(n.part.token) + (n.part.prefix ? "*" : ""));
    if (!statements.get(`SELECT 1 FROM words WHERE words MATCH ? LIMIT 1`).get(partToken)) {
      words.push(...atWord);
      continue;
    }
    const fromPart = [partToken, ...phrases(n.part.phrases)];
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
    const roles = f.roles.flatMap(rolesOfFilter);
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
  const ranked = !newest && match !== undefined && request.terms.some((t) => t.kind === "word" && !t.negated);
  const weights = [...TEXT_FIELDS.map((f) => WEIGHTS[f]), ...TEXT_FIELDS.map((f) => WEIGHTS[f] / 2)].join(
    ", ",
  );
  const fullWindow = Math.max(1, Math.floor(request.window ?? WINDOW));
  // A window holds what ranking needs; the rest of a row is read when it is yielded.
  const windowSql = (bounded: boolean, window: number) =>
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
  const st = (sql: string) => statements.get(sql);
  const byBranch = request.order === "branch";
  // Newest first with every row a hit (nothing undecided) and a match FTS5 seeks in cheaply
  // (no negation or facet subquery, run again by each statement): `perFile` rows of a file,
  // then on from below its first entry, skipping the rest of its matches in the index.
  const perFile = request.perFile ?? Number.POSITIVE_INFINITY;
  const skipFiles =
    newest &&
    Number.isInteger(perFile) &&
    perFile >= 1 &&
    seekable &&
    match !== undefined &&
    undecided.length === 0 &&
    wordsNot.length === 0 &&
    f.tool === undefined &&
    f.model === undefined &&
    f.file === undefined;
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
    // Newest first wants a page of sessions: small windows first, in case it is found early.
    let window = skipFiles ? perFile : newest ? Math.min(FIRST_NEWEST_WINDOW, fullWindow) : fullWindow;
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
      const batch = st(windowSql(upper !== undefined, window)).all(...args);
      if (batch.length === 0) break;
      const hits: Hit[] = batch.map((r) => ({
        id: num(r.id),
        timeMs: r.time_ms === null ? null : num(r.time_ms),
        onBranch: num(r.on_branch) === 1,
        score: 0,
      }));
      const top = (hits[0] as Hit).id;
      const oldest = (hits[hits.length - 1] as Hit).id;
      if (skipFiles) {
        const file = Math.floor(top / ENTRY_ID_SCALE);
        for (const h of hits) {
          if (Math.floor(h.id / ENTRY_ID_SCALE) !== file) break;
          const row = full(h);
          if (row) yield row;
        }
        upper = file * ENTRY_ID_SCALE;
        continue;
      }
      if (ranked) {
        const scores = new Map<number, number>();
        for (const r of st(scoreSql).iterate(match as string, oldest, top))
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
      window = Math.min(window * 4, fullWindow);
    }
    for (const off of later)
      for (const h of off) {
        const row = full(h);
        if (row) yield row;
      }
  }
  return { rows: rows(), undecided };
}
