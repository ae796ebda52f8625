/**
 * Text measured in terminal columns, as terminals draw it: by grapheme cluster, a wide
 * character (CJK, fullwidth forms) or an emoji (with its sequences: ZWJ families, flags, skin
 * tones, `❤️` with its variation selector) takes two, a combining mark or a joiner none,
 * everything else one. The rule is `string-width`'s (Unicode's East Asian Width and emoji
 * data); this module is its one home here, for the text renderer and the CLI (tables,
 * listings, search lines). Use {@link textWidth} to measure, {@link cutEnd} / {@link cutStart}
 * to fit a one-line field with an ellipsis, {@link fitPieces} to fit a line drawn from styled
 * runs, and {@link wrapLine} to fold a line of text. Cuts never split a cluster.
 *
 * Measure text once it is made visible (`visibleControls`): an escaped control is its escape.
 */
import stringWidth from "string-width";

// Text that is all printable ASCII is as wide as it is long: the common case, measured at once.
const ASCII = /^[\x20-\x7e]*$/;

const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** The grapheme clusters of `text` (a flag, a family, a letter with its accents: one each). */
function clustersOf(text: string): string[] {
  return Array.from(graphemes.segment(text), (s) => s.segment);
}

// The text is made visible before it is measured: no escape code to strip.
const MEASURE = { countAnsiEscapeCodes: true } as const;

/** The first grapheme cluster of a non-empty `text`. */
function firstCluster(text: string): string {
  return graphemes.segment(text)[Symbol.iterator]().next().value?.segment ?? text;
}

/** Columns one character, or one grapheme cluster, takes on a terminal. */
export function charWidth(cluster: string): number {
  return stringWidth(cluster, MEASURE);
}

/** Columns `text` takes (one line; a `\n` counts as one, like any other character). */
export function textWidth(text: string): number {
  if (ASCII.test(text)) return text.length;
  const lines = text.split("\n");
  return lines.reduce((n, line) => n + stringWidth(line, MEASURE), lines.length - 1);
}

/** The longest start of `text` that fits in `width` columns (no ellipsis). */
export function headOf(text: string, width: number): string {
  if (width <= 0) return "";
  // Printable ASCII up to the character after the cut: no cluster crosses it.
  if (ASCII.test(text.slice(0, width + 1))) return text.slice(0, width);
  let out = "";
  let used = 0;
  // Segmented lazily: a fold of a long line reads only the head it keeps.
  for (const { segment: cluster } of graphemes.segment(text)) {
    const w = charWidth(cluster);
    if (used + w > width) break;
    out += cluster;
    used += w;
  }
  return out;
}

/** The longest end of `text` that fits in `width` columns (no ellipsis). */
function tailOf(text: string, width: number): string {
  if (width <= 0) return "";
  if (ASCII.test(text)) return text.slice(Math.max(0, text.length - width));
  const clusters = clustersOf(text);
  let out = "";
  let used = 0;
  for (let i = clusters.length - 1; i >= 0; i--) {
    const w = charWidth(clusters[i] as string);
    if (used + w > width) break;
    out = clusters[i] + out;
    used += w;
  }
  return out;
}

/** `text` cut to `width` columns keeping its start, `…` last when cut (a name, a title). */
export function cutEnd(text: string, width: number): string {
  if (textWidth(text) <= width) return text;
  return width <= 0 ? "" : `${headOf(text, width - 1)}…`;
}

/** `text` cut to `width` columns keeping its end, `…` first when cut (a path, a directory). */
export function cutStart(text: string, width: number): string {
  if (textWidth(text) <= width) return text;
  return width <= 0 ? "" : `…${tailOf(text, width - 1)}`;
}

/** A run of a line: its (visible) text, and how it is drawn once cut. */
export interface Piece {
  text: string;
  style?: (text: string) => string;
}

/**
 * The pieces drawn as one line of at most `width` columns: when they are wider, the line is cut
 * where it reaches `width - 1` columns and ends with `…`; pieces after the cut are left out.
 * Styles are applied to the cut text, so a cut never splits a colour. No width: all of it.
 */
export function fitPieces(pieces: readonly Piece[], width: number | undefined): string {
  const draw = (p: Piece, text: string) => (text === "" ? "" : p.style ? p.style(text) : text);
  const total = pieces.reduce((n, p) => n + textWidth(p.text), 0);
  if (width === undefined || total <= width) return pieces.map((p) => draw(p, p.text)).join("");
  const room = Math.max(0, width - 1);
  let out = "";
  let used = 0;
  for (const p of pieces) {
    const head = headOf(p.text, room - used);
    const cut = head !== p.text;
    // No space right before the ellipsis.
    const text = cut ? head.trimEnd() : head;
    used += textWidth(text);
    out += draw(p, text);
    if (cut) break;
  }
  return width <= 0 ? "" : `${out}…`;
}

/**
 * One line of text folded into lines of at most `width` columns, at the last space that lets
 * a piece fit (the space is dropped), else mid-word. A line that fits is returned as it is;
 * a width under 1 is read as 1.
 */
export function wrapLine(line: string, width: number): string[] {
  const room = Math.max(1, width);
  if (textWidth(line) <= room) return [line];
  const out: string[] = [];
  let rest = line;
  while (rest !== "") {
    // A wide character where only one column is left still goes on a line of its own.
    const head = headOf(rest, room) || firstCluster(rest);
    if (head.length === rest.length) {
      out.push(rest);
      break;
    }
    // Break at a space inside the head, unless that leaves almost nothing on the line.
    const space = head.lastIndexOf(" ");
    const cut = space > 0 && textWidth(head.slice(0, space)) >= room / 3 ? space : head.length;
    out.push(rest.slice(0, cut).trimEnd());
    rest = rest.slice(cut);
    if (cut === space) rest = rest.replace(/^ +/, "");
  }
  return out;
}
