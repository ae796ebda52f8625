// Prints the path of a Node 22 binary, installing it first when missing: the official binary
// the npm package `node-<platform>-<arch>` ships (a registry package), into the ignored
// bench/.peer/node-22.23.5 (the bench's peer runs on the same one). Exits 1, saying why, when
// it cannot be installed (no registry). The one installer of it: the bench's `peer-install`
// runs this too; the npm call is scripts/prefix-install.mjs. The version is also `NODE22` in bench/src/layers.ts.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { prefixInstall } from "./prefix-install.mjs";

const VERSION = "22.23.5";
const pkg = `node-${process.platform === "win32" ? "win" : process.platform}-${process.arch}`;
const prefix = join(dirname(fileURLToPath(import.meta.url)), "..", "bench", ".peer", `node-${VERSION}`);
const bin = join(
  prefix,
  "node_modules",
  pkg,
  process.platform === "win32" ? "node.exe" : join("bin", "node"),
);

if (!existsSync(bin)) {
  const r = prefixInstall(prefix, `${pkg}@${VERSION}`);
  if (r.status !== 0 || !existsSync(bin)) {
    process.stderr.write(`npm install ${pkg}@${VERSION} failed: ${(r.stderr ?? String(r.error)).trim()}\n`);
    process.exit(1);
  }
}
const v = spawnSync(bin, ["--version"], { encoding: "utf8" });
if (v.stdout?.trim() !== `v${VERSION}`) {
  process.stderr.write(`${bin} --version said ${JSON.stringify(v.stdout ?? String(v.error))}\n`);
  process.exit(1);
}
process.stdout.write(`${bin}\n`);
