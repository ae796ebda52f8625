import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { fcOptions } from "@pi-session/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  createStyles,
  displayWidth,
  escapeChar,
  oneLineField,
  stylesPerLine,
  toTerminal,
} from "./terminal-safe.js";

/** Every character that must never reach a terminal raw, `\n` and `\t` aside. */
const RAW_UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;
/** Our palette's escape codes (picocolors' SGR codes). */
const SGR = /\x1b\[\d+m/g;

/** Strings rich in what terminals act on: controls, C1, bidi, markers' noncharacters, text. */
const hostileChar = fc.oneof(
  fc.integer({ min: 0, max: 0x20 }).map((c) => String.fromCharCode(c)),
  fc.integer({ min: 0x7f, max: 0x9f }).map((c) => String.fromCharCode(c)),
  fc.constantFrom("\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069"),
  fc.constantFrom(
    "\uFDD0",
    "\uFDD1",
    "\x1b[31m",
    "\x1b]52;c;SGVsbG8=\x07",
    "\x1b]8;;http://x\x1b\\",
    "a",
    "é",
    "€",
  ),
  fc.string({ unit: "grapheme", maxLength: 3 }),
);
const hostile = fc.array(hostileChar, { maxLength: 40 }).map((parts) => parts.join(""));

describe("toTerminal", () => {
  it("shows C0 (but \\n), DEL, C1 and bidi controls as \\x / \\u escapes and expands tabs", () => {
    expect(toTerminal("a\x1b[2Jb\rc\x07d\x7fe\x9bf\u202eg\u2066h", false)).toBe(
      "a\\x1b[2Jb\\x0dc\\x07d\\x7fe\\x9bf\\u202eg\\u2066h",
    );
    expect(toTerminal("one\ntwo", false)).toBe("one\ntwo");
    expect(toTerminal("ab\tc\n\td", false)).toBe("ab      c\n        d");
    expect(escapeChar("\x00")).toBe("\\x00");
  });

  it("leaves nothing raw, whatever the text", () => {
    fc.assert(
      fc.property(hostile, fc.boolean(), (text, colors) => {
        const out = toTerminal(text, colors);
        expect(out).not.toMatch(RAW_UNSAFE);
        expect(out).not.toContain("\t");
        // Content cannot forge our styles: without styles there is no escape code at all.
        expect(out).not.toContain("\x1b");
      }),
      fcOptions(),
    );
  });

  it("draws our styles, and only ours, around content made safe", () => {
    const c = createStyles(true);
    fc.assert(
      fc.property(hostile, hostile, hostile, (a, b, d) => {
        const styled = `${c.bold(`${a} ${c.red(b)}`)}${d}${c.dim(c.italic(a))}`;
        const out = toTerminal(styled, true);
        const codes = out.match(SGR) ?? [];
        expect(codes.length).toBeGreaterThan(0);
        const bare = out.replace(SGR, "");
        expect(bare).not.toContain("\x1b");
        expect(bare).not.toMatch(RAW_UNSAFE);
        expect(bare).toBe(toTerminal(`${a} ${b}${d}${a}`, false));
        // The same styles on a stream without colours: plain text.
        expect(toTerminal(styled, false)).toBe(bare);
      }),
      fcOptions(),
    );
  });

  it("a styled block of several lines opens its styles on every line (as `less -R` needs)", () => {
    const c = createStyles(true);
    const out = toTerminal(`${c.dim(c.italic("first\nsecond\nthird"))}\nplain`, true);
    const lines = out.split("\n");
    expect(lines[1]).toBe("\x1b[2m\x1b[3msecond\x1b[22m\x1b[23m");
    expect(lines[3]).toBe("plain");
    expect(stylesPerLine("no styles\nat all")).toBe("no styles\nat all");
  });

  it("property: each character looks the same read line by line (a pager) as read whole", () => {
    const c = createStyles(true);
    const names = ["bold", "dim", "italic", "red", "cyan", "green"] as const;
    const styled: fc.Arbitrary<string> = fc.letrec<{ node: string }>((tie) => ({
      node: fc.oneof(
        { depthSize: "small", withCrossShrink: true },
        fc.constantFrom("a", "b c", "\n", "d\ne", ""),
        fc.tuple(fc.constantFrom(...names), tie("node")).map(([name, inner]) => c[name](inner)),
        fc.array(tie("node"), { maxLength: 4 }).map((parts) => parts.join("")),
      ),
    })).node;
    fc.assert(
      fc.property(styled, (text) => {
        const out = toTerminal(text, true);
        const whole = attributesOf([out]);
        const perLine = attributesOf(out.split("\n"));
        expect(perLine).toEqual(whole);
      }),
      fcOptions(),
    );
  });

  it("styles are plain text when colours are off", () => {
    const c = createStyles(false);
    expect(c.bold(c.red("x"))).toBe("x");
  });
});

/**
 * The attributes each visible character is drawn with, reading `pieces` each from a reset state
 * (one piece: a terminal; the lines: a pager that resets at every line).
 */
function attributesOf(pieces: readonly string[]): string[] {
  const out: string[] = [];
  for (const piece of pieces) {
    const on = new Set<string>();
    let colour = "";
    for (const part of piece.split(/(\x1b\[\d+m)/)) {
      const code = /^\x1b\[(\d+)m$/.exec(part)?.[1];
      if (code === undefined) {
        for (const ch of part) if (ch !== "\n") out.push(`${ch}:${[...on].sort().join("")}${colour}`);
        continue;
      }
      if (code === "22") {
        on.delete("1");
        on.delete("2");
      } else if (code === "23") on.delete("3");
      else if (code === "39") colour = "";
      else if (code.startsWith("3") && code.length === 2) colour = code;
      else on.add(code);
    }
  }
  return out;
}

describe("oneLineField and displayWidth", () => {
  it("a one-line field shows \\n and \\t too", () => {
    expect(oneLineField("a\nb\tc\x1bd")).toBe("a\\x0ab\\x09c\\x1bd");
    fc.assert(
      fc.property(hostile, (text) => {
        const field = oneLineField(text);
        expect(field).not.toMatch(/[\n\t]/);
        expect(toTerminal(field, true)).toBe(field);
      }),
      fcOptions(),
    );
  });

  it("width counts the visible form, not the style markers", () => {
    const c = createStyles(true);
    expect(displayWidth(c.bold("ab\x1b"))).toBe(6);
    expect(displayWidth("plain")).toBe(5);
  });
});

describe("the output boundary", () => {
  it("only io.ts (and run-process.ts, which hands it the streams) touches stdout, stderr or console; only terminal-safe.ts colours", () => {
    const src = dirname(fileURLToPath(import.meta.url));
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
      );
    // fuzz-child.ts is the fuzz target's child process, not part of the program (never bundled).
    const sources = files(src).filter((f) => !f.endsWith(".test.ts") && !f.endsWith("fuzz-child.ts"));
    const name = (f: string) => f.slice(src.length + 1);
    const offenders = sources.filter(
      (f) =>
        !/^(io|run-process)\.ts$/.test(name(f)) &&
        /process\.(stdout|stderr)|console\./.test(readFileSync(f, "utf8")),
    );
    // Escape codes come from one place: picocolors, drawn by the boundary.
    const colourers = sources.filter(
      (f) => name(f) !== "terminal-safe.ts" && readFileSync(f, "utf8").includes("picocolors"),
    );
    expect(colourers).toEqual([]);
    expect(offenders).toEqual([]);
  });
});
