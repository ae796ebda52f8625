/**
 * The benchmark's child process: `node dist/worker.js '<task json>'` runs one task in a fresh
 * process and prints one JSON line ({@link WorkerResult}) on stdout. Running every scenario
 * in its own process keeps heaps, JIT state and caches of one scenario out of the next, and
 * lets the runner read the kernel's peak RSS of exactly that work.
 *
 * Tasks: parse, context, open, append, list, stats, malformed (our layers), sdk (our drop-in
 * `SessionManager` against pi's, same calls), and search (the session database: a cold build;
 * pi's `/resume` search, `listAll` and its filter; the file-reading `stats --all` of before the
 * database). Each has modes `ours`, `ceiling` (the baseline a
 * perfect implementation approaches) and `peer` (a pi release from `.peer/`, named by
 * `task.peer`, default pi 1.6.0); `append` also has `sdk`. A peer process imports pi only, and
 * an sdk process imports `@pi-session/sdk` only, so that neither carries the other's modules
 * (or every layer) in its time and memory. The sdk, search and list tasks are modules of their
 * own (`worker-sdk.ts`, `worker-search.ts`, `worker-list.ts`); `worker-task.ts` is the task.
 */
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { countDiagnostics, fn, type Layers, loadLayers, loadPeer, type Rec } from "./layers.js";
import { nowMs, timeIt, type WorkerResult } from "./measure.js";
import { listTask, readThrough } from "./worker-list.js";
import { loadSdk, sdkTask } from "./worker-sdk.js";
import { searchTask } from "./worker-search.js";
import { NotAvailable, type Task, need } from "./worker-task.js";

// ---------------------------------------------------------------------------------------
// Helpers over our layers

function parseBytes(L: Layers, bytes: Uint8Array): { records: Rec[]; diagnostics: unknown[] } {
  const parse = need(
    fn(L.format, "parseSessionBytes"),
    `format codec ${L.missing.format ?? "has no parseSessionBytes"}`,
  );
  return parse(bytes) as { records: Rec[]; diagnostics: unknown[] };
}

function migrate(L: Layers, records: Rec[]): Rec[] {
  const m = fn(L.migrate, "migrateRecords");
  if (!m) return records;
  const out = m(records) as unknown;
  if (Array.isArray(out)) return out as Rec[];
  const recs = (out as { records?: unknown }).records;
  return Array.isArray(recs) ? (recs as Rec[]) : records;
}

/** Index + context from parsed records: what an open costs after parsing. */
function rebuild(L: Layers, records: Rec[]): { messages: number } {
  const build = need(
    fn(L.context, "buildSessionContext"),
    `context ${L.missing.context ?? "has no buildSessionContext"}`,
  );
  const Index = L.tree?.SessionIndex as
    | { fromRecords(r: Rec[]): { entries: unknown[]; leafId: string | null; get(id: string): unknown } }
    | undefined;
  let ctx: { messages: unknown[] };
  if (Index && typeof Index.fromRecords === "function") {
    // The index itself is the id lookup (as the CLI's `context` command passes it).
    const idx = Index.fromRecords(records);
    ctx = build(idx.entries, idx.leafId, idx);
  } else {
    const entries: unknown[] = [];
    for (const r of records) if (r.kind === "json" && r.value?.type !== "session") entries.push(r.value);
    ctx = build(entries);
  }
  return { messages: ctx.messages.length };
}

// ---------------------------------------------------------------------------------------
// Tasks

async function parseTask(t: Task, L: Layers): Promise<WorkerResult> {
  const file = need(t.file, "file");
  const bytes = readFileSync(file);
  const it = t.iterations ?? 5;
  const wu = t.warmup ?? 1;
  const extra: Record<string, unknown> = { bytes: bytes.length };
  if (t.mode === "ceiling") {
    // The split is done before timing: the ceiling is JSON.parse alone.
    // Fairness: the ceiling KEEPS every parsed value in an array, as any parser must (ours
    // returns every record). Discarding them lets V8 free each value while it is still young,
    // which no real parser can do; that cheaper number is kept as information only
    // (`extra.discardedSamples`, "bare JSON.parse, results discarded"), never the ceiling.
    const lines = bytes.toString("utf8").split("\n");
    let n = 0;
    const samples = await timeIt(
      () => {
        const values: unknown[] = [];
        for (const line of lines) {
          if (line.length === 0) continue;
          values.push(JSON.parse(line));
        }
        n = values.length; // like ours: the values live until the iteration ends
      },
      it,
      wu,
    );
    const discardedSamples = await timeIt(
      () => {
        for (const line of lines) {
          if (line.length === 0) continue;
          JSON.parse(line);
        }
      },
      it,
      wu,
    );
    extra.records = n;
    extra.discardedSamples = discardedSamples;
    extra.discardedNote = "bare JSON.parse, results discarded (informational, not the ceiling)";
    return { ok: true, samples, extra };
  }
  if (t.mode === "peer") {
    const peer = await loadPeer(t.peer);
    const parse = need(fn(peer, "parseSessionEntries"), "peer parseSessionEntries");
    const text = bytes.toString("utf8");
    const samples = await timeIt(() => parse(text), it, wu);
    return { ok: true, samples, extra };
  }
  const validate = fn(L.schema, "validateRecords");
  extra.validated = validate !== undefined;
  if (!validate)
    extra.note = `validate n/a (format/schema ${L.missing.schema ?? "has no validateRecords"}); parse only`;
  let diags = 0;
  let records = 0;
  const samples = await timeIt(
    () => {
      const res = parseBytes(L, bytes);
      diags = res.diagnostics.length;
      records = res.records.length;
      if (validate) diags += countDiagnostics(validate(res.records));
    },
    it,
    wu,
  );
  extra.records = records;
  extra.diagnostics = diags;
  return { ok: true, samples, extra };
}

async function contextTask(t: Task, L: Layers): Promise<WorkerResult> {
  const file = need(t.file, "file");
  const bytes = readFileSync(file);
  const it = t.iterations ?? 5;
  const wu = t.warmup ?? 1;
  // Alternate parse and rebuild in the same process so both see the same conditions.
  const parseSamples: number[] = [];
  const samples: number[] = [];
  let messages = 0;
  for (let i = 0; i < it + wu; i++) {
    const t0 = nowMs();
    const { records } = parseBytes(L, bytes);
    const t1 = nowMs();
    messages = rebuild(L, records).messages;
    const t2 = nowMs();
    if (i >= wu) {
      parseSamples.push(t1 - t0);
      samples.push(t2 - t1);
    }
  }
  return { ok: true, samples, extra: { parseSamples, messages, bytes: bytes.length } };
}

async function openTask(t: Task, L: Layers): Promise<WorkerResult> {
  const file = need(t.file, "file");
  const it = t.iterations ?? 5;
  const wu = t.warmup ?? 1;
  if (t.mode === "peer") {
    const peer = await loadPeer(t.peer);
    const SM = peer.SessionManager as { open(p: string): { buildSessionContext(): { messages: unknown[] } } };
    let messages = 0;
    const samples = await timeIt(
      () => {
        messages = SM.open(file).buildSessionContext().messages.length;
      },
      it,
      wu,
    );
    return { ok: true, samples, extra: { messages } };
  }
  const read = fn(L.store, "readSessionFile");
  let messages = 0;
  const samples = await timeIt(
    async () => {
      let records: Rec[];
      if (read) records = ((await read(file)) as { records: Rec[] }).records;
      else records = parseBytes(L, readFileSync(file)).records;
      messages = rebuild(L, migrate(L, records)).messages;
    },
    it,
    wu,
  );
  return {
    ok: true,
    samples,
    extra: { messages, reader: read ? "node-store readSessionFile" : "readFileSync + codec" },
  };
}

/** The first `count` entries (objects, header excluded) of a generated linear session. */
function sourceEntries(file: string, count: number): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (!line) continue;
    const v = JSON.parse(line) as Record<string, unknown>;
    if (v.type === "session") continue;
    out.push(v);
    if (out.length >= count) break;
  }
  return out;
}

async function appendTask(t: Task, L: Layers): Promise<WorkerResult> {
  const file = need(t.file, "file");
  const count = t.count ?? 20000;
  const entries = sourceEntries(file, count);
  const header = readFileSync(file, "utf8").slice(0, 4096).split("\n")[0] as string;
  const it = t.iterations ?? 5;
  const wu = t.warmup ?? 1;
  const base = mkdtempSync(join(tmpdir(), "pi-bench-append-"));
  let round = 0;
  const fresh = () => {
    const dir = join(base, `r${round++}`);
    mkdirSync(dir, { recursive: true });
    return dir;
  };
  // Each run writes ~40 MB. Removed at once (untimed), its dirty pages are dropped instead of
  // being written back by the kernel while the next run is timed; on a small machine that
  // writeback took CPU from whichever side came next (the ceiling's samples spread 380-669 ms).
  const cleanup = () => rmSync(join(base, `r${round - 1}`), { recursive: true, force: true });
  try {
    if (t.mode === "ceiling") {
      // pi's way: one appendFileSync of JSON.stringify(entry) + "\n" per entry, no lock.
      const samples = await timeIt(
        () => {
          const path = join(fresh(), "s.jsonl");
          writeFileSync(path, `${header}\n`);
          for (const e of entries) appendFileSync(path, `${JSON.stringify(e)}\n`);
        },
        it,
        wu,
        cleanup,
      );
      return { ok: true, samples, extra: { entries: entries.length } };
    }
    if (t.mode === "peer") {
      const peer = await loadPeer(t.peer);
      const SM = peer.SessionManager as {
        create(cwd: string, dir: string): Record<string, (...a: unknown[]) => unknown>;
      };
      const samples = await timeIt(
        () => {
          const sm = SM.create("/home/dev/bench", fresh());
          for (const e of entries) peerAppend(sm, e);
        },
        it,
        wu,
        cleanup,
      );
      return { ok: true, samples, extra: { entries: entries.length } };
    }
    if (t.mode === "sdk") {
      // Our drop-in SessionManager, used exactly as the peer is above (persisted, lock on,
      // default durability); close() releases its one descriptor (optional in real use).
      const SM = (await loadSdk()).SessionManager as {
        create(cwd: string, dir: string): Record<string, (...a: unknown[]) => unknown>;
      };
      const samples = await timeIt(
        () => {
          const sm = SM.create("/home/dev/bench", fresh());
          for (const e of entries) peerAppend(sm, e);
          sm.close?.();
        },
        it,
        wu,
        cleanup,
      );
      return { ok: true, samples, extra: { entries: entries.length } };
    }
    const append = ourAppender(L);
    const samples = await timeIt(
      () => {
        const path = join(fresh(), "s.jsonl");
        writeFileSync(path, `${header}\n`);
        append(path, entries);
      },
      it,
      wu,
      cleanup,
    );
    return { ok: true, samples, extra: { entries: entries.length } };
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

/**
 * Appends one generated entry through pi's SessionManager API (pi assigns ids and parents);
 * used for the peer and for our drop-in `@pi-session/sdk` alike.
 */
function peerAppend(sm: Record<string, (...a: unknown[]) => unknown>, e: Record<string, unknown>): void {
  const call = (name: string, ...args: unknown[]) =>
    (sm[name] as (...a: unknown[]) => unknown).apply(sm, args);
  switch (e.type) {
    case "message":
      call("appendMessage", e.message);
      return;
    case "model_change":
      call("appendModelChange", e.provider, e.modelId);
      return;
    case "thinking_level_change":
      call("appendThinkingLevelChange", e.thinkingLevel);
      return;
    case "custom_message":
      call("appendCustomMessageEntry", e.customType, e.content, e.display);
      return;
    case "custom":
      call("appendCustomEntry", e.customType, e.data);
      return;
    case "usage":
      // pi 1.6.0 and ours have appendUsage; pi 0.73.1 does not (a custom entry of the same size).
      if (typeof sm.appendUsage === "function") call("appendUsage", e.kind, e.provider, e.model, e.usage);
      else call("appendCustomEntry", "bench", e);
      return;
    default:
      // Types without an append method here: stored as a custom entry of the same size.
      call("appendCustomEntry", "bench", e);
  }
}

/**
 * node-store's appender with its defaults (durability "none" like pi, cross-process lock on,
 * foreign-append detection on): one `append` call per entry, as a live session appends.
 */
function ourAppender(L: Layers): (path: string, entries: Record<string, unknown>[]) => void {
  const writer = L.store?.SessionWriter as { open?: (path: string) => unknown } | undefined;
  const open = need(
    writer?.open?.bind(writer),
    `node-store ${L.missing.store ?? "has no SessionWriter.open"}`,
  );
  return (path, entries) => {
    const appender = open(path) as { append(e: object): unknown; close(): void };
    try {
      for (const e of entries) appender.append(e);
    } finally {
      appender.close();
    }
  };
}

/** Reads a whole file sequentially through `buf`, keeping nothing; returns bytes read. */
interface UsageLike {
  totalTokens?: number;
  cost?: { total?: number };
}

/**
 * Opening a session of a million malformed lines (one per process: its peak RSS is the point):
 * ours = our SessionManager.open, peer = pi's, ceiling = a plain read of the file.
 */
async function malformedTask(t: Task, L: Layers): Promise<WorkerResult> {
  const file = need(t.file, "file");
  let t0 = nowMs();
  if (t.mode === "ceiling") {
    const bytes = readThrough(file, Buffer.allocUnsafe(1 << 20));
    return { ok: true, samples: [nowMs() - t0], extra: { bytes } };
  }
  type Manager = { open(p: string): { getEntries(): unknown[] } };
  const SM = (
    t.mode === "peer"
      ? (await loadPeer(t.peer)).SessionManager
      : need(L.sdk?.SessionManager, `sdk ${L.missing.sdk ?? "has no SessionManager"}`)
  ) as Manager;
  t0 = nowMs();
  const entries = SM.open(file).getEntries().length;
  return { ok: true, samples: [nowMs() - t0], extra: { entries } };
}

async function statsTask(t: Task, L: Layers): Promise<WorkerResult> {
  const file = need(t.file, "file");
  const t0 = nowMs();
  if (t.mode === "ceiling") {
    let bytes = 0;
    const buf = Buffer.allocUnsafe(1 << 20);
    bytes += readThrough(file, buf);
    return { ok: true, samples: [nowMs() - t0], extra: { bytes } };
  }
  if (t.mode === "peer") {
    const peer = await loadPeer(t.peer);
    const SM = peer.SessionManager as { open(p: string): { getEntries(): unknown[] } };
    try {
      // pi reads the whole file as one string; past V8's string limit that throws.
      const entries = SM.open(file).getEntries();
      return { ok: true, samples: [nowMs() - t0], extra: { records: entries.length } };
    } catch (e) {
      return { ok: false, error: `peer cannot: ${(e as Error).message.split("\n")[0]}` };
    }
  }
  const stream = need(
    fn(L.store, "streamSessionRecords"),
    `node-store ${L.missing.store ?? "has no streamSessionRecords"}`,
  );
  // Stats: entries by type, messages by role, token and cost totals.
  const byType = new Map<string, number>();
  let tokens = 0;
  let cost = 0;
  let records = 0;
  for await (const r of stream(file) as AsyncIterable<Rec>) {
    records++;
    const v = r.value;
    if (r.kind !== "json" || !v) continue;
    const type = String(v.type);
    byType.set(type, (byType.get(type) ?? 0) + 1);
    const msg = v.message as { usage?: UsageLike } | undefined;
    const u = msg?.usage ?? (v.usage as UsageLike | undefined);
    if (u) {
      tokens += u.totalTokens ?? 0;
      cost += u.cost?.total ?? 0;
    }
  }
  return {
    ok: true,
    samples: [nowMs() - t0],
    extra: { records, tokens, cost: Math.round(cost * 100) / 100, types: Object.fromEntries(byType) },
  };
}

async function main(): Promise<void> {
  const task = JSON.parse(process.argv[2] ?? "{}") as Task;
  let result: WorkerResult;
  try {
    // A peer process loads pi only; an sdk process loads @pi-session/sdk only (see the header).
    // A search task loads what its op needs.
    const alone =
      task.mode === "peer" || task.mode === "sdk" || task.kind === "sdk" || task.kind === "search";
    const L: Layers = alone ? { missing: {} } : await loadLayers();
    switch (task.kind) {
      case "parse":
        result = await parseTask(task, L);
        break;
      case "context":
        result = await contextTask(task, L);
        break;
      case "open":
        result = await openTask(task, L);
        break;
      case "append":
        result = await appendTask(task, L);
        break;
      case "list":
        result = await listTask(task, L);
        break;
      case "stats":
        result = await statsTask(task, L);
        break;
      case "malformed":
        result = await malformedTask(task, L);
        break;
      case "sdk":
        result = await sdkTask(task);
        break;
      case "search":
        result = await searchTask(task);
        break;
      default:
        result = { ok: false, error: `unknown task ${String(task.kind)}` };
    }
  } catch (e) {
    result = {
      ok: false,
      error:
        e instanceof NotAvailable
          ? `n/a: ${e.message}`
          : `error: ${(e as Error).name}: ${(e as Error).message}`,
    };
  }
  // Peak RSS of this process (kB in Node's API), a fallback when /usr/bin/time is missing.
  result.extra = { ...(result.extra ?? {}), maxRssBytes: process.resourceUsage().maxRSS * 1024 };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

await main();
