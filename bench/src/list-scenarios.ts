/**
 * The benchmark's listing rows: every session of a generated store listed, cold and warm, by
 * node-store's listing (ours), a full read of every file (the ceiling) and pi's `listAll`
 * (the peer). Run by `run.ts` for the `list/*` rows.
 */
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { DATA_DIR } from "./generate.js";
import { type ChildOutcome, runWorker } from "./measure.js";
import { fmt, isNum, MB, merge, msCell, type Row } from "./rows.js";
import { type Ctx, dropCaches, peerGate, runPeer } from "./setup.js";

export async function listScenarios(ctx: Ctx, root: string, want: (id: string) => boolean): Promise<Row[]> {
  const { z } = ctx;
  const rows: Row[] = [];
  const cacheDir = join(DATA_DIR, "list-cache");
  const its = z.hugeIterations;
  const pg = peerGate(ctx);
  const peerEnv = { PI_CODING_AGENT_DIR: dirname(root) };
  /** One cold run: empty metadata cache, page cache dropped (see dropCaches). */
  const coldRun = (task: Record<string, unknown>, env?: Record<string, string>) => {
    rmSync(cacheDir, { recursive: true, force: true });
    dropCaches(ctx.o.smoke);
    return runWorker(task, { timeoutMs: z.timeoutMs, env });
  };
  /**
   * Warm runs of two tasks, alternated (a, b, a, b, ...) so that a slow spell of the machine
   * falls on both sides of the ratio rather than on one.
   */
  const warmPair = async (a: Record<string, unknown>, b: Record<string, unknown>) => {
    const outs: [ChildOutcome[], ChildOutcome[]] = [[], []];
    for (let i = 0; i < z.warmListRuns + z.warmup; i++) {
      for (const [k, task] of [a, b].entries()) {
        const o = await runWorker(task, { timeoutMs: z.timeoutMs });
        if (i >= z.warmup) outs[k]?.push(o);
      }
    }
    return [merge(outs[0]), merge(outs[1])] as const;
  };
  const listTask = { kind: "list", root, cacheDir };
  const peerCold = pg
    ? undefined
    : await (async () => {
        const outs: ChildOutcome[] = [];
        for (let i = 0; i < its; i++) {
          dropCaches(ctx.o.smoke);
          outs.push(await runPeer({ ...listTask, mode: "peer" }, { timeoutMs: z.timeoutMs, env: peerEnv }));
        }
        return merge(outs);
      })();
  const notes = [
    `${z.store.sessions} sessions in ${z.store.projects} dirs, ${fmt(z.store.totalBytes / MB)} MB`,
  ];
  if (want("list/cold")) {
    // Alternated, as the warm runs below.
    const outs: [ChildOutcome[], ChildOutcome[]] = [[], []];
    for (let i = 0; i < z.coldListRuns; i++) {
      outs[0].push(await coldRun({ ...listTask, mode: "ours" }));
      outs[1].push(await coldRun({ ...listTask, mode: "ceiling" }));
    }
    const [ours, ceil] = [merge(outs[0]), merge(outs[1])];
    const row: Row = {
      id: "list/listAll cold",
      unit: "ms",
      ours: msCell(ours),
      ceiling: msCell(ceil),
      peer: peerCold ? msCell(peerCold) : { na: pg as string },
      target: "≤ 1.0× ceiling and peer",
      verdict: "n/a",
      notes: [
        ...notes,
        `ceiling = plain full read of every file, same cold conditions; ${z.coldListRuns} runs of each side, alternated`,
      ],
    };
    if (isNum(row.ours) && isNum(row.ceiling)) row.ratioCeiling = row.ours.s.median / row.ceiling.s.median;
    if (isNum(row.ours) && isNum(row.peer)) row.ratioPeer = row.ours.s.median / row.peer.s.median;
    if (row.ratioCeiling !== undefined)
      row.verdict =
        row.ratioCeiling <= 1.0 && (row.ratioPeer === undefined || row.ratioPeer <= 1.0) ? "met" : "missed";
    if (ours.result.ok) row.notes.push(`${ours.result.extra?.sessions} sessions listed`);
    rows.push(row);
  }
  if (want("list/warm")) {
    // Populate the cache once (cold run), then measure runs where nothing changed.
    rmSync(cacheDir, { recursive: true, force: true });
    await runWorker({ ...listTask, mode: "ours" }, { timeoutMs: z.timeoutMs });
    const [ours, ceil] = await warmPair({ ...listTask, mode: "ours" }, { ...listTask, mode: "ceiling" });
    const row: Row = {
      id: "list/listAll warm",
      unit: "ms",
      ours: msCell(ours),
      ceiling: msCell(ceil),
      peer: peerCold ? msCell(peerCold) : { na: pg as string },
      target: "≤ 0.05× ceiling and peer",
      verdict: "n/a",
      notes: [
        ...notes,
        `ceiling = plain full read, page cache warm; ${z.warmListRuns} runs of each side, alternated; peer has no cache: its warm run is the cold code path (cold number shown)`,
      ],
    };
    if (isNum(row.ours) && isNum(row.ceiling)) row.ratioCeiling = row.ours.s.median / row.ceiling.s.median;
    if (isNum(row.ours) && isNum(row.peer)) row.ratioPeer = row.ours.s.median / row.peer.s.median;
    if (row.ratioCeiling !== undefined)
      row.verdict =
        row.ratioCeiling <= 0.05 && (row.ratioPeer === undefined || row.ratioPeer <= 0.05) ? "met" : "missed";
    rows.push(row);
  }
  return rows;
}
