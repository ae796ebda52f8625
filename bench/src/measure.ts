/**
 * Measurement helpers: summary statistics of samples, a high-resolution timer, and running
 * one benchmark task in a fresh Node child process (which reports its result as one JSON
 * line on stdout). Used by the runner (`run.ts`) and the worker (`worker.ts`).
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export interface Summary {
  /** Number of samples. */
  n: number;
  median: number;
  min: number;
  max: number;
  /** Interquartile range (q3 - q1), linear interpolation. */
  iqr: number;
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  const a = sorted[lo] as number;
  const b = sorted[hi] as number;
  return a + (b - a) * (pos - lo);
}

export function summarize(samples: number[]): Summary {
  const s = [...samples].sort((a, b) => a - b);
  return {
    n: s.length,
    median: quantile(s, 0.5),
    min: s[0] ?? Number.NaN,
    max: s[s.length - 1] ?? Number.NaN,
    iqr: quantile(s, 0.75) - quantile(s, 0.25),
  };
}

/** Milliseconds since an arbitrary origin, sub-millisecond resolution. */
export function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/**
 * Runs `fn` `warmup` times unmeasured, then `iterations` times; returns the times in ms.
 * `after` runs after every call, untimed (cleanup that must not land in the next sample).
 */
export async function timeIt(
  fn: () => unknown,
  iterations: number,
  warmup: number,
  after?: () => unknown,
): Promise<number[]> {
  for (let i = 0; i < warmup; i++) {
    await fn();
    await after?.();
  }
  const out: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const t0 = nowMs();
    await fn();
    out.push(nowMs() - t0);
    await after?.();
  }
  return out;
}

/** What a worker prints: samples in ms (or other units named by the task) and extras. */
export interface WorkerResult {
  ok: boolean;
  samples?: number[];
  /** Free-form numbers and notes (bytes processed, entry counts, ...). */
  extra?: Record<string, unknown>;
  error?: string;
}

export interface ChildOutcome {
  result: WorkerResult;
  /** Wall time of the whole child, ms. */
  wallMs: number;
  /** Peak RSS of the child in bytes, when `/usr/bin/time` is available. */
  peakRss?: number;
  timedOut: boolean;
}

const HERE = dirname(fileURLToPath(import.meta.url));

/**
 * Variables of the runner's environment that the measured processes do not get.
 * `NODE_EXTRA_CA_CERTS` (set on machines behind a TLS-inspecting proxy, as this workplace's):
 * Node 20 reads and parses the named bundle at every start, before any script runs (Node 22
 * defers it to the first TLS use), which adds tens of ms to every Node 20 process and nothing
 * to grep's. It is the machine's cost, not the tool's; the startup row measures it.
 */
export const UNMEASURED_ENV = ["NODE_EXTRA_CA_CERTS"] as const;

/** The runner's environment without {@link UNMEASURED_ENV}, plus `extra`: what measured children get. */
export function measuredEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of UNMEASURED_ENV) delete env[name];
  return { ...env, ...extra };
}
export const WORKER = join(HERE, "worker.js");
const GNU_TIME = "/usr/bin/time";

export interface WorkerOptions {
  timeoutMs: number;
  measureRss?: boolean;
  env?: Record<string, string>;
  nodeArgs?: string[];
  /** The Node binary to run the worker with (default: the runner's own). */
  node?: string;
}

/**
 * Runs `node dist/worker.js <task-json>` in a fresh process. With `measureRss`, wraps it in
 * `/usr/bin/time -v` (if present) to read the kernel's peak RSS of the child.
 */
export function runWorker(task: Record<string, unknown>, opts: WorkerOptions): Promise<ChildOutcome> {
  const nodeArgs = [...(opts.nodeArgs ?? []), WORKER, JSON.stringify(task)];
  const node = opts.node ?? process.execPath;
  const useTime = opts.measureRss === true && existsSync(GNU_TIME);
  const cmd = useTime ? GNU_TIME : node;
  const args = useTime ? ["-v", node, ...nodeArgs] : nodeArgs;
  return new Promise((resolve) => {
    const t0 = nowMs();
    const child = spawn(cmd, args, {
      env: measuredEnv(opts.env),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      err += d.toString();
      if (err.length > 1 << 20) err = err.slice(-(1 << 19));
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, opts.timeoutMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      const wallMs = nowMs() - t0;
      let peakRss: number | undefined;
      const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(err);
      if (m) peakRss = Number(m[1]) * 1024;
      const line = out.trim().split("\n").pop() ?? "";
      let result: WorkerResult;
      try {
        result = JSON.parse(line) as WorkerResult;
      } catch {
        const tail = err
          .split("\n")
          .filter(
            (l) =>
              l.trim() &&
              !/^\s+(Command being timed|User time|System time|Percent|Elapsed|Average|Maximum|Major|Minor|Voluntary|Involuntary|Swaps|File system|Socket|Signals|Page size|Exit status)/.test(
                l,
              ),
          )
          .slice(-3)
          .join(" | ");
        result = {
          ok: false,
          error: timedOut
            ? `timed out after ${Math.round(opts.timeoutMs / 1000)} s`
            : `exit ${code}: ${tail.slice(0, 300)}`,
        };
      }
      resolve({ result, wallMs, peakRss, timedOut });
    });
  });
}

/** A command for {@link spawnTimes}: run `n` times (fresh process each). */
export interface SpawnSpec {
  cmd: string;
  args: string[];
  n: number;
  /** Added to the runner's environment. */
  env?: Record<string, string>;
  /** The runner's environment whole, {@link UNMEASURED_ENV} included (default: without it). */
  fullEnv?: boolean;
}

/** Runs a command once (stdout ignored); its wall time in ms, exit code and stderr. */
export function spawnWall(
  spec: Omit<SpawnSpec, "n">,
): Promise<{ ms: number; code: number | null; err: string }> {
  return new Promise((resolve) => {
    const t0 = nowMs();
    const child = spawn(spec.cmd, spec.args, {
      stdio: ["ignore", "ignore", "pipe"],
      env: spec.fullEnv === true ? { ...process.env, ...spec.env } : measuredEnv(spec.env),
    });
    let err = "";
    child.stderr.on("data", (d: Buffer) => {
      err += d.toString();
    });
    child.on("close", (code) => resolve({ ms: nowMs() - t0, code, err }));
    child.on("error", (e) => resolve({ ms: Number.NaN, code: -1, err: String(e) }));
  });
}

/**
 * Runs shell-free commands, each `n` times after `warmup` runs, alternated (a, b, a, b, ...) so
 * that a slow spell of the machine falls on every command alike; returns each command's wall
 * times in ms (or the error that stopped it).
 */
export async function spawnTimes(
  specs: readonly SpawnSpec[],
  warmup: number,
): Promise<{ samples: number[]; error?: string }[]> {
  const out = specs.map(() => ({ samples: [] as number[], error: undefined as string | undefined }));
  const rounds = Math.max(0, ...specs.map((s) => s.n));
  for (let i = -warmup; i < rounds; i++) {
    for (const [k, spec] of specs.entries()) {
      const o = out[k] as (typeof out)[number];
      if (o.error !== undefined || i >= spec.n) continue;
      const r = await spawnWall(spec);
      if (i < 0) continue;
      if (r.code !== 0) o.error = `exit ${r.code}: ${r.err.trim().slice(0, 200)}`;
      else o.samples.push(r.ms);
    }
  }
  return out.map((o) => (o.error === undefined ? { samples: o.samples } : o));
}
