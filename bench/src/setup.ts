/**
 * What a benchmark run is: its options (`--smoke`, `--peer`, ...), the sizes of a full and a
 * smoke run, the gates that say why a side is not run (peer, Node 22, second peer), how a
 * side runs (the peer on Node 22), and making the page cache cold. Shared by the runner
 * (`run.ts`) and the sdk rows (`sdk.ts`).
 */
import { execSync } from "node:child_process";
import { existsSync, mkdirSync, statfsSync, writeFileSync } from "node:fs";
import { DATA_DIR, ensureSession, type SessionSpec, type StoreSpec, sessionPath } from "./generate.js";
import { NODE22, node22Installed, node22Path, PEER, PEERS, type PeerSpec, peerInstalled } from "./layers.js";
import { type ChildOutcome, nowMs, runWorker, type WorkerOptions } from "./measure.js";
import { fmt, MB } from "./rows.js";

// ---------------------------------------------------------------------------------------
// Options and sizes

export interface Options {
  smoke: boolean;
  peer: boolean;
  /** Also pi 0.73.1 (Node 20) in the notes of the sdk rows. */
  legacyPeer: boolean;
  only: string[];
  iterations?: number;
}

const USAGE =
  "usage: node dist/run.js [--smoke] [--peer] [--legacy-peer] [--only <substring>]... [--iterations N]\n";

export function parseArgs(argv: string[]): Options {
  const o: Options = { smoke: false, peer: false, legacyPeer: false, only: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--smoke") o.smoke = true;
    else if (a === "--peer") o.peer = true;
    else if (a === "--legacy-peer") o.legacyPeer = true;
    else if (a === "--only") o.only.push(argv[++i] ?? "");
    else if (a?.startsWith("--only=")) o.only.push(a.slice(7));
    else if (a === "--iterations") o.iterations = Number(argv[++i]);
    else if (a === "--help" || a === "-h") {
      process.stdout.write(USAGE);
      process.exit(0);
    } else {
      process.stderr.write(`unknown argument: ${a}\n`);
      process.exit(2);
    }
  }
  return o;
}

export interface Sizes {
  label: string;
  bigBytes: number;
  contextEntries: number;
  chainDepth: number;
  appendCount: number;
  store: StoreSpec;
  /** The cold store `serve`'s time to its URL is measured on (issue 37: 1,500 sessions). */
  serveStore: StoreSpec;
  hugeBytes: number;
  /** Malformed lines (`{`) in the file of the malformed-open row. */
  malformedLines: number;
  startupRuns: number;
  iterations: number;
  /** Iterations for the few huge scenarios (1 GB, cold listing). */
  hugeIterations: number;
  /** Runs of each side of the warm listing (a fraction of a second each, and noisy). */
  warmListRuns: number;
  /**
   * Runs of each side of the cold listing, alternated (about 2 s each; a cold read's speed
   * here varies by a third from run to run, so three gave medians that moved by 10%).
   */
  coldListRuns: number;
  /**
   * Processes per side of the append rows and of the parse rows of small files, alternated
   * (each takes its usual samples).
   */
  altRounds: number;
  warmup: number;
  timeoutMs: number;
  /** The sdk rows' sessions: entries, text scale (see `generate.ts`), compaction interval. */
  sdk: {
    entries: number;
    scale: number;
    compactEvery: number;
    appendCount: number;
    store: StoreSpec;
    /** Fresh processes per side of an open row (each one sample), alternated. */
    openRounds: number;
    /** The same for the huge file. */
    hugeRounds: number;
  };
}

export const FULL: Sizes = {
  label: "full",
  bigBytes: 100 * MB,
  contextEntries: 100_000,
  chainDepth: 200_000,
  appendCount: 20_000,
  store: {
    sessions: 2000,
    projects: 40,
    totalBytes: Number(process.env.BENCH_STORE_BYTES ?? 1000 * MB),
    seed: 42,
  },
  serveStore: { sessions: 1500, projects: 30, totalBytes: 380 * MB, seed: 47 },
  hugeBytes: 1000 * MB,
  malformedLines: 1_000_000,
  startupRuns: 20,
  iterations: 5,
  hugeIterations: 3,
  warmListRuns: 15,
  coldListRuns: 5,
  altRounds: 5,
  warmup: 1,
  timeoutMs: 15 * 60_000,
  sdk: {
    entries: 100_000,
    // The shortest texts: entries of about 440 bytes (pi's envelope, usage and tool calls).
    scale: 0.01,
    // pi compacts when the context fills (~200k tokens): here every 800 KB of path.
    compactEvery: 800_000,
    appendCount: 20_000,
    store: { sessions: 400, projects: 8, totalBytes: 200 * MB, seed: 43 },
    openRounds: 7,
    hugeRounds: 5,
  },
};

export const SMOKE: Sizes = {
  label: "smoke",
  bigBytes: 2 * MB,
  contextEntries: 2_000,
  chainDepth: 2_000,
  appendCount: 500,
  store: { sessions: 200, projects: 40, totalBytes: 1 * MB, seed: 42 },
  serveStore: { sessions: 150, projects: 10, totalBytes: 1 * MB, seed: 47 },
  hugeBytes: 4 * MB,
  malformedLines: 10_000,
  startupRuns: 3,
  iterations: 1,
  hugeIterations: 1,
  warmListRuns: 1,
  coldListRuns: 1,
  altRounds: 1,
  warmup: 0,
  timeoutMs: 60_000,
  sdk: {
    entries: 2_000,
    scale: 0.01,
    compactEvery: 50_000,
    appendCount: 500,
    store: { sessions: 40, projects: 8, totalBytes: 1 * MB, seed: 43 },
    openRounds: 1,
    hugeRounds: 1,
  },
};

// ---------------------------------------------------------------------------------------
// Cold page cache

/** How the last cold run was made cold (for the notes). */
export let coldMethod: string | undefined;

/**
 * Drops the page cache (root only; full runs only, a smoke run should not disturb the machine);
 * returns whether it worked. Records the method used.
 */
export function dropCaches(smoke: boolean): boolean {
  if (smoke) {
    coldMethod = "fresh process + empty metadata cache (smoke: page cache not dropped)";
    return false;
  }
  try {
    execSync("sync");
    writeFileSync("/proc/sys/vm/drop_caches", "3\n");
    coldMethod =
      "page cache dropped (echo 3 > /proc/sys/vm/drop_caches) + fresh process + empty metadata cache";
    return true;
  } catch {
    coldMethod = "fresh process + empty metadata cache (page cache could not be dropped: not root)";
    return false;
  }
}

export interface Ctx {
  o: Options;
  z: Sizes;
  peerNa?: string;
}

/** Why the peer (pi 1.6.0 on Node 22) is not run, or undefined when it is. */
export function peerGate(ctx: Ctx): string | undefined {
  if (!ctx.o.peer) return "not run (--peer)";
  if (!node22Installed()) return `${NODE22.pkg}@${NODE22.version} not installed (run pnpm bench:peer)`;
  if (!peerInstalled(PEER)) return `${PEER.pkg}@${PEER.version} not installed (run pnpm bench:peer)`;
  return undefined;
}

/** Why our Node 22 column is not run, or undefined. */
export function node22Gate(ctx: Ctx): string | undefined {
  if (runnerOn22()) return "the runner is Node 22 (pi's floor): its rows are ours on Node 22";
  if (!ctx.o.peer) return "not run (--peer)";
  if (!node22Installed()) return `${NODE22.pkg}@${NODE22.version} not installed (run pnpm bench:peer)`;
  return undefined;
}

/**
 * Whether the runner itself is Node 22 or newer (`pnpm bench` runs on a Node that meets the
 * repository's floor, `scripts/use-node.mjs`): then no second row per Node is made.
 */
export function runnerOn22(): boolean {
  return Number(process.versions.node.split(".")[0]) >= 22;
}

/** Why pi 0.73.1 is not run, or undefined. */
export function legacyGate(ctx: Ctx): string | undefined {
  if (!ctx.o.legacyPeer) return "not run (--legacy-peer)";
  const spec = PEERS.pi073;
  if (!peerInstalled(spec))
    return `${spec.pkg}@${spec.version} not installed (node dist/peer-install.js --legacy)`;
  return undefined;
}

/** The task fields and worker options that run `spec` (on its Node). */
export function peerSide(spec: PeerSpec): { task: Record<string, unknown>; opts: Partial<WorkerOptions> } {
  return { task: { mode: "peer", peer: spec.key }, opts: spec.node === "22" ? { node: node22Path() } : {} };
}

/** Runs a task as the peer: pi 1.6.0 on Node 22. */
export function runPeer(task: Record<string, unknown>, opts: WorkerOptions): Promise<ChildOutcome> {
  const side = peerSide(PEER);
  return runWorker({ ...task, ...side.task }, { ...opts, ...side.opts });
}

/** The major version of the runner's Node ("20"). */
export const RUNNER_NODE = process.versions.node.split(".")[0] as string;

export function log(msg: string): void {
  process.stderr.write(`${msg}\n`);
}

export function generated(what: string, make: () => string): string {
  const t0 = nowMs();
  const p = make();
  const ms = nowMs() - t0;
  if (ms > 500) log(`  generated ${what} in ${fmt(ms / 1000, 1)} s`);
  return p;
}

/**
 * The huge session (1 GB in a full run), generated on first use; or why not: generating it
 * needs its size plus 2 GB left free on the data disk (the machine is shared).
 */
export function hugeFile(z: Sizes): { file: string } | { skip: string } {
  const spec: SessionSpec = { seed: 4, targetBytes: z.hugeBytes };
  if (!existsSync(sessionPath(spec))) {
    mkdirSync(DATA_DIR, { recursive: true });
    const fs = statfsSync(DATA_DIR);
    const free = fs.bavail * fs.bsize;
    const need = z.hugeBytes + 2e9;
    if (free < need)
      return {
        skip: `skipped: ${fmt(free / 1e9, 1)} GB free in ${DATA_DIR}, generating the ${fmt(z.hugeBytes / MB)} MB session needs ${fmt(need / 1e9, 1)} GB`,
      };
  }
  return { file: generated(`${fmt(z.hugeBytes / MB)} MB session`, () => ensureSession(spec)) };
}
