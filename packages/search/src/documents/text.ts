/**
 * Text helpers shared by indexing and matching: case folding for substring matches, and the
 * segmentation that makes each CJK character a word of its own for the word index (those
 * scripts do not put spaces between words, so a run of them would otherwise be one token).
 */

/** Han, Hiragana, Katakana, Hangul and the CJK punctuation and compatibility blocks. */
const CJK =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3000-\u303f\uff00-\uffef]/u;
const CJK_ALL = new RegExp(CJK.source, "gu");

/** Whether a text contains a CJK character. */
export function hasCjk(text: string): boolean {
  return CJK.test(text);
}

/**
 * The text the word index receives: each CJK character surrounded by spaces (so it is a token
 * of its own); other text unchanged.
 */
export function segmentCjk(text: string): string {
  return CJK.test(text) ? text.replace(CJK_ALL, " $& ") : text;
}

/** Escapes a text for use inside a regular expression. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

/**
 * The case-insensitive pattern of a substring term (Unicode simple case folding, close to
 * what the trigram index does), for verifying a candidate and for highlighting a hit.
 */
export function substringPattern(term: string): RegExp {
  return new RegExp(escapeRegExp(term), "giu");
}
