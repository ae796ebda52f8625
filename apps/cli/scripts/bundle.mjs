// Bundles the CLI into one ESM file, dist/pi-session.js, so startup does not pay for resolving
// and loading dozens of modules. Run after `tsc -b` (which type-checks and emits lib/).
import { chmodSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const outfile = join(root, "dist", "pi-session.js");

await build({
  entryPoints: [join(root, "lib", "main.js")],
  outfile,
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  banner: {
    // The shebang, plus a `require` for the rare CommonJS dependency that needs one.
    js: "#!/usr/bin/env node\nimport { createRequire as __piCreateRequire } from 'node:module';\nconst require = __piCreateRequire(import.meta.url);",
  },
  define: { __PI_SESSION_VERSION__: JSON.stringify(pkg.version) },
  minifySyntax: true,
  legalComments: "none",
  logLevel: "warning",
});
chmodSync(outfile, 0o755);
