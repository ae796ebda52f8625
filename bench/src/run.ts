/**
 * The benchmark runner:
 * `node dist/run.js [--smoke] [--peer] [--legacy-peer] [--only <substring>] [--iterations N]`.
 *
 * Generates (or reuses) the data, runs every scenario in fresh child processes (see
 * `worker.ts`), and prints one table: our number, the ceiling (the best any implementation
 * could do on this machine, measured in the same run), the peer (pi 1.6.0 on Node 22, only
 * with `--peer`), the ratios and the verdict against the target. The `sdk/*` rows measure our
 * `SessionManager` on the runner's Node and, with `--peer`, on Node 22, each against pi 1.6.0's
 * `SessionManager` doing the same calls. `--legacy-peer` adds pi 0.73.1 (Node 20) to their notes.
 * Also writes the raw samples as JSON to `bench/results/<timestamp>.json`.
 *
 * A scenario whose layer is not built says "n/a" with the reason; no number is invented.
 * `--smoke` uses the smallest sizes and one iteration, and always exits 0 (CI runs it so the
 * benchmark cannot rot); verdicts are only printed for full runs.
 */
import { existsSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { cpus, platform, release, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { upstreamFixturePath } from "@pi-session/testkit/upstream";
import { ensureChain, ensureMalformed, ensureSession, ensureStore } from "./generate.js";
import { NODE22, node22Path, PEER, peerCli } from "./layers.js";
import {
  type ChildOutcome,
  nowMs,
  runWorker,
  type SpawnSpec,
  spawnTimes,
  summarize,
  UNMEASURED_ENV,
} from "./measure.js";
import {
  type Cell,
  fmt,
  isNum,
  MB,
  merge,
  msCell,
  naRow,
  printTable,
  type Row,
  rateCell,
  rssCell,
} from "./rows.js";
import {
  alternate,
  node22Label,
  type Side,
  sdkScenarios,
  sdkSides,
  sideOutcome,
  throughputRows,
} from "./sdk.js";
import { listScenarios } from "./list-scenarios.js";
import { searchScenarios } from "./search.js";
import { teamScenarios } from "./team.js";
import {
  type Ctx,
  coldMethod,
  FULL,
  generated,
  hugeFile,
  log,
  parseArgs,
  peerGate,
  runPeer,
  SMOKE,
  type Sizes,
} from "./setup.js";

const HERE = dirname(fileURLToPath(import.meta.url));
const BENCH_DIR = join(HERE, "..");
const REPO_ROOT = join(BENCH_DIR, "..");
const CLI = join(REPO_ROOT, "apps", "cli", "dist", "pi-session.cjs");

async function parseScenario(ctx: Ctx, id: string, file: string): Promise<Row> {
  const { z } = ctx;
  const bytes = statSync(file).size;
  // A few-MB file parses in milliseconds: five runs measure the JIT warming up, not the
  // parser. Small files get more warm-up and iterations (both sides alike) outside smoke.
  const small = bytes < 16 * MB && z.warmup > 0;
  const task = {
    kind: "parse",
    file,
    iterations: small ? Math.max(z.iterations, 30) : z.iterations,
    warmup: small ? Math.max(z.warmup, 10) : z.warmup,
  };
  // Small files: a few alternated rounds of one process per side, so that a slow spell of the
  // machine falls on both sides (with one process per side, one row's ratio ranged 0.42x-0.84x across runs).
  const rounds = small ? z.altRounds : 1;
  const pg = peerGate(ctx);
  const modes = pg ? ["ours", "ceiling"] : ["ours", "ceiling", "peer"];
  const outs = new Map<string, ChildOutcome[]>(modes.map((m) => [m, []]));
  for (let r = 0; r < rounds; r++) {
    for (const mode of modes) {
      const run = mode === "peer" ? runPeer : runWorker;
      outs.get(mode)?.push(await run({ ...task, mode }, { timeoutMs: z.timeoutMs }));
    }
  }
  const ours = merge(outs.get("ours") ?? []);
  const ceil = merge(outs.get("ceiling") ?? []);
  const peer = pg ? undefined : merge(outs.get("peer") ?? []);
  const row: Row = {
    id,
    unit: "MB/s",
    ours: rateCell(ours, bytes, "MB/s", MB),
    ceiling: rateCell(ceil, bytes, "MB/s", MB),
    peer: peer ? rateCell(peer, bytes, "MB/s", MB) : { na: pg as string },
    target: "≥ 0.8× ceiling",
    verdict: "n/a",
    notes: [`${fmt(bytes / MB, 1)} MB`],
  };
  // Throughput ratios: ours / other (higher is better).
  if (isNum(row.ours) && isNum(row.ceiling)) row.ratioCeiling = row.ceiling.s.median / row.ours.s.median;
  if (isNum(row.ours) && isNum(row.peer)) row.ratioPeer = row.peer.s.median / row.ours.s.median;
  if (row.ratioCeiling !== undefined) row.verdict = row.ratioCeiling >= 0.8 ? "met" : "missed";
  const ex = ours.result.extra ?? {};
  if (ours.result.ok)
    row.notes.push(
      `${ex.records} records, ${ex.diagnostics} diagnostics${ex.validated ? ", validated" : ""}`,
    );
  if (typeof ex.note === "string") row.notes.push(ex.note);
  if (peer?.result.ok) row.notes.push("peer = parseSessionEntries(string) on node 22, decode excluded");
  return row;
}

async function rebuildScenario(ctx: Ctx, id: string, file: string): Promise<Row> {
  const { z } = ctx;
  const o = await runWorker(
    { kind: "context", mode: "ours", file, iterations: z.iterations, warmup: z.warmup },
    { timeoutMs: z.timeoutMs },
  );
  const parseSamples = (o.result.extra?.parseSamples as number[] | undefined) ?? [];
  const row: Row = {
    id,
    unit: "ms",
    ours: msCell(o),
    ceiling: o.result.ok ? msCell(o, parseSamples) : { na: "parse of the same file (needs the codec)" },
    peer: { na: "–" },
    target: "< 0.25× parse",
    verdict: "n/a",
    notes: ["ours = index + context from parsed records; ceiling column = parsing the same file"],
  };
  if (isNum(row.ours) && isNum(row.ceiling)) {
    row.ratioCeiling = row.ours.s.median / row.ceiling.s.median;
    row.verdict = row.ratioCeiling < 0.25 ? "met" : "missed";
  }
  if (o.result.ok) row.notes.push(`${o.result.extra?.messages} context messages`);
  return row;
}

async function openScenario(ctx: Ctx, id: string, file: string): Promise<Row> {
  const { z } = ctx;
  const task = { kind: "open", file, iterations: z.iterations, warmup: z.warmup };
  const ours = await runWorker({ ...task, mode: "ours" }, { timeoutMs: z.timeoutMs });
  const pg = peerGate(ctx);
  const peer = pg
    ? undefined
    : await runPeer(
        { ...task, mode: "peer", iterations: Math.min(z.iterations, 3), warmup: 0 },
        { timeoutMs: z.timeoutMs },
      );
  const row: Row = {
    id,
    unit: "ms",
    ours: msCell(ours),
    ceiling: { na: "–" },
    peer: peer ? msCell(peer) : { na: pg as string },
    target: "≤ 0.5× peer",
    verdict: "n/a",
    notes: [
      "the layers: read + migrate + index + buildSessionContext vs pi's SessionManager.open().buildSessionContext() on node 22 (the sdk/ rows compare SessionManager with SessionManager)",
    ],
  };
  if (isNum(row.ours) && isNum(row.peer)) {
    row.ratioPeer = row.ours.s.median / row.peer.s.median;
    row.verdict = row.ratioPeer <= 0.5 ? "met" : "missed";
  }
  if (ours.result.ok)
    row.notes.push(`${ours.result.extra?.messages} messages via ${ours.result.extra?.reader}`);
  if (peer?.result.ok && peer.result.extra?.messages !== ours.result.extra?.messages)
    row.notes.push(`peer built ${peer.result.extra?.messages} messages`);
  return row;
}

/**
 * node-store's appender (the layer) against `appendFileSync` per line and pi 1.6.0's
 * SessionManager (on Node 22), one `append*` call per entry of the same generated entries; the
 * same measurement of pi serves the sdk rows of this workload (our SessionManager on the
 * runner's Node and on Node 22, see `sdk.ts`).
 */
async function appendScenario(ctx: Ctx, file: string): Promise<Row[]> {
  const { z } = ctx;
  const n = z.appendCount;
  const task = { kind: "append", file, count: n, iterations: z.iterations, warmup: z.warmup };
  const sides: Side[] = [
    { name: "ours", task: { ...task, mode: "ours" } },
    { name: "ceiling", task: { ...task, mode: "ceiling" } },
    ...sdkSides(ctx, { ...task, mode: "sdk" }, { ...task, mode: "peer" }),
  ];
  // Rounds of one process per side, alternated, so that a slow spell of the machine falls on
  // every side (appends are short and sensitive to it).
  const outs = await alternate(ctx, sides, z.altRounds);
  const ceil = merge(outs.get("ceiling") ?? []);
  const peer = sideOutcome(outs, "peer");
  const r: Row = {
    id: `append/${fmt(n)} entries`,
    unit: "entries/s",
    ours: rateCell(merge(outs.get("ours") ?? []), n, "entries/s"),
    ceiling: rateCell(ceil, n, "entries/s"),
    peer: peer ? rateCell(peer, n, "entries/s") : { na: peerGate(ctx) as string },
    target: "≥ 1.0× ceiling and peer",
    verdict: "n/a",
    notes: [
      "ceiling = appendFileSync per line (pi's way, no lock); ours = node-store appender, lock + foreign-append detection on; peer = pi 1.6.0's SessionManager append* calls on node 22",
    ],
  };
  if (isNum(r.ours) && isNum(r.ceiling)) r.ratioCeiling = r.ceiling.s.median / r.ours.s.median;
  if (isNum(r.ours) && isNum(r.peer)) r.ratioPeer = r.peer.s.median / r.ours.s.median;
  if (r.ratioCeiling !== undefined)
    r.verdict = r.ratioCeiling >= 1.0 && (r.ratioPeer === undefined || r.ratioPeer >= 1.0) ? "met" : "missed";
  const sdk = throughputRows(ctx, outs, {
    id: `sdk/append ${fmt(n)} append* (mixed, ≈ ${fmt(statSync(file).size / MB)} MB)`,
    amount: n,
    unit: "entries/s",
    minRatio: 1.1,
    note: "SessionManager.create, then one append* call per generated entry (messages, model and thinking changes, custom entries, usage); lock + foreign-append detection on, default durability; ceiling = appendFileSync per line",
  });
  return [r, ...sdk];
}

async function statsScenario(ctx: Ctx, file: string): Promise<Row> {
  const { z } = ctx;
  const size = statSync(file).size;
  const runs = async (mode: string) => {
    const outs: ChildOutcome[] = [];
    for (let i = 0; i < z.hugeIterations; i++)
      outs.push(await runWorker({ kind: "stats", mode, file }, { timeoutMs: z.timeoutMs, measureRss: true }));
    return outs;
  };
  const ours = rssCell(await runs("ours"));
  const ceiling = rssCell(await runs("ceiling"));
  let peer: Cell;
  const pg = peerGate(ctx);
  if (pg) peer = { na: pg };
  else {
    const o = await runPeer(
      { kind: "stats", mode: "peer", file },
      { timeoutMs: z.timeoutMs, measureRss: true },
    );
    peer = rssCell([o]);
  }
  const row: Row = {
    id: `stats/streaming ${fmt(size / MB)} MB`,
    unit: "MB RSS",
    ours,
    ceiling,
    peer,
    target: "peak RSS < 150 MB",
    verdict: "n/a",
    notes: [
      "peak RSS of the whole child (node itself ≈ 40–50 MB), by /usr/bin/time -v, else process.resourceUsage().maxRSS; ceiling = plain 1 MiB sequential read; peer = pi's SessionManager.open(f).getEntries() on node 22",
    ],
  };
  if (isNum(ours) && isNum(ceiling)) row.ratioCeiling = ours.s.median / ceiling.s.median;
  if (isNum(ours)) row.verdict = ours.s.median < 150 ? "met" : "missed";
  if (isNum(ours)) row.notes.push(`${ours.extra?.records} records`);
  return row;
}

/**
 * Opening a file of malformed lines (issue 16): time and peak RSS of a whole process per run,
 * ours, a plain read and pi alternated (`hugeIterations` processes each).
 */
async function malformedScenario(ctx: Ctx, id: string, file: string): Promise<Row> {
  const { z } = ctx;
  const pg = peerGate(ctx);
  const sides = ["ours", "ceiling", ...(pg ? [] : ["peer"])];
  const outs = new Map<string, ChildOutcome[]>(sides.map((m) => [m, []]));
  for (let r = 0; r < z.hugeIterations; r++) {
    for (const mode of sides) {
      const task = { kind: "malformed", mode, file };
      const opts = { timeoutMs: z.timeoutMs, measureRss: true };
      outs.get(mode)?.push(await (mode === "peer" ? runPeer(task, opts) : runWorker(task, opts)));
    }
  }
  const cell = (list: ChildOutcome[]): Cell => {
    const rss = rssCell(list);
    const ms = merge(list);
    if (!isNum(rss) || !ms.result.ok) return rss;
    const time = msCell(ms);
    return isNum(time)
      ? {
          ...time,
          display: `${time.display}, ${fmt(rss.s.median)} MB`,
          extra: { ...time.extra, rss: rss.s.median },
        }
      : time;
  };
  const ours = cell(outs.get("ours") ?? []);
  const ceiling = cell(outs.get("ceiling") ?? []);
  const peer = pg ? ({ na: pg } as Cell) : cell(outs.get("peer") ?? []);
  const row: Row = {
    id,
    unit: "ms",
    ours,
    ceiling,
    peer,
    target: "≤ 1.0× peer, time and RSS",
    verdict: "n/a",
    notes: [
      `${fmt(statSync(file).size / MB, 2)} MB of \`{\` lines between two messages; SessionManager.open(f).getEntries() in a fresh process, peak RSS of the whole child; ceiling = plain read`,
    ],
  };
  if (isNum(ours) && isNum(ceiling)) row.ratioCeiling = ours.s.median / ceiling.s.median;
  if (isNum(ours) && isNum(peer)) {
    row.ratioPeer = ours.s.median / peer.s.median;
    const rss = (c: Cell) => (isNum(c) ? (c.extra?.rss as number) : Number.NaN);
    row.verdict = row.ratioPeer <= 1.0 && rss(ours) <= rss(peer) ? "met" : "missed";
  }
  if (isNum(ours)) row.notes.push(`${ours.extra?.entries} entries`);
  return row;
}

async function startupScenario(ctx: Ctx): Promise<Row> {
  const { z } = ctx;
  const warm = z.warmup > 0 ? 2 : 0;
  const cell = (r: { samples: number[]; error?: string }): Cell => {
    if (r.error) return { na: r.error };
    const s = summarize(r.samples);
    const spread = r.samples.length > 1 ? ` [${fmt(s.min)}–${fmt(s.max)}]` : "";
    return { s, samples: r.samples, display: `${fmt(s.median)} ms${spread}` };
  };
  // Alternated spawns (ours, node, pi, ours, ...): a slow spell falls on every side alike.
  const pg = peerGate(ctx);
  const built = existsSync(CLI);
  const specs: SpawnSpec[] = [{ cmd: process.execPath, args: ["-e", "0"], n: z.startupRuns }];
  if (built) specs.push({ cmd: process.execPath, args: [CLI, "--version"], n: z.startupRuns });
  if (!pg)
    specs.push({ cmd: node22Path(), args: [peerCli(PEER), "--version"], n: Math.min(z.startupRuns, 10) });
  // What the variables the measured processes go without would cost every Node start.
  const unmeasured = UNMEASURED_ENV.filter((name) => process.env[name] !== undefined);
  if (unmeasured.length > 0)
    specs.push({ cmd: process.execPath, args: ["-e", "0"], n: z.startupRuns, fullEnv: true });
  const [ceilingRuns, ...rest] = await spawnTimes(specs, warm);
  const withUnmeasured = unmeasured.length > 0 ? rest.pop() : undefined;
  const ceiling = cell(ceilingRuns as { samples: number[]; error?: string });
  const ours: Cell = built
    ? cell(rest.shift() as { samples: number[]; error?: string })
    : { na: "CLI not built (apps/cli/dist/pi-session.cjs)" };
  const peer: Cell = pg ? { na: pg } : cell(rest.shift() as { samples: number[]; error?: string });
  const row: Row = {
    id: "startup/pi-session --version",
    unit: "ms",
    ours,
    ceiling,
    peer,
    target: "< 150 ms median",
    verdict: "n/a",
    notes: [
      `${z.startupRuns} spawns; ceiling = node -e 0; peer = pi --version (pi 1.6.0's bundled CLI on node 22)`,
    ],
  };
  if (withUnmeasured) {
    const c = cell(withUnmeasured);
    row.notes.push(
      `every measured process runs without ${unmeasured.join(", ")} (set on this machine): node -e 0 with it takes ${"display" in c ? c.display : c.na}`,
    );
  }
  if (isNum(ours) && isNum(ceiling)) row.ratioCeiling = ours.s.median / ceiling.s.median;
  if (isNum(ours) && isNum(peer)) row.ratioPeer = ours.s.median / peer.s.median;
  if (isNum(ours)) row.verdict = ours.s.median < 150 ? "met" : "missed";
  return row;
}

function machine(): Record<string, unknown> {
  const c = cpus();
  return {
    cpu: c[0]?.model ?? "unknown",
    cores: c.length,
    memoryGB: Math.round(totalmem() / 1e9),
    node: process.version,
    os: `${platform()} ${release()}`,
  };
}

// ---------------------------------------------------------------------------------------
// Main

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  const z: Sizes = { ...(o.smoke ? SMOKE : FULL) };
  if (o.iterations && o.iterations > 0) z.iterations = o.iterations;
  const ctx: Ctx = { o, z };
  const want = (id: string) => o.only.length === 0 || o.only.some((s) => id.includes(s));
  const m = machine();
  const peerLine = `peer ${PEER.pkg}@${PEER.version} on node ${NODE22.version} (${node22Label})`;
  log(
    `pi-session bench (${z.label}) on ${m.cpu} ×${m.cores}, node ${m.node}${o.peer ? `, ${peerLine}` : ""}`,
  );
  const t0 = nowMs();
  const rows: Row[] = [];
  const step = async (id: string, f: () => Promise<Row | Row[]>) => {
    if (!want(id)) return;
    log(`- ${id}`);
    const r = await f();
    rows.push(...(Array.isArray(r) ? r : [r]));
  };

  for (const name of ["before-compaction", "large-session"] as const) {
    const file = upstreamFixturePath(name);
    await step(`parse/fixture ${name}`, async () =>
      existsSync(file)
        ? parseScenario(ctx, `parse/fixture ${name}`, file)
        : naRow(`parse/fixture ${name}`, `fixture missing: ${file}`, "≥ 0.8× ceiling"),
    );
  }
  const bigId = `parse/generated ${fmt(z.bigBytes / MB)} MB`;
  await step(bigId, () =>
    parseScenario(
      ctx,
      bigId,
      generated(bigId, () => ensureSession({ seed: 1, targetBytes: z.bigBytes })),
    ),
  );

  const ctxFile = () =>
    generated(`${z.contextEntries} entries`, () => ensureSession({ seed: 2, entries: z.contextEntries }));
  const chainFile = () => generated(`chain ${z.chainDepth}`, () => ensureChain(z.chainDepth));
  const nE = fmt(z.contextEntries);
  const nC = fmt(z.chainDepth);
  await step(`context/rebuild ${nE} entries`, () =>
    rebuildScenario(ctx, `context/rebuild ${nE} entries`, ctxFile()),
  );
  await step(`context/rebuild chain ${nC} deep`, () =>
    rebuildScenario(ctx, `context/rebuild chain ${nC} deep`, chainFile()),
  );
  await step(`context/open+context ${nE} entries`, () =>
    openScenario(ctx, `context/open+context ${nE} entries`, ctxFile()),
  );
  await step(`context/open+context chain ${nC} deep`, () =>
    openScenario(ctx, `context/open+context chain ${nC} deep`, chainFile()),
  );

  await step("append", () =>
    appendScenario(
      ctx,
      generated("append source", () => ensureSession({ seed: 3, entries: z.appendCount, linear: true })),
    ),
  );

  if (want("list/cold") || want("list/warm")) {
    log("- list");
    const root = generated("session store", () => ensureStore(z.store));
    rows.push(...(await listScenarios(ctx, root, want)));
  }

  const statsId = `stats/streaming ${fmt(z.hugeBytes / MB)} MB`;
  await step(statsId, () => {
    const huge = hugeFile(z);
    return "skip" in huge
      ? Promise.resolve(naRow(statsId, huge.skip, "peak RSS < 150 MB"))
      : statsScenario(ctx, huge.file);
  });

  const malformedId = `open/malformed ${fmt(z.malformedLines)} lines`;
  await step(malformedId, () =>
    malformedScenario(
      ctx,
      malformedId,
      generated(malformedId, () => ensureMalformed(z.malformedLines)),
    ),
  );

  rows.push(...(await sdkScenarios(ctx, want)));

  rows.push(...(await searchScenarios(ctx, want)));

  rows.push(...(await teamScenarios(ctx, want)));

  await step("startup", () => startupScenario(ctx));

  process.stdout.write("\n");
  printTable(rows, o.smoke);
  const notes = rows.filter((r) => r.notes.length > 0).map((r) => `  ${r.id}: ${r.notes.join("; ")}`);
  process.stdout.write(`\nnotes:\n${notes.join("\n")}\n`);
  if (coldMethod) process.stdout.write(`  cold = ${coldMethod}\n`);
  if (o.peer)
    process.stdout.write(`  ${peerLine}; sdk/* rows: ours on node ${m.node} and on node ${NODE22.version}\n`);
  const count = (v: Row["verdict"]) => rows.filter((r) => r.verdict === v).length;
  const elapsed = (nowMs() - t0) / 1000;
  if (o.smoke)
    process.stdout.write(`\nsmoke run (${fmt(elapsed, 1)} s): sizes are tiny, verdicts not judged.\n`);
  else
    process.stdout.write(
      `\n${count("met")} met, ${count("missed")} missed, ${count("n/a")} n/a (${fmt(elapsed, 1)} s)\n`,
    );

  const resultsDir = join(BENCH_DIR, "results");
  mkdirSync(resultsDir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const out = join(resultsDir, `${stamp}${o.smoke ? "-smoke" : ""}.json`);
  writeFileSync(
    out,
    `${JSON.stringify({ machine: m, options: o, sizes: z, coldMethod, elapsedSeconds: elapsed, rows }, null, 2)}\n`,
  );
  process.stdout.write(`results: ${out}\n`);
}

await main();
