/**
 * Markdown that reads well on GitHub (CommonMark + GFM): a title and facts, a heading per
 * turn (each user message starts one), then every item as a bold label line and its body.
 * Tool calls and outputs go in fenced blocks with their language, an edit as a `diff` fence
 * with line numbers, a result headed with its call (`← read` `src/a.ts`); long outputs are cut
 * by lines and by size with a note saying how much (unless `full`; fold.ts); thinking and compaction summaries fold into
 * `<details>`; images are links to files the caller writes (`images`), or left out with a note.
 *
 * Session text is untrusted: Markdown the author wrote stays Markdown, but raw HTML in it is
 * escaped, links to `javascript:`/`data:`/`vbscript:` are broken, an unclosed fence is closed,
 * control characters are made visible and colour codes dropped. Everything else (titles,
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

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})/;
const UNSAFE_LINK = /\]\(\s*<?\s*(?:javascript|vbscript|data):/gi;

/** Escapes raw HTML and unsafe link targets in the prose parts of one line (not in code spans). */
function escapeProseLine(line: string): string {
  let out = "";
  let i = 0;
  while (i < line.length) {
    const tick = line.indexOf("`", i);
    const prose = tick === -1 ? line.slice(i) : line.slice(i, tick);
    out += prose.replace(/</g, "\\<").replace(UNSAFE_LINK, (m) => `\\${m}`);
    if (tick === -1) break;
    // A code span: a backtick run closed by a run of the same length.
    let run = tick;
    while (line[run] === "`") run++;
    const ticks = line.slice(tick, run);
    const close = line.indexOf(ticks, run);
    if (close === -1) {
      out += ticks;
      i = run;
      continue;
    }
    out += line.slice(tick, close + ticks.length);
    i = close + ticks.length;
  }
  return out;
}

/**
 * Markdown written by the session's author, made safe to embed: raw HTML escaped (`\<`), unsafe
 * link targets broken, fences tracked so code stays verbatim, an unclosed fence closed.
 */
export function safeMarkdown(text: string): string {
  const lines = clean(text).split("\n");
  const out: string[] = [];
  let fenceChar = "";
  let fenceLength = 0;
  let previousBlank = true;
  let indented = false;
  for (const line of lines) {
    if (fenceChar !== "") {
      out.push(line);
      const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
      if (close?.[1] && close[1][0] === fenceChar && close[1].length >= fenceLength) fenceChar = "";
      continue;
    }
    const open = FENCE_OPEN.exec(line);
    if (open?.[1]) {
      fenceChar = open[1][0] as string;
      fenceLength = open[1].length;
      out.push(line);
      previousBlank = false;
      continue;
    }
    // An indented code block starts after a blank line; its lines are verbatim too.
    const isIndented = /^( {4}|\t)/.test(line);
    indented = isIndented && (previousBlank || indented);
    out.push(indented ? line : escapeProseLine(line));
    previousBlank = line.trim() === "";
  }
  if (fenceChar !== "") out.push(fenceChar.repeat(fenceLength));
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

function headerMarkdown(doc: RenderDocument, state: State): string {
  const { session, view } = doc;
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
    facts.push(`- **Shows:** ${leaf}${current}: ${formatInt(doc.items.length)} of ${entries}`);
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
  const state: State = {
    options,
    limits: { maxOutputLines: options.maxOutputLines ?? 40, maxOutputChars: options.maxOutputChars ?? 8000 },
    full: options.full === true,
    hint: options.cutHint ?? "",
    time: options.formatTime ?? utcTime,
    imageNumber: 0,
  };
  const parts = [headerMarkdown(doc, state)];
  let turn = 0;
  for (const item of doc.items) {
    if (item.kind === "user") {
      turn++;
      const when = item.timestamp !== undefined ? ` · ${escapeInline(state.time(item.timestamp))}` : "";
      parts.push(`## Turn ${turn}${when}`);
    } else if (item.kind === "compaction" || item.kind === "compactionSummary") {
      parts.push("---");
    }
    parts.push(itemMarkdown(item, state));
  }
  return `${parts.join("\n\n")}\n`;
}
