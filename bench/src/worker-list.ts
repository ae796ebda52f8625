/**
 * The benchmark's `list` task: every session of a store listed (ours, pi's, or the ceiling: a
 * full read of every file). Also the ceiling of the sdk's `list-all`.
 */
import { closeSync, openSync, readdirSync, readSync } from "node:fs";
import { join } from "node:path";
import { type Layers, fn, loadPeer } from "./layers.js";
import { type WorkerResult, nowMs } from "./measure.js";
import { type Task, need } from "./worker-task.js";

export function readThrough(path: string, buf: Buffer): number {
  const fd = openSync(path, "r");
  let total = 0;
  try {
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n <= 0) return total;
      total += n;
    }
  } finally {
    closeSync(fd);
  }
}

export async function listTask(t: Task, L: Layers): Promise<WorkerResult> {
  const root = need(t.root, "root");
  const t0 = nowMs();
  if (t.mode === "ceiling") {
    // A plain full read of every file: the cost of any listing that parses everything.
    let bytes = 0;
    let files = 0;
    const buf = Buffer.allocUnsafe(1 << 20);
    for (const d of readdirSync(root)) {
      for (const f of readdirSync(join(root, d))) {
        if (!f.endsWith(".jsonl")) continue;
        bytes += readThrough(join(root, d, f), buf);
        files++;
      }
    }
    return { ok: true, samples: [nowMs() - t0], extra: { bytes, files } };
  }
  if (t.mode === "peer") {
    const peer = await loadPeer(t.peer);
    const SM = peer.SessionManager as { listAll(): Promise<unknown[]> };
    const t1 = nowMs();
    const infos = await SM.listAll();
    return { ok: true, samples: [nowMs() - t1], extra: { sessions: infos.length, importMs: t1 - t0 } };
  }
  const list = need(
    fn(L.store, "listAllSessions"),
    `node-store ${L.missing.store ?? "has no listAllSessions"}`,
  );
  const t1 = nowMs();
  // The metadata cache lives in `cacheDir`; the runner deletes it for cold runs.
  const infos = (await list(root, { cache: { dir: t.cacheDir } })) as unknown[];
  return { ok: true, samples: [nowMs() - t1], extra: { sessions: infos.length, importMs: t1 - t0 } };
}
