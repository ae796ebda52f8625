// Bundles the CLI into dist/: the entry dist/pi-session.js (program, option parsing, help) and
// one chunk per command under dist/chunks/, loaded by dynamic import() only when that command
// runs. So `--version` and `--help` load ~one small file, not TypeBox, the layers or the SDK.
// Run after `tsc -b` (which type-checks and emits lib/).
import { chmodSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const outdir = join(root, "dist");
const entry = join(outdir, "pi-session.js");

// Stale chunks from an earlier build would ship otherwise.
rmSync(join(outdir, "chunks"), { recursive: true, force: true });

const result = await build({
  entryPoints: {
    "pi-session": join(root, "lib", "main.js"),
    // node-store's listing starts worker threads from `./list-worker.js` next to the chunk
    // that holds the listing code; ship it there, or large listings stay on one core.
    "chunks/list-worker": join(root, "node_modules", "@pi-session", "node-store", "dist", "list-worker.js"),
    // The session database reads files ahead in `./index-worker.js` next to its chunk, likewise.
    "chunks/index-worker": join(root, "node_modules", "@pi-session", "search", "dist", "index-worker.js"),
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
  minifySyntax: true,
  legalComments: "none",
  logLevel: "warning",
  metafile: true,
});

// The shebang goes on the entry only.
writeFileSync(entry, `#!/usr/bin/env node\n${readFileSync(entry, "utf8")}`);
chmodSync(entry, 0o755);

if (process.env.PI_SESSION_BUNDLE_REPORT) {
  for (const [file, out] of Object.entries(result.metafile.outputs)) {
    console.log(`${String(out.bytes).padStart(8)}  ${file}`);
  }
}
