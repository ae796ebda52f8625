/**
 * How query terms match text, exactly, and what an index may use to narrow them down.
 * Pure: the database backends compile these rules into their own queries, and the exact
 * checks here decide what an index can only approximate.
 *
 * - Words match tokens (runs of letters, digits and marks; case and diacritics folded as
 *   SQLite's `unicode61` folds them): a word finds a token equal to it or starting with its
 *   Porter stem (`parsing` finds `parse`, `parser`, `parsed`); the last word of a query also
 *   finds tokens that start with it (`timeo` finds `timeout`).
 * - Substrings (phrases, code, CJK) match case-insensitively where they start at the start of
 *   a word (or start with a character that is not a letter or digit, or with a CJK character,
 *   where every character starts a word): `auth.ts` finds `src/auth.ts`, not `oauth.ts`.
 */
import { stemmer } from "stemmer";
import { escapeRegExp } from "./text.js";

/** The stem prefix of a word, when it has one worth using (ASCII words of 3 or more). */
export function stemPrefix(word: string): string | undefined {
  const lower = word.toLowerCase();
  if (!/^[a-z0-9]+$/.test(lower) || lower.length < 3) return undefined;
  const stem = stemmer(lower);
  return stem.length >= 3 ? stem : undefined;
}

const WORD_CHAR = /[\p{L}\p{N}\p{M}\p{Co}]/u;
const CJK_START = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/**
 * The exact pattern of a substring term: case-insensitive, and (when it starts with a letter
 * or digit that is not CJK) only where no letter or digit comes right before it.
 */
export function substringMatcher(text: string): RegExp {
  const first = text.codePointAt(0);
  const head = first === undefined ? "" : String.fromCodePoint(first);
  const bounded = WORD_CHAR.test(head) && !CJK_START.test(head);
  return new RegExp(`${bounded ? "(?<![\\p{L}\\p{N}\\p{M}\\p{Co}])" : ""}${escapeRegExp(text)}`, "iu");
}

/** A run of tokens an index must find in a row for a substring to match. */
export interface NarrowingPhrase {
  /** Lower-case tokens: ASCII letters and digits, or single CJK characters. */
  tokens: string[];
  /** The last token may be the start of a longer one. */
  prefix: boolean;
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

function isAsciiAlnum(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
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
    if (isAsciiAlnum(code)) {
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
