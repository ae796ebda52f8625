// The pinned Node 22 of this repository: the official binary the npm package
// `node-<platform>-<arch>` ships, installed on first use into the ignored `.tools/` (a registry
// package, so it comes wherever the npm registry does). As a script it prints the binary's
// path, installing it first when missing, and exits 1 saying why when it cannot. The one
// installer of it: `scripts/use-node.mjs` (the README's commands on an older system Node) and
// the bench's peer (pi 1.6.0 runs on it) call it. Plain Node APIs only: it runs on old Nodes.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { prefixInstall } from "./prefix-install.mjs";

export const NODE22_VERSION = "22.23.5";
const pkg = `node-${process.platform === "win32" ? "win" : process.platform}-${process.arch}`;
export const NODE22_PACKAGE = `${pkg}@${NODE22_VERSION}`;
export const node22Prefix = join(
  dirname(fileURLToPath(import.meta.url)),
  "..",
  ".tools",
  `node-${NODE22_VERSION}`,
);
/** Where the binary is once installed. */
export const node22Bin = join(
  node22Prefix,
  "node_modules",
  pkg,
  process.platform === "win32" ? "node.exe" : join("bin", "node"),
);

/** Installs the pinned Node 22 when missing; returns its path, or throws saying why. */
export function ensureNode22() {
  if (!existsSync(node22Bin)) {
    const r = prefixInstall(node22Prefix, NODE22_PACKAGE);
    if (r.status !== 0 || !existsSync(node22Bin))
      throw new Error(`npm install ${NODE22_PACKAGE} failed: ${(r.stderr ?? String(r.error)).trim()}`);
  }
  const v = spawnSync(node22Bin, ["--version"], { encoding: "utf8" });
  if (v.stdout?.trim() !== `v${NODE22_VERSION}`)
    throw new Error(`${node22Bin} --version said ${JSON.stringify(v.stdout ?? String(v.error))}`);
  return node22Bin;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  try {
    process.stdout.write(`${ensureNode22()}\n`);
  } catch (error) {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}
