/// <reference lib="dom" preserve="true" />
/**
 * Markdown to DOM for the exported page and the web app: the subset people write in chats (paragraphs with
 * line breaks, ATX headings, fenced and indented code, block quotes, lists, GFM tables, rules;
 * code spans, strong, emphasis, strike-through, links and bare URLs). Raw HTML is text. Links
 * are anchors only for http(s) and mailto. Built with createElement and text nodes only.
 *
 * Cost is linear in practice: delimiters are searched within a bounded window, and texts over
 * {@link MARKDOWN_LIMIT} are shown as plain pre-wrapped text.
 */
import { type Child, h, highlighted, safeLink, shown } from "./elements.js";

export const MARKDOWN_LIMIT = 60_000;

/** How far (characters) a closing delimiter is searched for. */
const WINDOW = 2000;

/**
 * `indexOf` that remembers its last answer per needle: searching again from a position before
 * that answer returns it without scanning, so scanning a text for delimiters stays linear.
 */
class Finder {
  readonly #memo = new Map<string, { from: number; at: number }>();
  constructor(readonly text: string) {}
  find(needle: string, from: number): number {
    const memo = this.#memo.get(needle);
    if (memo && from >= memo.from && (memo.at === -1 || from <= memo.at)) return memo.at;
    const at = this.text.indexOf(needle, from);
    this.#memo.set(needle, { from, at });
    return at;
  }
}

function inline(text: string): Child[] {
  const finder = new Finder(text);
  const out: Child[] = [];
  let plain = "";
  const flush = () => {
    if (plain !== "") out.push(plain);
    plain = "";
  };
  let i = 0;
  while (i < text.length) {
    const ch = text[i] as string;
    if (ch === "\\" && i + 1 < text.length && /[!-/:-@[-`{-~]/.test(text[i + 1] as string)) {
      plain += text[i + 1];
      i += 2;
      continue;
    }
    if (ch === "`") {
      let run = i;
      while (text[run] === "`") run++;
      const ticks = text.slice(i, run);
      const close = finder.find(ticks, run);
      if (close !== -1 && close - run < WINDOW * 5) {
        flush();
        let code = text.slice(run, close);
        if (code.length > 1 && code.startsWith(" ") && code.endsWith(" ")) code = code.slice(1, -1);
        out.push(h("code", { text: code }));
        i = close + ticks.length;
        continue;
      }
      plain += ticks;
      i = run;
      continue;
    }
    if ((ch === "*" || ch === "_" || ch === "~") && text[i + 1] === ch) {
      const delim = ch + ch;
      const close = finder.find(delim, i + 2);
      // `__` works only at word boundaries (CommonMark: no intraword underscore emphasis).
      const boundary =
        ch !== "_" ||
        ((i === 0 || !/[\p{L}\p{N}]/u.test(text[i - 1] as string)) &&
          !/[\p{L}\p{N}]/u.test(text[close + 2] ?? ""));
      if (boundary && close > i + 2 && close - i < WINDOW && text[i + 2] !== " ") {
        flush();
        out.push(h(ch === "~" ? "del" : "strong", {}, inline(text.slice(i + 2, close))));
        i = close + 2;
        continue;
      }
      // A run of delimiters that opens nothing is text, all of it (never half a run).
      let end = i;
      while (text[end] === ch) end++;
      plain += text.slice(i, end);
      i = end;
      continue;
    }
    if (
      (ch === "*" || ch === "_") &&
      text[i + 1] !== ch &&
      text[i + 1] !== " " &&
      text[i + 1] !== undefined
    ) {
      // `_` inside a word (snake_case) is not emphasis.
      const wordBefore = ch === "_" && i > 0 && /[\p{L}\p{N}]/u.test(text[i - 1] as string);
      const close = finder.find(ch, i + 1);
      const wordAfter = ch === "_" && close !== -1 && /[\p{L}\p{N}]/u.test(text[close + 1] ?? "");
      if (!wordBefore && !wordAfter && close > i + 1 && close - i < WINDOW && text[close - 1] !== " ") {
        flush();
        out.push(h("em", {}, inline(text.slice(i + 1, close))));
        i = close + 1;
        continue;
      }
    }
    if (ch === "[") {
      const closeText = finder.find("](", i + 1);
      const newline = finder.find("\n", i + 1);
      if (closeText !== -1 && closeText - i < WINDOW && (newline === -1 || newline > closeText)) {
        const closeUrl = finder.find(")", closeText + 2);
        if (closeUrl !== -1 && closeUrl - closeText < WINDOW) {
          const href = text
            .slice(closeText + 2, closeUrl)
            .trim()
            .replace(/^<|>$/g, "");
          flush();
          out.push(safeLink(href, inline(text.slice(i + 1, closeText))));
          i = closeUrl + 1;
          continue;
        }
      }
    }
    if (
      (ch === "h" || ch === "H") &&
      /^https?:\/\//i.test(text.slice(i, i + 8)) &&
      (i === 0 || /[\s(]/.test(text[i - 1] as string))
    ) {
      let end = i;
      while (end < text.length && !/[\s<>"]/.test(text[end] as string)) end++;
      while (end > i && /[.,;:!?)\]]/.test(text[end - 1] as string)) end--;
      flush();
      const url = text.slice(i, end);
      out.push(safeLink(url, [url]));
      i = end;
      continue;
    }
    if (ch === "\n") {
      flush();
      out.push(h("br"));
      i++;
      continue;
    }
    plain += ch;
    i++;
  }
  flush();
  return out;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)/;
const HEADING = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const RULE = /^ {0,3}([-*_])(\s*\1){2,}\s*$/;
const BULLET = /^( {0,3})([-*+])\s+(.*)$/;
const ORDERED = /^( {0,3})(\d{1,9})[.)]\s+(.*)$/;
const TABLE_SEPARATOR = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

function splitRow(line: string): string[] {
  let row = line.trim();
  if (row.startsWith("|")) row = row.slice(1);
  if (row.endsWith("|") && !row.endsWith("\\|")) row = row.slice(0, -1);
  const cells: string[] = [];
  let cell = "";
  for (let i = 0; i < row.length; i++) {
    if (row[i] === "\\" && row[i + 1] === "|") {
      cell += "|";
      i++;
    } else if (row[i] === "|") {
      cells.push(cell.trim());
      cell = "";
    } else cell += row[i];
  }
  cells.push(cell.trim());
  return cells;
}

function startsBlock(line: string): boolean {
  return (
    FENCE.test(line) ||
    HEADING.test(line) ||
    RULE.test(line) ||
    /^ {0,3}>/.test(line) ||
    BULLET.test(line) ||
    ORDERED.test(line)
  );
}

function blocks(lines: string[], depth: number): Child[] {
  const out: Child[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] as string;
    if (line.trim() === "") {
      i++;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      const marker = fence[1] as string;
      const language = fence[2] ?? "";
      const body: string[] = [];
      i++;
      while (i < lines.length) {
        const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(lines[i] as string);
        if (close && (close[1] as string)[0] === marker[0] && (close[1] as string).length >= marker.length)
          break;
        body.push(lines[i] as string);
        i++;
      }
      i++;
      out.push(codeBlock(body.join("\n"), language));
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      const level = Math.min(6, (heading[1] as string).length + 2);
      out.push(h(`h${level}` as "h3", { class: "md-heading" }, inline(heading[2] as string)));
      i++;
      continue;
    }
    if (RULE.test(line)) {
      out.push(h("hr"));
      i++;
      continue;
    }
    if (/^ {0,3}>/.test(line)) {
      const body: string[] = [];
      while (i < lines.length && /^ {0,3}>/.test(lines[i] as string)) {
        body.push((lines[i] as string).replace(/^ {0,3}> ?/, ""));
        i++;
      }
      out.push(h("blockquote", {}, depth < 8 ? blocks(body, depth + 1) : [body.join("\n")]));
      continue;
    }
    const bullet = BULLET.exec(line);
    const ordered = bullet ? null : ORDERED.exec(line);
    if (bullet || ordered) {
      const list = bullet ? h("ul") : h("ol");
      if (ordered && ordered[2] !== "1") list.setAttribute("start", String(Number(ordered[2])));
      const pattern = bullet ? BULLET : ORDERED;
      while (i < lines.length) {
        const m = pattern.exec(lines[i] as string);
        if (!m) break;
        const item: string[] = [m[3] as string];
        i++;
        while (i < lines.length) {
          const next = lines[i] as string;
          if (pattern.test(next)) break;
          if (next.trim() === "") {
            // A blank line ends the item unless an indented line follows.
            if (/^( {2,}|\t)\S/.test(lines[i + 1] ?? "")) {
              item.push("");
              i++;
              continue;
            }
            break;
          }
          if (!/^( {2,}|\t)/.test(next) && startsBlock(next)) break;
          item.push(next.replace(/^( {1,4}|\t)/, ""));
          i++;
        }
        list.append(h("li", {}, depth < 8 ? blocks(item, depth + 1) : [item.join("\n")]));
        if (i < lines.length && (lines[i] as string).trim() === "" && pattern.test(lines[i + 1] ?? "")) i++;
      }
      out.push(list);
      continue;
    }
    if (
      line.includes("|") &&
      TABLE_SEPARATOR.test(lines[i + 1] ?? "") &&
      (lines[i + 1] as string).includes("-")
    ) {
      const header = splitRow(line);
      const table = h("table", { class: "md-table" });
      table.append(
        h("thead", {}, [
          h(
            "tr",
            {},
            header.map((cell) => h("th", {}, inline(cell))),
          ),
        ]),
      );
      const body = h("tbody");
      i += 2;
      while (i < lines.length && (lines[i] as string).includes("|") && (lines[i] as string).trim() !== "") {
        body.append(
          h(
            "tr",
            {},
            splitRow(lines[i] as string).map((cell) => h("td", {}, inline(cell))),
          ),
        );
        i++;
      }
      table.append(body);
      out.push(h("div", { class: "table-wrap" }, [table]));
      continue;
    }
    if (/^( {4}|\t)/.test(line)) {
      const body: string[] = [];
      while (
        i < lines.length &&
        (/^( {4}|\t)/.test(lines[i] as string) || (lines[i] as string).trim() === "")
      ) {
        body.push((lines[i] as string).replace(/^( {4}|\t)/, ""));
        i++;
      }
      out.push(codeBlock(body.join("\n").replace(/\n+$/, ""), ""));
      continue;
    }
    const para: string[] = [line];
    i++;
    while (i < lines.length) {
      const next = lines[i] as string;
      if (next.trim() === "" || startsBlock(next)) break;
      para.push(next);
      i++;
    }
    out.push(h("p", {}, inline(para.join("\n"))));
  }
  return out;
}

/** A `<pre>` with highlighted code. */
export function codeBlock(text: string, language: string): HTMLElement {
  const pre = h("pre", { class: "code" }, [highlighted(text, language || "text")]);
  if (language) pre.dataset.language = language;
  return pre;
}

/** Session Markdown as a `<div class="md">`. */
export function markdown(text: string): HTMLElement {
  const clean = shown(text);
  if (clean.length > MARKDOWN_LIMIT) return h("div", { class: "md md-plain", text: clean });
  return h("div", { class: "md" }, blocks(clean.split("\n"), 0));
}
