/// <reference lib="dom" preserve="true" />
/**
 * Tool output with ANSI colour codes as styled spans: the SGR sequences (`ESC [ … m`: colours,
 * bold, italic, underline) are read by ansi-sequence-parser and become classes (the 16 named
 * colours, themed for light and dark in items.css) or a colour set through the CSSOM (the 256
 * table and RGB; the pages' CSP allows no style attributes, but script may set styles). Every
 * other control character or escape is shown visibly (`\x1b]0;…`), never passed on. Use
 * {@link ansiCode} for output that {@link hasColorCodes}.
 */
import { type Color, createAnsiSequenceParser, createColorPalette } from "ansi-sequence-parser";
import { lineEndsAsLf, visibleControls } from "../sanitize.js";
import { h } from "./elements.js";

/** One SGR sequence, kept whole so its text is never split. */
const SGR_SPLIT = /(\u001b\[[0-9;:]*m)/;
const SGR = /\u001b\[[0-9;:]*m/;

/** Does `text` hold an ANSI colour or style code? */
export function hasColorCodes(text: string): boolean {
  return SGR.test(text);
}

let palette: ReturnType<typeof createColorPalette> | undefined;

/** A class for a named colour (themed), else the colour itself for the CSSOM. */
function colorOf(color: Color): { className?: string; value?: string } {
  if (color.type === "named") return { className: color.name };
  if (color.type === "table" && color.index < 16) {
    const names = ["black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"];
    const name = names[color.index % 8] as string;
    return { className: color.index < 8 ? name : `bright${name[0]?.toUpperCase()}${name.slice(1)}` };
  }
  palette ??= createColorPalette();
  return { value: palette.value(color) };
}

/** `<code>` of `text` with its colour codes as spans and every other control visible. */
export function ansiCode(text: string): HTMLElement {
  // Controls outside SGR sequences are made visible first: the parser then sees only SGR.
  const safe = lineEndsAsLf(text)
    .split(SGR_SPLIT)
    .map((part, k) => (k % 2 === 1 ? part : visibleControls(part)))
    .join("");
  const code = h("code", { class: "ansi" });
  for (const token of createAnsiSequenceParser().parse(safe)) {
    if (token.value === "") continue;
    const classes: string[] = [];
    const span = h("span", { text: token.value });
    if (token.foreground) {
      const fg = colorOf(token.foreground);
      if (fg.className) classes.push(`ansi-fg-${fg.className}`);
      else if (fg.value) span.style.color = fg.value;
    }
    if (token.background) {
      const bg = colorOf(token.background);
      if (bg.className) classes.push(`ansi-bg-${bg.className}`);
      else if (bg.value) span.style.backgroundColor = bg.value;
    }
    for (const decoration of token.decorations) classes.push(`ansi-${decoration}`);
    if (classes.length === 0 && !token.foreground && !token.background) {
      code.append(token.value);
      continue;
    }
    span.className = classes.join(" ");
    code.append(span);
  }
  return code;
}
