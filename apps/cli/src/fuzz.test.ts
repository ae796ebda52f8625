/**
 * The fuzz target of the readers and of every CLI output mode (issue 16): generated files
 * (valid v1/v2/v3 sessions, testkit's damaged ones, random bytes, control characters and
 * bidi overrides in every field, invalid UTF-8, values nested thousands deep, long chains,
 * huge lines, and mixes of them) are written to a store, and `fuzz-child.ts` (built to
 * `lib/`) runs every read API and every read-only output mode on each, checking that nothing
 * throws, no raw control character reaches human output and `--json` parses (see its header).
 *
 * Each case is held to a time limit by killing the child: a hang fails the test. Cases are
 * drawn with fast-check (`FC_SEED` replays a run; the seed is printed on failure); the number
 * of cases is CI-sized by default, `PI_SESSION_FUZZ_CASES` asks for more (CONTRIBUTING.md).
 * @module-tag processes
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import {
  arbCorruptedFile,
  arbSessionV1,
  arbSessionV2,
  arbSessionV3,
  deepChain,
  fcOptions,
  toBytes,
  toJsonl,
} from "@pi-session/testkit";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";

const CHILD = resolve(dirname(fileURLToPath(import.meta.url)), "..", "lib", "fuzz-child.js");
/** Cases per run: CI-sized by default. */
const CASES = Number(process.env.PI_SESSION_FUZZ_CASES ?? 40);
/** Far beyond what any step (the read APIs of a case, or one command) needs on a busy machine: a hang. */
const CASE_LIMIT_MS = Number(process.env.PI_SESSION_FUZZ_CASE_MS ?? 60_000);
/** Bigger inputs when more cases are asked for (a long run can afford them). */
const LONG = CASES > 100;

const enc = new TextEncoder();
const NL = Uint8Array.of(0x0a);

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const lines = (parts: readonly (string | Uint8Array)[]): Uint8Array =>
  concat(parts.flatMap((p) => [typeof p === "string" ? enc.encode(p) : p, NL]));

const HEADER = JSON.stringify({
  type: "session",
  version: 3,
  id: "0199ffff-0000-7000-8000-000000000001",
  timestamp: "2026-11-02T09:00:00.000Z",
  cwd: "/home/dev/fuzz",
});

/** Characters terminals act on, and text around them. */
const arbHostileString = fc
  .array(
    fc.oneof(
      fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c)),
      fc.integer({ min: 0x7f, max: 0x9f }).map((c) => String.fromCharCode(c)),
      fc.constantFrom(
        "\u202a",
        "\u202b",
        "\u202d",
        "\u202e",
        "\u2066",
        "\u2067",
        "\u2068",
        "\u2069",
        "\ud800",
      ),
      fc.constantFrom(
        "\x1b[2J",
        "\x1b]52;c;SGVsbG8=\x07",
        "\x1b]8;;http://x\x1b\\y\x1b]8;;\x1b\\",
        "\r",
        "\uFDD0",
      ),
      fc.string({ maxLength: 8 }),
    ),
    { maxLength: 12 },
  )
  .map((parts) => parts.join(""));

/** Replaces string values of a JSON value by hostile strings (some of them), keys too (rarely). */
function hostile(value: unknown, pick: () => string | undefined): unknown {
  if (typeof value === "string") return pick() ?? value;
  if (Array.isArray(value)) return value.map((v) => hostile(v, pick));
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = hostile(v, pick);
    return out;
  }
  return value;
}

/** A valid session whose strings (text, names, labels, cwd, ids...) are partly hostile. */
const arbHostileSession = fc
  .tuple(
    arbSessionV3({ maxEntries: 12 }),
    fc.array(arbHostileString, { minLength: 1, maxLength: 30 }),
    fc.nat(),
  )
  .map(([session, strings, seed]) => {
    let i = seed;
    const pick = () => (i++ % 3 === 0 ? strings[i % strings.length] : undefined);
    const header = {
      ...(hostile(session.header, pick) as object),
      type: "session",
      version: 3,
      id: session.header.id,
    };
    return {
      kind: "hostile strings",
      bytes: toBytes({ header, entries: session.entries.map((e) => hostile(e, pick)) }),
    };
  });

/** JSON text nested `depth` deep (arrays and objects by turns) around `inner`. */
function nestedJson(depth: number, inner: string): string {
  let open = "";
  let close = "";
  for (let i = 0; i < depth; i++) {
    open += i % 2 === 0 ? '{"k":[' : "[";
    close = (i % 2 === 0 ? "]}" : "]") + close;
  }
  return open + inner + close;
}

/** Where a deep value goes: a content block, tool arguments, a label, a name, custom data, the header. */
const DEEP_PLACES = [
  (deep: string) =>
    `{"type":"message","id":"d1","parentId":null,"timestamp":"2026-11-02T09:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"hi"},{"type":"deep","x":${deep}}],"timestamp":1}}`,
  (deep: string) =>
    `{"type":"message","id":"d2","parentId":"d1","timestamp":"2026-11-02T09:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"t","name":"bash","arguments":${deep}}],"provider":"p","model":"m","stopReason":"toolUse","timestamp":2}}`,
  (deep: string) =>
    `{"type":"label","id":"d3","parentId":"d2","timestamp":"2026-11-02T09:00:03.000Z","targetId":"d1","label":${deep}}`,
  (deep: string) =>
    `{"type":"session_info","id":"d4","parentId":"d3","timestamp":"2026-11-02T09:00:04.000Z","name":${deep}}`,
  (deep: string) =>
    `{"type":"custom","id":"d5","parentId":"d4","timestamp":"2026-11-02T09:00:05.000Z","customType":"x","data":${deep}}`,
  (deep: string) =>
    `{"type":"message","id":"d6","parentId":"d5","timestamp":"2026-11-02T09:00:06.000Z","message":{"role":"toolResult","toolCallId":"t","toolName":"bash","content":${deep},"details":${deep},"isError":false,"timestamp":3}}`,
];

const arbDeep = fc
  .tuple(
    fc.integer({ min: 1_000, max: LONG ? 100_000 : 12_000 }),
    fc.subarray([0, 1, 2, 3, 4, 5], { minLength: 1 }),
    fc.boolean(),
  )
  .map(([depth, places, inHeader]) => {
    const deep = nestedJson(depth, '"x"');
    const header = inHeader ? `${HEADER.slice(0, -1)},"extra":${deep}}` : HEADER;
    return {
      kind: `nested ${depth} deep at ${places.join(",")}${inHeader ? " and in the header" : ""}`,
      bytes: lines([header, ...places.map((p) => (DEEP_PLACES[p] as (d: string) => string)(deep))]),
    };
  });

/** Invalid UTF-8 sequences. */
const BAD_UTF8 = [
  [0x80],
  [0xff],
  [0xc3],
  [0xe2, 0x82],
  [0xc0, 0x80],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
];

/** A file with invalid bytes put at random places (inside strings or not). */
const arbInvalidUtf8 = fc
  .tuple(
    fc.oneof(arbSessionV3({ maxEntries: 10 }), arbSessionV2({ maxEntries: 10 })),
    fc.array(fc.tuple(fc.nat(), fc.nat(BAD_UTF8.length - 1)), { minLength: 1, maxLength: 6 }),
  )
  .map(([session, spots]) => {
    let bytes = toBytes(session);
    for (const [at, which] of spots) {
      const cut = at % bytes.length;
      bytes = concat([
        bytes.subarray(0, cut),
        Uint8Array.from(BAD_UTF8[which] as number[]),
        bytes.subarray(cut),
      ]);
    }
    return { kind: "invalid UTF-8 sprinkled", bytes };
  });

/** A huge line: one message of megabytes (text, or an escape-heavy string), sometimes with bad bytes. */
const arbHugeLine = fc
  .tuple(fc.integer({ min: 1, max: LONG ? 24 : 3 }), fc.constantFrom("a", "\\u001b[2J", "é\\n"), fc.boolean())
  .map(([mb, unit, bad]) => {
    const text = unit.repeat(Math.ceil((mb * 1024 * 1024) / unit.length));
    const line = `{"type":"message","id":"h1","parentId":null,"timestamp":"2026-11-02T09:00:01.000Z","message":{"role":"user","content":"${text}","timestamp":1}}`;
    const bytes = enc.encode(line);
    const body = bad ? concat([bytes.subarray(0, 100), Uint8Array.of(0xff), bytes.subarray(100)]) : bytes;
    return {
      kind: `a line of ${mb} MB (${JSON.stringify(unit)})${bad ? " with a bad byte" : ""}`,
      bytes: lines([HEADER, body]),
    };
  });

/** Random bytes, alone or after a valid header (so that the commands go further). */
const arbRandomBytes = fc.tuple(fc.uint8Array({ maxLength: 4096 }), fc.boolean()).map(([bytes, header]) => ({
  kind: `random bytes${header ? " after a header" : ""}`,
  bytes: header ? concat([enc.encode(HEADER), NL, bytes]) : bytes,
}));

/** Random text lines: JSON-ish fragments, control characters, brackets. */
const arbRandomLines = fc
  .array(
    fc.oneof(
      fc.string({ unit: "binary", maxLength: 80 }),
      fc.constantFrom(
        "{",
        "}",
        "[",
        "[1]",
        "null",
        "0",
        '""',
        '{"type":"session"}',
        '{"type":"message"}',
        "{}",
      ),
      fc.json({ maxDepth: 6 }),
      arbHostileString,
    ),
    { maxLength: 40 },
  )
  .map((parts) => ({ kind: "random lines", bytes: lines([HEADER, ...parts]) }));

/** Pieces of several kinds, line by line. */
const arbMix = fc
  .tuple(
    arbSessionV3({ maxEntries: 8 }),
    fc.array(fc.oneof(arbRandomLines, arbInvalidUtf8, arbHostileSession), { minLength: 1, maxLength: 3 }),
  )
  .map(([session, others]) => ({
    kind: `a session mixed with ${others.map((o) => o.kind).join(", ")}`,
    bytes: concat([toBytes(session), ...others.map((o) => o.bytes)]),
  }));

const arbCase: fc.Arbitrary<{ kind: string; bytes: Uint8Array }> = fc.oneof(
  fc
    .oneof(
      arbSessionV3({ maxEntries: 20 }),
      arbSessionV2({ maxEntries: 20 }),
      arbSessionV1({ maxEntries: 20 }),
    )
    .map((s) => ({ kind: `a valid v${s.version} session`, bytes: enc.encode(toJsonl(s)) })),
  arbCorruptedFile({ maxEntries: 16 }).map((c) => ({ kind: c.description, bytes: c.bytes })),
  arbHostileSession,
  arbDeep,
  arbInvalidUtf8,
  arbRandomBytes,
  arbRandomLines,
  arbMix,
  { arbitrary: arbHugeLine, weight: 1 },
  {
    arbitrary: fc
      .integer({ min: 100, max: LONG ? 50_000 : 3_000 })
      .map((n) => ({ kind: `a chain of ${n} entries`, bytes: toBytes(deepChain(n)) })),
    weight: 1,
  },
);

interface ChildReport {
  done: number | "store";
  failures: string[];
}

/** Runs the child on the manifest; rejects when a case takes longer than the limit (killed). */
function runChild(
  manifest: string,
  describeCase: (index: number | "store") => string,
): Promise<ChildReport[]> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [CHILD, manifest], { stdio: ["ignore", "pipe", "pipe"] });
    const reports: ChildReport[] = [];
    let current: number | "store" | undefined;
    let step = "";
    let stderr = "";
    let timer: NodeJS.Timeout | undefined;
    let killed = false;
    const where = () =>
      current === undefined ? "starting" : `case ${String(current)} (${describeCase(current)}), ${step}`;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        killed = true;
        child.kill("SIGKILL");
        reject(new Error(`${where()}: no progress within ${CASE_LIMIT_MS} ms (a hang)`));
      }, CASE_LIMIT_MS);
    };
    arm();
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    createInterface({ input: child.stdout }).on("line", (line) => {
      const message = JSON.parse(line) as { start?: number | "store"; step?: string } & Partial<ChildReport>;
      if (message.start !== undefined) {
        current = message.start;
        step = "the read APIs";
      }
      if (message.step !== undefined) step = message.step;
      if (message.done !== undefined) reports.push(message as ChildReport);
      arm();
    });
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolvePromise(reports);
      else if (!killed)
        reject(new Error(`the fuzz child exited ${code ?? signal}, ${where()}: ${stderr.slice(0, 2000)}`));
    });
  });
}

let home: string | undefined;
afterAll(() => {
  if (home) rmSync(home, { recursive: true, force: true });
});

describe("fuzz: readers and every CLI output mode on generated files", () => {
  // A backstop only: each case has its own limit (above).
  const timeout = Math.max(600_000, CASES * 30_000);
  it("nothing throws, nothing hangs, no raw control character reaches a terminal, --json parses", {
    timeout,
  }, async () => {
    expect(existsSync(CHILD), `${CHILD} missing: build the CLI first`).toBe(true);
    const options = fcOptions();
    const seed = options.seed ?? Date.now() ^ (Math.random() * 0x100000000);
    const cases = fc.sample(arbCase, { numRuns: CASES, seed });
    home = mkdtempSync(join(tmpdir(), "pi-session-fuzz-"));
    const root = join(home, "sessions");
    const paths = cases.map((c, i) => {
      const dir = join(root, `--case-${i}--`);
      mkdirSync(dir, { recursive: true });
      const path = join(
        dir,
        `2026-11-02T09-00-00-000Z_0199${String(i).padStart(4, "0")}-0000-7000-8000-000000000000.jsonl`,
      );
      writeFileSync(path, c.bytes);
      return path;
    });
    const manifest = join(home, "manifest.json");
    writeFileSync(manifest, JSON.stringify({ root, home, cases: paths.map((path) => ({ path })) }));
    const describeCase = (i: number | "store") =>
      i === "store" ? "the whole store" : (cases[i]?.kind ?? "?");
    const reports = await runChild(manifest, describeCase);
    const failed = reports
      .filter((r) => r.failures.length > 0)
      .map((r) => `case ${String(r.done)} (${describeCase(r.done)}):\n    ${r.failures.join("\n    ")}`);
    expect(failed, `seed ${seed} (replay with FC_SEED=${seed})`).toEqual([]);
    expect(reports).toHaveLength(CASES + 1);
  });
});
