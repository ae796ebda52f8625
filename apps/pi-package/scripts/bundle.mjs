// Bundles the pi extension into dist/extension.js, the file the package's `pi` manifest names:
// our layers and their dependencies inlined (the package installs alone, with no dependency of
// its own), pi's host packages left to pi (peer dependencies, as pi's packages doc asks), and
// dist/THIRD_PARTY_NOTICES.md for what was inlined. Run after `tsc -b` (which emits lib/).
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { thirdPartyNotices } from "../../../scripts/third-party-notices.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const outdir = join(root, "dist");
rmSync(outdir, { recursive: true, force: true });

const result = await build({
  entryPoints: [join(root, "lib", "extension.js")],
  outfile: join(outdir, "extension.js"),
  bundle: true,
  platform: "node",
  target: "node22",
  format: "esm",
  // pi supplies these to extensions; a copy of its own would bypass pi's module mapping.
  external: ["@earendil-works/*", "typebox"],
  banner: {
    // A `require` for the rare CommonJS dependency that needs one.
    js: "import { createRequire as __piCreateRequire } from 'node:module';\nconst require = __piCreateRequire(import.meta.url);",
  },
  minifySyntax: true,
  minifyWhitespace: true,
  legalComments: "none",
  logLevel: "warning",
  metafile: true,
});
writeFileSync(
  join(outdir, "THIRD_PARTY_NOTICES.md"),
  thirdPartyNotices(result.metafile, { root, name: pkg.name }),
);
if (process.env.PI_SESSION_BUNDLE_REPORT)
  for (const [file, out] of Object.entries(result.metafile.outputs))
    console.log(`${String(out.bytes).padStart(8)}  ${file}`);
