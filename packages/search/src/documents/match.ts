/**
 * Exact matching of the terms an index can only narrow down (short substrings, regexes)
 * against a document, and the highlight ranges and snippet of a hit. Pure.
 */
import type { EntryDocument, TextField } from "./entry.js";
import type { QueryTerm } from "./query.js";
import type { TextRegex } from "./regex.js";
import { substringMatcher } from "./terms.js";
import { escapeRegExp } from "./text.js";

/** Whether some searched text of the document contains the substring or matches the regex. */
export function documentMatches(doc: EntryDocument, term: QueryTerm, fields: readonly TextField[]): boolean {
  if (term.kind === "word") throw new Error("word terms are matched by the index");
  const pattern = term.kind === "regex" ? term.pattern : substringMatcher(term.text);
  for (const field of fields) {
    const text = doc[field];
    if (text === "") continue;
    if (pattern.test(text)) return true;
  }
  return false;
}

/** What a hit shows: the text around its first match, on one line, and where the matches are. */
export interface Snippet {
  field: TextField;
  text: string;
  /** `[start, end)` code-unit ranges of the matches within `text`. */
  ranges: [number, number][];
}

/**
 * A word's highlight pattern: the word at the start of a word, with the usual English
 * endings taken off so `parsing` also lights `parse` (display only: the index decides hits).
 */
function wordPattern(word: string): string {
  const base = word.length > 4 ? word.replace(/(ing|ed|es|s|er|ers|ly|ion|ions)$/iu, "") : word;
  return `(?<![\\p{L}\\p{N}])${escapeRegExp(base)}[\\p{L}\\p{N}]*`;
}

/**
 * What lights the matches of a hit: one JavaScript pattern for the words and substrings (built
 * from escaped literals, so it runs in linear time), and the `re:` terms' own linear-time
 * patterns.
 */
interface Highlighter {
  /** `[start, end)` ranges of the matches in `text`, in order, not overlapping, at most `limit`. */
  ranges(text: string, limit: number): [number, number][];
}

function highlighter(terms: readonly QueryTerm[]): Highlighter | undefined {
  const parts: string[] = [];
  const regexes: TextRegex[] = [];
  for (const t of terms) {
    if (t.negated) continue;
    if (t.kind === "word") parts.push(wordPattern(t.text));
    else if (t.kind === "substring") parts.push(escapeRegExp(t.text));
    else regexes.push(t.pattern);
  }
  if (parts.length === 0 && regexes.length === 0) return undefined;
  const literal = parts.length > 0 ? new RegExp(parts.join("|"), "giu") : undefined;
  return {
    ranges(text, limit) {
      const found: [number, number][] = [];
      if (literal) {
        literal.lastIndex = 0;
        for (const m of text.matchAll(literal)) {
          if (m[0].length === 0) break;
          found.push([m.index, m.index + m[0].length]);
          if (found.length >= limit) break;
        }
      }
      for (const re of regexes) found.push(...re.ranges(text, limit));
      if (regexes.length === 0 || found.length <= 1) return found;
      // Several patterns: in order, overlaps joined.
      found.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
      const out: [number, number][] = [];
      for (const r of found) {
        const last = out[out.length - 1];
        if (last && r[0] < last[1]) last[1] = Math.max(last[1], r[1]);
        else if (out.length < limit) out.push([r[0], r[1]]);
      }
      return out;
    },
  };
}

/**
 * The snippet of a hit: the first field (of `fields`) with a match, cut to about `width`
 * characters around the first match, whitespace collapsed; the start of the first non-empty
 * field when no match is found (a stemmed word the highlighter does not know).
 */
export function snippetOf(
  doc: EntryDocument,
  terms: readonly QueryTerm[],
  fields: readonly TextField[],
  width = 160,
): Snippet | undefined {
  const pattern = highlighter(terms);
  let fallback: TextField | undefined;
  for (const field of fields) {
    const raw = doc[field];
    if (raw === "") continue;
    fallback ??= field;
    if (!pattern) break;
    const [first] = pattern.ranges(raw, 1);
    if (!first) continue;
    // Some text before the match, less when the field ends soon (all of a short one).
    const lead = Math.floor(width / 4);
    let start = Math.max(0, Math.min(first[0] - lead, raw.length - width));
    // Do not start in the middle of a surrogate pair.
    if (start > 0 && /[\udc00-\udfff]/.test(raw[start] ?? "")) start--;
    const end = Math.min(raw.length, start + width * 2);
    return oneLineSnippet(field, raw.slice(start, end), pattern, start > 0, width);
  }
  if (fallback === undefined) return undefined;
  const raw = doc[fallback].slice(0, width * 2);
  return oneLineSnippet(fallback, raw, pattern, false, width);
}

function oneLineSnippet(
  field: TextField,
  piece: string,
  pattern: Highlighter | undefined,
  cutBefore: boolean,
  width: number,
): Snippet {
  let text = piece.replace(/\s+/gu, " ");
  if (cutBefore) text = `…${text.trimStart()}`;
  if (text.length > width) text = `${text.slice(0, width - 1)}…`;
  const ranges = pattern ? pattern.ranges(text, 32) : [];
  return { field, text: text.trimEnd(), ranges };
}
