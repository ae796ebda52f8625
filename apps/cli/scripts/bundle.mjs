// Bundles the CLI into dist/: the entry dist/pi-session.js (program, option parsing, help) and
// one chunk per command under dist/chunks/, loaded by dynamic import() only when that command
// runs. So `--version` and `--help` load ~one small file, not TypeBox, the layers or the SDK.
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

// Stale chunks from an earlier build would ship otherwise.
rmSync(join(outdir, "chunks"), { recursive: true, force: true });

const result = await build({
  entryPoints: {
    "pi-session": join(root, "lib", "main.js"),
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
    if (!file || !existsSync(join(dir, file))) {
      throw new Error(`${manifest.name} is bundled but ships no license file: add its notice by hand`);
    }
    const text = readFileSync(join(dir, file), "utf8").trim();
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
