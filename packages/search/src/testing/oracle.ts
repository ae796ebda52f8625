/**
 * The brute-force oracle of the search tests: a plain scan of every session file under a
 * root, with the query semantics written out directly (tokens, stems, substrings at word
 * starts, regexes, filters, the current branch), independent of the index. Test helper only.
 */
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseSessionBytes, splitSession } from "@pi-session/format";
import { migrateRecords } from "@pi-session/migrate";
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

function wordMatches(text: string, word: string, prefix: boolean): boolean {
  const w = word.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
  const stem = /^[a-z0-9]{3,}$/.test(w) ? stemmer(w) : undefined;
  const useStem = stem !== undefined && stem.length >= 3 ? stem : undefined;
  return tokens(text).some(
    (t) => t === w || (useStem !== undefined && t.startsWith(useStem)) || (prefix && t.startsWith(w)),
  );
}

function isWordChar(ch: string): boolean {
  return /[\p{L}\p{N}\p{M}\p{Co}]/u.test(ch);
}

function substringMatches(text: string, sub: string): boolean {
  const hay = text.toLowerCase();
  const needle = sub.toLowerCase();
  if (needle.length === 0 || hay.length !== text.length || needle.length !== sub.length) {
    // Lengths changed by case mapping: fall back to a case-insensitive regex scan.
    return new RegExp(sub.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&"), "iu").test(text);
  }
  const first = [...sub][0] ?? "";
  const bounded =
    isWordChar(first) &&
    !/^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u.test(first);
  for (let i = hay.indexOf(needle); i !== -1; i = hay.indexOf(needle, i + 1)) {
    if (!bounded || i === 0) return true;
    const before = String.fromCodePoint(text.codePointAt(i - 1) ?? 0);
    const prev = /[\udc00-\udfff]/.test(text[i - 1] ?? "") && i >= 2 ? text.slice(i - 2, i) : before;
    if (!isWordChar(prev)) return true;
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
    const records = parseSessionBytes(bytes.subarray(0, end)).records;
    const view = splitSession(records);
    const first = records.find((r) => r.kind === "json");
    if (!view.header || first !== view.header) continue;
    const header = view.header.value;
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
