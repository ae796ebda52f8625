// Bundles the CLI into dist/: the entry dist/pi-session.js (program, option parsing, help) and
// one chunk per command under dist/chunks/, loaded by dynamic import() only when that command
// runs. So `--version` and `--help` load ~one small file, not TypeBox, the layers or the SDK;
// and a command loads the modules it imports, not every module of a package it names (see
// importDefinitions).
// Run after `tsc -b` (which type-checks and emits lib/).
//
// The bundle inlines third-party packages (cac, picocolors, TypeBox, ...): their license texts go
// to dist/THIRD_PARTY_NOTICES.md, made here from the packages esbuild actually bundled (its
// metafile, kept as dist/bundle-meta.json for the test that checks the notices).
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const outdir = join(root, "dist");
const entry = join(outdir, "pi-session.js");
const NODE_MODULES = `${join("/", "node_modules")}/`;

// Stale chunks from an earlier build would ship otherwise.
rmSync(join(outdir, "chunks"), { recursive: true, force: true });

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
 * pg decides at load time whether it runs in a Cloudflare Worker; on Node 20 (no `navigator`)
 * its probe constructs a `Response`, which loads Node's fetch (undici, with http, http2, zlib,
 * assert and worker_threads) into every `sync` and `--db` process. The CLI runs on Node only:
 * the probe is cut from the bundled copy (decision 143). Fails the build if pg's code moved.
 */
const pgNodeStreams = {
  name: "pg-node-streams",
  setup(b) {
    b.onLoad({ filter: /[\\/]pg[\\/]lib[\\/]stream\.js$/ }, (args) => {
      const code = readFileSync(args.path, "utf8");
      const probe = /if \(isCloudflareRuntime\(\)\) \{\s*return getCloudflareStreamFuncs\(\)\s*\}/;
      if (!probe.test(code))
        throw new Error(`pg's Cloudflare probe not found in ${args.path}: update pgNodeStreams`);
      return { contents: code.replace(probe, ""), loader: "js" };
    });
  },
};

const result = await build({
  entryPoints: {
    "pi-session": join(root, "lib", "bin.js"),
    // node-store's listing starts worker threads from `./list-worker.js` next to the chunk
    // that holds the listing code; ship it there, or large listings stay on one core.
    "chunks/list-worker": join(
      root,
      "node_modules",
      "@pi-session",
      "node-store",
      "dist",
      "listing",
      "list-worker.js",
    ),
    // The session database reads files ahead in `./index-worker.js` next to its chunk, likewise.
    "chunks/index-worker": join(root, "node_modules", "@pi-session", "search", "dist", "index-worker.js"),
    // `serve` searches in threads started from `./search-worker.js` next to its chunk, likewise.
    "chunks/search-worker": join(root, "node_modules", "@pi-session", "web", "dist", "search-worker.js"),
  },
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  // A native addon (the session database's SQLite on Node 20): loaded from node_modules at
  // run time, never bundled (node:sqlite needs nothing).
  external: ["better-sqlite3"],
  target: "node20",
  chunkNames: "chunks/[name]-[hash]",
  banner: {
    // A `require` for the rare CommonJS dependency that needs one (each chunk is its own module).
    js: "import { createRequire as __piCreateRequire } from 'node:module';\nconst require = __piCreateRequire(import.meta.url);",
  },
  define: { __PI_SESSION_VERSION__: JSON.stringify(pkg.version) },
  // Whitespace too (decision 131): the installed package stays under its 1.5 MB limit; names are kept,
  // so stack traces still name functions.
  minifySyntax: true,
  minifyWhitespace: true,
  legalComments: "none",
  logLevel: "warning",
  metafile: true,
  plugins: [importDefinitions, pgNodeStreams],
});

// The shebang goes on the entry only.
writeFileSync(entry, `#!/usr/bin/env node\n${readFileSync(entry, "utf8")}`);
chmodSync(entry, 0o755);

writeFileSync(join(outdir, "bundle-meta.json"), JSON.stringify(result.metafile));
writeFileSync(join(outdir, "THIRD_PARTY_NOTICES.md"), notices(result.metafile));

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
  for (const [file, out] of Object.entries(result.metafile.outputs)) {
    console.log(`${String(out.bytes).padStart(8)}  ${file}`);
  }
}
