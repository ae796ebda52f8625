// Bundles the CLI into dist/ (decision 150):
// - dist/pi-session.cjs, the binary: a few lines of CommonJS that turn the compile cache on, then
//   run `sync …` from dist/sync.cjs and every other command line through dist/main.js;
// - dist/main.js, the program (option parsing, help, the command table) as an ES module, and one
//   chunk per command under dist/chunks/, loaded by dynamic import() only when that command runs.
//   So `--version` and `--help` load a few small files, not TypeBox, the layers or the SDK; and a
//   command loads the modules it imports, not every module of a package it names (see
//   importDefinitions);
// - dist/sync.cjs, the program with the sync command alone, its whole graph in one CommonJS file
//   (a fresh `sync` skips the ES module loader and the chunks);
// - dist/pg.cjs, pg, which the chunks and dist/sync.cjs both require (one copy in the package).
// Run after `tsc -b` (which type-checks and emits lib/).
//
// The bundle inlines third-party packages (cac, picocolors, TypeBox, pg, ...): their license
// texts go to dist/THIRD_PARTY_NOTICES.md, made here from the packages esbuild actually bundled
// (the builds' metafiles, merged and kept as dist/bundle-meta.json for the tests that check the
// notices and what each output holds).
import { chmodSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import zlib, { brotliCompressSync, brotliDecompressSync } from "node:zlib";
import { build } from "esbuild";
import { thirdPartyNotices } from "../../../scripts/third-party-notices.mjs";

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
 * Rewrites of the bundled copy of pg, for start-up (decision 143). Each is an exact text of pg's
 * source; the build fails when one is not found, so a pg update cannot drop one silently.
 *
 * - pg decides at load time whether it runs in a Cloudflare Worker; on Node 20 (no `navigator`)
 *   its probe constructs a `Response`, which loads Node's fetch (undici, with http, http2, zlib,
 *   assert and worker_threads) into every `sync` and `--db` process. The CLI runs on Node only:
 *   the probe is cut.
 * - pg's password hashing loads `node:crypto` (about twenty built-in modules) when pg loads,
 *   though a connection that needs no password (a socket with peer or trust authentication)
 *   never hashes. It now loads on the first hash.
 * - pg's connection parameters load `node:dns` for the native driver's host look-up, which the
 *   CLI never uses. It now loads on the first look-up.
 */
const PG_REWRITES = [
  {
    file: /[\\/]pg[\\/]lib[\\/]stream\.js$/,
    edits: [[/if \(isCloudflareRuntime\(\)\) \{\s*return getCloudflareStreamFuncs\(\)\s*\}/, ""]],
  },
  {
    file: /[\\/]pg[\\/]lib[\\/]crypto[\\/]utils\.js$/,
    edits: [
      [
        "const nodeCrypto = require('crypto')",
        `let loadedCrypto
const loadCrypto = () => (loadedCrypto ??= require('crypto'))
const nodeCrypto = { createHash: (name) => loadCrypto().createHash(name) }`,
      ],
      [
        "const webCrypto = nodeCrypto.webcrypto || globalThis.crypto",
        `const lazyWebCrypto = () => loadCrypto().webcrypto || globalThis.crypto
const webCrypto = { getRandomValues: (bytes) => lazyWebCrypto().getRandomValues(bytes) }`,
      ],
      [
        "const subtleCrypto = webCrypto.subtle",
        `const subtleCrypto = new Proxy({}, {
  get: (_, name) => { const subtle = lazyWebCrypto().subtle; return subtle[name].bind(subtle) },
})`,
      ],
    ],
  },
  {
    file: /[\\/]pg[\\/]lib[\\/]connection-parameters\.js$/,
    edits: [
      ["const dns = require('dns')", "const dns = { lookup: (...args) => require('dns').lookup(...args) }"],
    ],
  },
];

const pgRewrites = {
  name: "pg-rewrites",
  setup(b) {
    b.onLoad({ filter: /[\\/]pg[\\/]lib[\\/].*\.js$/ }, (args) => {
      const rewrite = PG_REWRITES.find((r) => r.file.test(args.path));
      if (!rewrite) return undefined;
      let code = readFileSync(args.path, "utf8");
      for (const [from, to] of rewrite.edits) {
        const found = typeof from === "string" ? code.includes(from) : from.test(code);
        if (!found)
          throw new Error(`pg's code changed: ${from} not found in ${args.path}: update PG_REWRITES`);
        code = code.replace(from, () => to);
      }
      return { contents: code, loader: "js" };
    });
  },
};

/**
 * The page and app assets (the exported page's and `serve`'s script and style: 340 kB of strings)
 * go into the bundle brotli-compressed, and are unpacked when their module loads (a few
 * milliseconds, in `export` and `serve` only). The installed package has a 1.5 MB limit, and
 * the copies of dist/sync.cjs need the room (decisions 144, 150). The modules stay as their packages
 * build them; only their strings over 4 kB are packed, and each is checked to unpack to itself.
 */
const packedAssets = {
  name: "packed-assets",
  setup(b) {
    b.onLoad({ filter: /[\\/](render|web)[\\/]dist[\\/](page|client)-assets\.js$/ }, async (args) => {
      const values = await import(pathToFileURL(args.path).href);
      const lines = [
        'import { brotliDecompressSync } from "node:zlib";',
        'const unpack = (packed) => brotliDecompressSync(Buffer.from(packed, "base64")).toString("utf8");',
      ];
      for (const [name, value] of Object.entries(values)) {
        if (typeof value !== "string")
          throw new Error(`packed-assets: ${name} of ${args.path} is not a string`);
        if (value.length < 4096) {
          lines.push(`export const ${name} = ${JSON.stringify(value)};`);
          continue;
        }
        const packed = brotliCompressSync(Buffer.from(value, "utf8"), {
          params: { [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY },
        }).toString("base64");
        if (brotliDecompressSync(Buffer.from(packed, "base64")).toString("utf8") !== value)
          throw new Error(`packed-assets: ${name} of ${args.path} does not unpack to itself`);
        lines.push(`export const ${name} = unpack(${JSON.stringify(packed)});`);
      }
      return { contents: lines.join("\n"), loader: "js" };
    });
  },
};

/**
 * The MCP SDK's server imports its default JSON Schema validator (ajv, ajv-formats and
 * fast-uri: 195 kB of the bundle's 2 MB installed-size limit) to check elicitation answers,
 * which `mcp` never asks for; it passes a validator of its own, so the default is never made.
 * Its module is replaced by one that says so if anything ever did make it.
 */
const mcpWithoutAjv = {
  name: "mcp-without-ajv",
  setup(b) {
    b.onResolve({ filter: /[\\/]validation[\\/]ajv-provider\.js$/ }, (args) =>
      args.importer.includes(`${join("@modelcontextprotocol", "sdk")}`)
        ? { path: "mcp-ajv-provider", namespace: "mcp-without-ajv" }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "mcp-without-ajv" }, () => ({
      contents:
        'export class AjvJsonSchemaValidator { constructor() { throw new Error("pi-session mcp ships no ajv: pass a jsonSchemaValidator"); } }',
      loader: "js",
    }));
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
  // Whitespace too (decision 131): the installed package stays under its 1.5 MB limit; names are kept,
  // so stack traces still name functions.
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
  splitting: true,
  format: "esm",
  chunkNames: "chunks/[name]-[hash]",
  banner: {
    // A `require` for the rare CommonJS dependency that needs one (each chunk is its own module).
    js: "import { createRequire as __piCreateRequire } from 'node:module';\nconst require = __piCreateRequire(import.meta.url);",
  },
  define: { __PI_SESSION_VERSION__: JSON.stringify(pkg.version) },
  plugins: [packedAssets, importDefinitions, pgShared("esm"), mcpWithoutAjv],
});
const shimAt = Object.entries(result.metafile.outputs).find(([, o]) => `${PG_SHIM}:${PG_SHIM}` in o.inputs);
if (shimAt && dirname(join(root, shimAt[0])) !== join(outdir, "chunks"))
  throw new Error(`pg's shim landed in ${shimAt[0]}, not in dist/chunks/: its "../${PG_FILE}" would miss`);

// pg alone, with the start-up rewrites (PG_REWRITES), from where @pi-session/postgres resolves it.
const pgBuild = await build({
  ...common,
  entryPoints: [
    createRequire(join(root, "node_modules", "@pi-session", "postgres", "package.json")).resolve("pg"),
  ],
  outfile: join(outdir, PG_FILE),
  format: "cjs",
  plugins: [pgRewrites],
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
  plugins: [packedAssets, importDefinitions, pgShared("cjs")],
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
writeFileSync(join(outdir, "THIRD_PARTY_NOTICES.md"), thirdPartyNotices(meta, { root, name: pkg.name }));

if (process.env.PI_SESSION_BUNDLE_REPORT) {
  for (const [file, out] of Object.entries(meta.outputs)) {
    console.log(`${String(out.bytes).padStart(8)}  ${file}`);
  }
}
