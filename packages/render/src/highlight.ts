/**
 * A small syntax highlighter: splits code into tokens (comment, string, number, keyword,
 * literal, ...) for a handful of language families, in one linear pass with no regular
 * expression that can backtrack. It marks up; it never interprets. Use `highlight` to get
 * tokens and wrap them in whatever the output needs (the exported page makes spans with
 * `textContent`, so nothing is parsed as HTML).
 *
 * Families: C-like (JavaScript, TypeScript, Java, C, C++, C#, Go, Rust, Swift, Kotlin, PHP,
 * CSS), hash-comment languages (Python, Ruby, shell, YAML, TOML, Makefile, Dockerfile), SQL,
 * JSON, diff, and HTML/XML tags. Anything else is plain text.
 */

export type TokenKind =
  | "plain"
  | "comment"
  | "string"
  | "number"
  | "keyword"
  | "literal"
  | "property"
  | "tag"
  | "attribute"
  | "inserted"
  | "deleted"
  | "meta";

export interface Token {
  kind: TokenKind;
  text: string;
}

interface Family {
  lineComments: readonly string[];
  blockComments: readonly (readonly [string, string])[];
  quotes: string;
  keywords: ReadonlySet<string>;
  literals: ReadonlySet<string>;
  caseInsensitive?: boolean;
  /** `$name` and `${...}` are variables (shell). */
  dollarVariables?: boolean;
}

const words = (text: string): ReadonlySet<string> => new Set(text.split(/\s+/).filter(Boolean));

const C_KEYWORDS = words(`
  abstract as async await break case catch class const continue debugger default defer delete do else enum
  export extends final finally fn for from func function get go goto if impl implements import in instanceof
  interface internal let loop match mod module mut namespace new of override package private protected pub
  public readonly return satisfies select set static struct super switch this throw throws trait try type
  typeof union unsafe use using var void where while with yield val fun when object data sealed lateinit
  override guard extension protocol init deinit inout operator echo require include namespace elif
  char int long short float double bool boolean string byte unsigned signed auto register volatile extern
  sizeof typedef template typename virtual friend inline constexpr noexcept nullptr decltype
`);
const C_LITERALS = words("true false null undefined nil NaN Infinity None True False self Self");

const HASH_KEYWORDS = words(`
  and as assert async await break class continue def del elif else except finally for from global if import
  in is lambda nonlocal not or pass raise return try while with yield begin end ensure module next redo
  rescue retry then unless until when case do done esac fi function local export readonly declare source
  alias unset shift trap exec eval set FROM RUN CMD ENTRYPOINT COPY ADD ENV ARG WORKDIR EXPOSE VOLUME USER
  LABEL
`);
const HASH_LITERALS = words("True False None true false null nil yes no on off");

const SQL_KEYWORDS = words(`
  select from where and or not insert into values update set delete create table index view drop alter add
  column primary key foreign references join left right inner outer full on group by order having limit
  offset as distinct union all exists in is like between case when then else end begin commit rollback
  transaction with returning default unique check constraint if replace pragma virtual using
`);
const SQL_LITERALS = words("null true false");

const FAMILIES: Record<string, Family> = {
  c: {
    lineComments: ["//"],
    blockComments: [["/*", "*/"]],
    quotes: "\"'`",
    keywords: C_KEYWORDS,
    literals: C_LITERALS,
  },
  hash: {
    lineComments: ["#"],
    blockComments: [],
    quotes: "\"'",
    keywords: HASH_KEYWORDS,
    literals: HASH_LITERALS,
    dollarVariables: true,
  },
  sql: {
    lineComments: ["--"],
    blockComments: [["/*", "*/"]],
    quotes: "'\"",
    keywords: SQL_KEYWORDS,
    literals: SQL_LITERALS,
    caseInsensitive: true,
  },
  css: {
    lineComments: [],
    blockComments: [["/*", "*/"]],
    quotes: "\"'",
    keywords: words("important media import supports keyframes font-face"),
    literals: words("inherit initial unset none auto"),
  },
  lua: {
    lineComments: ["--"],
    blockComments: [],
    quotes: "\"'",
    keywords: words(
      "and break do else elseif end for function goto if in local not or repeat return then until while",
    ),
    literals: words("true false nil"),
  },
};

const FAMILY_OF: Record<string, string> = {
  js: "c",
  jsx: "c",
  ts: "c",
  tsx: "c",
  javascript: "c",
  typescript: "c",
  java: "c",
  kotlin: "c",
  c: "c",
  cpp: "c",
  csharp: "c",
  go: "c",
  rust: "c",
  swift: "c",
  php: "c",
  scala: "c",
  scss: "css",
  css: "css",
  python: "hash",
  py: "python",
  ruby: "hash",
  rb: "hash",
  sh: "hash",
  bash: "hash",
  shell: "hash",
  zsh: "hash",
  console: "hash",
  yaml: "hash",
  yml: "hash",
  toml: "hash",
  makefile: "hash",
  dockerfile: "hash",
  sql: "sql",
  lua: "lua",
};

/** Code longer than this is returned as one plain token (highlighting is for reading, not for logs). */
export const HIGHLIGHT_LIMIT = 200_000;

/** Whether {@link highlight} knows the language (by fence name or alias). */
export function canHighlight(language: string): boolean {
  const lang = language.toLowerCase();
  return (
    lang in FAMILY_OF ||
    lang === "json" ||
    lang === "diff" ||
    lang === "html" ||
    lang === "xml" ||
    lang === "svg"
  );
}

class Out {
  readonly tokens: Token[] = [];
  push(kind: TokenKind, text: string): void {
    if (text === "") return;
    const last = this.tokens[this.tokens.length - 1];
    if (last && last.kind === kind) last.text += text;
    else this.tokens.push({ kind, text });
  }
}

function isIdentStart(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36 || c >= 0xc0;
}

function isIdentPart(c: number): boolean {
  return isIdentStart(c) || (c >= 48 && c <= 57);
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** The end of a quoted string starting at `i` (the quote), honouring backslash escapes. */
function stringEnd(text: string, i: number, quote: string, multiline: boolean): number {
  let j = i + 1;
  while (j < text.length) {
    const ch = text[j];
    if (ch === "\\") {
      j += 2;
      continue;
    }
    if (ch === quote) return j + 1;
    if (ch === "\n" && !multiline) return j;
    j++;
  }
  return text.length;
}

function numberEnd(text: string, i: number): number {
  let j = i;
  while (j < text.length) {
    const c = text.charCodeAt(j);
    if (isIdentPart(c) || c === 46) j++;
    else break;
  }
  return j;
}

function highlightFamily(text: string, family: Family): Token[] {
  const out = new Out();
  let i = 0;
  let plainStart = 0;
  const flush = (to: number) => {
    out.push("plain", text.slice(plainStart, to));
  };
  outer: while (i < text.length) {
    const c = text.charCodeAt(i);
    for (const start of family.lineComments) {
      if (text.startsWith(start, i) && (start !== "#" || i === 0 || !isIdentPart(text.charCodeAt(i - 1)))) {
        // `#` starts a comment only at a word boundary (not in `a#b` or `$#`).
        if (start === "#" && family.dollarVariables && i > 0 && text[i - 1] === "$") break;
        flush(i);
        let end = text.indexOf("\n", i);
        if (end === -1) end = text.length;
        out.push("comment", text.slice(i, end));
        i = end;
        plainStart = i;
        continue outer;
      }
    }
    for (const [open, close] of family.blockComments) {
      if (text.startsWith(open, i)) {
        flush(i);
        const at = text.indexOf(close, i + open.length);
        const end = at === -1 ? text.length : at + close.length;
        out.push("comment", text.slice(i, end));
        i = end;
        plainStart = i;
        continue outer;
      }
    }
    const ch = text[i] as string;
    if (family.quotes.includes(ch)) {
      flush(i);
      const end = stringEnd(text, i, ch, ch === "`" || family === FAMILIES.hash);
      out.push("string", text.slice(i, end));
      i = end;
      plainStart = i;
      continue;
    }
    if (family.dollarVariables && ch === "$" && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (isIdentStart(next) || text[i + 1] === "{") {
        flush(i);
        let end = i + 1;
        if (text[end] === "{") {
          const close = text.indexOf("}", end);
          end = close === -1 ? text.length : close + 1;
        } else while (end < text.length && isIdentPart(text.charCodeAt(end)) && text[end] !== "$") end++;
        out.push("property", text.slice(i, end));
        i = end;
        plainStart = i;
        continue;
      }
    }
    if (isDigit(c) && (i === 0 || !isIdentPart(text.charCodeAt(i - 1)))) {
      flush(i);
      const end = numberEnd(text, i);
      out.push("number", text.slice(i, end));
      i = end;
      plainStart = i;
      continue;
    }
    if (isIdentStart(c) && (i === 0 || !isIdentPart(text.charCodeAt(i - 1)))) {
      let end = i + 1;
      while (end < text.length && isIdentPart(text.charCodeAt(end))) end++;
      const word = text.slice(i, end);
      const key = family.caseInsensitive ? word.toLowerCase() : word;
      const kind: TokenKind | undefined = family.keywords.has(key)
        ? "keyword"
        : family.literals.has(key)
          ? "literal"
          : undefined;
      if (kind) {
        flush(i);
        out.push(kind, word);
        plainStart = end;
      }
      i = end;
      continue;
    }
    i++;
  }
  flush(text.length);
  return out.tokens;
}

function highlightJson(text: string): Token[] {
  const out = new Out();
  let i = 0;
  let plainStart = 0;
  const flush = (to: number) => out.push("plain", text.slice(plainStart, to));
  while (i < text.length) {
    const ch = text[i] as string;
    if (ch === '"') {
      flush(i);
      const end = stringEnd(text, i, '"', false);
      // A string followed by a colon is a key.
      let k = end;
      while (k < text.length && (text[k] === " " || text[k] === "\t")) k++;
      out.push(text[k] === ":" ? "property" : "string", text.slice(i, end));
      i = end;
      plainStart = i;
      continue;
    }
    const c = text.charCodeAt(i);
    if (isDigit(c) || (ch === "-" && isDigit(text.charCodeAt(i + 1)))) {
      flush(i);
      const end = numberEnd(text, i + 1);
      out.push("number", text.slice(i, end));
      i = end;
      plainStart = i;
      continue;
    }
    if (isIdentStart(c)) {
      let end = i + 1;
      while (end < text.length && isIdentPart(text.charCodeAt(end))) end++;
      const word = text.slice(i, end);
      if (word === "true" || word === "false" || word === "null") {
        flush(i);
        out.push("literal", word);
        plainStart = end;
      }
      i = end;
      continue;
    }
    i++;
  }
  flush(text.length);
  return out.tokens;
}

function highlightDiff(text: string): Token[] {
  const out = new Out();
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf("\n", start);
    const last = end === -1;
    if (last) end = text.length;
    const line = text.slice(start, end) + (last ? "" : "\n");
    const first = line[0];
    const kind: TokenKind =
      line.startsWith("+++") || line.startsWith("---")
        ? "meta"
        : first === "+"
          ? "inserted"
          : first === "-"
            ? "deleted"
            : first === "@" || line.startsWith("diff ") || line.startsWith("index ")
              ? "meta"
              : "plain";
    out.push(kind, line);
    if (last) break;
    start = end + 1;
  }
  return out.tokens;
}

function highlightMarkup(text: string): Token[] {
  const out = new Out();
  let i = 0;
  let plainStart = 0;
  const flush = (to: number) => out.push("plain", text.slice(plainStart, to));
  while (i < text.length) {
    // A comment: `<` then `!--` (never written as one literal: the page inlines this code in a
    // <script> element, where that sequence changes how the element ends).
    if (text.charCodeAt(i) === 60 && text.startsWith("!--", i + 1)) {
      flush(i);
      const at = text.indexOf("-->", i + 4);
      const end = at === -1 ? text.length : at + 3;
      out.push("comment", text.slice(i, end));
      i = end;
      plainStart = i;
      continue;
    }
    if (text[i] === "<" && /[A-Za-z/!?]/.test(text[i + 1] ?? "")) {
      flush(i);
      let j = i + 1;
      while (j < text.length && /[A-Za-z0-9:/!?_-]/.test(text[j] as string)) j++;
      out.push("tag", text.slice(i, j));
      // Attributes up to the closing `>`.
      while (j < text.length && text[j] !== ">") {
        const ch = text[j] as string;
        if (ch === '"' || ch === "'") {
          const end = stringEnd(text, j, ch, true);
          out.push("string", text.slice(j, end));
          j = end;
        } else if (/[A-Za-z_:@-]/.test(ch)) {
          let end = j + 1;
          while (end < text.length && /[A-Za-z0-9_:.@-]/.test(text[end] as string)) end++;
          out.push("attribute", text.slice(j, end));
          j = end;
        } else {
          out.push("plain", ch);
          j++;
        }
      }
      if (j < text.length) {
        out.push("tag", ">");
        j++;
      }
      i = j;
      plainStart = i;
      continue;
    }
    i++;
  }
  flush(text.length);
  return out.tokens;
}

/** Tokens of `code` in `language` (a fence name such as `ts`, `python`, `json`, `diff`). */
export function highlight(code: string, language: string): Token[] {
  if (code.length > HIGHLIGHT_LIMIT) return code === "" ? [] : [{ kind: "plain", text: code }];
  const lang = language.toLowerCase();
  let tokens: Token[];
  if (lang === "json") tokens = highlightJson(code);
  else if (lang === "diff" || lang === "patch") tokens = highlightDiff(code);
  else if (lang === "html" || lang === "xml" || lang === "svg") tokens = highlightMarkup(code);
  else {
    const name = FAMILY_OF[lang];
    const family = name === undefined ? undefined : (FAMILIES[FAMILY_OF[name] ?? name] ?? FAMILIES[name]);
    tokens = family ? highlightFamily(code, family) : code === "" ? [] : [{ kind: "plain", text: code }];
  }
  return tokens;
}
