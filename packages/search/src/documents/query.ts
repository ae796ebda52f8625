/**
 * The search query language, parsed into terms (pure, shared by every backend):
 *
 * - `word`: a run of letters and digits; words are ANDed, matched by their stem (porter),
 *   and the last word of the query also as a prefix of a stem (`timeo` finds `timeout`);
 * - `"exact phrase"`, or any other term with a character that is not a letter or digit
 *   (`auth.ts`, `foo_bar`, `x=1`), or CJK text: a case-insensitive substring;
 * - `-term`: the entry must not contain it (a word, a phrase, a substring or a regex);
 * - `re:<regex>` (or `re:"<regex with spaces>"`): a regular expression in JavaScript's syntax,
 *   case-insensitive, tested against each text of an entry by a linear-time engine (`regex.ts`).
 *
 * A query needs at least one term that is not excluded.
 */
import { type TextRegex, compileRegex } from "./regex.js";
import { hasCjk } from "./text.js";

export interface WordTerm {
  kind: "word";
  text: string;
  /** The last word of the query: it also matches as a prefix. */
  prefix: boolean;
  negated: boolean;
}

export interface SubstringTerm {
  kind: "substring";
  text: string;
  /** Written in double quotes. */
  quoted: boolean;
  negated: boolean;
}

export interface RegexTerm {
  kind: "regex";
  source: string;
  pattern: TextRegex;
  negated: boolean;
}

export type QueryTerm = WordTerm | SubstringTerm | RegexTerm;

export interface ParsedQuery {
  /** The query as given. */
  text: string;
  terms: QueryTerm[];
}

/** A query that cannot be used (empty, only exclusions, a bad regex). */
export class QuerySyntaxError extends Error {
  override readonly name = "QuerySyntaxError";
}

const WORD = /^[\p{L}\p{N}\p{M}]+$/u;

/** Whether a term is matched as a word (letters and digits, no CJK) rather than a substring. */
export function isWordText(text: string): boolean {
  return WORD.test(text) && !hasCjk(text);
}

interface Token {
  text: string;
  quoted: boolean;
  negated: boolean;
  regex: boolean;
}

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const n = input.length;
  const isSpace = (c: string | undefined) => c !== undefined && /\s/u.test(c);
  while (i < n) {
    while (i < n && isSpace(input[i])) i++;
    if (i >= n) break;
    let negated = false;
    let regex = false;
    if (input[i] === "-" && i + 1 < n && !isSpace(input[i + 1])) {
      negated = true;
      i++;
    }
    if (input.startsWith("re:", i) && i + 3 < n && !isSpace(input[i + 3])) {
      regex = true;
      i += 3;
    }
    if (input[i] === '"') {
      const end = input.indexOf('"', i + 1);
      const stop = end === -1 ? n : end;
      tokens.push({ text: input.slice(i + 1, stop), quoted: true, negated, regex });
      i = stop + 1;
      continue;
    }
    const start = i;
    while (i < n && !isSpace(input[i])) i++;
    tokens.push({ text: input.slice(start, i), quoted: false, negated, regex });
  }
  return tokens;
}

/** Parses a query (see the module comment); throws {@link QuerySyntaxError} when it is unusable. */
export function parseQuery(text: string): ParsedQuery {
  const terms: QueryTerm[] = [];
  for (const token of tokenize(text)) {
    if (token.regex) {
      let pattern: TextRegex;
      try {
        pattern = compileRegex(token.text);
      } catch (error) {
        throw new QuerySyntaxError(`re:${token.text}: ${(error as Error).message}`);
      }
      terms.push({ kind: "regex", source: token.text, pattern, negated: token.negated });
      continue;
    }
    if (token.text.trim() === "") continue;
    if (!token.quoted && isWordText(token.text)) {
      terms.push({ kind: "word", text: token.text, prefix: false, negated: token.negated });
    } else {
      terms.push({ kind: "substring", text: token.text, quoted: token.quoted, negated: token.negated });
    }
  }
  if (!terms.some((t) => !t.negated)) {
    throw new QuerySyntaxError(
      terms.length === 0 ? "the query is empty" : "the query only excludes: give a word or phrase to find",
    );
  }
  const last = terms[terms.length - 1];
  if (last?.kind === "word" && !last.negated) last.prefix = true;
  return { text, terms };
}
