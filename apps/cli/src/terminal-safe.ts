/**
 * Terminal-safe text: session content (message text, names, labels, cwd, paths, diagnostics
 * quoting a line) never reaches a terminal raw. {@link Io} passes every human line through
 * {@link toTerminal}, so no command can forget it; commands only ever hold an `Io`.
 *
 * Shown visibly, as a `\x1b`-like escape (`\xHH` below U+0100, `\uHHHH` above; the rule lives in
 * `@pi-session/render`'s sanitize module, the renderers' too): C0 controls
 * (but `\n`, the line structure of the output, and `\t`, expanded to spaces to the next
 * 8-column stop), DEL, C1 controls (U+0080-U+009F) and the bidi overrides and isolates
 * (U+202A-U+202E, U+2066-U+2069) that can disguise text. {@link oneLineField} also shows `\n` and
 * `\t`, for fields that must stay on one line (a name, a label, a path, a table cell).
 *
 * Our own colours cannot be told apart from content by looking at the text, so the styles
 * ({@link createStyles}) do not write escape codes: they wrap text in markers that carry a
 * random per-process nonce, which content cannot guess, and {@link toTerminal} turns only
 * those markers into picocolors' codes, after every control character of the text around them
 * was made visible.
 */
import {
  escapeChar,
  hasUnsafe,
  hasUnsafeInLines,
  oneLineField,
  textWidth,
  visibleControls,
} from "@pi-session/render";
import pc from "picocolors";

// The rule itself (which characters, and how they are shown) has one home, the render layer,
// which every renderer uses too; the CLI adds tabs, widths and its own colours.
export { escapeChar, hasUnsafe, hasUnsafeInLines, oneLineField };

const STYLE_NAMES = ["bold", "dim", "italic", "red", "green", "yellow", "blue", "magenta", "cyan"] as const;
type StyleName = (typeof STYLE_NAMES)[number];

/** The colours commands use; text wrapped in them is drawn by {@link toTerminal}. */
export type Styles = Record<StyleName, (text: string) => string>;

// Noncharacters around a nonce: content can hold U+FDD0 too, but not the nonce.
const OPEN = "\uFDD0";
const END = "\uFDD1";
const CLOSE_TAG = "/";
const TAG_OF = new Map<StyleName, string>(STYLE_NAMES.map((name, i) => [name, String.fromCharCode(97 + i)]));
const NAME_OF = new Map<string, StyleName>(STYLE_NAMES.map((name, i) => [String.fromCharCode(97 + i), name]));

interface Markers {
  nonce: string;
  /** Every marker, its tag captured. */
  all: RegExp;
  /** Whether a text holds one. */
  any: RegExp;
  close: string;
}

/** Made with the first styles that draw: until then no text can hold a marker. */
let markers: Markers | undefined;

/**
 * The markers, their nonce drawn on first use from Web Crypto's generator: only coloured output
 * needs one, and loading a crypto module at every start cost more than the rest of
 * `--version` on Node 20 (decision 143).
 */
function styleMarkers(): Markers {
  if (!markers) {
    const bytes = globalThis.crypto.getRandomValues(new Uint8Array(8));
    const nonce = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    markers = {
      nonce,
      all: new RegExp(`${OPEN}${nonce}([a-z/])${END}`, "g"),
      any: new RegExp(`${OPEN}${nonce}`),
      close: `${OPEN}${nonce}${CLOSE_TAG}${END}`,
    };
  }
  return markers;
}

/** Styles that mark text for {@link toTerminal}; with `enabled` false they return it unchanged. */
export function createStyles(enabled: boolean): Styles {
  const styles = {} as Styles;
  if (!enabled) {
    for (const name of STYLE_NAMES) styles[name] = (text) => text;
    return styles;
  }
  const { nonce, close } = styleMarkers();
  for (const name of STYLE_NAMES) {
    const open = `${OPEN}${nonce}${TAG_OF.get(name)}${END}`;
    styles[name] = (text) => `${open}${text}${close}`;
  }
  return styles;
}

/** `text` without style markers. */
function stripMarkers(text: string): string {
  return markers?.any.test(text) ? text.replace(markers.all, "") : text;
}

/**
 * Columns `text` takes on a terminal once made safe, without style markers (wide characters
 * count twice: render's `textWidth`, the one home of that rule).
 */
export function displayWidth(text: string): number {
  return textWidth(oneLineField(stripMarkers(text)));
}

const TAB_STOP = 8;

/** Replaces each `\t` by spaces up to the next tab stop (columns counted without markers). */
function expandTabs(text: string): string {
  return text
    .split("\n")
    .map((line) => {
      if (!line.includes("\t")) return line;
      const parts = line.split("\t");
      let out = parts[0] ?? "";
      let column = stripMarkers(out).length;
      for (const part of parts.slice(1)) {
        const pad = TAB_STOP - (column % TAB_STOP);
        out += " ".repeat(pad) + part;
        column += pad + stripMarkers(part).length;
      }
      return out;
    })
    .join("\n");
}

const COLORS = pc.createColors(true);

/** Turns style markers into picocolors' escape codes (nested as picocolors nests them). */
function drawStyles(text: string, all: RegExp): string {
  const frames: { style: StyleName | undefined; parts: string[] }[] = [{ style: undefined, parts: [] }];
  let at = 0;
  const close = () => {
    const frame = frames.pop();
    const parent = frames.at(-1);
    if (!frame?.style || !parent) return;
    parent.parts.push(COLORS[frame.style](frame.parts.join("")));
  };
  for (const match of text.matchAll(all)) {
    (frames.at(-1) as { parts: string[] }).parts.push(text.slice(at, match.index));
    at = match.index + match[0].length;
    const tag = match[1] as string;
    if (tag === CLOSE_TAG) {
      if (frames.length > 1) close();
    } else frames.push({ style: NAME_OF.get(tag), parts: [] });
  }
  (frames.at(-1) as { parts: string[] }).parts.push(text.slice(at));
  while (frames.length > 1) close();
  return (frames[0] as { parts: string[] }).parts.join("");
}

/** The SGR attributes our styles set, as one line's end leaves them. */
interface SgrState {
  bold: boolean;
  dim: boolean;
  italic: boolean;
  /** The foreground colour's code (31-36), or undefined for the default. */
  colour: number | undefined;
}

/**
 * Drawn text with the styles open at each line end closed there and opened again on the next
 * line: a pager (`less -R`) resets the attributes at every line, so the second line of a
 * dimmed block would otherwise look like the answer. The text holds only our own SGR codes
 * (content was made visible before they were drawn), so following them is exact.
 */
export function stylesPerLine(drawn: string): string {
  if (!drawn.includes("\n")) return drawn;
  const state: SgrState = { bold: false, dim: false, italic: false, colour: undefined };
  const opens = () =>
    [state.bold && 1, state.dim && 2, state.italic && 3, state.colour]
      .filter((code): code is number => typeof code === "number")
      .map((code) => `\x1b[${code}m`)
      .join("");
  const closes = () =>
    [(state.bold || state.dim) && 22, state.italic && 23, state.colour !== undefined && 39]
      .filter((code): code is number => typeof code === "number")
      .map((code) => `\x1b[${code}m`)
      .join("");
  return drawn
    .split("\n")
    .map((line, i) => {
      const reopened = i === 0 ? "" : opens();
      for (const match of line.matchAll(/\x1b\[(\d+)m/g)) {
        const code = Number(match[1]);
        if (code === 1) state.bold = true;
        else if (code === 2) state.dim = true;
        else if (code === 22) state.bold = state.dim = false;
        else if (code === 3) state.italic = true;
        else if (code === 23) state.italic = false;
        else if (code === 39) state.colour = undefined;
        else if (code >= 30 && code <= 37) state.colour = code;
      }
      return reopened + line + closes();
    })
    .join("\n");
}

/**
 * The one way human output reaches a terminal: control characters shown visibly (lines kept,
 * tabs expanded), then our own style markers drawn as colours (`colors`), each line's styles
 * its own ({@link stylesPerLine}), or dropped.
 */
export function toTerminal(text: string, colors: boolean): string {
  let out = visibleControls(text);
  if (out.includes("\t")) out = expandTabs(out);
  if (!markers?.any.test(out)) return out;
  return colors ? stylesPerLine(drawStyles(out, markers.all)) : out.replace(markers.all, "");
}
