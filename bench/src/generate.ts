/**
 * Deterministic, seeded generator of realistic pi v3 session files for the benchmark.
 *
 * Same parameters -> same bytes, on every machine: all randomness comes from a small
 * seeded PRNG (mulberry32) and all timestamps from a fixed base time. Files are written
 * streaming (never one big string) into `bench/.data/` and reused when already present,
 * keyed by their parameters, so a second run does not pay for generation again.
 *
 * What a generated session looks like: a header, a model and thinking-level setup, then
 * turns of user -> assistant (thinking, text, tool calls) -> tool results (long outputs,
 * now and then an image) -> assistant answer; plus bash executions, custom messages and
 * entries, usage entries, labels, session_info renames, branches with branch summaries and
 * compactions pointing at an entry of the current path.
 */
import { closeSync, existsSync, mkdirSync, openSync, renameSync, writeFileSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { getPools, hex8, mulberry32, usage, uuidFrom } from "./random-text.js";

/** Where generated data lives: `bench/.data/` (git-ignored). */
export const DATA_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", ".data");

// ---------------------------------------------------------------------------------------
// Session generator

export interface SessionSpec {
  /** PRNG seed; different seeds give different sessions. */
  seed: number;
  /** Stop after this many entries (header excluded)... */
  entries?: number;
  /** ...or once the file reaches this many bytes (whichever comes first). */
  targetBytes?: number;
  /** Working directory written into the header. */
  cwd?: string;
  /** Turn off branches, compactions, labels (a linear conversation). */
  linear?: boolean;
  /**
   * Multiplies the lengths of texts, outputs and images (default 1): at 0.05 an entry is about
   * 300 bytes instead of 2 KB (envelope, usage and tool calls do not shrink).
   */
  scale?: number;
  /**
   * Compactions as pi makes them, when the context fills: one each time the current path has
   * grown by this many bytes since the last one (keeping the last 10-30 entries). 0: never.
   * Unset: the default mix, a compaction now and then at random.
   */
  compactEvery?: number;
}

const BASE_TIME = Date.UTC(2026, 0, 5, 9, 0, 0);
const MODELS = [
  { api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5" },
  { api: "openai-responses", provider: "openai", model: "gpt-5.1-codex" },
];
const TOOLS = ["read", "bash", "edit", "write", "grep"];

/**
 * The lines of one session (without `\n`), header first. Lazy: a 1 GB session is never
 * held in memory.
 */
export function* sessionLines(spec: SessionSpec): Generator<string> {
  const r = mulberry32(spec.seed * 2654435761 + 1);
  const { prose, code, base64 } = getPools();
  const maxEntries = spec.entries ?? Number.POSITIVE_INFINITY;
  const maxBytes = spec.targetBytes ?? Number.POSITIVE_INFINITY;
  const linear = spec.linear ?? false;
  const scale = spec.scale ?? 1;
  const compactEvery = spec.compactEvery;
  const int = (lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
  const slice = (pool: string, len: number) => {
    const start = Math.floor(r() * (pool.length - len - 1));
    return pool.slice(Math.max(0, start), Math.max(0, start) + len);
  };
  // Log-uniform lengths: mostly short, sometimes long, like real tool output.
  // (At scale 1 the product is exactly the unscaled one, so default files keep their bytes.)
  const logLen = (lo: number, hi: number) => Math.max(1, Math.floor(lo * scale * (hi / lo) ** r()));

  let time = BASE_TIME + Math.floor(r() * 86400000 * 30);
  const tick = () => {
    time += int(200, 30000);
    return time;
  };
  const iso = (ms: number) => new Date(ms).toISOString();

  // Ids: an odd multiplier is a bijection mod 2^32, so ids never collide within a file.
  const idSalt = Math.floor(r() * 4294967296);
  let counter = 0;
  const nextId = () => hex8((Math.imul(++counter, 0x9e3779b1) ^ idSalt) >>> 0);

  // Recent ids of the current path (root -> leaf), trimmed to stay small.
  let path: string[] = [];
  let leaf: string | null = null;
  let written = 0;
  let bytes = 0;
  /** Bytes appended to the current path since the last compaction (for `compactEvery`). */
  let sinceCompaction = 0;

  const header = {
    type: "session",
    version: 3,
    id: uuidFrom(r),
    timestamp: iso(time),
    cwd: spec.cwd ?? "/home/dev/projects/pi-session",
  };
  const headerLine = JSON.stringify(header);
  bytes += headerLine.length + 1;
  yield headerLine;

  const emit = (body: Record<string, unknown>, moveLeaf = true): string => {
    const id = nextId();
    const ms = tick();
    const { type, ...rest } = body;
    const entry = { type, id, parentId: leaf, timestamp: iso(ms), ...rest };
    if (moveLeaf) {
      leaf = id;
      path.push(id);
      if (path.length > 512) path = path.slice(256);
    }
    written++;
    const line = JSON.stringify(entry);
    const size = Buffer.byteLength(line) + 1;
    bytes += size;
    if (moveLeaf) sinceCompaction += size;
    return line;
  };
  const done = () => written >= maxEntries || bytes >= maxBytes;

  let model = MODELS[0] as (typeof MODELS)[number];
  yield emit({ type: "model_change", provider: model.provider, modelId: model.model });
  if (done()) return;
  yield emit({ type: "thinking_level_change", thinkingLevel: "medium" });

  while (!done()) {
    const roll = r();
    // Per loop step (a turn is ~10 entries): branches, compactions, labels, metadata, bash.
    if (!linear && roll < 0.005 && path.length > 30) {
      // Branch: move the leaf back a few entries and summarise the abandoned path.
      const back = int(2, 20);
      const fromId = leaf;
      path.length -= back;
      leaf = path[path.length - 1] ?? null;
      yield emit({
        type: "branch_summary",
        fromId: fromId ?? "root",
        summary: `Abandoned approach: ${slice(prose, logLen(200, 2000))}`,
      });
      continue;
    }
    const compactNow =
      compactEvery === undefined ? roll < 0.01 : compactEvery > 0 && sinceCompaction >= compactEvery;
    if (!linear && compactNow && path.length > 40) {
      sinceCompaction = 0;
      const firstKept = path[path.length - int(10, 30)] as string;
      yield emit({
        type: "compaction",
        summary: `## Goal\n${slice(prose, logLen(300, 1500))}\n\n## Progress\n${slice(prose, logLen(500, 3000))}`,
        firstKeptEntryId: firstKept,
        tokensBefore: int(50000, 180000),
        details: { readFiles: ["src/index.ts", "src/tree.ts"], modifiedFiles: ["src/index.ts"] },
      });
      continue;
    }
    if (!linear && roll < 0.04 && path.length > 5) {
      yield emit({
        type: "label",
        targetId: path[path.length - int(1, 5)] as string,
        label: `checkpoint-${int(1, 99)}`,
      });
      continue;
    }
    if (!linear && roll < 0.045) {
      yield emit({ type: "session_info", name: slice(prose, int(10, 40)).trim() });
      continue;
    }
    if (roll < 0.05) {
      model = MODELS[int(0, MODELS.length - 1)] as (typeof MODELS)[number];
      yield emit({ type: "model_change", provider: model.provider, modelId: model.model });
      continue;
    }
    if (roll < 0.07) {
      yield emit({
        type: "custom",
        customType: "bench-ext",
        data: { counter: int(0, 1000), note: slice(prose, 40) },
      });
      continue;
    }
    if (roll < 0.09) {
      yield emit({
        type: "custom_message",
        customType: "bench-ext",
        content: slice(prose, logLen(40, 600)),
        display: r() < 0.5,
      });
      continue;
    }
    if (roll < 0.1) {
      yield emit({
        type: "usage",
        kind: "compaction",
        provider: model.provider,
        model: model.model,
        usage: usage(r),
      });
      continue;
    }
    if (roll < 0.15) {
      const ms = tick();
      yield emit({
        type: "message",
        message: {
          role: "bashExecution",
          command: `npm test -- ${slice(prose, 20).trim()}`,
          output: slice(code, logLen(100, 20000)),
          exitCode: r() < 0.8 ? 0 : 1,
          cancelled: false,
          truncated: false,
          timestamp: ms,
        },
      });
      continue;
    }

    // A turn: user prompt, then a few assistant steps with tool calls and results.
    const userContent: Record<string, unknown>[] = [{ type: "text", text: slice(prose, logLen(20, 1500)) }];
    if (r() < 0.01)
      userContent.push({
        type: "image",
        data: slice(base64, logLen(4000, 200000) & ~3),
        mimeType: "image/png",
      });
    yield emit({ type: "message", message: { role: "user", content: userContent, timestamp: tick() } });
    const steps = int(0, 5);
    for (let s = 0; s <= steps && !done(); s++) {
      const last = s === steps;
      const content: Record<string, unknown>[] = [];
      if (r() < 0.5)
        content.push({
          type: "thinking",
          thinking: slice(prose, logLen(50, 3000)),
          thinkingSignature: slice(base64, 64),
        });
      content.push({ type: "text", text: slice(prose, logLen(20, last ? 2500 : 400)) });
      const calls: { id: string; name: string }[] = [];
      if (!last) {
        const k = int(1, 3);
        for (let c = 0; c < k; c++) {
          const call = {
            id: `toolu_${slice(base64, 24).replace(/[+/]/g, "x")}`,
            name: TOOLS[int(0, TOOLS.length - 1)] as string,
          };
          calls.push(call);
          content.push({
            type: "toolCall",
            id: call.id,
            name: call.name,
            arguments:
              call.name === "bash"
                ? { command: slice(code, int(10, 120)) }
                : { path: `src/${slice(prose, 12).trim().replace(/\W+/g, "-")}.ts` },
          });
        }
      }
      yield emit({
        type: "message",
        message: {
          role: "assistant",
          content,
          api: model.api,
          provider: model.provider,
          model: model.model,
          usage: usage(r),
          stopReason: last ? "stop" : "toolUse",
          timestamp: tick(),
        },
      });
      for (const call of calls) {
        if (done()) break;
        const out: Record<string, unknown>[] = [{ type: "text", text: slice(code, logLen(80, 12000)) }];
        if (r() < 0.005)
          out.push({ type: "image", data: slice(base64, logLen(4000, 120000) & ~3), mimeType: "image/png" });
        yield emit({
          type: "message",
          message: {
            role: "toolResult",
            toolCallId: call.id,
            toolName: call.name,
            content: out,
            isError: r() < 0.05,
            timestamp: tick(),
          },
        });
      }
    }
  }
}

/** The lines of a linear chain of `depth` short alternating user/assistant messages. */
export function* chainLines(depth: number, seed = 7): Generator<string> {
  const r = mulberry32(seed);
  const { prose } = getPools();
  let time = BASE_TIME;
  yield JSON.stringify({
    type: "session",
    version: 3,
    id: uuidFrom(r),
    timestamp: new Date(time).toISOString(),
    cwd: "/home/dev/chain",
  });
  let parent: string | null = null;
  for (let i = 1; i <= depth; i++) {
    time += 1000;
    const id = hex8(Math.imul(i, 0x9e3779b1) >>> 0);
    const start = Math.floor(r() * (prose.length - 100));
    const text = prose.slice(start, start + 20 + Math.floor(r() * 60));
    const message =
      i % 2 === 1
        ? { role: "user", content: [{ type: "text", text }], timestamp: time }
        : {
            role: "assistant",
            content: [{ type: "text", text }],
            api: "anthropic-messages",
            provider: "anthropic",
            model: "claude-sonnet-4-5",
            usage: usage(r),
            stopReason: "stop",
            timestamp: time,
          };
    yield JSON.stringify({
      type: "message",
      id,
      parentId: parent,
      timestamp: new Date(time).toISOString(),
      message,
    });
    parent = id;
  }
}

// ---------------------------------------------------------------------------------------
// Writing (streaming, cached)

/** Writes lines to `path` through a 1 MiB buffer; returns bytes and line count. */
export function writeLines(path: string, lines: Iterable<string>): { bytes: number; lines: number } {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.tmp-${process.pid}`;
  const fd = openSync(tmp, "w");
  let buf: string[] = [];
  let bufLen = 0;
  let bytes = 0;
  let count = 0;
  const flush = () => {
    if (buf.length === 0) return;
    const chunk = Buffer.from(buf.join(""), "utf8");
    writeSync(fd, chunk);
    bytes += chunk.length;
    buf = [];
    bufLen = 0;
  };
  try {
    for (const line of lines) {
      buf.push(line, "\n");
      bufLen += line.length + 1;
      count++;
      if (bufLen >= 1 << 20) flush();
    }
    flush();
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  return { bytes, lines: count };
}

/** Bump when the generator's output changes, so cached files in `.data/` are not reused. */
export const GENERATOR_VERSION = 1;

function specKey(spec: SessionSpec): string {
  return [
    `g${GENERATOR_VERSION}`,
    `s${spec.seed}`,
    spec.entries !== undefined ? `e${spec.entries}` : "",
    spec.targetBytes !== undefined ? `b${spec.targetBytes}` : "",
    spec.linear ? "lin" : "",
    spec.scale !== undefined && spec.scale !== 1 ? `x${spec.scale}` : "",
    spec.compactEvery !== undefined ? `c${spec.compactEvery}` : "",
  ]
    .filter(Boolean)
    .join("-");
}

/** Where {@link ensureSession} keeps the session of `spec` (whether or not it exists yet). */
export function sessionPath(spec: SessionSpec, dataDir = DATA_DIR): string {
  return join(dataDir, `session-${specKey(spec)}.jsonl`);
}

/** Path of a generated session, generating it first unless an identical one is cached. */
export function ensureSession(spec: SessionSpec, dataDir = DATA_DIR): string {
  const path = sessionPath(spec, dataDir);
  if (!existsSync(path)) writeLines(path, sessionLines(spec));
  return path;
}

/** Path of a generated linear chain of `depth` entries (cached). */
export function ensureChain(depth: number, dataDir = DATA_DIR): string {
  const path = join(dataDir, `chain-g${GENERATOR_VERSION}-${depth}.jsonl`);
  if (!existsSync(path)) writeLines(path, chainLines(depth));
  return path;
}

const MALFORMED_TIME = "2026-01-01T00:00:00.000Z";

/**
 * A v3 session of a header, one user message, `lines` copies of the malformed line `{` and a
 * second message (issue 16's hostile file: 2 MB per million lines). Cached.
 */
export function ensureMalformed(lines: number, dataDir = DATA_DIR): string {
  const path = join(dataDir, `malformed-g${GENERATOR_VERSION}-${lines}.jsonl`);
  if (existsSync(path)) return path;
  const header = {
    type: "session",
    version: 3,
    id: "0199aaaa-0000-7000-8000-00000000bad1",
    timestamp: MALFORMED_TIME,
    cwd: "/home/dev/bench",
  };
  const message = (id: string, parentId: string | null, text: string) => ({
    type: "message",
    id,
    parentId,
    timestamp: MALFORMED_TIME,
    message: { role: "user", content: [{ type: "text", text }], timestamp: 0 },
  });
  function* all(): Generator<string> {
    yield JSON.stringify(header);
    yield JSON.stringify(message("a0000001", null, "before"));
    for (let i = 0; i < lines; i++) yield "{";
    yield JSON.stringify(message("a0000002", "a0000001", "after"));
  }
  writeLines(path, all());
  return path;
}

export interface StoreSpec {
  sessions: number;
  projects: number;
  /** Approximate total size of all files. */
  totalBytes: number;
  seed: number;
}

/** pi's directory name for a cwd: `--` + path with separators replaced by `-` + `--`. */
export function cwdDirName(cwd: string): string {
  return `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;
}

/**
 * A session store in pi's layout (`<root>/--<cwd>--/<timestamp>_<uuid>.jsonl`) with sizes
 * spread log-normally (a few big sessions, many small). Returns the sessions root directory.
 */
export function ensureStore(spec: StoreSpec, dataDir = DATA_DIR): string {
  const key = `store-g${GENERATOR_VERSION}-n${spec.sessions}-p${spec.projects}-b${spec.totalBytes}-s${spec.seed}`;
  // `<key>/sessions/` so that `<key>` can serve as pi's agent dir (PI_CODING_AGENT_DIR).
  const root = join(dataDir, key, "sessions");
  const marker = join(dataDir, `${key}.complete`);
  if (existsSync(marker)) return root;
  const r = mulberry32(spec.seed);
  // Box-Muller normal -> log-normal weights.
  const weights: number[] = [];
  for (let i = 0; i < spec.sessions; i++) {
    const u = Math.max(r(), 1e-9);
    const v = r();
    weights.push(Math.exp(1.1 * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v)));
  }
  const sum = weights.reduce((a, b) => a + b, 0);
  for (let i = 0; i < spec.sessions; i++) {
    const project = i % spec.projects;
    const cwd = `/home/dev/projects/app-${project}`;
    const target = Math.max(2000, Math.floor((spec.totalBytes * (weights[i] as number)) / sum));
    const lines = sessionLines({ seed: spec.seed * 100003 + i, targetBytes: target, cwd });
    // The first line is the header; its timestamp and id name the file, as pi does.
    const first = lines.next();
    if (first.done) continue;
    const header = JSON.parse(first.value) as { id: string; timestamp: string };
    const name = `${header.timestamp.replace(/[:.]/g, "-")}_${header.id}.jsonl`;
    const all = (function* () {
      yield first.value;
      yield* lines;
    })();
    writeLines(join(root, cwdDirName(cwd), name), all);
  }
  writeFileSync(marker, `${new Date().toISOString()}\n`);
  return root;
}
