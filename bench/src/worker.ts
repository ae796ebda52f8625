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
 * (or every layer) in its time and memory.
 */
import {
  appendFileSync,
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  countDiagnostics,
  fn,
  type Layers,
  loadLayers,
  loadPeer,
  loadPeerFilter,
  type PeerKey,
  type Rec,
} from "./layers.js";
import { nowMs, timeIt, type WorkerResult } from "./measure.js";

export interface Task {
  kind: "parse" | "context" | "open" | "append" | "list" | "stats" | "malformed" | "sdk" | "search";
  mode: string;
  /** Which pi a `peer` task loads (default pi 1.6.0). */
  peer?: PeerKey;
  /** What an `sdk` or `search` task does (see {@link sdkTask}, {@link searchTask}). */
  op?: SdkOp | SearchOp;
  /** A `search` task's query. */
  query?: string;
  /** `list-cwd`: the cwd whose sessions are listed, and (for its ceiling) their directory. */
  cwd?: string;
  dir?: string;
  file?: string;
  root?: string;
  count?: number;
  iterations?: number;
  warmup?: number;
  cacheDir?: string;
}

class NotAvailable extends Error {}

function need<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new NotAvailable(what);
  return value;
}

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
function readThrough(path: string, buf: Buffer): number {
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

async function listTask(t: Task, L: Layers): Promise<WorkerResult> {
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

// ---------------------------------------------------------------------------------------
// The SDK against pi: same SessionManager calls on both sides

/**
 * - `import`: load the module only (the memory a process starts from);
 * - `open-context`: `SessionManager.open(file).buildSessionContext()`, once per process (a resume
 *   is the first open of a fresh process);
 * - `open-entries`: `SessionManager.open(file).getEntries()`, once per process;
 * - `append-messages`: `count` `appendMessage` calls on a new session (`create`), per iteration;
 * - `list-all` / `list-cwd`: `SessionManager.listAll()` / `SessionManager.list(cwd)`, once per
 *   process (the store comes from `PI_CODING_AGENT_DIR`, our cache from `XDG_CACHE_HOME`).
 */
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

async function loadSdk(): Promise<Record<string, unknown>> {
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

async function sdkTask(t: Task): Promise<WorkerResult> {
  const op = need(t.op, "op") as SdkOp;
  if (t.mode === "ceiling") return sdkCeiling(t, op);
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

// ---------------------------------------------------------------------------------------
// The session database

/**
 * - `build`: open the session database of `root` in `cacheDir` (deleted by the runner first)
 *   and bring it up to date: the cold index build, timed in the process (module loading left
 *   out, as for pi's `listAll`); extra: the database's size on disk once closed;
 * - `peer-search` (pi): `SessionManager.listAll()` then the picker's `filterAndSortSessions`
 *   with `query`, what pi's `/resume` does for a search (timed in the process);
 * - `stats-files`: `stats --all` as it was before the database: every file read (node-store's
 *   reader, lines as pi reads them), usage rows, the lineage-aware totals; run as a whole
 *   process by the runner, which times it from spawn to exit.
 */
export type SearchOp = "build" | "peer-search" | "stats-files";

async function searchTask(t: Task): Promise<WorkerResult> {
  const op = need(t.op, "op") as SearchOp;
  const root = need(t.root, "root");
  if (op === "peer-search") {
    const t0 = nowMs();
    const peer = await loadPeer(t.peer);
    const filter = need(fn(await loadPeerFilter(), "filterAndSortSessions"), "peer filterAndSortSessions");
    const SM = peer.SessionManager as { listAll(): Promise<unknown[]> };
    const t1 = nowMs();
    const infos = await SM.listAll();
    const t2 = nowMs();
    const hits = filter(infos, need(t.query, "query"), "relevance") as unknown[];
    const t3 = nowMs();
    return {
      ok: true,
      samples: [t3 - t1],
      extra: {
        importMs: t1 - t0,
        listMs: t2 - t1,
        filterMs: t3 - t2,
        sessions: infos.length,
        hits: hits.length,
      },
    };
  }
  if (op === "build") {
    const L = await loadLayers(["search"]);
    const open = need(
      fn(L.search, "openSearchDatabase"),
      `search ${L.missing.search ?? "has no openSearchDatabase"}`,
    );
    const pathOf = need(fn(L.search, "databasePath"), "search databasePath");
    const cacheDir = need(t.cacheDir, "cacheDir");
    const t0 = nowMs();
    const db = (await open({ root, cacheDir })) as {
      sync(): Promise<{ files: number; indexed: number; bytesRead: number }>;
      close(): void;
    };
    const stats = await db.sync();
    db.close();
    const ms = nowMs() - t0;
    const path = pathOf(cacheDir, root) as string;
    let bytes = 0;
    for (const suffix of ["", "-wal"]) {
      try {
        bytes += statSync(path + suffix).size;
      } catch {
        // No WAL once closed.
      }
    }
    return {
      ok: true,
      samples: [ms],
      extra: { files: stats.files, indexed: stats.indexed, bytesRead: stats.bytesRead, dbBytes: bytes },
    };
  }
  if (op === "stats-files") {
    const L = await loadLayers(["format", "store", "searchDocuments"]);
    const read = need(
      fn(L.store, "readSessionFile"),
      `node-store ${L.missing.store ?? "has no readSessionFile"}`,
    );
    const asPi = need(fn(L.store, "readLinesAsPi"), "node-store readLinesAsPi");
    const split = need(fn(L.format, "splitSession"), "format splitSession");
    const statsSessionOf = need(fn(L.searchDocuments, "statsSessionOf"), "search/documents statsSessionOf");
    const computeStats = need(fn(L.searchDocuments, "computeStats"), "search/documents computeStats");
    // The old `stats --all`: every *.jsonl in the root and its project directories.
    const files: { path: string; project: string }[] = [];
    for (const entry of readdirSync(root, { withFileTypes: true })) {
      if (entry.isFile() && entry.name.endsWith(".jsonl"))
        files.push({ path: join(root, entry.name), project: "" });
      else if (entry.isDirectory())
        for (const name of readdirSync(join(root, entry.name)))
          if (name.endsWith(".jsonl"))
            files.push({ path: join(root, entry.name, name), project: entry.name });
    }
    const sessions: unknown[] = [];
    for (const f of files) {
      const lines = asPi((await read(f.path)).records) as { records: Rec[]; isSession: boolean };
      const view = split(lines.records) as { header?: { value: Record<string, unknown> }; entries: Rec[] };
      if (!view.header || !lines.isSession) continue;
      sessions.push(
        statsSessionOf({
          path: f.path,
          project: f.project,
          header: view.header.value,
          entries: view.entries.map((r) => r.value),
        }),
      );
    }
    const result = computeStats(sessions, {}) as { sessions: number; totals: Record<string, number> };
    return { ok: true, samples: [0], extra: { sessions: result.sessions, totals: result.totals } };
  }
  return { ok: false, error: `unknown search op ${String(op)}` };
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
