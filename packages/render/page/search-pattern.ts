/**
 * The page's search phrase as a pattern: the words typed, in order, with any run of
 * whitespace between them (a phrase that wraps a line still matches), case-insensitive.
 */

/** The global, case-insensitive pattern of the phrase made of `words`. */
export function phrasePattern(words: readonly string[]): RegExp {
  const escaped = words.map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(escaped.join("\\s+"), "giu");
}
