// Bundles the CLI into dist/ (decision 150):
// - dist/pi-session.cjs, the binary: a few lines of CommonJS that
//   run `sync …` from dist/sync.cjs and every other command line through dist/main.js;
// - dist/main.js, the program (option parsing, help, the command table) as an ES module, and one
//   chunk per command under dist/chunks/, loaded by dynamic import() only when that command runs.
//   So `--version` and `--help` load a few small files, not TypeBox, the layers or the SDK; and a
//   command loads the modules it imports, not every module of a package it names (see
//   importDefinitions);
// - dist/sync.cjs, the program with the sync command alone, its whole graph in one CommonJS file
//   (a fresh `sync` skips the ES module loader and the chunks);
// - dist/pg.cjs, pg as published (never rewritten), which the chunks and dist/sync.cjs both
//   require (one copy in the package).
// Run after `tsc -b` (which type-checks and emits lib/).
//
// The bundle inlines third-party packages (cac, picocolors, TypeBox, pg, ...): their license
// texts go to dist/THIRD_PARTY_NOTICES.md, made here from the packages esbuild actually bundled
// (the builds' metafiles, merged and kept as dist/bundle-meta.json for the tests that check the
// notices and what each output holds).
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const outdir = join(root, "dist");
const bin = join(outdir, "pi-session.cjs");
const NODE_MODULES = `${join("/", "node_modules")}/`;

// Stale chunks from an earlier build would ship otherwise; dist/pi-session.js was the binary
// before decision 150.
rmSync(join(outdir, "chunks"), { recursive: true, force: true });
rmSync(join(outdir, "pi-session.js"), { force: true });

/**
 * Imports through a package's index (or any module that only re-exports) made imports of the
 * modules that define the names. esbuild assigns whole files to chunks by which entry points
 * reach them, following every import of a file, used or not: one `import { oneLineField }
 * from "@pi-session/render"` made every command load all of render (its page assets too), and
 * one import of node-store's index all of node-store. Our own files only (lib/ and the
 * workspace packages' dist/); each package says `"sideEffects": false`.
 */
const importDefinitions = {
  name: "import-definitions",
  setup(b) {
    /** Resolved path of `spec` imported from `dir`, or undefined (external, missing, node:). */
    const resolvePath = async (spec, dir) => {
      if (spec.startsWith("node:")) return undefined;
      const r = await b.resolve(spec, { kind: "import-statement", resolveDir: dir });
      return r.errors.length > 0 || r.external ? undefined : r.path;
    };
    /**
     * What a module that only re-exports (`export { a, b as c } from "...";` and nothing else, as
     * every package's index.js is) exports: name -> the file and name it comes from; undefined
     * for any other module.
     */
    const barrels = new Map();
    const barrelExports = (file) => {
      let p = barrels.get(file);
      if (!p) {
        p = (async () => {
          if (file.includes(NODE_MODULES)) return undefined;
          const code = readFileSync(file, "utf8")
            .replace(/\/\*[\s\S]*?\*\//g, "")
            .replace(/^\s*\/\/.*$/gm, "");
          const statement = /export\s*\{([^}]*)\}\s*from\s*"([^"]+)";?/g;
          if (code.replace(statement, "").trim() !== "") return undefined;
          const map = new Map();
          for (const m of code.matchAll(statement)) {
            const from = await resolvePath(m[2], dirname(file));
            if (!from) return undefined;
            for (const spec of m[1].split(",")) {
              const [name, as = name] = spec.trim().split(/\s+as\s+/);
              if (name) map.set(as, { file: from, name });
            }
          }
          return map;
        })();
        barrels.set(file, p);
      }
      return p;
    };
    /** Where `name` of `file` is defined: through re-exporting modules down to the one that has it. */
    const definition = async (file, name) => {
      const next = (await barrelExports(file))?.get(name);
      return next ? definition(next.file, next.name) : { file, name };
    };
    b.onLoad({ filter: /\.js$/ }, async (args) => {
      if (args.path.includes(NODE_MODULES)) return undefined;
      const resolveDir = dirname(args.path);
      let out = readFileSync(args.path, "utf8");
      for (const m of [...out.matchAll(/^import\s*\{([^}]*)\}\s*from\s*"([^"]+)";/gm)]) {
        const target = await resolvePath(m[2], resolveDir);
        if (!target || !(await barrelExports(target))) continue;
        const byFile = new Map();
        for (const spec of m[1].split(",")) {
          const text = spec.trim().replace(/^type\s+/, "");
          if (text === "") continue;
          const [name, local = name] = text.split(/\s+as\s+/);
          const def = await definition(target, name);
          if (!byFile.has(def.file)) byFile.set(def.file, []);
          byFile.get(def.file).push(def.name === local ? local : `${def.name} as ${local}`);
        }
        const imports = [...byFile].map(
          ([file, specs]) => `import { ${specs.join(", ")} } from ${JSON.stringify(file)};`,
        );
        out = out.replace(m[0], () => imports.join(" "));
      }
      return { contents: out, loader: "js", resolveDir };
    });
  },
};

/**
 * pg is one CommonJS file, dist/pg.cjs, which both the ES chunks (`--db` of search, stats and
 * serve; the sync after a global option) and dist/sync.cjs require: one copy in the package.
 * In the ES build `import pg from "pg"` becomes a `createRequire` of it from the chunk (all
 * chunks are in dist/chunks/; the build checks where this one lands); in the CommonJS build a
 * `require("./pg.cjs")` from dist/. Either way the default import is pg's `module.exports`, as
 * esbuild's own interop gave.
 */
const PG_FILE = "pg.cjs";
const PG_SHIM = "pi-session-pg";
const pgShared = (format) => ({
  name: "pg-shared",
  setup(b) {
    b.onResolve({ filter: /^pg$/ }, () =>
      format === "cjs" ? { path: `./${PG_FILE}`, external: true } : { path: PG_SHIM, namespace: PG_SHIM },
    );
    b.onLoad({ filter: /.*/, namespace: PG_SHIM }, () => ({
      contents: `import { createRequire } from "node:module";\nexport default createRequire(import.meta.url)("../${PG_FILE}");`,
      loader: "js",
    }));
  },
});

/** Options every build shares. */
const common = {
  bundle: true,
  platform: "node",
  target: "node22",
  // Whitespace too (decision 131): the installed package stays small; names are kept, so stack
  // traces still name functions.
  minifySyntax: true,
  minifyWhitespace: true,
  legalComments: "none",
  logLevel: "warning",
  metafile: true,
};

const result = await build({
  ...common,
  entryPoints: {
    main: join(root, "lib", "main.js"),
    // The session database reads files ahead in worker threads started from
    // `./index-worker.js` next to the chunk that holds it; ship it there.
    "chunks/index-worker": join(root, "node_modules", "@pi-session", "search", "dist", "index-worker.js"),
    // `serve` searches in threads started from `./search-worker.js` next to its chunk, likewise.
    "chunks/search-worker": join(root, "node_modules", "@pi-session", "web", "dist", "search-worker.js"),
  },
  outdir,
  splitting: true,
  format: "esm",
  chunkNames: "chunks/[name]-[hash]",
  banner: {
    // A `require` for the rare CommonJS dependency that needs one (each chunk is its own module).
    js: "import { createRequire as __piCreateRequire } from 'node:module';\nconst require = __piCreateRequire(import.meta.url);",
  },
  define: { __PI_SESSION_VERSION__: JSON.stringify(pkg.version) },
  plugins: [importDefinitions, pgShared("esm")],
});
const shimAt = Object.entries(result.metafile.outputs).find(([, o]) => `${PG_SHIM}:${PG_SHIM}` in o.inputs);
if (shimAt && dirname(join(root, shimAt[0])) !== join(outdir, "chunks"))
  throw new Error(`pg's shim landed in ${shimAt[0]}, not in dist/chunks/: its "../${PG_FILE}" would miss`);

// pg alone, as published, from where @pi-session/postgres resolves it.
const pgBuild = await build({
  ...common,
  entryPoints: [
    createRequire(join(root, "node_modules", "@pi-session", "postgres", "package.json")).resolve("pg"),
  ],
  outfile: join(outdir, PG_FILE),
  format: "cjs",
});

// The sync path: the program with the sync command alone. `import.meta.url` (the worker
// threads' scripts, `createRequire`) means a file of dist/chunks/, so that everything resolves as
// from the chunks, where the workers' scripts are.
const syncBuild = await build({
  ...common,
  entryPoints: [join(root, "lib", "sync-main.js")],
  outfile: join(outdir, "sync.cjs"),
  format: "cjs",
  banner: {
    js: 'const __piModuleUrl = require("node:url").pathToFileURL(require("node:path").join(__dirname, "chunks", "sync.cjs")).href;',
  },
  define: { __PI_SESSION_VERSION__: JSON.stringify(pkg.version), "import.meta.url": "__piModuleUrl" },
  plugins: [importDefinitions, pgShared("cjs")],
});

// The binary. Its two paths are files beside it, left to Node.
const binBuild = await build({
  ...common,
  entryPoints: [join(root, "lib", "bin.js")],
  outfile: bin,
  format: "cjs",
  external: ["./sync.cjs", "./main.js"],
  plugins: [importDefinitions],
});
writeFileSync(bin, `#!/usr/bin/env node\n${readFileSync(bin, "utf8")}`);
chmodSync(bin, 0o755);

// One metafile for the tests and the notices: every build's inputs and outputs.
const meta = { inputs: {}, outputs: {} };
for (const m of [result.metafile, pgBuild.metafile, syncBuild.metafile, binBuild.metafile]) {
  Object.assign(meta.inputs, m.inputs);
  Object.assign(meta.outputs, m.outputs);
}
writeFileSync(join(outdir, "bundle-meta.json"), JSON.stringify(meta));
writeFileSync(join(outdir, "THIRD_PARTY_NOTICES.md"), notices(meta));

/** The root of the package an input file belongs to, or undefined for our own sources. */
function packageRoot(input) {
  const parts = input.split(/[\\/]/);
  const at = parts.lastIndexOf("node_modules");
  if (at < 0) return undefined;
  const length = parts[at + 1]?.startsWith("@") ? 2 : 1;
  return join(root, ...parts.slice(0, at + 1 + length));
}

/**
 * The license text a package without a license file keeps in its README (pg-types: a
 * "## License" section with the MIT text), or undefined.
 */
function readmeLicense(dir) {
  const readme = readdirSync(dir).find((name) => /^readme(\.md)?$/i.test(name));
  if (!readme) return undefined;
  const m = /^#+\s*licen[cs]e\s*$([\s\S]*?)(?=^#+\s|(?![\s\S]))/im.exec(
    readFileSync(join(dir, readme), "utf8"),
  );
  const text = m?.[1]?.trim();
  return text && /permission is hereby granted|licensed under/i.test(text) ? text : undefined;
}

function notices(metafile) {
  const roots = new Set();
  for (const input of Object.keys(metafile.inputs)) {
    const dir = packageRoot(input);
    if (dir) roots.add(dir);
  }
  const sections = [];
  for (const dir of roots) {
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    if (manifest.name.startsWith("@pi-session/")) continue;
    const file = readdirSync(dir).find((name) => /^(licen[cs]e|copying)(\.|$)/i.test(name));
    const text =
      file && existsSync(join(dir, file)) ? readFileSync(join(dir, file), "utf8").trim() : readmeLicense(dir);
    if (text === undefined) {
      throw new Error(`${manifest.name} is bundled but ships no license file: add its notice by hand`);
    }
    sections.push(
      `## ${manifest.name}@${manifest.version} (${manifest.license})\n\n\`\`\`text\n${text}\n\`\`\`\n`,
    );
  }
  sections.sort();
  return `# Third-party notices\n\n@pi-session/cli is one bundle: it contains code from the packages below, under their licenses.\n\n${sections.join("\n")}`;
}

if (process.env.PI_SESSION_BUNDLE_REPORT) {
  for (const [file, out] of Object.entries(meta.outputs)) {
    console.log(`${String(out.bytes).padStart(8)}  ${file}`);
  }
}
