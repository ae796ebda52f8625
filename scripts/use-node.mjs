// Runs a command with a Node that meets the repository's floor (>= 22.19, pi's own) first on
// the PATH: this Node when it is new enough, else the pinned Node 22 of `scripts/node22.mjs`,
// fetched from the npm registry into the ignored `.tools/` on first use (said on stderr). The
// README's two commands go through it, so they work on a machine whose system Node is older.
//
//   node scripts/use-node.mjs <command> [args...]   run the command (its exit code is ours)
//   node scripts/use-node.mjs --path                print the bin directory to put first on PATH
//
// Plain Node APIs only: it runs on the old Node it replaces.
import { spawnSync } from "node:child_process";
import { dirname, delimiter } from "node:path";
import { NODE22_PACKAGE, ensureNode22 } from "./node22.mjs";

const FLOOR = [22, 19];

function meetsFloor(version) {
  const [major, minor] = version.split(".").map(Number);
  return major > FLOOR[0] || (major === FLOOR[0] && minor >= FLOOR[1]);
}

/** The directory holding a good `node`: this one's, or the pinned Node 22's (installed now if missing). */
function nodeBinDir() {
  if (meetsFloor(process.versions.node)) return dirname(process.execPath);
  process.stderr.write(
    `pi-session needs Node >= ${FLOOR.join(".")}; this is Node ${process.versions.node}, ` +
      `so it runs with ${NODE22_PACKAGE} from the npm registry (kept in .tools/)\n`,
  );
  try {
    return dirname(ensureNode22());
  } catch (error) {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}

const args = process.argv.slice(2);
if (args.length === 0) {
  process.stderr.write("usage: node scripts/use-node.mjs <command> [args...] | --path\n");
  process.exit(2);
}
const bin = nodeBinDir();
if (args[0] === "--path") {
  process.stdout.write(`${bin}\n`);
  process.exit(0);
}
const env = { ...process.env, PATH: [bin, process.env.PATH].filter(Boolean).join(delimiter) };
const run = spawnSync(args[0], args.slice(1), { stdio: "inherit", env, shell: process.platform === "win32" });
if (run.error) {
  process.stderr.write(`${args[0]}: ${run.error.message}\n`);
  process.exit(1);
}
if (run.signal) process.kill(process.pid, run.signal);
process.exit(run.status ?? 1);
