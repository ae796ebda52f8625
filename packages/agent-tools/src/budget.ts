/**
 * The character budget of one answer: items (a hit, an entry, a row) are taken in order while
 * both the text and the structured JSON stay within it, so neither form of an answer passes
 * the caller's `maxChars`. What did not fit is counted, for the note that says how to get it.
 */

/** Room kept for the answer's heading, its closing note and the JSON around the items. */
const RESERVED = 300;

export class Budget {
  private textUsed = 0;
  private jsonUsed = 0;
  /** Items taken. */
  taken = 0;
  /** Items offered after the first that did not fit. */
  left = 0;

  /** `reserved`: what the answer has beside its items (a long path in its heading). */
  constructor(
    readonly maxChars: number,
    reserved = 0,
  ) {
    this.room = Math.max(0, maxChars - RESERVED - reserved);
  }

  private readonly room: number;

  /**
   * Takes an item if it fits; the first item is always taken, its text cut to the room when it
   * is longer (returned, with the cut said at its end). Once one item did not fit, none after
   * it is taken either (an answer is a prefix of what there was), but they are counted.
   */
  take<T>(text: string, json: T, cutJson: (text: string) => T): { text: string; json: T } | undefined {
    if (this.left > 0) {
      this.left++;
      return undefined;
    }
    const jsonLength = JSON.stringify(json).length;
    if (this.textUsed + text.length <= this.room && this.jsonUsed + jsonLength <= this.room) {
      this.textUsed += text.length;
      this.jsonUsed += jsonLength;
      this.taken++;
      return { text, json };
    }
    if (this.taken > 0) {
      this.left++;
      return undefined;
    }
    // The first item alone is too long: its text cut until both forms fit (JSON escapes count too).
    let max = this.room;
    let cut = cutText(text, max);
    let cutItem = cutJson(cut);
    let cutLength = JSON.stringify(cutItem).length;
    while ((cut.length > this.room || cutLength > this.room) && max > 0) {
      max = Math.floor(max * 0.8);
      cut = cutText(text, max);
      cutItem = cutJson(cut);
      cutLength = JSON.stringify(cutItem).length;
    }
    this.textUsed += cut.length;
    this.jsonUsed += cutLength;
    this.taken++;
    return { text: cut, json: cutItem };
  }
}

/** `text` cut to at most `max` characters, the cut said at its end (never a split surrogate pair). */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const note = ` [... ${text.length - Math.floor(max)} more characters cut]`;
  let end = Math.max(0, Math.floor(max) - note.length);
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${text.slice(0, end)}${note}`;
}

/** An answer as the tools build it: text, the same facts as JSON. */
export interface Built {
  text: string;
  structured: Record<string, unknown>;
}

/**
 * The answer `build` makes from the first `n` of `count` items, with `n` as large as fits in
 * `maxChars` (text and JSON both); `build` is told how many it leaves out, to say so. The
 * items were taken within a {@link Budget} already, so this drops none or a few. When not even
 * the answer without items fits (a heading longer than the budget), its text is cut.
 */
export function fitAnswer(maxChars: number, count: number, build: (n: number) => Built): Built {
  for (let n = count; n >= 0; n--) {
    const answer = build(n);
    if (answer.text.length <= maxChars && JSON.stringify(answer.structured).length <= maxChars) return answer;
    if (n === 0)
      return {
        text: cutText(answer.text, maxChars),
        structured: { cut: `the answer does not fit in ${maxChars} characters; ask with a larger maxChars` },
      };
  }
  return build(0);
}
