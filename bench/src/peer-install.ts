/**
 * Installs the peer, pi's own `@mariozechner/pi-coding-agent@0.73.1` (the newest release
 * that runs on Node 20), into the git-ignored `bench/.peer/`, so `run.js --peer` can put
 * pi's numbers next to ours. Never a dependency of any package; skipped when present.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { PEER_DIR, PEER_PKG, PEER_VERSION, peerInstalled } from "./layers.js";

if (peerInstalled()) {
  process.stderr.write(`${PEER_PKG}@${PEER_VERSION} already in ${PEER_DIR}\n`);
} else {
  mkdirSync(PEER_DIR, { recursive: true });
  process.stderr.write(`installing ${PEER_PKG}@${PEER_VERSION} into ${PEER_DIR} (large, takes a while)\n`);
  const r = spawnSync(
    "npm",
    [
      "install",
      "--prefix",
      PEER_DIR,
      "--no-save",
      "--ignore-scripts",
      "--no-audit",
      "--no-fund",
      `${PEER_PKG}@${PEER_VERSION}`,
    ],
    { stdio: "inherit" },
  );
  if (r.status !== 0 || !peerInstalled()) {
    process.stderr.write(`peer install failed (exit ${r.status ?? r.signal})\n`);
    process.exit(1);
  }
}
