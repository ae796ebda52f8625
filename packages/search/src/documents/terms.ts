/**
 * How query terms match text, exactly, and what an index may use to narrow them down.
 * Pure: the database backends compile these rules into their own queries, and the exact
 * checks here decide what an index can only approximate.
 *
 * - Words match tokens (runs of letters, digits and marks; case and diacritics folded as
 *   SQLite's `unicode61` folds them) and identifier parts (below): a word finds a token or a
 *   part equal to it or starting with its Porter stem (`parsing` finds `parse`, `parser`,
 *   `parsed`); the last word of a query also finds tokens and parts that start with it
 *   (`timeo` finds `timeout`, and `parserTimeout` through its part `Timeout`).
 * - Substrings (phrases, code, CJK) match case-insensitively where they start at the start of
 *   a word or of an identifier part, and anywhere when they start with a character that is
 *   not a letter or digit, or with a CJK character (where every character starts a word):
 *   `auth.ts` finds `src/auth.ts` and `getAuth.ts`, not `oauth.ts`; `Timeout` finds
 *   `parserTimeout`; `.ts` finds `oauth.ts`.
 * - Identifiers are words of ASCII letters and digits only, of at most
 *   {@link IDENTIFIER_MAX_LENGTH} characters. A part starts where a lower-case letter meets an
 *   upper-case one (`parser|Timeout`), at the last capital of a run of capitals followed by a
 *   lower-case letter (`HTTP|Server`), and where letters and digits meet (`utf|8|Decode`);
 *   `_`, `-`, `.` and other punctuation already separate words. A word with more than
 *   {@link IDENTIFIER_MAX_PARTS} part starts is data (a hash, base64), not an identifier: it has
 *   no parts.
 *
 * The index holds, for each identifier, the text from each of its part starts to its end
 * (`parserTimeoutMs`: `timeoutms`, `ms`), so a prefix query finds a substring that starts at a
 * part and runs on, and an exact one a part that ends where the identifier ends.
 */
import { stemmer } from "stemmer";
import { type EntryDocument, TEXT_FIELDS, type TextField } from "./entry.js";
import { escapeRegExp, segmentCjk } from "./text.js";

/** The longest word that can be an identifier (longer ones are data). */
export const IDENTIFIER_MAX_LENGTH = 64;
/** The most part starts an identifier can have (more: data). */
export const IDENTIFIER_MAX_PARTS = 8;

/**
 * The stem prefix of a word, when it has one worth using: words of 3 or more ASCII letters and
 * digits once their diacritics are removed, as the index folds them (`café` stems as `cafe`).
 */
export function stemPrefix(word: string): string | undefined {
  const lower = word.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
  if (!/^[a-z0-9]+$/.test(lower) || lower.length < 3) return undefined;
  const stem = stemmer(lower);
  return stem.length >= 3 ? stem : undefined;
}

const WORD_CHAR = /[\p{L}\p{N}\p{M}\p{Co}]/u;
const CJK_START = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

const LOWER = 1;
const UPPER = 2;
const DIGIT = 3;

/** ASCII class of a code unit: 0 for anything that is not an ASCII letter or digit. */
function asciiClass(code: number): number {
  if (code >= 0x61 && code <= 0x7a) return LOWER;
  if (code >= 0x41 && code <= 0x5a) return UPPER;
  if (code >= 0x30 && code <= 0x39) return DIGIT;
  return 0;
}

/** Whether the character ending at `end` (exclusive) in `text` is a word character. */
function wordCharBefore(text: string, end: number): boolean {
  if (end <= 0) return false;
  const unit = text.charCodeAt(end - 1);
  if (unit < 0x80) return asciiClass(unit) !== 0;
  const start = end >= 2 && unit >= 0xdc00 && unit <= 0xdfff ? end - 2 : end - 1;
  return WORD_CHAR.test(String.fromCodePoint(text.codePointAt(start) as number));
}

/** Whether the character starting at `start` in `text` is a word character. */
function wordCharAt(text: string, start: number): boolean {
  if (start >= text.length) return false;
  const unit = text.charCodeAt(start);
  if (unit < 0x80) return asciiClass(unit) !== 0;
  return WORD_CHAR.test(String.fromCodePoint(text.codePointAt(start) as number));
}

/** Whether the run of ASCII letters and digits `text[start, end)` is a whole identifier's length. */
function isIdentifierRun(text: string, start: number, end: number): boolean {
  const length = end - start;
  if (length < 2 || length > IDENTIFIER_MAX_LENGTH) return false;
  return !wordCharBefore(text, start) && !wordCharAt(text, end);
}

/**
 * The part starts (offsets from `start`, never 0) of the identifier `text[start, end)`, a run of
 * ASCII letters and digits; empty when the run is not an identifier (too long, too many parts,
 * or part of a longer word with other letters).
 */
function partStarts(text: string, start: number, end: number): number[] {
  if (!isIdentifierRun(text, start, end)) return [];
  const out: number[] = [];
  let previous = asciiClass(text.charCodeAt(start));
  for (let i = start + 1; i < end; i++) {
    const current = asciiClass(text.charCodeAt(i));
    const starts =
      (previous === LOWER && current === UPPER) ||
      (previous === UPPER &&
        current === UPPER &&
        i + 1 < end &&
        asciiClass(text.charCodeAt(i + 1)) === LOWER) ||
      (previous !== DIGIT && current === DIGIT) ||
      (previous === DIGIT && current !== DIGIT);
    if (starts) {
      if (out.length === IDENTIFIER_MAX_PARTS) return [];
      out.push(i - start);
    }
    previous = current;
  }
  return out;
}

/** Where a class change between two ASCII letters or digits can start a part. */
const BOUNDARY = /[a-z][A-Z]|[A-Za-z][0-9]|[0-9][A-Za-z]|[A-Z][A-Z][a-z]/g;

/** The bounds of the run of ASCII letters and digits around `at`. */
function runAround(text: string, at: number): { start: number; end: number } {
  let start = at;
  while (start > 0 && asciiClass(text.charCodeAt(start - 1)) !== 0) start--;
  let end = at;
  while (end < text.length && asciiClass(text.charCodeAt(end)) !== 0) end++;
  return { start, end };
}

/**
 * The identifier-part tokens of a text for the index: for each identifier, the lower-cased
 * text from each part start to its end, each distinct one once, space-separated ("" when the
 * text has no identifier with parts).
 */
export function identifierParts(text: string): string {
  BOUNDARY.lastIndex = 0;
  let match = BOUNDARY.exec(text);
  if (match === null) return "";
  const runs = new Set<string>();
  const tokens = new Set<string>();
  while (match !== null) {
    const { start, end } = runAround(text, match.index);
    const run = text.slice(start, end);
    // The same identifier again (code repeats them): its parts are known.
    if (!runs.has(run) && isIdentifierRun(text, start, end)) {
      runs.add(run);
      for (const at of partStarts(text, start, end)) tokens.add(run.slice(at).toLowerCase());
    }
    BOUNDARY.lastIndex = Math.max(end, match.index + 1);
    match = BOUNDARY.exec(text);
  }
  return [...tokens].join(" ");
}

/** Whether offset `at` of `text` starts an identifier part. */
export function isPartStart(text: string, at: number): boolean {
  if (at <= 0 || asciiClass(text.charCodeAt(at - 1)) === 0 || asciiClass(text.charCodeAt(at)) === 0)
    return false;
  const { start, end } = runAround(text, at);
  return partStarts(text, start, end).includes(at - start);
}

/** The exact check of a substring term against a text. */
export interface SubstringMatcher {
  test(text: string): boolean;
}

/**
 * The exact matcher of a substring term: case-insensitive; when the term starts with a letter
 * or digit that is not CJK, only where it starts a word or an identifier part.
 */
export function substringMatcher(term: string): SubstringMatcher {
  const first = term.codePointAt(0);
  const head = first === undefined ? "" : String.fromCodePoint(first);
  const pattern = new RegExp(escapeRegExp(term), "giu");
  if (!(WORD_CHAR.test(head) && !CJK_START.test(head))) {
    const once = new RegExp(pattern.source, "iu");
    return { test: (text) => once.test(text) };
  }
  return {
    test(text) {
      pattern.lastIndex = 0;
      for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
        if (!wordCharBefore(text, m.index) || isPartStart(text, m.index)) return true;
        // Overlapping occurrences: the next one may start inside this one.
        pattern.lastIndex = m.index + 1;
      }
      return false;
    },
  };
}

/** A run of tokens an index must find in a row for a substring to match. */
export interface NarrowingPhrase {
  /** Lower-case tokens: ASCII letters and digits, or single CJK characters. */
  tokens: string[];
  /** The last token may be the start of a longer one. */
  prefix: boolean;
}

/** What an index must find for a substring term to match (see {@link substringNarrowing}). */
export interface SubstringNarrowing {
  /** Phrases of the words (all of them) a match at a word start implies. */
  phrases: NarrowingPhrase[];
  /**
   * For a term that starts with an ASCII letter or digit, which may also match from an
   * identifier part: the part token it implies (its leading letters and digits, exact when a
   * separator follows them in the term, else a prefix) and the phrases of what follows it.
   */
  part?: { token: string; prefix: boolean; phrases: NarrowingPhrase[] };
}

/** CJK characters every SQLite `unicode61` knows as letters (BMP blocks of Unicode 6.1). */
function isIndexCjk(code: number): boolean {
  return (
    (code >= 0x3040 && code <= 0x30ff) ||
    (code >= 0x3400 && code <= 0x4dbf) ||
    (code >= 0x4e00 && code <= 0x9fff) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xac00 && code <= 0xd7a3)
  );
}

/**
 * The phrases a word index (tokens as `unicode61` makes them, each CJK character a token of
 * its own) must contain for `text` to match as a substring at a word start: only tokens whose
 * both ends are certain (ASCII separators, CJK, or the term's start) are used, so an index
 * that has them is a superset of the true matches. Empty when nothing is certain.
 */
export function narrowingPhrases(text: string): NarrowingPhrase[] {
  const phrases: NarrowingPhrase[] = [];
  let tokens: string[] = [];
  let token = "";
  // The current token started after a character of unknown class: it may be part of a longer one.
  let unsure = false;
  const endToken = (sureEnd: boolean) => {
    if (token !== "" && sureEnd && !unsure) tokens.push(token.toLowerCase());
    token = "";
  };
  const endPhrase = () => {
    if (tokens.length > 0) phrases.push({ tokens, prefix: false });
    tokens = [];
  };
  for (const ch of text) {
    const code = ch.codePointAt(0) as number;
    if (asciiClass(code) !== 0) {
      token += ch;
    } else if (isIndexCjk(code)) {
      endToken(true);
      unsure = false;
      tokens.push(ch);
    } else if (code < 0x80) {
      endToken(true);
      unsure = false;
    } else {
      // A character whose class the index may see otherwise: the runs on both sides end here.
      endToken(false);
      endPhrase();
      unsure = true;
    }
  }
  if (token !== "" && !unsure) {
    tokens.push(token.toLowerCase());
    phrases.push({ tokens, prefix: true });
  } else endPhrase();
  return phrases;
}

/**
 * What a word-and-part index must find for a substring term: the phrases of a match at a word
 * start, or (for a term that starts with an ASCII letter or digit) the part token and the
 * phrases of the rest, for a match from an identifier part. Every true match satisfies one.
 */
export function substringNarrowing(text: string): SubstringNarrowing {
  const phrases = narrowingPhrases(text);
  let lead = 0;
  while (lead < text.length && asciiClass(text.charCodeAt(lead)) !== 0) lead++;
  if (lead === 0) return { phrases };
  const next = text.charCodeAt(lead);
  // A separator after the leading run ends the identifier there: the part is all of it.
  const exact = lead < text.length && next < 0x80;
  return {
    phrases,
    part: {
      token: text.slice(0, lead).toLowerCase(),
      prefix: !exact,
      phrases: narrowingPhrases(text.slice(lead)),
    },
  };
}

/** What a word index receives of a document: each text field (CJK segmented) and its identifier parts. */
export interface IndexTexts {
  texts: Record<TextField, string>;
  parts: Record<TextField, string>;
}

/** The {@link IndexTexts} of a document. */
export function indexTexts(doc: EntryDocument): IndexTexts {
  const texts = {} as Record<TextField, string>;
  const parts = {} as Record<TextField, string>;
  for (const f of TEXT_FIELDS) {
    texts[f] = segmentCjk(doc[f]);
    parts[f] = identifierParts(doc[f]);
  }
  return { texts, parts };
}
