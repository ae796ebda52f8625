/**
 * The benchmark's `sdk` task: our drop-in `SessionManager` against pi's, the same calls on both
 * sides, and the ceiling of each. The ops:
 * - `import`: load the module only (the memory a process starts from);
 * - `open-context`: `SessionManager.open(file).buildSessionContext()`, once per process (a resume
 *   is the first open of a fresh process);
 * - `open-entries`: `SessionManager.open(file).getEntries()`, once per process;
 * - `append-messages`: `count` `appendMessage` calls on a new session (`create`), per iteration;
 * - `list-all` / `list-cwd`: `SessionManager.listAll()` / `SessionManager.list(cwd)`, once per
 *   process (the store comes from `PI_CODING_AGENT_DIR`, our cache from `XDG_CACHE_HOME`).
 */
import {
  appendFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadPeer } from "./layers.js";
import { type WorkerResult, nowMs, timeIt } from "./measure.js";
import { floorScan } from "./open-floor.js";
import { listTask, readThrough } from "./worker-list.js";
import { NotAvailable, type Task, need } from "./worker-task.js";

export type SdkOp = "import" | "open-context" | "open-entries" | "append-messages" | "list-all" | "list-cwd";

/** The few instance methods the sdk tasks call (pi's API; `close` is ours only). */
interface Manager {
  buildSessionContext(): { messages: unknown[] };
  getEntries(): unknown[];
  appendMessage(message: unknown): string;
  close?(): void;
}
interface ManagerClass {
  open(path: string): Manager;
  create(cwd: string, dir: string): Manager;
  listAll(): Promise<unknown[]>;
  list(cwd: string): Promise<unknown[]>;
}

export async function loadSdk(): Promise<Record<string, unknown>> {
  try {
    return (await import("@pi-session/sdk")) as Record<string, unknown>;
  } catch (e) {
    throw new NotAvailable(`sdk: ${(e as Error).message.split("\n")[0]}`);
  }
}

/** The first `count` message entries of a generated session. */
function sourceMessages(file: string, count: number): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (!line) continue;
    const v = JSON.parse(line) as Record<string, unknown>;
    if (v.type !== "message") continue;
    out.push(v);
    if (out.length >= count) break;
  }
  return out;
}

export async function sdkTask(t: Task): Promise<WorkerResult> {
  const op = need(t.op, "op") as SdkOp;
  if (t.mode === "ceiling") return sdkCeiling(t, op);
  if (t.mode === "floor") return openFloor(t);
  const t0 = nowMs();
  const mod = t.mode === "peer" ? await loadPeer(t.peer) : await loadSdk();
  const SM = need(mod.SessionManager as ManagerClass | undefined, "SessionManager");
  const extra: Record<string, unknown> = { importMs: nowMs() - t0 };
  const memory = () => {
    const m = process.memoryUsage();
    extra.heapUsedBytes = m.heapUsed;
    extra.externalBytes = m.external + m.arrayBuffers;
  };
  if (op === "import") {
    memory();
    return { ok: true, samples: [0], extra };
  }
  if (op === "open-context" || op === "open-entries") {
    const file = need(t.file, "file");
    const t1 = nowMs();
    const sm = SM.open(file);
    let count: number;
    if (op === "open-context") {
      count = sm.buildSessionContext().messages.length;
      extra.messages = count;
    } else {
      count = sm.getEntries().length;
      extra.entries = count;
    }
    const ms = nowMs() - t1;
    memory();
    return { ok: true, samples: [ms], extra };
  }
  if (op === "list-all" || op === "list-cwd") {
    const t1 = nowMs();
    const infos = op === "list-all" ? await SM.listAll() : await SM.list(need(t.cwd, "cwd"));
    const ms = nowMs() - t1;
    extra.sessions = infos.length;
    return { ok: true, samples: [ms], extra };
  }
  if (op === "append-messages") {
    const messages = sourceMessages(need(t.file, "file"), t.count ?? 20000).map((e) => e.message);
    const base = mkdtempSync(join(tmpdir(), "pi-bench-sdk-append-"));
    let round = 0;
    try {
      const samples = await timeIt(
        () => {
          const sm = SM.create("/home/dev/bench", join(base, `r${round++}`));
          for (const m of messages) sm.appendMessage(m);
          sm.close?.(); // ours only: releases the descriptor now (optional in real use)
        },
        t.iterations ?? 5,
        t.warmup ?? 1,
        // Removed untimed, so that its writeback does not land on the next run (see appendTask).
        () => rmSync(join(base, `r${round - 1}`), { recursive: true, force: true }),
      );
      extra.appends = messages.length;
      return { ok: true, samples, extra };
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  }
  return { ok: false, error: `unknown sdk op ${String(op)}` };
}

/**
 * The floor of an open (`open-floor.ts`): `threads` (1 or 2) threads read the file and scan
 * every line with the open's scanner (`what` "scan"), or find each line only ("lines").
 */
async function openFloor(t: Task): Promise<WorkerResult> {
  const file = need(t.file, "file");
  const threads = t.threads === 2 ? 2 : 1;
  const what = t.what === "lines" ? "lines" : "scan";
  const size = statSync(file).size;
  const t0 = nowMs();
  const lines = await floorScan(file, size, threads, what);
  return { ok: true, samples: [nowMs() - t0], extra: { lines, threads, what } };
}

/** The ceilings of the sdk rows: one sequential read, `appendFileSync` per line, a full read of a store. */
async function sdkCeiling(t: Task, op: SdkOp): Promise<WorkerResult> {
  if (op === "open-context" || op === "open-entries") {
    const file = need(t.file, "file");
    const t0 = nowMs();
    const bytes = readThrough(file, Buffer.allocUnsafe(1 << 20));
    return { ok: true, samples: [nowMs() - t0], extra: { bytes } };
  }
  if (op === "list-all") return listTask({ ...t, kind: "list" }, { missing: {} });
  if (op === "list-cwd") {
    // A plain full read of the files of that one directory.
    const dir = need(t.dir, "dir");
    const t0 = nowMs();
    const buf = Buffer.allocUnsafe(1 << 20);
    let bytes = 0;
    for (const f of readdirSync(dir)) if (f.endsWith(".jsonl")) bytes += readThrough(join(dir, f), buf);
    return { ok: true, samples: [nowMs() - t0], extra: { bytes } };
  }
  if (op === "append-messages") {
    // pi's way without its bookkeeping: the same entries, one appendFileSync each, no lock.
    const file = need(t.file, "file");
    const entries = sourceMessages(file, t.count ?? 20000);
    const header = readFileSync(file, "utf8").slice(0, 4096).split("\n")[0] as string;
    const base = mkdtempSync(join(tmpdir(), "pi-bench-sdk-append-"));
    let round = 0;
    try {
      const samples = await timeIt(
        () => {
          const path = join(base, `r${round++}.jsonl`);
          writeFileSync(path, `${header}\n`);
          for (const e of entries) appendFileSync(path, `${JSON.stringify(e)}\n`);
        },
        t.iterations ?? 5,
        t.warmup ?? 1,
        () => rmSync(join(base, `r${round - 1}.jsonl`), { force: true }),
      );
      return { ok: true, samples, extra: { appends: entries.length } };
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  }
  return { ok: false, error: `no ceiling for sdk op ${String(op)}` };
}
