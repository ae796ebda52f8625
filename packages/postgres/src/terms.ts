/**
 * The query semantics of the session database (`@pi-session/search/documents`, terms.ts) as
 * PostgreSQL can use them: a folded text per entry that every match's literal appears in (so
 * `LIKE '%literal%'` over a trigram index narrows without losing a hit), and the exact check
 * of word terms in JS (SQLite's word index decides those there; here the database only
 * narrows, and every term is then checked exactly against the entry's stored texts).
 *
 * Use {@link foldForIndex} when writing an entry, {@link termLiterals} to narrow a query,
 * {@link entryMatches} to decide a candidate.
 */
import {
  type EntryDocument,
  type QueryTerm,
  type TextField,
  TEXT_FIELDS,
  documentMatches,
  identifierParts,
  stemPrefix,
} from "@pi-session/search/documents";

const CJK_CHAR = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const CJK_ALL = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu;
const NOT_CJK_RUN = /[^\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu;

/** A word as the word index folds it: diacritics removed, lower case. */
export function foldWord(text: string): string {
  return text.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
}

/**
 * What the folded text and the literals both go through last: the two sigmas one (lower
 * casing picks one by context), long s as s (a case-insensitive match of `s` finds it), no NUL
 * (PostgreSQL text cannot hold it).
 */
function normalizeKey(text: string): string {
  return text.replace(/ς/g, "σ").replace(/ſ/g, "s").replace(/\0/g, " ");
}

/**
 * The folded text of an entry's texts (all fields, newline-separated): outside CJK scripts
 * decomposed, marks removed and lower-cased; CJK characters kept as they are (Hangul would
 * decompose into jamo). Every word token, identifier part and case-insensitive substring
 * match of a literal of {@link termLiterals} lies in it.
 */
export function foldForIndex(doc: EntryDocument): string {
  const parts: string[] = [];
  for (const f of TEXT_FIELDS) {
    const text = doc[f];
    if (text !== "") parts.push(normalizeKey(text.replace(NOT_CJK_RUN, (run) => foldWord(run))));
  }
  return parts.join("\n");
}

/**
 * The literals a matching entry's folded text must contain for a positive term, as
 * alternatives (any one of them suffices), or undefined when nothing can be required (a regex;
 * a substring with no ASCII or CJK character).
 */
export function termLiterals(term: QueryTerm): string[] | undefined {
  if (term.negated || term.kind === "regex") return undefined;
  if (term.kind === "word") {
    const w = normalizeKey(foldWord(term.text));
    const stem = stemPrefix(term.text);
    if (stem === undefined) return w === "" ? undefined : [w];
    // A token equal to the word or starting with it contains the stem when the word does.
    return w.includes(stem) ? [stem] : [w, normalizeKey(stem)];
  }
  // The longest run of ASCII (printable) and CJK characters: a case-insensitive match maps
  // each of them to itself or its ASCII case partner (K as KELVIN SIGN decomposes to K).
  let best = "";
  for (const m of term.text.matchAll(
    /[\x20-\x7e\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu,
  )) {
    if (m[0].length > best.length) best = m[0];
  }
  best = normalizeKey(best.toLowerCase());
  return best.trim() === "" ? undefined : [best];
}

/** Word tokens of a text as the word index makes them: letter and digit runs, CJK apart, folded. */
function wordTokens(text: string): string[] {
  const spaced = CJK_CHAR.test(text) ? text.replace(CJK_ALL, " $& ") : text;
  const out: string[] = [];
  for (const m of spaced.matchAll(/[\p{L}\p{N}\p{Co}]+/gu)) out.push(foldWord(m[0]));
  const parts = identifierParts(text);
  if (parts !== "") for (const p of parts.split(" ")) out.push(p);
  return out;
}

/** The exact check of a word term against one text (what SQLite's index decides). */
export function wordMatcher(term: QueryTerm & { kind: "word" }): (text: string) => boolean {
  const w = foldWord(term.text);
  const stem = stemPrefix(term.text);
  return (text) =>
    wordTokens(text).some(
      (t) => t === w || (stem !== undefined && t.startsWith(stem)) || (term.prefix && t.startsWith(w)),
    );
}

/** A query compiled for checking candidates. */
export interface CompiledQuery {
  check(doc: EntryDocument): boolean;
}

/** Compiles terms and fields into one exact check of an entry's document. */
export function compileQuery(terms: readonly QueryTerm[], fields: readonly TextField[]): CompiledQuery {
  const checks = terms.map((term) => {
    if (term.kind !== "word")
      return (doc: EntryDocument) => documentMatches(doc, term, fields) !== term.negated;
    const test = wordMatcher(term);
    return (doc: EntryDocument) => fields.some((f) => doc[f] !== "" && test(doc[f])) !== term.negated;
  });
  return {
    check: (doc) => fields.some((f) => doc[f] !== "") && checks.every((c) => c(doc)),
  };
}

/** Escapes a literal for `LIKE` (the default escape character, backslash). */
export function likePattern(literal: string): string {
  return `%${literal.replace(/[\\%_]/g, "\\$&")}%`;
}

/** A `to_tsquery('simple', ...)` text for ranking: the ASCII words of the literals, as prefixes. */
export function rankQuery(literals: readonly string[]): string | undefined {
  const words = new Set<string>();
  for (const l of literals) for (const m of l.matchAll(/[a-z0-9]+/g)) words.add(m[0]);
  if (words.size === 0) return undefined;
  return [...words].map((w) => `${w}:*`).join(" | ");
}
