/**
 * Syntax highlighting by highlight.js (through lowlight, which gives its result as a tree of
 * plain objects instead of HTML): code split into tokens (comment, string, number, keyword,
 * literal, ...) for the languages people paste and agents read. It marks up; it never
 * interprets. Use `highlight` to get tokens and wrap them in whatever the output needs (the
 * exported page makes spans with `textContent`, so nothing is parsed as HTML).
 *
 * Languages: a chosen set of highlight.js's (the page carries them; see decision 156 for the
 * sizes), with their aliases (`ts`, `py`, `sh`, `yml`, `toml`, ...). Anything else is plain text.
 */
import bash from "highlight.js/lib/languages/bash";
import c from "highlight.js/lib/languages/c";
import cpp from "highlight.js/lib/languages/cpp";
import csharp from "highlight.js/lib/languages/csharp";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import dockerfile from "highlight.js/lib/languages/dockerfile";
import go from "highlight.js/lib/languages/go";
import ini from "highlight.js/lib/languages/ini";
import java from "highlight.js/lib/languages/java";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import kotlin from "highlight.js/lib/languages/kotlin";
import lua from "highlight.js/lib/languages/lua";
import makefile from "highlight.js/lib/languages/makefile";
import markdown from "highlight.js/lib/languages/markdown";
import php from "highlight.js/lib/languages/php";
import python from "highlight.js/lib/languages/python";
import ruby from "highlight.js/lib/languages/ruby";
import rust from "highlight.js/lib/languages/rust";
import shell from "highlight.js/lib/languages/shell";
import sql from "highlight.js/lib/languages/sql";
import swift from "highlight.js/lib/languages/swift";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";
import { createLowlight } from "lowlight";

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

/** Made on first use: registering the grammars costs a few milliseconds a page may not need. */
let lowlight: ReturnType<typeof createLowlight> | undefined;

function highlighter(): ReturnType<typeof createLowlight> {
  lowlight ??= createLowlight({
    bash,
    c,
    cpp,
    csharp,
    css,
    diff,
    dockerfile,
    go,
    ini,
    java,
    javascript,
    json,
    kotlin,
    lua,
    makefile,
    markdown,
    php,
    python,
    ruby,
    rust,
    shell,
    sql,
    swift,
    typescript,
    xml,
    yaml,
  });
  return lowlight;
}

/** Fence names that highlight.js spells otherwise. */
const ALIASES: Record<string, string> = { scss: "css", jsonl: "json", jsonc: "json", patch: "diff" };

/**
 * Code longer than this is returned as one plain token: highlighting is for reading, not for
 * logs, and highlight.js takes about a second per 100 KB here.
 */
export const HIGHLIGHT_LIMIT = 50_000;

/** The registered name of a fence language, or undefined. */
function grammarOf(language: string): string | undefined {
  const lang = language.toLowerCase();
  const name = ALIASES[lang] ?? lang;
  if (name === "" || name === "text" || name === "plaintext") return undefined;
  return highlighter().registered(name) ? name : undefined;
}

/** Whether {@link highlight} knows the language (by fence name or alias). */
export function canHighlight(language: string): boolean {
  return grammarOf(language) !== undefined;
}

/** highlight.js's scopes (the first class of a span, without `hljs-`) as token kinds. */
const KIND_OF_SCOPE: Record<string, TokenKind> = {
  comment: "comment",
  quote: "comment",
  doctag: "comment",
  string: "string",
  regexp: "string",
  char: "string",
  number: "number",
  keyword: "keyword",
  type: "keyword",
  "selector-tag": "keyword",
  literal: "literal",
  built_in: "literal",
  symbol: "literal",
  variable: "property",
  "template-variable": "property",
  title: "property",
  property: "property",
  attr: "property",
  "selector-id": "property",
  "selector-class": "property",
  tag: "tag",
  name: "tag",
  attribute: "attribute",
  addition: "inserted",
  deletion: "deleted",
  meta: "meta",
  section: "meta",
  bullet: "meta",
};

interface HastNode {
  type: string;
  value?: string;
  properties?: { className?: unknown };
  children?: HastNode[];
}

function scopeKind(node: HastNode, inherited: TokenKind): TokenKind {
  const classes = node.properties?.className;
  const first = Array.isArray(classes) && typeof classes[0] === "string" ? classes[0] : "";
  return KIND_OF_SCOPE[first.replace(/^hljs-/, "").split(".")[0] as string] ?? inherited;
}

/** Tokens of `code` in `language` (a fence name such as `ts`, `python`, `json`, `diff`). */
export function highlight(code: string, language: string): Token[] {
  if (code === "") return [];
  const grammar = code.length > HIGHLIGHT_LIMIT ? undefined : grammarOf(language);
  if (grammar === undefined) return [{ kind: "plain", text: code }];
  const tokens: Token[] = [];
  const push = (kind: TokenKind, text: string) => {
    const last = tokens[tokens.length - 1];
    if (last && last.kind === kind) last.text += text;
    else if (text !== "") tokens.push({ kind, text });
  };
  // Depth first with an explicit stack: deep nesting cannot exhaust the call stack.
  const stack: { node: HastNode; kind: TokenKind }[] = [];
  const root = highlighter().highlight(grammar, code) as HastNode;
  for (let k = (root.children ?? []).length - 1; k >= 0; k--)
    stack.push({ node: (root.children as HastNode[])[k] as HastNode, kind: "plain" });
  while (stack.length > 0) {
    const { node, kind } = stack.pop() as { node: HastNode; kind: TokenKind };
    if (node.type === "text") push(kind, node.value ?? "");
    else if (node.children) {
      const inner = scopeKind(node, kind);
      for (let k = node.children.length - 1; k >= 0; k--)
        stack.push({ node: node.children[k] as HastNode, kind: inner });
    }
  }
  return tokens;
}
