/**
 * Markdown that reads well on GitHub (CommonMark + GFM): a title and facts, a heading per
 * turn (each user message starts one), then every item as a bold label line and its body.
 * Tool calls and outputs go in fenced blocks with their language, an edit as a `diff` fence
 * with line numbers, a result headed with its call (`← read` `src/a.ts`); long outputs are cut
 * by lines and by size with a note saying how much (unless `full`; fold.ts); thinking and compaction summaries fold into
 * `<details>`; images are links to files the caller writes (`images`), or left out with a note.
 *
 * Session text is untrusted: Markdown the author wrote stays Markdown, but raw HTML in it is
 * escaped, links to `javascript:`/`data:`/`vbscript:` are broken in every spelling (character
 * references, percent-encoding, escapes, case, whitespace), an unclosed fence is closed,
 * control characters are made visible and colour codes dropped, so that no renderer (even one
 * that does not check links itself) makes a script link of it. Everything else (titles,
 * labels, paths) is escaped or put in code spans and fences long enough for its backticks.
 */
import { describeRest, foldText } from "./fold.js";
import { imageProblem, safeImage, type SafeImage } from "./images.js";
import { diffText } from "./model/diff.js";
import type { Block, DocumentItem, ImageBlock, RenderDocument } from "./model/shapes.js";
import { formatInt, formatSize, utcTime } from "./readable.js";
import { lineEndsAsLf, stripColorCodes, visibleControls } from "./sanitize.js";

export interface MarkdownOptions {
  /** Keep long outputs whole. */
  full?: boolean;
  /** Lines of an output kept before it is cut (default 40). */
  maxOutputLines?: number;
  /** Characters of an output kept before it is cut (default 8,000). */
  maxOutputChars?: number;
  /** Markdown appended to every cut note, e.g. "; `--full` keeps them". */
  cutHint?: string;
  /**
   * Where an image goes: return the link (relative to the Markdown file) after arranging for
   * the file to be written, or undefined to leave it out. Without it images are left out
   * with a note. Called once per shown image, in document order, numbered from 1.
   */
  images?: (image: ImageBlock & SafeImage, number: number) => string | undefined;
  /** ISO time -> what is shown (default: `YYYY-MM-DD HH:MM UTC`). */
  formatTime?: (iso: string) => string;
}

// ---------------------------------------------------------------------------------------
// Escaping

/** Session text made safe to print: controls visible, colour codes dropped. */
function clean(text: string): string {
  return visibleControls(stripColorCodes(lineEndsAsLf(text)));
}

/** Text for an inline position (a label line): one line, Markdown punctuation escaped. */
export function escapeInline(text: string): string {
  return clean(text)
    .replace(/\s+/g, " ")
    .trim()
    .replace(/[\\`*_[\]<>|~&]/g, (ch) => `\\${ch}`);
}

/** Text as an inline code span, with a delimiter longer than any backtick run inside. */
export function inlineCode(text: string): string {
  const flat = clean(text).replace(/\s+/g, " ").trim();
  if (flat === "") return "` `";
  let longest = 0;
  for (const run of flat.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  const ticks = "`".repeat(longest + 1);
  const pad = flat.startsWith("`") || flat.endsWith("`") ? " " : "";
  return `${ticks}${pad}${flat}${pad}${ticks}`;
}

/** A fenced code block whose fence no line of `text` can close. */
export function fence(text: string, language: string): string {
  let longest = 2;
  for (const run of text.match(/`{3,}/g) ?? []) longest = Math.max(longest, run.length);
  const ticks = "`".repeat(longest + 1);
  const info = language.replace(/[^A-Za-z0-9_+-]/g, "");
  return `${ticks}${info}\n${text}${text.endsWith("\n") || text === "" ? "" : "\n"}${ticks}`;
}

// Author Markdown. What a renderer could turn into a link or markup is neutralized in the
// prose; what every renderer sees as code (fences, indented code, code spans) stays verbatim.
// Where renderers may disagree on what is code, it is treated as prose: an escape shown inside
// real code costs a stray backslash, a link left in prose could run a script.

/** A fence opener: up to 3 spaces, 3+ backticks (an info string without backticks) or tildes. */
const FENCE_OPEN = /^( {0,3})(`{3,}(?=[^`]*$)|~{3,})/;
/** A list item's marker, which makes the lines after it possibly the item's content. */
const LIST_ITEM = /^ {0,3}([-+*]|\d{1,9}[.)])([ \t]|$)/;
/** The schemes a link must never reach a page with. */
const UNSAFE_SCHEMES = new Set(["javascript", "vbscript", "data"]);
/**
 * One character of a possible URL scheme as a renderer or browser may decode it: a scheme
 * character, a colon, a tab, a character reference (`&#106;`, `&#x3A;`, `&colon;`, `&Tab;`), a
 * percent-encoding, a backslash escape.
 */
const SCHEME_PIECE =
  /[A-Za-z0-9+.\-:\t]|&#[xX][0-9A-Fa-f]{1,8};?|&#[0-9]{1,10};?|&[A-Za-z][A-Za-z0-9]{1,31};?|%[0-9A-Fa-f]{2}|\\[!-/:-@[-`{-~]/y;
/** The named character references that decode to a character a scheme can hold (or lose). */
const NAMED_PIECES: Record<string, string> = {
  "&colon;": ":",
  "&Tab;": "\t",
  "&NewLine;": "\n",
  "&period;": ".",
  "&plus;": "+",
};
/** Put before a run that spells an unsafe scheme: no scheme starts with it, and it is not dropped. */
const SCHEME_BREAK = "\u200b";

/** What a renderer (then a browser) may read one scheme piece as. */
function decodePiece(piece: string): string {
  if (piece.length === 1) return piece;
  if (piece.startsWith("\\")) return piece.slice(1);
  if (piece.startsWith("%")) return String.fromCharCode(Number.parseInt(piece.slice(1), 16));
  if (piece.startsWith("&#")) {
    const hex = piece[2] === "x" || piece[2] === "X";
    const code = Number.parseInt(piece.slice(hex ? 3 : 2).replace(";", ""), hex ? 16 : 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : "\ufffd";
  }
  return NAMED_PIECES[piece] ?? "\ufffd";
}

/** `text` with its percent-encodings decoded (twice: a `%` may itself have been a reference). */
function percentDecoded(text: string): string {
  let out = text;
  for (let round = 0; round < 2 && out.includes("%"); round++)
    out = out.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) =>
      String.fromCharCode(Number.parseInt(hex, 16)),
    );
  return out;
}

/** A run of scheme pieces (see {@link SCHEME_PIECE}). */
const SCHEME_RUN = new RegExp(`(?:${SCHEME_PIECE.source})+`, "g");
/**
 * A stretch of text that may hold a run spelling a colon (a `:`, a reference, a
 * percent-encoding or an escape): from a word start (the lookbehind, so each start is tried
 * once), scheme-ish characters taken atomically (the lookahead and backreference), then a
 * `:`, `&`, `%` or escape, then more. Linear: words without those characters cost one try.
 */
const COLON_STRETCH =
  /(?<![A-Za-z0-9+.\-:\t&#;%\\])(?=([A-Za-z0-9+.\-\t#;]*))\1(?:[:&%]|\\[\s\S]?)(?:[A-Za-z0-9+.\-:\t&#;%]|\\[\s\S]?)*/g;

/** An unsafe scheme spelled with plain letters (tabs between them are dropped by the URL parser). */
const PLAIN_UNSAFE_SCHEME = /(?:s\t*c\t*r\t*i\t*p\t*t|d\t*a\t*t\t*a)\t*:/i;

/** Whether a run of scheme pieces (followed by `next`) spells an unsafe URL once decoded. */
function unsafeRun(run: string, next: string | undefined): boolean {
  if (run.length < 5) return false;
  let decoded = "";
  for (let i = 0; i < run.length; ) {
    SCHEME_PIECE.lastIndex = i;
    const piece = (SCHEME_PIECE.exec(run) as RegExpExecArray)[0];
    decoded += decodePiece(piece);
    i += piece.length;
  }
  const url = percentDecoded(decoded)
    .replace(/[\u0000-\u0020]/g, "")
    .toLowerCase();
  const colon = url.indexOf(":");
  const scheme = colon > 0 ? url.slice(0, colon) : "";
  if (!UNSAFE_SCHEMES.has(scheme)) return false;
  // "the data: 5" is prose.
  return !(scheme === "data" && colon === url.length - 1 && (next === undefined || /\s/.test(next)));
}

/**
 * `text` with a zero-width space before every run that could spell a `javascript:`,
 * `vbscript:` or `data:` URL once decoded (character references, backslash escapes,
 * percent-encoding, case, and the tabs, newlines and spaces a URL parser drops): the run then
 * starts with a character no scheme holds. A `data:` followed by a space is prose ("the data:
 * …") and stays.
 */
function breakUnsafeSchemes(text: string): string {
  // Without a reference, a percent-encoding or an escape, only raw letters (and tabs) can spell one.
  if (!/[&%\\]/.test(text) && !PLAIN_UNSAFE_SCHEME.test(text)) return text;
  let out = "";
  let copied = 0;
  for (const stretch of text.matchAll(COLON_STRETCH)) {
    for (const m of stretch[0].matchAll(SCHEME_RUN)) {
      const at = stretch.index + m.index;
      if (!unsafeRun(m[0], text[at + m[0].length])) continue;
      out += text.slice(copied, at) + SCHEME_BREAK;
      copied = at;
    }
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** A `<` that opens no web or mail autolink. */
const LONE_LT = /<(?!(?:https?:\/\/|mailto:)[^\s<>`\\]*>)/gi;
/** The same, or a backslash escape (kept as it is: its `<` is escaped already). */
const LONE_LT_OR_ESCAPE = /\\[!-/:-@[-`{-~]|<(?!(?:https?:\/\/|mailto:)[^\s<>`\\]*>)/gi;

/** Prose: unsafe schemes broken, `<` escaped (no raw HTML, no autolink) but for web and mail autolinks. */
function escapeProse(text: string): string {
  const broken = breakUnsafeSchemes(text);
  if (!broken.includes("<")) return broken;
  if (!broken.includes("\\")) return broken.replace(LONE_LT, "\\<");
  return broken.replace(LONE_LT_OR_ESCAPE, (m: string) => (m === "<" ? "\\<" : m));
}

/** What a paragraph carries from one line to the next. */
interface ProseState {
  /** A backtick run of an earlier line is still open: a renderer may close it on this one. */
  openBackticks: boolean;
}

/**
 * One line of prose: code spans every renderer agrees on kept verbatim (a backtick run closed by
 * one of the same length on this line, not escaped, holding no `|` a table would split at, in a
 * paragraph with no backtick run left open), the rest through {@link escapeProse}.
 */
function escapeProseLine(line: string, state: ProseState): string {
  if (!line.includes("`")) return escapeProse(line);
  const trusted = !state.openBackticks;
  let out = "";
  let prose = "";
  let i = 0;
  const special = /[`\\]/g;
  while (i < line.length) {
    special.lastIndex = i;
    const found = special.exec(line);
    if (found === null) {
      prose += line.slice(i);
      break;
    }
    const j = found.index;
    prose += line.slice(i, j);
    if (line[j] === "\\") {
      // An escaped character (a backtick among them) opens nothing.
      const escaped = j + 1 < line.length && /[!-/:-@[-`{-~]/.test(line[j + 1] as string);
      prose += line.slice(j, escaped ? j + 2 : j + 1);
      i = escaped ? j + 2 : j + 1;
      continue;
    }
    let run = j;
    while (line[run] === "`") run++;
    const ticks = run - j;
    // The closing run: the next run of exactly as many backticks.
    let close = -1;
    for (let k = line.indexOf("`", run); k !== -1; ) {
      let end = k;
      while (line[end] === "`") end++;
      if (end - k === ticks) {
        close = k;
        break;
      }
      k = line.indexOf("`", end);
    }
    if (close === -1) {
      state.openBackticks = true;
      prose += line.slice(j, run);
      i = run;
      continue;
    }
    const span = line.slice(j, close + ticks);
    if (trusted && !span.includes("|")) {
      out += escapeProse(prose) + span;
      prose = "";
    } else prose += span;
    i = close + ticks;
  }
  return out + escapeProse(prose);
}

/** The indentation of a line in columns (a tab to the next multiple of 4). */
function indentOf(line: string): number {
  let columns = 0;
  for (const ch of line) {
    if (ch === " ") columns++;
    else if (ch === "\t") columns += 4 - (columns % 4);
    else break;
  }
  return columns;
}

/**
 * Markdown written by the session's author, made safe to embed in any renderer: raw HTML and
 * autolinks but web and mail ones escaped (`\<`), every spelling of a `javascript:`,
 * `vbscript:` or `data:` link broken, code kept verbatim where every renderer sees code (fences,
 * indented code outside lists, code spans on one line), an unclosed fence closed.
 */
export function safeMarkdown(text: string): string {
  const lines = clean(text).split("\n");
  const out: string[] = [];
  let fence: { char: string; length: number; indent: number } | undefined;
  let previousBlank = true;
  let indented = false;
  let inList = false;
  const prose: ProseState = { openBackticks: false };
  for (const line of lines) {
    const blank = line.trim() === "";
    if (fence !== undefined) {
      // A line less indented than the fence may end the list item it is in (and the fence).
      if (blank || indentOf(line) >= fence.indent) {
        out.push(line);
        const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
        if (close?.[1] && close[1][0] === fence.char && close[1].length >= fence.length) fence = undefined;
        continue;
      }
      out.push(fence.char.repeat(fence.length));
      fence = undefined;
    }
    const open = FENCE_OPEN.exec(line);
    if (open?.[2]) {
      fence = { char: open[2][0] as string, length: open[2].length, indent: open[1]?.length ?? 0 };
      out.push(line);
      previousBlank = false;
      prose.openBackticks = false;
      continue;
    }
    if (LIST_ITEM.test(line)) inList = true;
    else if (!blank && previousBlank && indentOf(line) < 4) inList = false;
    // An indented code block starts after a blank line; inside a list it may be the item's text.
    const isIndented = !blank && indentOf(line) >= 4;
    indented = isIndented && !inList && (previousBlank || indented);
    out.push(indented ? line : escapeProseLine(line, prose));
    if (blank || indented) prose.openBackticks = false;
    previousBlank = blank;
  }
  if (fence !== undefined) out.push(fence.char.repeat(fence.length));
  return out.join("\n").trim();
}

// ---------------------------------------------------------------------------------------
// Cutting

interface Cut {
  text: string;
  /** What was cut, as text, or "". */
  note: string;
}

function cut(
  text: string,
  options: Required<Pick<MarkdownOptions, "maxOutputLines" | "maxOutputChars">>,
  full: boolean,
): Cut {
  if (full) return { text, note: "" };
  const folded = foldText(text, { lines: options.maxOutputLines, chars: options.maxOutputChars });
  if (folded.rest === undefined) return { text, note: "" };
  return { text: folded.text, note: `… ${describeRest(folded.rest)} cut` };
}

// ---------------------------------------------------------------------------------------
// Rendering

interface State {
  options: MarkdownOptions;
  limits: Required<Pick<MarkdownOptions, "maxOutputLines" | "maxOutputChars">>;
  full: boolean;
  hint: string;
  time: (iso: string) => string;
  imageNumber: number;
}

function italicNote(text: string): string {
  return `_${escapeInline(text)}_`;
}

function codeBlock(text: string, language: string, state: State): string {
  const c = cut(clean(text), state.limits, state.full);
  const block = fence(c.text, language);
  // The hint is the caller's Markdown (it may hold a code span), so it is not escaped.
  return c.note ? `${block}\n\n_${escapeInline(c.note)}${state.hint}_` : block;
}

function imageMarkdown(block: ImageBlock, state: State): string {
  const problem = imageProblem(block);
  if (problem !== undefined) return italicNote(`(image left out: ${problem})`);
  const safe = safeImage(block) as SafeImage;
  const number = ++state.imageNumber;
  const link = state.options.images?.({ ...block, ...safe }, number);
  if (link === undefined)
    return italicNote(`(image ${number} left out: ${safe.mimeType}, ${formatSize(safe.bytes)})`);
  const href = link.replace(
    /[\s()<>\\]/g,
    (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`,
  );
  return `![image ${number}](${href})`;
}

function quote(text: string): string {
  return text
    .split("\n")
    .map((line) => (line === "" ? ">" : `> ${line}`))
    .join("\n");
}

function blockMarkdown(block: Block, item: DocumentItem, state: State): string | undefined {
  switch (block.type) {
    case "text": {
      if (block.text.trim() === "") return undefined;
      if (!block.markdown) return codeBlock(block.text, "text", state);
      const md = safeMarkdown(block.text);
      if (item.kind === "compaction") return `<details>\n<summary>Summary</summary>\n\n${md}\n\n</details>`;
      if (item.kind === "branchSummary" || item.kind === "branchSummaryEntry") return quote(md);
      return md;
    }
    case "thinking": {
      if (block.redacted) return italicNote("(redacted thinking)");
      if (block.text.trim() === "") return undefined;
      return `<details>\n<summary>Thinking</summary>\n\n${quote(safeMarkdown(block.text))}\n\n</details>`;
    }
    case "toolCall": {
      const head = `**→ ${escapeInline(block.name || "tool")}**${block.summary ? ` ${inlineCode(block.summary)}` : ""}`;
      if (block.diff) return `${head}\n\n${codeBlock(diffText(block.diff), "diff", state)}`;
      return block.code ? `${head}\n\n${codeBlock(block.code.text, block.code.language, state)}` : head;
    }
    case "output": {
      if (item.kind === "bashExecution") {
        const command = item.title.replace(/^\$ /, "");
        return codeBlock(`$ ${command}\n${block.text}`, "console", state);
      }
      if (block.text === "") return italicNote("(no output)");
      return codeBlock(block.text, block.language, state);
    }
    case "image":
      return imageMarkdown(block, state);
    case "code": {
      const caption = block.caption ? `${italicNote(block.caption)}\n\n` : "";
      return `${caption}${codeBlock(block.text, block.language, state)}`;
    }
    case "note":
      return italicNote(`(${block.text})`);
  }
}

function detailsOf(item: DocumentItem, names: readonly string[]): string[] {
  return item.details.filter((d) => names.includes(d.name)).map((d) => escapeInline(d.value));
}

/** The bold label line of an item: what it is, then facts, label and time. */
function labelLine(item: DocumentItem, state: State): string {
  let head: string;
  const facts: string[] = [];
  switch (item.kind) {
    case "user":
      head = "**User**";
      break;
    case "assistant":
      head = "**Assistant**";
      facts.push(...detailsOf(item, ["model", "stop"]));
      break;
    case "toolResult":
      head = `**← ${escapeInline(item.toolName || "tool")}**${item.callArgument ? ` ${inlineCode(item.callArgument)}` : ""}${item.isError ? " (error)" : ""}`;
      break;
    case "bashExecution":
      head = "**Bash**";
      facts.push(...item.details.map((d) => `${escapeInline(d.name)} ${escapeInline(d.value)}`));
      break;
    case "custom":
    case "customMessage":
      head = `**${escapeInline(item.title)}**`;
      break;
    case "compaction":
      head = "**Compaction**";
      facts.push(...detailsOf(item, ["tokens before"]).map((t) => `${t} tokens before`));
      break;
    case "branchSummary":
    case "branchSummaryEntry":
      head = "**Branch summary**";
      facts.push(...item.details.filter((d) => d.name === "from").map((d) => `from ${inlineCode(d.value)}`));
      break;
    case "compactionSummary":
      head = "**Compaction summary**";
      facts.push(...detailsOf(item, ["tokens before"]).map((t) => `${t} tokens before`));
      break;
    case "system":
      head = "**System**";
      break;
    case "contextEdit":
      head = "**Context edit**";
      facts.push(...item.details.filter((d) => d.name === "target").map((d) => `of ${inlineCode(d.value)}`));
      break;
    default:
      head = `**${escapeInline(item.title)}**`;
  }
  if (item.label !== undefined) facts.push(`label ${inlineCode(item.label)}`);
  // A user message's time is in its turn heading already.
  if (item.timestamp !== undefined && item.kind !== "user")
    facts.push(`_${escapeInline(state.time(item.timestamp))}_`);
  return [head, ...facts].join(" · ");
}

/** A settings or bookkeeping item as one italic line. */
function bookkeepingMarkdown(item: DocumentItem): string {
  const value = (name: string) => item.details.find((d) => d.name === name)?.value ?? "";
  switch (item.kind) {
    case "modelChange":
      return `_Model:_ ${inlineCode(value("model"))}`;
    case "thinkingLevelChange":
      return `_Thinking level:_ ${inlineCode(value("level"))}`;
    case "usage": {
      const rest = item.details.filter((d) => d.name !== "kind").map((d) => escapeInline(d.value));
      return `_Usage (${escapeInline(value("kind"))})${rest.length > 0 ? `: ${rest.join(" · ")}` : ""}_`;
    }
    default: {
      const notes = item.blocks
        .filter((b) => b.type === "note")
        .map((b) => (b.type === "note" ? b.text : ""));
      return `_${escapeInline(item.title)}${notes.length > 0 ? `: ${escapeInline(notes.join("; "))}` : ""}_`;
    }
  }
}

function itemMarkdown(item: DocumentItem, state: State): string {
  const parts: string[] = [];
  if (item.branch && item.branch.count > 1) {
    const from = item.branch.parentId === null ? "the root" : inlineCode(item.branch.parentId);
    parts.push(`> ↳ Branch ${item.branch.index} of ${item.branch.count}, from ${from}`);
  }
  if (!item.conversational && item.kind !== "customEntry") {
    parts.push(bookkeepingMarkdown(item));
    return parts.join("\n\n");
  }
  parts.push(labelLine(item, state));
  for (const block of item.blocks) {
    const md = blockMarkdown(block, item, state);
    if (md !== undefined && md !== "") parts.push(md);
  }
  return parts.join("\n\n");
}

/** A document's head, and how many items follow it (the Markdown's facts count them). */
export interface DocumentHead {
  session: RenderDocument["session"];
  view: RenderDocument["view"];
  itemCount: number;
}

function headerMarkdown(head: DocumentHead, state: State): string {
  const { session, view } = head;
  const title = session.title;
  const facts: string[] = [];
  if (session.id) facts.push(`- **Session:** ${inlineCode(session.id)}`);
  if (session.cwd) facts.push(`- **Project:** ${inlineCode(session.cwd)}`);
  if (session.createdAt) facts.push(`- **Created:** ${escapeInline(state.time(session.createdAt))}`);
  if (session.parentSession) facts.push(`- **Forked from:** ${inlineCode(session.parentSession)}`);
  const entries = `${formatInt(session.entryCount)} entr${session.entryCount === 1 ? "y" : "ies"}`;
  if (view.kind === "branch") {
    const leaf = view.leafId === null ? "an empty branch" : `the branch ending at ${inlineCode(view.leafId)}`;
    const current = view.leafId !== null && view.leafId === session.leafId ? " (the current one)" : "";
    facts.push(`- **Shows:** ${leaf}${current}: ${formatInt(head.itemCount)} of ${entries}`);
  } else if (view.kind === "all-branches") {
    facts.push(`- **Shows:** every branch, depth first: ${entries}`);
  } else {
    const model = view.model ? inlineCode(`${view.model.provider}/${view.model.modelId}`) : "none";
    const leaf = view.leafId === null ? "an empty branch" : inlineCode(view.leafId);
    facts.push(
      `- **Shows:** the context the model is sent at ${leaf}: ${formatInt(view.messageCount)} messages, model ${model}, thinking level ${inlineCode(view.thinkingLevel)}`,
    );
  }
  return `# ${escapeInline(title)}\n\n${facts.join("\n")}`;
}

/** The document as Markdown (ends with a newline). */
export function renderMarkdown(doc: RenderDocument, options: MarkdownOptions = {}): string {
  let out = "";
  for (const chunk of markdownChunks({ ...doc, itemCount: doc.items.length }, doc.items, options))
    out += chunk;
  return out;
}

/**
 * {@link renderMarkdown} in pieces, one item at a time from `items` (which may be read as they
 * are made: a streamed export of a session too large to hold).
 */
export function* markdownChunks(
  head: DocumentHead,
  items: Iterable<DocumentItem>,
  options: MarkdownOptions = {},
): Generator<string> {
  const state: State = {
    options,
    limits: { maxOutputLines: options.maxOutputLines ?? 40, maxOutputChars: options.maxOutputChars ?? 8000 },
    full: options.full === true,
    hint: options.cutHint ?? "",
    time: options.formatTime ?? utcTime,
    imageNumber: 0,
  };
  yield headerMarkdown(head, state);
  let turn = 0;
  for (const item of items) {
    if (item.kind === "user") {
      turn++;
      const when = item.timestamp !== undefined ? ` · ${escapeInline(state.time(item.timestamp))}` : "";
      yield `\n\n## Turn ${turn}${when}`;
    } else if (item.kind === "compaction" || item.kind === "compactionSummary") {
      yield "\n\n---";
    }
    yield `\n\n${itemMarkdown(item, state)}`;
  }
  yield "\n";
}
