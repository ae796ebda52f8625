/**
 * Installs what `run.js --peer` compares against, each into its own prefix under the git-ignored
 * `bench/.peer/`: pi 1.6.0 (`@earendil-works/pi-coding-agent`, the peer) and the Node 22 binary
 * it needs (npm package `node-<platform>-<arch>`); with `--legacy`, also pi 0.73.1 (the newest
 * pi on Node 20, an optional second peer). Never a dependency of any package; what is present
 * is skipped. Exits 1 when an install fails.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import {
  NODE22,
  node22Installed,
  node22Path,
  PEERS,
  type PeerSpec,
  peerInstalled,
  peerPrefix,
} from "./layers.js";

const NODE22_INSTALLER = fileURLToPath(new URL("../../scripts/node22.mjs", import.meta.url));

const PREFIX_INSTALL = fileURLToPath(new URL("../../scripts/prefix-install.mjs", import.meta.url));

/** npm install of `spec` into `prefix`, by the repository's one helper for it. */
function npmInstall(prefix: string, spec: string): boolean {
  return spawnSync(process.execPath, [PREFIX_INSTALL, prefix, spec], { stdio: "inherit" }).status === 0;
}

function installPeer(spec: PeerSpec): boolean {
  const name = `${spec.pkg}@${spec.version}`;
  if (peerInstalled(spec)) {
    process.stderr.write(`${name} already in ${peerPrefix(spec)}\n`);
    return true;
  }
  process.stderr.write(`installing ${name} into ${peerPrefix(spec)} (large, takes a while)\n`);
  return npmInstall(peerPrefix(spec), name) && peerInstalled(spec);
}

/** The Node 22 binary, by the repository's one installer of it (`scripts/node22.mjs`). */
function installNode22(): boolean {
  const name = `${NODE22.pkg}@${NODE22.version}`;
  if (node22Installed()) {
    process.stderr.write(`${name} already in ${NODE22.prefix}\n`);
    return true;
  }
  process.stderr.write(`installing ${name} (the Node 22 binary) into ${NODE22.prefix}\n`);
  const r = spawnSync(process.execPath, [NODE22_INSTALLER], { stdio: ["ignore", "ignore", "inherit"] });
  return r.status === 0 && node22Installed() && node22Path() !== "";
}

const legacy = process.argv.includes("--legacy");
let ok = installNode22();
ok = installPeer(PEERS.pi16) && ok;
if (legacy) ok = installPeer(PEERS.pi073) && ok;
if (!ok) process.exit(1);
