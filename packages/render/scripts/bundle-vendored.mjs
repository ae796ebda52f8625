// Inlines the reading libraries (`vendored` in package.json: highlight.js through lowlight,
// markdown-it, jsdiff, ansi-sequence-parser) into the dist modules whose sources import them:
// after `tsc -b`, each such module is made again from its source by esbuild, with only what the
// vendored packages reach bundled (so every build makes the same files, whatever tsc re-emitted),
// and their licenses go to dist/THIRD_PARTY_NOTICES.md. Installed from npm, these
// libraries take 13 MB (highlight.js alone ships 8 MB of builds, styles and grammars, and
// lowlight pins a second copy); the grammars and parser render uses take about 0.3 MB. So they
// are devDependencies: a package that depends on render (search, the agent tools) installs
// none of them (decision 156). Each module keeps its imports of render's own modules and of
// other packages; only what the vendored packages reach is bundled into it.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { thirdPartyNotices } from "../../../scripts/third-party-notices.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const vendored = new Set(pkg.vendored);

/** The package a bare specifier names (`highlight.js/lib/core` -> `highlight.js`). */
const packageOf = (spec) =>
  spec
    .split("/")
    .slice(0, spec.startsWith("@") ? 2 : 1)
    .join("/");

/** Render's sources (not tests) that import a vendored package. */
function importers() {
  const files = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts")) {
        const code = readFileSync(path, "utf8");
        if ([...code.matchAll(/\bfrom\s*"([^".][^"]*)"/g)].some((m) => vendored.has(packageOf(m[1]))))
          files.push(path);
      }
    }
  };
  walk(join(root, "src"));
  return files;
}

const files = importers();
const metafile = { inputs: {}, outputs: {} };
for (const file of files) {
  const result = await build({
    absWorkingDir: root,
    entryPoints: [file],
    outfile: join(dist, relative(join(root, "src"), file)).replace(/\.ts$/, ".js"),
    allowOverwrite: true,
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    minifySyntax: true,
    minifyWhitespace: true,
    legalComments: "none",
    metafile: true,
    logLevel: "warning",
    plugins: [
      {
        name: "only-vendored",
        setup(b) {
          // From render's own modules: a vendored package is bundled, anything else stays an import.
          b.onResolve({ filter: /.*/ }, (args) => {
            if (args.kind === "entry-point" || args.importer.includes("node_modules")) return undefined;
            if (!args.path.startsWith(".") && vendored.has(packageOf(args.path))) return undefined;
            return { path: args.path, external: true };
          });
        },
      },
    ],
  });
  Object.assign(metafile.inputs, result.metafile.inputs);
  Object.assign(metafile.outputs, result.metafile.outputs);
}
const bundled = Object.keys(metafile.inputs).filter((input) => input.includes("node_modules"));
for (const name of vendored)
  if (!bundled.some((input) => input.includes(`/node_modules/${name}/`)))
    throw new Error(`${name} is listed as vendored but no dist module bundles it`);
/** Packages that ship no license text: their package.json's license, author and repository. */
const noticesByHand = {
  "ansi-sequence-parser":
    'MIT License (package.json: "license": "MIT"), by blake-mealey,\nhttps://github.com/blake-mealey/ansi-sequence-parser. The package ships no license file.',
};
writeFileSync(
  join(dist, "THIRD_PARTY_NOTICES.md"),
  thirdPartyNotices(metafile, { root, name: pkg.name, noticesByHand }),
);
console.log(
  `vendored ${[...vendored].join(", ")} into ${files.map((f) => relative(join(root, "src"), f).replace(/\.ts$/, ".js")).join(", ")}`,
);
