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
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import zlib, { brotliCompressSync, brotliDecompressSync } from "node:zlib";
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
 * `flattenCommand`'s copies need the room (decision 144). The modules stay as their packages
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
 * An entry point that names pg alone, so esbuild puts pg (and only pg) in a chunk of its own: the
 * chunk `flattenCommand` keeps as an import instead of copying. Its own output (a re-export that
 * nothing imports) is removed after the build.
 */
const PG_ENTRY = "pi-session-pg-entry";
const pgEntry = {
  name: "pg-entry",
  setup(b) {
    b.onResolve({ filter: new RegExp(`^${PG_ENTRY}$`) }, () => ({ path: PG_ENTRY, namespace: PG_ENTRY }));
    b.onLoad({ filter: /.*/, namespace: PG_ENTRY }, () => ({
      contents: 'export { default } from "pg";',
      // Where @pi-session/postgres resolves pg from, so both name the same files.
      resolveDir: join(root, "node_modules", "@pi-session", "postgres"),
      loader: "js",
    }));
  },
};

const result = await build({
  entryPoints: {
    "pi-session": join(root, "lib", "bin.js"),
    [`chunks/${PG_ENTRY}`]: PG_ENTRY,
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
  plugins: [packedAssets, importDefinitions, pgRewrites, pgEntry],
});

// The shebang goes on the entry only.
writeFileSync(entry, `#!/usr/bin/env node\n${readFileSync(entry, "utf8")}`);
chmodSync(entry, 0o755);

await flattenCommand(result.metafile, "sync");
dropOutput(result.metafile, (out) => out.entryPoint?.startsWith(`${PG_ENTRY}:`));

writeFileSync(join(outdir, "bundle-meta.json"), JSON.stringify(result.metafile));
writeFileSync(join(outdir, "THIRD_PARTY_NOTICES.md"), notices(result.metafile));

/** Removes the output `which` picks from dist/ and from the metafile. */
function dropOutput(meta, which) {
  const [out] = Object.entries(meta.outputs).find(([, o]) => which(o)) ?? [];
  if (!out) throw new Error("dropOutput: no such output");
  rmSync(join(root, out));
  delete meta.outputs[out];
}

/**
 * Rewrites a command's chunk as one module (decision 144). `sync` loaded 23 chunks beyond the
 * program's own, and on Node 20 (no compile cache) loading them as one module saves about 40 ms
 * of CPU. The command's chunk
 * becomes its whole graph (what it imports, statically or dynamically) in one file, except the
 * chunks it keeps importing: those the program loaded already (the static imports of the entry
 * and of lib/main.js) and pg's chunk. The copies cost package size; the kept chunks are what keeps them few.
 *
 * One copy of each module per process is what makes this safe: a module inlined here must not be
 * loaded from its own chunk too. The kept chunks are checked to import only kept chunks, so
 * nothing loads an inlined module's chunk through them; the program's dynamic imports are the
 * commands (one runs per process) and the pager (which `sync` does not use).
 */
async function flattenCommand(meta, command) {
  const outputs = meta.outputs;
  const find = (pick) => {
    const found = Object.keys(outputs).filter((out) => pick(outputs[out]));
    if (found.length !== 1) throw new Error(`flattenCommand(${command}): ${found.length} outputs match`);
    return found[0];
  };
  const closure = (from, follow) => {
    const seen = new Set();
    const visit = (out) => {
      if (seen.has(out)) return;
      seen.add(out);
      for (const i of outputs[out].imports) if (!i.external && follow(i)) visit(i.path);
    };
    visit(from);
    return seen;
  };
  const entryOut = find((o) => o.entryPoint === `lib/commands/${command}.js`);
  const pgOut = find((o) => o.entryPoint?.startsWith(`${PG_ENTRY}:`));
  // The binary's entry loads the program (lib/main.js) by a dynamic import.
  const program = find((o) => o.entryPoint === "lib/main.js");
  const keep = new Set([
    ...closure("dist/pi-session.js", (i) => i.kind === "import-statement"),
    ...closure(program, (i) => i.kind === "import-statement"),
    ...closure(pgOut, () => true),
  ]);
  keep.delete(pgOut);
  const pgGraph = closure(pgOut, () => true);
  for (const out of keep) {
    const inputs = Object.keys(outputs[out].inputs);
    for (const i of outputs[out].imports)
      if (
        !i.external &&
        !keep.has(i.path) &&
        !(i.kind === "dynamic-import" && (out === program || out === "dist/pi-session.js"))
      )
        throw new Error(`flattenCommand(${command}): kept ${out} imports ${i.path}, which would be copied`);
    if (pgGraph.has(out) && inputs.some((input) => !input.includes(NODE_MODULES.slice(1))))
      throw new Error(`flattenCommand(${command}): pg's chunk ${out} holds our own modules`);
  }
  const inlined = [...closure(entryOut, () => true)].filter((out) => !keep.has(out));
  const chunks = join(outdir, "chunks");
  const flat = await build({
    entryPoints: [join(root, entryOut)],
    bundle: true,
    write: false,
    format: "esm",
    platform: "node",
    target: "node20",
    external: ["better-sqlite3"],
    minifySyntax: true,
    minifyWhitespace: true,
    legalComments: "none",
    logLevel: "warning",
    plugins: [
      {
        name: "keep-chunks",
        setup(b) {
          b.onResolve({ filter: /^\.\// }, (args) => {
            const out = relative(root, join(args.resolveDir, args.path)).split("\\").join("/");
            return dirname(join(args.resolveDir, args.path)) === chunks && keep.has(out)
              ? { path: args.path, external: true }
              : undefined;
          });
        },
      },
    ],
  });
  const code = flat.outputFiles[0].text;
  writeFileSync(join(root, entryOut), code);
  const record = outputs[entryOut];
  record.bytes = Buffer.byteLength(code);
  record.inputs = Object.assign({}, ...inlined.map((out) => outputs[out].inputs));
  record.imports = [
    ...new Map(
      inlined
        .flatMap((out) => outputs[out].imports)
        .filter((i) => i.external || keep.has(i.path))
        .map((i) => [`${i.path} ${i.kind}`, i]),
    ).values(),
  ];
}

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
