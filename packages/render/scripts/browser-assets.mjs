// What the exported page's build (build-page.mjs) and the web app's (apps/web's
// build-client.mjs) share: esbuild's options for one browser script bundled from the layers'
// sources (every `@pi-session/<name>[/<subpath>]` export built from `src/` resolves to its
// source, so no build of theirs is needed), a stylesheet made of several files, and the
// generated module that holds both as strings, written only when it changes.
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { sourceEntries } from "../../../scripts/workspace-sources.ts";

/** The repository's `packages/` directory. */
export const PACKAGES = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** `@pi-session/<name>[/<subpath>]` → its source file, for each export of `names` built from `src/`. */
export function sourceAliases(names) {
  const wanted = new Set(names.map((name) => `@pi-session/${name}`));
  const aliases = {};
  for (const { specifier, source } of sourceEntries(join(PACKAGES, "..")))
    if (wanted.has(specifier.split("/").slice(0, 2).join("/"))) aliases[specifier] = source;
  return aliases;
}

/** esbuild's options for one classic browser script (an IIFE) from `entry`. */
export function bundleOptions({ root, entry, layers }) {
  return {
    entryPoints: [join(root, entry)],
    // The bundle names its modules by path (comments), relative to this: the same from any cwd.
    absWorkingDir: root,
    alias: sourceAliases(layers),
    bundle: true,
    write: false,
    format: "iife",
    platform: "browser",
    target: "es2022",
    charset: "utf8",
    legalComments: "none",
    // Whole minification: the bundles carry highlight.js's grammars and markdown-it (decision 156).
    minify: true,
    logLevel: "warning",
  };
}

/** The stylesheet: the files in order, one after the other. */
export function joinStyles(paths) {
  return paths.map((path) => readFileSync(path, "utf8")).join("\n");
}

/**
 * A bundle made safe to inline in `<script>`: `<!--` and `</script` occur in a minified bundle
 * only inside strings, templates and regular expressions (highlight.js's HTML grammar,
 * markdown-it's HTML rules), where `\x3C` is the same `<`.
 */
export function escapeInlineScript(text) {
  return text.replace(/<!--/g, "\\x3C!--").replace(/<\/script/gi, (match) => `\\x3C${match.slice(1)}`);
}

/**
 * highlight.js's `highlightElement` in a minified bundle: the one place the bundles set HTML
 * from a string. They never call it (they highlight through lowlight's tree of objects), and
 * Trusted Types for none would refuse it; the bundles' tests look for HTML parsing elsewhere.
 */
export const HIGHLIGHT_ELEMENT =
  /One of your code blocks includes unescaped HTML\.",\w+\.innerHTML\);[^;]*;let \w+=\w+\.textContent,[^;]*;\w+\.innerHTML=/;

/** Refuses text that would end its `<script>` / `<style>` element early. */
export function assertEmbeddable(kind, text) {
  const end = kind === "script" ? /<\/script|<!--/i : /<\/style|<!--/i;
  if (end.test(text)) throw new Error(`${kind} contains text that would end its element early`);
}

export const sha256 = (text, encoding) => createHash("sha256").update(text, "utf8").digest(encoding);

/**
 * `text` as one string literal on one line, in the quotes Biome would choose (the one needing
 * fewer escapes): a generated module holds a bundle as data, and the bundle's lines (the
 * layers' code again) are not code of this repository to compare or edit.
 */
export function literal(text) {
  const json = JSON.stringify(text);
  const doubles = (text.match(/"/g) ?? []).length;
  const singles = (text.match(/'/g) ?? []).length;
  if (doubles <= singles) return json;
  let out = "";
  const inner = json.slice(1, -1);
  for (let i = 0; i < inner.length; i++) {
    const ch = inner[i];
    if (ch === "\\") {
      const next = inner[i + 1];
      out += next === '"' ? '"' : `\\${next}`;
      i++;
    } else out += ch === "'" ? "\\'" : ch;
  }
  return `'${out}'`;
}

/** Writes `text` to `out` when it differs (a file left alone keeps its time for watchers). */
export function writeGenerated(out, text) {
  const current = existsSync(out) ? readFileSync(out, "utf8") : "";
  if (current !== text) writeFileSync(out, text);
}

/**
 * The text of a generated assets module: `<PREFIX>_SCRIPT` and `<PREFIX>_STYLE` as string
 * literals and the sha256 of each (`<PREFIX>_<SCRIPT|STYLE>_<hashName>`, in `encoding`), under
 * `about` (the module's doc comment, lines without the comment markers); `scriptName` and
 * `styleOwner` name what the script is and whose the style is in their doc comments.
 */
export function assetsModule({
  about,
  prefix,
  hashName,
  encoding,
  hashDoc,
  scriptName,
  styleOwner,
  script,
  style,
}) {
  const doc = about.map((line) => ` * ${line}`.trimEnd()).join("\n");
  return `// biome-ignore-all lint: generated code (a bundle, as strings)
/**
${doc}
 */

/** sha256 of {@link ${prefix}_SCRIPT}, ${encoding}${hashDoc}. */
export const ${prefix}_SCRIPT_${hashName} = ${JSON.stringify(sha256(script, encoding))};

/** sha256 of {@link ${prefix}_STYLE}, ${encoding}. */
export const ${prefix}_STYLE_${hashName} = ${JSON.stringify(sha256(style, encoding))};

/** The ${scriptName}, one classic script (an IIFE). */
export const ${prefix}_SCRIPT: string =
  ${literal(script)};

/** The ${styleOwner}'s style sheet. */
export const ${prefix}_STYLE: string =
  ${literal(style)};
`;
}
