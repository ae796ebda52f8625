/**
 * The brute-force oracle of the search tests: a plain scan of every session file under a
 * root, with the query semantics written out directly (tokens, stems, substrings at word
 * starts, regexes, filters, the current branch), independent of the index. Test helper only.
 */
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, posix } from "node:path";
import { parseSessionBytes, splitSession } from "@pi-session/format";
import { migrateRecords } from "@pi-session/migrate";
import { readLinesAsPi } from "@pi-session/node-store";
import { stemmer } from "stemmer";
import type { SearchFilters } from "../database.js";
import { type EntryDocument, type TextField, entryDocument, parseQuery } from "../documents/index.js";

export interface OracleHit {
  path: string;
  line: number;
  onBranch: boolean;
}

export interface OracleOptions {
  filters?: SearchFilters;
  fields: readonly TextField[];
}

function sessionFiles(root: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(root)) {
    const p = join(root, name);
    if (name.endsWith(".jsonl") && statSync(p).isFile()) out.push(p);
    else if (statSync(p).isDirectory())
      for (const inner of readdirSync(p))
        if (inner.endsWith(".jsonl") && statSync(join(p, inner)).isFile()) out.push(join(p, inner));
  }
  return out;
}

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu;

/** Tokens as unicode61 makes them here: letters/digits runs, CJK characters apart, folded. */
function tokens(text: string): string[] {
  const spaced = text.replace(CJK, " $& ");
  const out: string[] = [];
  for (const m of spaced.matchAll(/[\p{L}\p{N}\p{Co}]+/gu)) {
    out.push(m[0].normalize("NFD").replace(/\p{M}/gu, "").toLowerCase());
  }
  return out;
}

function isWordChar(ch: string): boolean {
  return /[\p{L}\p{N}\p{M}\p{Co}]/u.test(ch);
}

/** The character ending at offset `i` (a surrogate pair whole). */
function charBefore(text: string, i: number): string {
  if (i <= 0) return "";
  return /[\udc00-\udfff]/.test(text[i - 1] ?? "") && i >= 2 ? text.slice(i - 2, i) : (text[i - 1] as string);
}

function charAt(text: string, i: number): string {
  const code = text.codePointAt(i);
  return code === undefined ? "" : String.fromCodePoint(code);
}

/**
 * Identifier parts, written out: a run of ASCII letters and digits (2 to 64 of them, no other
 * letter touching it) whose parts start at a-z|A-Z, at A-Z|A-Z followed by a-z, and where
 * letters and digits meet; more than 8 such starts make it data. Returns each part start with
 * the end of its run.
 */
function partStarts(text: string): Map<number, number> {
  const out = new Map<number, number>();
  for (const m of text.matchAll(/[A-Za-z0-9]+/g)) {
    const run = m[0];
    const start = m.index;
    const end = start + run.length;
    if (run.length < 2 || run.length > 64) continue;
    if (isWordChar(charBefore(text, start)) || isWordChar(charAt(text, end))) continue;
    const starts: number[] = [];
    for (let i = 1; i < run.length; i++) {
      const a = run[i - 1] as string;
      const b = run[i] as string;
      const next = run[i + 1] ?? "";
      if (
        (/[a-z]/.test(a) && /[A-Z]/.test(b)) ||
        (/[A-Z]/.test(a) && /[A-Z]/.test(b) && /[a-z]/.test(next)) ||
        (/[A-Za-z]/.test(a) && /[0-9]/.test(b)) ||
        (/[0-9]/.test(a) && /[A-Za-z]/.test(b))
      )
        starts.push(start + i);
    }
    if (starts.length <= 8) for (const at of starts) out.set(at, end);
  }
  return out;
}

function wordMatches(text: string, word: string, prefix: boolean): boolean {
  const w = word.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
  const stem = /^[a-z0-9]{3,}$/.test(w) ? stemmer(w) : undefined;
  const useStem = stem !== undefined && stem.length >= 3 ? stem : undefined;
  // Whole tokens, and the rest of an identifier from each of its parts.
  const candidates = tokens(text);
  for (const [at, end] of partStarts(text)) candidates.push(text.slice(at, end).toLowerCase());
  return candidates.some(
    (t) => t === w || (useStem !== undefined && t.startsWith(useStem)) || (prefix && t.startsWith(w)),
  );
}

function substringMatches(text: string, sub: string): boolean {
  if (sub.length === 0) return false;
  const first = [...sub][0] ?? "";
  const bounded =
    isWordChar(first) &&
    !/^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u.test(first);
  const parts = bounded ? partStarts(text) : new Map<number, number>();
  const pattern = new RegExp(sub.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&"), "giu");
  for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
    const i = m.index;
    if (!bounded || i === 0 || !isWordChar(charBefore(text, i)) || parts.has(i)) return true;
    pattern.lastIndex = i + 1;
  }
  return false;
}

/** The current branch of a file: walk parents from the last entry with an id. */
function branchLines(entries: { id: unknown; parentId: unknown; line: number }[]): Set<number> {
  const byId = new Map<string, { id: unknown; parentId: unknown; line: number }>();
  for (const e of entries) if (typeof e.id === "string") byId.set(e.id, e);
  const on = new Set<number>();
  let leaf: { id: unknown; parentId: unknown; line: number } | undefined;
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (e && typeof e.id === "string") {
      leaf = byId.get(e.id);
      break;
    }
  }
  const seen = new Set<string>();
  while (leaf && typeof leaf.id === "string" && !seen.has(leaf.id)) {
    seen.add(leaf.id);
    on.add(leaf.line);
    leaf = typeof leaf.parentId === "string" && leaf.parentId !== "" ? byId.get(leaf.parentId) : undefined;
  }
  return on;
}

/** Every hit of `query` under `root`, by scanning. */
export function oracleSearch(root: string, query: string, options: OracleOptions): OracleHit[] {
  const parsed = parseQuery(query);
  const f = options.filters ?? {};
  const hits: OracleHit[] = [];
  for (const path of sessionFiles(root)) {
    const bytes = readFileSync(path);
    // Only complete lines count (a torn last line is indexed once it is whole).
    const end = bytes.lastIndexOf(0x0a) + 1;
    // Lines as pi reads them (invalid UTF-8 decoded with U+FFFD), and pi's header rule.
    const lines = readLinesAsPi(parseSessionBytes(bytes.subarray(0, end)).records);
    if (!lines.isSession) continue;
    const records = lines.records;
    const header = splitSession(records).header?.value;
    if (!header) continue;
    const entries = splitSession(migrateRecords(records).records).entries;
    const docs: { doc: EntryDocument; line: number }[] = entries.map((r) => ({
      doc: entryDocument(r.value),
      line: r.line,
    }));
    const branch = branchLines(
      entries.map((r) => ({ id: r.value.id, parentId: r.value.parentId, line: r.line })),
    );
    const cwd = typeof header.cwd === "string" ? header.cwd : "";
    if (f.projects && !f.projects.some((p) => cwd === p || cwd.startsWith(p.endsWith("/") ? p : `${p}/`)))
      continue;
    if (f.tool !== undefined && !docs.some((d) => d.doc.tools.includes(f.tool as string))) continue;
    // Equal, or ending in `/<value>`; a path also as resolved against the cwd.
    const sameOrTail = (value: string, want: string) => value === want || value.endsWith(`/${want}`);
    if (f.model !== undefined && !docs.some((d) => d.doc.model && sameOrTail(d.doc.model, f.model as string)))
      continue;
    if (f.file !== undefined) {
      const want = f.file;
      const touched = docs.some((d) =>
        d.doc.files.some(
          (p) =>
            sameOrTail(p, want) ||
            (cwd.startsWith("/") && !p.startsWith("/") && sameOrTail(posix.resolve(cwd, p), want)),
        ),
      );
      if (!touched) continue;
    }
    if (f.errored && !docs.some((d) => d.doc.errored)) continue;
    if (f.named) {
      let name: string | undefined;
      for (const d of docs)
        if (d.doc.type === "session_info") name = d.doc.body.trim() === "" ? undefined : d.doc.body;
      if (name === undefined) continue;
    }
    for (const { doc, line } of docs) {
      const texts = options.fields.map((field) => doc[field]).filter((t) => t !== "");
      if (texts.length === 0) continue;
      if (f.sinceMs !== undefined && !(doc.time !== null && doc.time >= f.sinceMs)) continue;
      if (f.untilMs !== undefined && !(doc.time !== null && doc.time < f.untilMs)) continue;
      if (f.roles) {
        const cls = doc.role === "toolResult" || doc.role === "bashExecution" ? "tool" : doc.role;
        if (!f.roles.includes(cls as "user")) continue;
      }
      const ok = parsed.terms.every((t) => {
        let found: boolean;
        if (t.kind === "word") found = texts.some((x) => wordMatches(x, t.text, t.prefix));
        else if (t.kind === "substring") found = texts.some((x) => substringMatches(x, t.text));
        else found = texts.some((x) => new RegExp(t.source, "i").test(x));
        return found !== t.negated;
      });
      if (ok) hits.push({ path, line, onBranch: branch.has(line) });
    }
  }
  return hits;
}
