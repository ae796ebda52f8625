/**
 * The `sdk/*` rows: our drop-in `SessionManager` (`@pi-session/sdk`) against pi 1.6.0's, doing
 * the same calls on the same files, in fresh processes. Each scenario runs our side on the
 * runner's Node and (with `--peer`) on Node 22, pi 1.6.0 on Node 22, a ceiling on the runner's
 * Node and (with `--legacy-peer`) pi 0.73.1 on Node 20, alternated round by round so that a
 * slow spell of the machine falls on every side. It gives two rows, one per Node of ours; the
 * ratio to pi on Node 22 is the same-Node comparison, the other what a user on Node 20 gets
 * against the pi they can run (pi 1.6.0 needs Node >= 22.19).
 *
 * Scenarios: open + `buildSessionContext` (a session of 100,000 short entries, uncompacted and
 * compacted, and the huge compacted one, with peak RSS), open + `getEntries`, 20,000
 * `appendMessage` calls on a new session (and the mixed `append*` workload of `append/*`), and
 * `listAll` / `list(cwd)` over a store of 400 sessions, cold and warm.
 */
import { rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { cwdDirName, DATA_DIR, ensureSession, ensureStore } from "./generate.js";
import { NODE22, node22Path, PEERS } from "./layers.js";
import { type ChildOutcome, runWorker, summarize, type WorkerOptions } from "./measure.js";
import { type Cell, fmt, isNum, MB, merge, msCell, naRow, rateCell, type Row, rssCell } from "./rows.js";
import {
  type Ctx,
  dropCaches,
  generated,
  hugeFile,
  legacyGate,
  log,
  node22Gate,
  peerGate,
  peerSide,
  RUNNER_NODE,
} from "./setup.js";

// ---------------------------------------------------------------------------------------
// Sides and rounds

/** One side of a comparison: a worker task, how to run it, or why it is not run. */
export interface Side {
  name: string;
  task: Record<string, unknown>;
  opts?: Partial<WorkerOptions>;
  /** Why this side is not run (its cells say so). */
  na?: string;
}

/**
 * Our SessionManager on the runner's Node (`sdk`) and on Node 22 (`sdk22`), pi 1.6.0 on Node 22
 * (`peer`) and pi 0.73.1 (`legacy`), from one task each for ours and pi.
 */
export function sdkSides(ctx: Ctx, ours: Record<string, unknown>, pi: Record<string, unknown>): Side[] {
  const peer = peerSide(PEERS.pi16);
  const legacy = peerSide(PEERS.pi073);
  return [
    { name: "sdk", task: ours },
    { name: "sdk22", task: ours, opts: { node: node22Path() }, na: node22Gate(ctx) },
    { name: "peer", task: { ...pi, ...peer.task }, opts: peer.opts, na: peerGate(ctx) },
    { name: "legacy", task: { ...pi, ...legacy.task }, opts: legacy.opts, na: legacyGate(ctx) },
  ];
}

/**
 * Runs `rounds` rounds of one fresh process per side (sides in order within a round); `before`
 * runs ahead of each process (e.g. to make the caches cold). A side that fails is not run
 * again (its failure is kept). Returns each side's outcomes.
 */
export async function alternate(
  ctx: Ctx,
  sides: Side[],
  rounds: number,
  before?: (side: Side) => void,
): Promise<Map<string, ChildOutcome[]>> {
  const outs = new Map<string, ChildOutcome[]>();
  for (const side of sides) if (!side.na) outs.set(side.name, []);
  for (let r = 0; r < rounds; r++) {
    for (const side of sides) {
      const list = outs.get(side.name);
      if (!list || list.some((o) => !o.result.ok)) continue;
      before?.(side);
      list.push(await runWorker(side.task, { timeoutMs: ctx.z.timeoutMs, ...side.opts }));
    }
  }
  return outs;
}

/** A side's outcomes merged into one, or undefined when it was not run. */
export function sideOutcome(outs: Map<string, ChildOutcome[]>, name: string): ChildOutcome | undefined {
  const list = outs.get(name);
  return list && list.length > 0 ? merge(list) : undefined;
}

function sideNa(sides: Side[] | undefined, name: string, fallback: string): string {
  return sides?.find((s) => s.name === name)?.na ?? fallback;
}

/**
 * Our Node columns: the runner's (`sdk`) and, when it runs (`--peer`), Node 22 (`sdk22`). The
 * first row of a scenario carries its notes; the second only what differs.
 */
function ourNodes(ctx: Ctx): { side: string; label: string; first: boolean }[] {
  const nodes = [{ side: "sdk", label: `node ${RUNNER_NODE}`, first: true }];
  if (!node22Gate(ctx)) nodes.push({ side: "sdk22", label: "node 22", first: false });
  return nodes;
}

/** "pi 0.73.1 (node 20): 1,234 ms [...]" for the notes, when the legacy peer ran. */
function legacyNote(outs: Map<string, ChildOutcome[]>, cell: (o: ChildOutcome) => Cell): string[] {
  const o = sideOutcome(outs, "legacy");
  if (!o) return [];
  const c = cell(o);
  return [`${PEERS.pi073.label} (node ${RUNNER_NODE}): ${isNum(c) ? c.display : c.na}`];
}

// ---------------------------------------------------------------------------------------
// Row builders

interface TimeRowSpec {
  id: string;
  /** Lower is better: ours/peer must be at most this (undefined: no peer target). */
  maxPeerRatio?: number;
  /** ours/ceiling must be at most this (undefined: no ceiling target). */
  maxCeilRatio?: number;
  target: string;
  notes: string[];
}

/** Two rows (ours on each Node) of a time measurement: sides `sdk`/`sdk22`, `ceiling`, `peer`. */
function timeRows(ctx: Ctx, outs: Map<string, ChildOutcome[]>, spec: TimeRowSpec, sides?: Side[]): Row[] {
  const peer = sideOutcome(outs, "peer");
  const ceil = sideOutcome(outs, "ceiling");
  const rows: Row[] = [];
  for (const node of ourNodes(ctx)) {
    const mine = sideOutcome(outs, node.side);
    const r: Row = {
      id: `${spec.id} · ${node.label}`,
      unit: "ms",
      ours: mine ? msCell(mine) : { na: sideNa(sides, node.side, "not run") },
      ceiling: ceil ? msCell(ceil) : { na: "–" },
      peer: peer ? msCell(peer) : { na: sideNa(sides, "peer", peerGate(ctx) ?? "not run") },
      target: spec.target,
      verdict: "n/a",
      notes: node.first ? [...spec.notes] : [],
    };
    if (isNum(r.ours) && isNum(r.ceiling)) r.ratioCeiling = r.ours.s.median / r.ceiling.s.median;
    if (isNum(r.ours) && isNum(r.peer)) r.ratioPeer = r.ours.s.median / r.peer.s.median;
    const checks: boolean[] = [];
    if (spec.maxPeerRatio !== undefined && r.ratioPeer !== undefined)
      checks.push(r.ratioPeer <= spec.maxPeerRatio);
    if (spec.maxCeilRatio !== undefined && r.ratioCeiling !== undefined)
      checks.push(r.ratioCeiling <= spec.maxCeilRatio);
    if (checks.length > 0) r.verdict = checks.every(Boolean) ? "met" : "missed";
    if (node.side === "sdk22" && peer) r.notes.push("same Node as pi");
    if (node.side === "sdk" && peer && RUNNER_NODE !== "22")
      r.notes.push(`ours on node ${RUNNER_NODE}, pi on node 22 (pi 1.6.0 needs >= 22.19)`);
    if (node.first) r.notes.push(...legacyNote(outs, (o) => msCell(o)));
    rows.push(r);
  }
  return rows;
}

/** Two rows of a throughput measurement (`amount` per run): ours/peer throughput at least `minRatio`. */
export function throughputRows(
  ctx: Ctx,
  outs: Map<string, ChildOutcome[]>,
  spec: { id: string; amount: number; unit: string; minRatio: number; note: string },
): Row[] {
  const peer = sideOutcome(outs, "peer");
  const ceil = sideOutcome(outs, "ceiling");
  const rows: Row[] = [];
  for (const node of ourNodes(ctx)) {
    const mine = sideOutcome(outs, node.side);
    const r: Row = {
      id: `${spec.id} · ${node.label}`,
      unit: spec.unit,
      ours: mine ? rateCell(mine, spec.amount, spec.unit) : { na: "not run" },
      ceiling: ceil ? rateCell(ceil, spec.amount, spec.unit) : { na: "–" },
      peer: peer ? rateCell(peer, spec.amount, spec.unit) : { na: peerGate(ctx) ?? "not run" },
      target: `≥ ${fmt(spec.minRatio, 1)}× peer throughput`,
      verdict: "n/a",
      notes: node.first ? [spec.note] : [],
    };
    // Throughput ratios: ours / other (higher is better), from the median times.
    if (isNum(r.ours) && isNum(r.ceiling)) r.ratioCeiling = r.ceiling.s.median / r.ours.s.median;
    if (isNum(r.ours) && isNum(r.peer)) {
      r.ratioPeer = r.peer.s.median / r.ours.s.median;
      r.verdict = r.ratioPeer >= spec.minRatio ? "met" : "missed";
    }
    if (node.side === "sdk22" && peer) r.notes.push("same Node as pi");
    if (node.first) r.notes.push(...legacyNote(outs, (o) => rateCell(o, spec.amount, spec.unit)));
    rows.push(r);
  }
  return rows;
}

/** "ours 210 MB [..], pi 1.6.0 350 MB [..]": the peak RSS of every side that ran. */
function rssNote(outs: Map<string, ChildOutcome[]>): string {
  const names: [string, string][] = [
    ["sdk", `ours node ${RUNNER_NODE}`],
    ["sdk22", "ours node 22"],
    ["peer", `${PEERS.pi16.label} node 22`],
    ["legacy", PEERS.pi073.label],
  ];
  const parts: string[] = [];
  for (const [side, label] of names) {
    const list = outs.get(side);
    if (!list || list.length === 0) continue;
    const c = rssCell(list);
    parts.push(`${label} ${isNum(c) ? c.display.replace(/, [^,]+ s$/, "") : c.na}`);
  }
  return `peak RSS: ${parts.join("; ")}`;
}

// ---------------------------------------------------------------------------------------
// Scenarios

type OpenOp = "open-context" | "open-entries";

interface OpenSpec {
  id: string;
  file: string;
  op: OpenOp;
  rounds: number;
  maxPeerRatio?: number;
  maxCeilRatio?: number;
  target: string;
  /** Also rows of peak RSS against the file's size, with this target ratio. */
  maxRssOfFile?: number;
  note: string;
}

/** Open rows: one open per fresh process, every side alternated; peak RSS of each process. */
async function openRows(ctx: Ctx, spec: OpenSpec): Promise<Row[]> {
  const size = statSync(spec.file).size;
  const task = { kind: "sdk", op: spec.op, file: spec.file };
  const sides: Side[] = [
    ...sdkSides(ctx, { ...task, mode: "ours" }, task),
    { name: "ceiling", task: { ...task, mode: "ceiling" } },
  ].map((s) => ({ ...s, opts: { ...s.opts, measureRss: true } }));
  // One read first, so that every side finds the file in the page cache as the ceiling does.
  await runWorker({ ...task, mode: "ceiling" }, { timeoutMs: ctx.z.timeoutMs });
  const outs = await alternate(ctx, sides, spec.rounds);
  const ours = sideOutcome(outs, "sdk");
  const peer = sideOutcome(outs, "peer");
  const counted = spec.op === "open-context" ? "messages" : "entries";
  const notes = [
    `${fmt(size / MB, 1)} MB`,
    spec.note,
    `${spec.rounds} fresh processes per side, alternated, one open each (file in the page cache); ceiling = one sequential read`,
  ];
  if (ours?.result.ok) notes.push(`${ours.result.extra?.[counted]} ${counted}`);
  if (peer?.result.ok && ours?.result.ok && peer.result.extra?.[counted] !== ours.result.extra?.[counted])
    notes.push(`pi: ${peer.result.extra?.[counted]} ${counted}`);
  notes.push(rssNote(outs));
  const rows = timeRows(
    ctx,
    outs,
    {
      id: spec.id,
      maxPeerRatio: spec.maxPeerRatio,
      maxCeilRatio: spec.maxCeilRatio,
      target: spec.target,
      notes,
    },
    sides,
  );
  if (spec.maxRssOfFile === undefined) return rows;
  // Peak RSS against the file's size: the ceiling column is the file's size.
  const fileCell: Cell = {
    s: summarize([size / MB]),
    samples: [size / MB],
    display: `file ${fmt(size / MB)} MB`,
  };
  const peerList = outs.get("peer");
  for (const node of ourNodes(ctx)) {
    const list = outs.get(node.side);
    const r: Row = {
      id: `${spec.id} · peak RSS · ${node.label}`,
      unit: "MB",
      ours: list?.length ? rssCell(list) : { na: sideNa(sides, node.side, "not run") },
      ceiling: fileCell,
      peer: peerList?.length ? rssCell(peerList) : { na: sideNa(sides, "peer", "not run") },
      target: `peak RSS ≤ ${fmt(spec.maxRssOfFile, 1)}× file`,
      verdict: "n/a",
      notes: node.first
        ? ["peak RSS of the whole process (/usr/bin/time -v), node's own ≈ 40–50 MB included"]
        : [],
    };
    if (isNum(r.ours)) {
      r.ratioCeiling = r.ours.s.median / (size / MB);
      r.verdict = r.ratioCeiling <= spec.maxRssOfFile ? "met" : "missed";
    }
    if (isNum(r.ours) && isNum(r.peer)) r.ratioPeer = r.ours.s.median / r.peer.s.median;
    rows.push(r);
  }
  return rows;
}

/**
 * The floor under the huge open row (`open-floor.ts`): one read against the open's validating
 * scan of every line alone (no index, no context), on one thread and on two, and finding each
 * line without any JSON; every side alternated in fresh processes. No target: it shows how
 * much of the row's ceiling ratio any open with pi's answers spends before its own work.
 */
async function openFloorRow(ctx: Ctx, id: string, file: string, rounds: number): Promise<Row> {
  const base = { kind: "sdk", op: "open-context", file };
  const sides: Side[] = [
    { name: "ceiling", task: { ...base, mode: "ceiling" } },
    { name: "lines", task: { ...base, mode: "floor", threads: 1, what: "lines" } },
    { name: "scan1", task: { ...base, mode: "floor", threads: 1, what: "scan" } },
    { name: "scan2", task: { ...base, mode: "floor", threads: 2, what: "scan" } },
  ];
  const outs = await alternate(ctx, sides, rounds);
  const cell = (name: string): Cell => {
    const o = sideOutcome(outs, name);
    return o ? msCell(o) : { na: "not run" };
  };
  const read = cell("ceiling");
  const ratio = (c: Cell) =>
    isNum(c) && isNum(read) ? ` (${fmt(c.s.median / read.s.median, 2)}× the read)` : "";
  const text = (c: Cell) => (isNum(c) ? c.display : c.na);
  const ours = cell("scan2");
  const lines = cell("lines");
  const scan1 = cell("scan1");
  const row: Row = {
    id: `${id} · floor`,
    unit: "ms",
    ours,
    ceiling: read,
    peer: { na: "–" },
    target: "none (reference)",
    verdict: "n/a",
    notes: [
      `ours = read + the open's validating scan of every line, on 2 threads (the file split at a line), no index, no context; ${rounds} fresh processes per side, alternated`,
      `the same scan on 1 thread: ${text(scan1)}${ratio(scan1)}; read + finding each line, no JSON: ${text(lines)}${ratio(lines)}`,
    ],
  };
  if (isNum(ours) && isNum(read)) row.ratioCeiling = ours.s.median / read.s.median;
  return row;
}

/** 20,000 `appendMessage` calls on a new session: alternated rounds, each a process of N runs. */
async function appendMessageRows(ctx: Ctx, file: string): Promise<Row[]> {
  const { z } = ctx;
  const n = z.sdk.appendCount;
  const task = {
    kind: "sdk",
    op: "append-messages",
    file,
    count: n,
    iterations: z.iterations,
    warmup: z.warmup,
  };
  const sides: Side[] = [
    ...sdkSides(ctx, { ...task, mode: "ours" }, task),
    { name: "ceiling", task: { ...task, mode: "ceiling" } },
  ];
  const outs = await alternate(ctx, sides, z.altRounds);
  return throughputRows(ctx, outs, {
    id: `sdk/append ${fmt(n)} appendMessage`,
    amount: n,
    unit: "appends/s",
    minRatio: 1.1,
    note: `SessionManager.create, then ${fmt(n)} appendMessage calls (messages of a generated session, ≈ ${fmt(z.sdk.scale * 100)}% text scale); lock + foreign-append detection on, default durability; ${z.altRounds} alternated processes per side × ${z.iterations} runs; ceiling = the same entries by appendFileSync, no lock`,
  });
}

/** listAll / list(cwd) over the sdk store, cold (caches emptied) and warm, every side alternated. */
async function listRows(ctx: Ctx, want: (id: string) => boolean): Promise<Row[]> {
  const { z } = ctx;
  const spec = z.sdk.store;
  // Our metadata cache lives in $XDG_CACHE_HOME/pi-session; pi has none.
  const cacheHome = join(DATA_DIR, "sdk-cache-home");
  const cwd = "/home/dev/projects/app-0";
  const rows: Row[] = [];
  const what = `${fmt(spec.sessions)} sessions in ${spec.projects} dirs, ${fmt(spec.totalBytes / MB)} MB`;
  const nameOf = (op: "list-all" | "list-cwd") =>
    op === "list-all"
      ? `listAll ${fmt(spec.sessions)} sessions`
      : `list(cwd) ${fmt(spec.sessions / spec.projects)} sessions`;
  const ops = (["list-all", "list-cwd"] as const).filter(
    (op) => want(`sdk/${nameOf(op)} cold`) || want(`sdk/${nameOf(op)} warm`),
  );
  if (ops.length === 0) return rows;
  const root = generated("sdk session store", () => ensureStore(spec));
  const agentDir = dirname(root);
  const env = { PI_CODING_AGENT_DIR: agentDir, XDG_CACHE_HOME: cacheHome };
  for (const op of ops) {
    const name = nameOf(op);
    const task = { kind: "sdk", op, cwd, root, dir: join(root, cwdDirName(cwd)) };
    const sides: Side[] = [
      ...sdkSides(ctx, { ...task, mode: "ours" }, task),
      { name: "ceiling", task: { ...task, mode: "ceiling" } },
    ].map((s) => ({ ...s, opts: { ...s.opts, env } }));
    const call = op === "list-all" ? "SessionManager.listAll()" : `SessionManager.list("${cwd}")`;
    if (want(`sdk/${name} cold`)) {
      log(`- sdk/${name} cold`);
      const outs = await alternate(ctx, sides, z.coldListRuns, () => {
        rmSync(cacheHome, { recursive: true, force: true });
        dropCaches(ctx.o.smoke);
      });
      const ours = sideOutcome(outs, "sdk");
      rows.push(
        ...timeRows(
          ctx,
          outs,
          {
            id: `sdk/${name} cold`,
            maxPeerRatio: 1.0,
            target: "≤ 1.0× peer",
            notes: [
              what,
              `${call}; before every run our metadata cache is removed and the page cache dropped (when root); ${z.coldListRuns} runs per side, alternated; ceiling = plain full read of the files listed`,
              ...(ours?.result.ok ? [`${ours.result.extra?.sessions} sessions listed`] : []),
            ],
          },
          sides,
        ),
      );
    }
    if (want(`sdk/${name} warm`)) {
      log(`- sdk/${name} warm`);
      // Fill our cache (both Nodes share it), then runs where nothing changed.
      rmSync(cacheHome, { recursive: true, force: true });
      for (const side of sides.filter((s) => (s.name === "sdk" || s.name === "sdk22") && !s.na))
        await runWorker(side.task, { timeoutMs: z.timeoutMs, ...side.opts });
      const outs = await alternate(ctx, sides, z.warmListRuns + z.warmup);
      // The first round of each side is the warm-up.
      for (const [k, list] of outs) outs.set(k, list.length > 1 ? list.slice(z.warmup) : list);
      rows.push(
        ...timeRows(
          ctx,
          outs,
          {
            id: `sdk/${name} warm`,
            maxPeerRatio: 0.05,
            target: "≤ 0.05× peer",
            notes: [
              what,
              `${call}; our cache filled, nothing changed, page cache warm; pi has no cache (its warm run re-reads every file); ${z.warmListRuns} runs per side, alternated`,
            ],
          },
          sides,
        ),
      );
    }
  }
  return rows;
}

/** Every sdk scenario that `want` selects, in order. */
export async function sdkScenarios(ctx: Ctx, want: (id: string) => boolean): Promise<Row[]> {
  const { z } = ctx;
  const rows: Row[] = [];
  const n = fmt(z.sdk.entries);
  const base = { seed: 5, entries: z.sdk.entries, scale: z.sdk.scale };
  const step = async (id: string, f: () => Promise<Row[]>) => {
    if (!want(id)) return;
    log(`- ${id}`);
    rows.push(...(await f()));
  };
  const flat = () => generated(`${n} short entries`, () => ensureSession({ ...base, compactEvery: 0 }));
  const compacted = () =>
    generated(`${n} short entries, compacted`, () =>
      ensureSession({ ...base, compactEvery: z.sdk.compactEvery }),
    );
  const open = (o: Omit<OpenSpec, "rounds"> & { rounds?: number }) =>
    openRows(ctx, { rounds: z.sdk.openRounds, ...o });
  await step(`sdk/open+context ${n} entries`, () =>
    open({
      id: `sdk/open+context ${n} entries`,
      file: flat(),
      op: "open-context",
      maxPeerRatio: 1.0,
      target: "≤ 1.0× peer",
      note: "SessionManager.open(f).buildSessionContext(); no compaction: the context is the whole path",
    }),
  );
  await step(`sdk/open+context ${n} entries compacted`, () =>
    open({
      id: `sdk/open+context ${n} entries compacted`,
      file: compacted(),
      op: "open-context",
      maxPeerRatio: 0.35,
      target: "≤ 0.35× peer",
      note: `SessionManager.open(f).buildSessionContext(); a compaction every ${fmt(z.sdk.compactEvery / 1000)} KB of path, as pi compacts a full context`,
    }),
  );
  await step(`sdk/open+getEntries ${n} entries compacted`, () =>
    open({
      id: `sdk/open+getEntries ${n} entries compacted`,
      file: compacted(),
      op: "open-entries",
      maxPeerRatio: 1.0,
      target: "≤ 1.0× peer",
      note: "SessionManager.open(f).getEntries(): every entry materialized, no slower than pi's open",
    }),
  );
  const hugeId = `sdk/open+context ${fmt(z.hugeBytes / MB)} MB compacted`;
  await step(hugeId, async () => {
    const huge = hugeFile(z);
    if ("skip" in huge) return [naRow(hugeId, huge.skip, "≤ 3× one read; RSS ≤ 1.5× file")];
    const rows = await open({
      id: hugeId,
      file: huge.file,
      op: "open-context",
      rounds: z.sdk.hugeRounds,
      maxCeilRatio: 3,
      target: "≤ 3× one sequential read",
      maxRssOfFile: 1.5,
      note: "SessionManager.open(f).buildSessionContext() on the huge generated session (compactions now and then)",
    });
    return [...rows, await openFloorRow(ctx, hugeId, huge.file, z.sdk.hugeRounds)];
  });
  await step(`sdk/append ${fmt(z.sdk.appendCount)} appendMessage`, () =>
    appendMessageRows(
      ctx,
      generated("sdk append source", () =>
        ensureSession({
          seed: 6,
          entries: Math.ceil(z.sdk.appendCount * 1.5),
          scale: z.sdk.scale,
          linear: true,
        }),
      ),
    ),
  );
  rows.push(...(await listRows(ctx, want)));
  return rows;
}

/** The Node 22 binary used, for the header of the run. */
export const node22Label = `${NODE22.pkg}@${NODE22.version}`;
