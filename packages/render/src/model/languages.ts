/** The syntax of a file, by its name: what the renderers highlight a written or read file as. */

const LANGUAGE_BY_EXTENSION: Record<string, string> = {
  ts: "ts",
  tsx: "tsx",
  mts: "ts",
  cts: "ts",
  js: "js",
  jsx: "jsx",
  mjs: "js",
  cjs: "js",
  json: "json",
  jsonl: "json",
  md: "markdown",
  py: "python",
  rs: "rust",
  go: "go",
  java: "java",
  kt: "kotlin",
  c: "c",
  h: "c",
  cc: "cpp",
  cpp: "cpp",
  hpp: "cpp",
  cs: "csharp",
  rb: "ruby",
  php: "php",
  swift: "swift",
  sh: "sh",
  bash: "sh",
  zsh: "sh",
  yml: "yaml",
  yaml: "yaml",
  toml: "toml",
  html: "html",
  htm: "html",
  xml: "xml",
  svg: "xml",
  css: "css",
  scss: "scss",
  sql: "sql",
  diff: "diff",
  patch: "diff",
  lua: "lua",
};

/** The fence language for a file path, from its extension ("text" when unknown). */
export function languageOfPath(path: string): string {
  const name = path.split(/[\\/]/).pop() ?? "";
  if (/^dockerfile$/i.test(name)) return "dockerfile";
  if (/^makefile$/i.test(name)) return "makefile";
  const dot = name.lastIndexOf(".");
  if (dot <= 0) return "text";
  return LANGUAGE_BY_EXTENSION[name.slice(dot + 1).toLowerCase()] ?? "text";
}
