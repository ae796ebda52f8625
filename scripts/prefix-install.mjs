// Installs one npm package into a prefix of its own (not saved, no install scripts, no audit):
// how the tooling puts what is never a dependency into an ignored folder (pi for the bench's
// peer under bench/.peer/, the pinned Node 22 under .tools/). The one home of that npm call: scripts/node22.mjs imports
// it; the bench's `peer-install` runs it as `node scripts/prefix-install.mjs <prefix> <spec>`
// (exit 1, saying why, when npm fails).
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { pathToFileURL } from "node:url";

/** Runs `npm install` of `spec` into `prefix`; returns spawnSync's result (stderr piped unless `stdio` says). */
export function prefixInstall(prefix, spec, stdio = ["ignore", "ignore", "pipe"]) {
  mkdirSync(prefix, { recursive: true });
  return spawnSync(
    "npm",
    [
      "install",
      "--prefix",
      prefix,
      "--no-save",
      "--ignore-scripts",
      "--no-audit",
      "--no-fund",
      "--loglevel=error",
      spec,
    ],
    { stdio, encoding: "utf8" },
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const [prefix, spec] = process.argv.slice(2);
  if (!prefix || !spec) {
    process.stderr.write("usage: node scripts/prefix-install.mjs <prefix> <spec>\n");
    process.exit(2);
  }
  const r = prefixInstall(prefix, spec, "inherit");
  if (r.status !== 0) {
    process.stderr.write(`npm install ${spec} failed (exit ${r.status ?? r.signal ?? String(r.error)})\n`);
    process.exit(1);
  }
}
