/**
 * The regular expressions of `re:` terms, run by RE2's linear-time engine (`re2js`, a pure
 * JavaScript port of RE2): the time a pattern takes grows with the text it reads, never
 * exponentially, so a hostile pattern (`(.*)*b`) cannot hold a search, a server's search
 * thread or the main thread of `serve --db`. Patterns are written as JavaScript's (`\d`,
 * `\p{L}`, `(?<name>…)`, `[^]`), case-insensitive; what no linear-time engine can do
 * (backreferences, lookahead, lookbehind) is refused with a message that says so. Pure.
 *
 * Use {@link compileRegex} where a query is parsed; the pattern it gives is what matching and
 * highlighting run.
 */
import { RE2JS } from "re2js";

/** A compiled `re:` pattern. */
export interface TextRegex {
  /** Whether it matches somewhere in `text`. */
  test(text: string): boolean;
  /** `[start, end)` code-unit ranges of its non-empty matches in `text`, at most `limit` of them. */
  ranges(text: string, limit: number): [number, number][];
}

/** Why a pattern cannot run: the engine's words, and what to do for the usual cases. */
function refusal(source: string, message: string): string {
  const detail = message.replace(/^error parsing regexp: /, "");
  if (/\\[1-9]/.test(source) && /escape/.test(detail))
    return `${detail}: backreferences are not supported (regexes run in linear time)`;
  if (/\(\?<?[=!]/.test(source))
    return `${detail}: lookahead and lookbehind are not supported (regexes run in linear time)`;
  return detail;
}

/**
 * Compiles a `re:` pattern (JavaScript syntax, case-insensitive) for the linear-time engine;
 * throws an `Error` whose message says what is wrong with it.
 */
export function compileRegex(source: string): TextRegex {
  let re: RE2JS;
  try {
    re = RE2JS.compile(RE2JS.translateRegExp(source), RE2JS.CASE_INSENSITIVE);
  } catch (error) {
    throw new Error(refusal(source, (error as Error).message));
  }
  return {
    test: (text) => re.test(text),
    ranges(text, limit) {
      const out: [number, number][] = [];
      if (limit <= 0) return out;
      for (const m of re.matchAll(text)) {
        const found = m[0] ?? "";
        if (found.length === 0) continue;
        out.push([m.index ?? 0, (m.index ?? 0) + found.length]);
        if (out.length >= limit) break;
      }
      return out;
    },
  };
}
