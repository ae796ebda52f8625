/**
 * The lazy open of a v3 file (decision 101) against the eager one, through `SessionManager`'s
 * public methods: random sessions (testkit's trees with structural faults: duplicate ids,
 * cycles, orphans, self-parents), then damage at the byte level (malformed and blank lines,
 * invalid UTF-8, escaped and duplicated keys, non-string ids and parents, huge lines, and
 * testkit's corruptions: torn tails, BOMs, CRLF, NUL padding, glued records). Every answer
 * must be the same, an error included. Then the same random appends, branches and reads on
 * both (issue 18: appends after a lazy open stay lazy): same answers after each step, same
 * bytes at the end. And a file rewritten in place between the open and the parse of an entry
 * gives `SessionFileRewrittenError`, never other data.
 */
import {
  copyFileSync,
  linkSync,
  mkdtempSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SessionFileRewrittenError } from "@pi-session/node-store";
import { arbCorruptedFile, arbSessionV3, fcOptions, scaledRuns, toJsonl } from "@pi-session/testkit";
import fc from "fast-check";
import { afterAll, describe, expect, it, vi } from "vitest";
import { SessionManager } from "./index.js";
import type { SessionEntry } from "./types.js";
import { setLazyOpen } from "./internal/lazy-session.js";

const dir = mkdtempSync(join(tmpdir(), "pi-sdk-lazy-"));
process.env.XDG_CACHE_HOME = join(dir, "cache");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
let lazyOpens = 0;

/** What a line-level fault does to one line (a JSON text) of the file. */
type LineFault = (line: string, k: number) => string;

const LINE_FAULTS: Record<string, LineFault> = {
  // Escaped keys the scanner reads: JSON.parse reads them as the plain keys.
  escapedId: (l) => l.replace('"id":', '"\\u0069d":'),
  escapedType: (l) => l.replace('"type":', '"t\\u0079pe":'),
  escapedParent: (l) => l.replace('"parentId":', '"parent\\u0049d":'),
  escapedRole: (l) => l.replace('"role":', '"r\\u006fle":'),
  escapedTypeValue: (l) =>
    l.replace(
      /"type":"([a-z_]+)"/,
      (_m, t: string) => `"type":"\\u00${t.charCodeAt(0).toString(16)}${t.slice(1)}"`,
    ),
  // Duplicate keys: JSON.parse keeps the last one.
  duplicateIdFirst: (l, k) => l.replace(/^\{/, `{"id":"dup${k % 3}",`),
  duplicateIdLast: (l, k) => l.replace(/\}$/, `,"id":"dup${k % 3}"}`),
  duplicateParent: (l) => l.replace(/\}$/, ',"parentId":null}'),
  duplicateType: (l) => l.replace(/\}$/, ',"type":"message"}'),
  duplicateRole: (l) => l.replace('"role":', '"role":"assistant","role":'),
  // Odd values of the keys.
  numericId: (l, k) => l.replace(/"id":"[^"]*"/, `"id":${k}`),
  numericParent: (l, k) => l.replace(/"parentId":("[^"]*"|null)/, `"parentId":${k}`),
  objectParent: (l) => l.replace(/"parentId":("[^"]*"|null)/, '"parentId":{"x":1}'),
  emptyParent: (l) => l.replace(/"parentId":("[^"]*"|null)/, '"parentId":""'),
  noParent: (l) => l.replace(/"parentId":("[^"]*"|null),/, ""),
  noType: (l) => l.replace(/"type":"[a-z_]+",/, ""),
  messageArray: (l) => l.replace(/"message":\{/, '"message":[{').replace(/\}\}$/, "}]}"),
  nonAsciiId: (l) => l.replace(/"id":"([^"]*)"/, '"id":"$1é"'),
  // Broken lines: pi skips them.
  truncated: (l) => l.slice(0, Math.max(1, l.length >> 1)),
  trailingGarbage: (l) => `${l} x`,
  leadingSpace: (l) => `  ${l}`,
  crlf: (l) => `${l}\r`,
  huge: (l) => l.replace(/\}$/, `,"pad":"${"x".repeat(300_000)}"}`),
  deep: (l) => l.replace(/\}$/, `,"deep":${"[".repeat(1100)}${"]".repeat(1100)}}`),
  array: (l) => `[${l}]`,
  blank: () => "",
  number: (_l, k) => String(k),
};
const FAULT_NAMES = Object.keys(LINE_FAULTS);

/** A line's bytes with invalid UTF-8 put inside its first string value. */
function withInvalidUtf8(line: string): Buffer {
  const bytes = Buffer.from(line);
  const at = line.indexOf('":"') + 3;
  if (at < 3) return Buffer.concat([bytes, Buffer.from([0xff])]);
  return Buffer.concat([bytes.subarray(0, at), Buffer.from([0xc3, 0x28, 0xff]), bytes.subarray(at)]);
}

interface FaultPlan {
  line: number;
  fault: string | "utf8";
}

const arbPlan = fc.array(fc.record({ line: fc.nat(), fault: fc.constantFrom(...FAULT_NAMES, "utf8") }), {
  maxLength: 6,
});

function damaged(jsonl: string, plan: readonly FaultPlan[]): Buffer {
  const lines = jsonl.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  const out: (string | Buffer)[] = lines.slice();
  plan.forEach(({ line, fault }, k) => {
    // Line 0 (the header) is damaged rarely: then the whole file is the eager path's.
    const at = lines.length === 0 ? 0 : line % lines.length;
    const text = lines[at] as string;
    out[at] = fault === "utf8" ? withInvalidUtf8(text) : (LINE_FAULTS[fault] as LineFault)(text, k);
  });
  return Buffer.concat(
    out.map((l) => Buffer.concat([typeof l === "string" ? Buffer.from(l) : l, Buffer.from("\n")])),
  );
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: string };

let current = "";

/** The outcome of `fn`; an error's message with the file's path made neutral (the copies differ). */
function attempt(fn: () => unknown): Outcome {
  try {
    return { ok: true, value: fn() };
  } catch (error) {
    return { ok: false, error: String((error as Error).message).replaceAll(current, "<file>") };
  }
}

/** Everything the read side answers, in one fixed order (lazy answers first, then the tree). */
function answers(path: string): Outcome[] {
  const out: Outcome[] = [];
  current = path;
  const opened = attempt(() => SessionManager.open(path, dir, "/cwd"));
  out.push(opened.ok ? { ok: true, value: "opened" } : opened);
  if (!opened.ok) return out;
  const sm = opened.value as SessionManager;
  // The test is about the lazy path: count how often it was taken (a protected field).
  if ((sm as unknown as { lazy?: unknown }).lazy !== undefined) lazyOpens++;
  const ids = new Set<string>(["nope", ""]);
  const ask = (fn: () => unknown): void => {
    out.push(attempt(fn));
  };
  ask(() => sm.getHeader());
  ask(() => sm.getSessionId());
  ask(() => sm.getLeafId());
  ask(() => sm.getLeafEntry());
  ask(() => sm.buildSessionContext());
  ask(() => sm.buildContextEntries());
  ask(() => sm.buildSessionProjection());
  ask(() => sm.getSessionName());
  ask(() => sm.getEntryCount());
  ask(() => sm.getBranch());
  const entries = sm.getEntries();
  out.push({ ok: true, value: entries });
  for (const e of entries) if (typeof e.id === "string") ids.add(e.id);
  for (const id of ids) {
    ask(() => sm.getEntry(id));
    ask(() => sm.getLabel(id));
    ask(() => sm.getBranch(id));
  }
  // What the lazy session answers by becoming the eager one.
  ask(() => sm.getTree());
  for (const id of ids) ask(() => sm.getChildren(id));
  ask(() => sm.getEntries());
  sm.close();
  return out;
}

/** The answers of the eager and the lazy open of `bytes` (each on its own copy). */
function both(bytes: Uint8Array): { eager: Outcome[]; lazy: Outcome[] } {
  const base = join(dir, `s${n++}`);
  writeFileSync(`${base}-e.jsonl`, bytes);
  copyFileSync(`${base}-e.jsonl`, `${base}-l.jsonl`);
  setLazyOpen(false);
  let eager: Outcome[];
  try {
    eager = answers(`${base}-e.jsonl`);
  } finally {
    setLazyOpen(true);
  }
  return { eager, lazy: answers(`${base}-l.jsonl`) };
}

describe("lazy open = eager open", () => {
  it("on random sessions with structural faults and damaged lines", () => {
    fc.assert(
      fc.property(
        arbSessionV3({ maxEntries: 30, faults: true }),
        fc.boolean(),
        arbPlan,
        (session, keepHeader, plan) => {
          const usable = keepHeader ? plan.map((p) => ({ ...p, line: p.line === 0 ? 1 : p.line })) : plan;
          const { eager, lazy } = both(damaged(toJsonl(session), usable));
          expect(lazy).toEqual(eager);
        },
      ),
      fcOptions({ numRuns: scaledRuns(60) }),
    );
    // Most files keep a v3 header and end in "\n": the lazy path must have served them.
    expect(lazyOpens).toBeGreaterThan(scaledRuns(60) / 3);
  });

  it("on testkit's corrupted files (torn tail, BOM, CRLF, NUL padding, glued records, ...)", () => {
    fc.assert(
      fc.property(arbCorruptedFile({ maxEntries: 20 }), (file) => {
        const { eager, lazy } = both(file.bytes);
        expect(lazy, file.description).toEqual(eager);
      }),
      fcOptions({ numRuns: scaledRuns(60) }),
    );
  });

  it("returns the same entry object each time, and getEntries keeps them", () => {
    const path = join(dir, "same.jsonl");
    writeFileSync(
      path,
      `${JSON.stringify({ type: "session", version: 3, id: "s", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/c" })}\n` +
        `${JSON.stringify({ type: "message", id: "a", parentId: null, timestamp: "2026-01-01T00:00:01.000Z", message: { role: "user", content: "hi", timestamp: 1 } })}\n`,
    );
    const sm = SessionManager.open(path);
    const first = sm.getEntry("a");
    expect(sm.getEntry("a")).toBe(first);
    expect(sm.getLeafEntry()).toBe(first);
    expect(sm.getEntries()[0]).toBe(first);
    expect(sm.getTree()[0]?.entry).toBe(first);
  });
});

describe("getEntries after reads that parsed some entries", () => {
  it("returns the eager list, holding the very objects the reads returned", () => {
    // Sessions long enough for the reads to go through several read windows, with lines in
    // several scripts and sizes; the reads parse a random part of them first.
    const texts = ["ascii text ", "é", "€ ", "😀", "\u2028"];
    fc.assert(
      fc.property(
        arbSessionV3({ maxEntries: 30, faults: true }),
        fc.array(fc.record({ text: fc.constantFrom(...texts), chars: fc.nat({ max: 30_000 }) }), {
          minLength: 1,
          maxLength: 8,
        }),
        arbPlan,
        fc.array(fc.oneof(fc.nat(), fc.constantFrom(-1, -2)), { maxLength: 12 }),
        (session, pads, plan, reads) => {
          const entries = session.entries.map((e, i) => {
            const pad = pads[i % pads.length] as { text: string; chars: number };
            return { ...e, pad: pad.text.repeat(pad.chars / pad.text.length) };
          });
          const bytes = damaged(toJsonl({ header: session.header, entries }), plan);
          const base = join(dir, `g${n++}`);
          writeFileSync(`${base}-e.jsonl`, bytes);
          copyFileSync(`${base}-e.jsonl`, `${base}-l.jsonl`);
          setLazyOpen(false);
          let eager: SessionManager | undefined;
          try {
            eager = SessionManager.open(`${base}-e.jsonl`, dir, "/cwd");
          } catch {
            // A file the eager open refuses: the lazy one must refuse it too.
          } finally {
            setLazyOpen(true);
          }
          if (eager === undefined) {
            expect(() => SessionManager.open(`${base}-l.jsonl`, dir, "/cwd")).toThrow();
            return;
          }
          const lazy = SessionManager.open(`${base}-l.jsonl`, dir, "/cwd");
          const ids = entries.map((e) => e.id);
          const seen: SessionEntry[] = [];
          for (const read of reads) {
            if (read === -1) seen.push(...lazy.buildContextEntries());
            else if (read === -2) seen.push(...lazy.getBranch());
            else {
              const entry = lazy.getEntry(ids[read % Math.max(1, ids.length)] ?? "");
              if (entry) seen.push(entry);
            }
          }
          const all = lazy.getEntries();
          expect(all).toEqual(eager.getEntries());
          for (const entry of seen) expect(all.includes(entry)).toBe(true);
          eager.close();
          lazy.close();
        },
      ),
      fcOptions({ numRuns: scaledRuns(40) }),
    );
  });
});

describe("a file rewritten in place after a lazy open", () => {
  const header = JSON.stringify({
    type: "session",
    version: 3,
    id: "s",
    timestamp: "2026-01-01T00:00:00.000Z",
    cwd: "/c",
  });
  const entry = (id: string, parentId: string | null, text: string) =>
    JSON.stringify({
      type: "message",
      id,
      parentId,
      timestamp: "2026-01-01T00:00:01.000Z",
      message: { role: "user", content: text, timestamp: 1 },
    });

  it("gives SessionFileRewrittenError, not another entry's data", () => {
    const path = join(dir, "rewritten.jsonl");
    const original = `${header}\n${entry("aaaa", null, "one")}\n${entry("bbbb", "aaaa", "two")}\n`;
    writeFileSync(path, original);
    const sm = SessionManager.open(path);
    // Same length, other ids: every byte range the open recorded now holds another line.
    writeFileSync(path, original.replaceAll("aaaa", "cccc").replaceAll("bbbb", "dddd"));
    expect(() => sm.getEntry("bbbb")).toThrow(SessionFileRewrittenError);
    expect(() => sm.getEntries()).toThrow(SessionFileRewrittenError);
  });

  it("gives SessionFileRewrittenError when lines moved (a shorter line before)", () => {
    const path = join(dir, "moved.jsonl");
    writeFileSync(path, `${header}\n${entry("aaaa", null, "one")}\n${entry("bbbb", "aaaa", "two")}\n`);
    const sm = SessionManager.open(path);
    writeFileSync(path, `${header}\n${entry("aaaa", null, "on")}\n${entry("bbbb", "aaaa", "two")}\n`);
    expect(() => sm.buildSessionContext()).toThrow(SessionFileRewrittenError);
  });

  it("reads on after close() from the same file, and refuses a replaced one", () => {
    const path = join(dir, "closed.jsonl");
    writeFileSync(path, `${header}\n${entry("aaaa", null, "one")}\n`);
    const sm = SessionManager.open(path);
    sm.close();
    expect(sm.getEntry("aaaa")?.id).toBe("aaaa");
    const other = SessionManager.open(path);
    other.close();
    // The old inode kept alive (a link), so the replacement cannot get its number.
    linkSync(path, `${path}.old`);
    writeFileSync(`${path}.new`, `${header}\n${entry("aaaa", null, "one")}\n`);
    renameSync(`${path}.new`, path);
    expect(() => other.getEntry("aaaa")).toThrow(SessionFileRewrittenError);
  });
});

/** One step of the random sequence applied to both managers; `pick` chooses a known id. */
type Step =
  | { op: "message"; role: "user" | "assistant"; text: string }
  | { op: "thinking" | "customEntry" | "sessionInfo"; text: string }
  | { op: "model"; text: string }
  | { op: "label"; pick: number; text: string | undefined }
  | { op: "compaction"; pick: number | null; text: string }
  | { op: "contextEdit"; pick: number; text: string | null }
  | { op: "customMessage"; text: string; display: boolean }
  | { op: "usage"; text: string }
  | { op: "branch" | "branchSummary"; pick: number }
  | { op: "resetLeaf" | "entries" };

const arbText = fc.string({ maxLength: 12 });
const arbPick = fc.nat({ max: 1000 });
const arbStep: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant("message" as const),
      role: fc.constantFrom("user" as const, "assistant" as const),
      text: arbText,
    }),
  },
  fc.record({
    op: fc.constantFrom("thinking" as const, "customEntry" as const, "sessionInfo" as const),
    text: arbText,
  }),
  fc.record({ op: fc.constant("model" as const), text: arbText }),
  fc.record({
    op: fc.constant("label" as const),
    pick: arbPick,
    text: fc.option(arbText, { nil: undefined }),
  }),
  fc.record({
    op: fc.constant("compaction" as const),
    pick: fc.option(arbPick, { nil: null }),
    text: arbText,
  }),
  fc.record({
    op: fc.constant("contextEdit" as const),
    pick: arbPick,
    text: fc.option(arbText, { nil: null }),
  }),
  fc.record({ op: fc.constant("customMessage" as const), text: arbText, display: fc.boolean() }),
  fc.record({ op: fc.constant("usage" as const), text: arbText }),
  {
    weight: 2,
    arbitrary: fc.record({ op: fc.constantFrom("branch" as const, "branchSummary" as const), pick: arbPick }),
  },
  fc.record({ op: fc.constantFrom("resetLeaf" as const, "entries" as const) }),
);

/**
 * Applies `step` to `sm`; ids are chosen from `known` (this side's ids). Entry ids are random,
 * so each side appends under its own ids: the caller maps the lazy side's to the eager side's.
 */
function applyStep(sm: SessionManager, step: Step, known: readonly string[]): unknown {
  const id = (pick: number): string => (known.length ? (known[pick % known.length] as string) : "nope");
  const usage = {
    input: 1,
    output: 2,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 3,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
  switch (step.op) {
    case "message":
      return step.role === "user"
        ? sm.appendMessage({ role: "user", content: step.text, timestamp: 1 })
        : sm.appendMessage({
            role: "assistant",
            content: [{ type: "text", text: step.text }],
            api: "x",
            provider: "p",
            model: `m${step.text}`,
            usage,
            stopReason: "stop",
            timestamp: 2,
          } as never);
    case "thinking":
      return sm.appendThinkingLevelChange(step.text || "high");
    case "customEntry":
      return sm.appendCustomEntry(`c${step.text}`, { text: step.text });
    case "sessionInfo":
      return sm.appendSessionInfo(step.text);
    case "model":
      return sm.appendModelChange("p", step.text);
    case "label":
      return sm.appendLabelChange(id(step.pick), step.text);
    case "compaction":
      return sm.appendCompaction(step.text, step.pick === null ? null : id(step.pick), 10);
    case "contextEdit":
      return sm.appendContextEdit(id(step.pick), step.text === null ? null : { content: step.text });
    case "customMessage":
      return sm.appendCustomMessageEntry(`c${step.text}`, step.text, step.display);
    case "usage":
      return sm.appendUsage("k", "p", step.text, usage as never);
    case "branch":
      return sm.branch(id(step.pick));
    case "branchSummary":
      return sm.branchWithSummary(id(step.pick), "summary");
    case "resetLeaf":
      return sm.resetLeaf();
    case "entries":
      return sm.getEntries().length;
  }
}

/** What the read side answers after a step (nothing that turns a lazy session eager). */
function readAnswers(sm: SessionManager, ids: readonly string[]): Outcome[] {
  const out: Outcome[] = [];
  const ask = (fn: () => unknown): void => {
    out.push(attempt(fn));
  };
  ask(() => sm.getLeafId());
  ask(() => sm.getLeafEntry());
  ask(() => sm.buildSessionContext());
  ask(() => sm.buildContextEntries());
  ask(() => sm.buildSessionProjection());
  ask(() => sm.getSessionName());
  ask(() => sm.getEntryCount());
  ask(() => sm.getBranch());
  for (const id of ids.slice(-4)) {
    ask(() => sm.getEntry(id));
    ask(() => sm.getLabel(id));
    ask(() => sm.getBranch(id));
  }
  return out;
}

/** The lazy side's ids written as the eager side's (in a JSON text of answers or a file). */
function mapIds(text: string, lazyToEager: ReadonlyMap<string, string>): string {
  let out = text;
  for (const [lazyId, eagerId] of lazyToEager) out = out.replaceAll(lazyId, eagerId);
  return out;
}

let lazyStayed = 0;

describe("appends after a lazy open = appends after an eager open", () => {
  it("on random damaged sessions and random appends, branches and reads", () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      fc.assert(
        fc.property(
          arbSessionV3({ maxEntries: 20, faults: true }),
          arbPlan,
          fc.array(arbStep, { minLength: 1, maxLength: 12 }),
          (session, plan, steps) => {
            const usable = plan.map((p) => ({ ...p, line: p.line === 0 ? 1 : p.line }));
            const base = join(dir, `a${n++}`);
            writeFileSync(`${base}-e.jsonl`, damaged(toJsonl(session), usable));
            copyFileSync(`${base}-e.jsonl`, `${base}-l.jsonl`);
            const open = (path: string, lazy: boolean): Outcome => {
              setLazyOpen(lazy);
              try {
                current = path;
                return attempt(() => SessionManager.open(path, dir, "/cwd"));
              } finally {
                setLazyOpen(true);
              }
            };
            const eagerOpen = open(`${base}-e.jsonl`, false);
            const lazyOpen = open(`${base}-l.jsonl`, true);
            expect(lazyOpen.ok).toBe(eagerOpen.ok);
            if (!eagerOpen.ok || !lazyOpen.ok) return;
            const eager = eagerOpen.value as SessionManager;
            const lazy = lazyOpen.value as SessionManager;
            const wasLazy = (lazy as unknown as { lazy?: unknown }).lazy !== undefined;
            // Known ids on each side, in the same order; appended ones map lazy -> eager.
            const eagerIds = eager
              .getEntries()
              .map((e) => e.id)
              .filter((id): id is string => typeof id === "string");
            const lazyIds = eagerIds.slice();
            const lazyToEager = new Map<string, string>();
            const norm = (value: unknown): string =>
              mapIds(JSON.stringify(value) ?? "undefined", lazyToEager);
            steps.forEach((step, k) => {
              vi.setSystemTime(Date.UTC(2026, 0, 1, 0, 0, k));
              current = `${base}-e.jsonl`;
              const eagerDid = attempt(() => applyStep(eager, step, eagerIds));
              current = `${base}-l.jsonl`;
              const lazyDid = attempt(() => applyStep(lazy, step, lazyIds));
              const appended = (did: Outcome): string | undefined => {
                if (!did.ok) return undefined;
                const value = did.value as unknown;
                if (typeof value === "string") return value;
                if (value && typeof value === "object" && "id" in value) return (value as { id: string }).id;
                return undefined;
              };
              const eagerId = appended(eagerDid);
              const lazyId = appended(lazyDid);
              if (eagerId !== undefined && lazyId !== undefined && step.op !== "entries") {
                lazyToEager.set(lazyId, eagerId);
                eagerIds.push(eagerId);
                lazyIds.push(lazyId);
              }
              expect(norm(lazyDid), `step ${k} ${step.op}`).toBe(norm(eagerDid));
              expect(norm(readAnswers(lazy, lazyIds)), `after step ${k} ${step.op}`).toBe(
                JSON.stringify(readAnswers(eager, eagerIds)),
              );
            });
            // Appends, branches and context reads never turned the lazy session eager.
            if (wasLazy) {
              expect((lazy as unknown as { lazy?: unknown }).lazy).toBeDefined();
              lazyStayed++;
            }
            // What only the eager session answers, then the whole list and the bytes.
            expect(norm(lazy.getTree())).toBe(JSON.stringify(eager.getTree()));
            for (let k = 0; k < eagerIds.length; k++) {
              expect(norm(lazy.getChildren(lazyIds[k] as string))).toBe(
                JSON.stringify(eager.getChildren(eagerIds[k] as string)),
              );
            }
            expect(norm(lazy.getEntries())).toBe(JSON.stringify(eager.getEntries()));
            eager.close();
            lazy.close();
            const lazyBytes = readFileSync(`${base}-l.jsonl`).toString("latin1");
            const eagerBytes = readFileSync(`${base}-e.jsonl`).toString("latin1");
            expect(mapIds(lazyBytes, lazyToEager)).toBe(eagerBytes);
          },
        ),
        fcOptions({ numRuns: scaledRuns(60) }),
      );
    } finally {
      vi.useRealTimers();
    }
    expect(lazyStayed).toBeGreaterThan(scaledRuns(60) / 3);
  });

  it("never parses an entry the appends, branches and context do not need", () => {
    const line = (id: string, parentId: string | null, text: string): string =>
      JSON.stringify({
        type: "message",
        id,
        parentId,
        timestamp: "2026-01-01T00:00:01.000Z",
        message: { role: "user", content: text, timestamp: 1 },
      });
    const head = JSON.stringify({
      type: "session",
      version: 3,
      id: "s",
      timestamp: "2026-01-01T00:00:00.000Z",
      cwd: "/c",
    });
    const side = line("bbbb", "aaaa", "a side branch nobody reads");
    const path = join(dir, "unreferenced.jsonl");
    writeFileSync(path, `${head}\n${line("aaaa", null, "one")}\n${side}\n${line("cccc", "aaaa", "three")}\n`);
    const sm = SessionManager.open(path);
    // Overwrite the side branch in place (same length): parsing it now fails loudly.
    const fd = openSync(path, "r+");
    writeSync(
      fd,
      Buffer.from(`{${"x".repeat(side.length - 2)}}`),
      0,
      side.length,
      head.length + 1 + line("aaaa", null, "one").length + 1,
    );
    const lastId = sm.appendMessage({ role: "user", content: "four", timestamp: 4 });
    sm.appendLabelChange("cccc", "mark");
    sm.branch("cccc");
    sm.appendSessionInfo("named");
    sm.resetLeaf();
    sm.branch(lastId);
    const id = sm.appendMessage({ role: "user", content: "five", timestamp: 5 });
    expect(sm.getBranch().map((e) => e.id)).toEqual(["aaaa", "cccc", lastId, id]);
    expect(sm.buildSessionContext().messages).toHaveLength(4);
    expect(sm.getLabel("cccc")).toBe("mark");
    expect(sm.getSessionName()).toBe("named");
    expect(sm.getEntryCount()).toBe(7);
    expect((sm as unknown as { lazy?: unknown }).lazy).toBeDefined();
    // The first call that needs every entry meets the overwritten line.
    expect(() => sm.getEntries()).toThrow(SessionFileRewrittenError);
    sm.close();
  });
});

describe("another process appends to a lazily opened session", () => {
  it("takes its entries in (turning eager then), keeps our leaf, and the branch goes on from it", () => {
    const head = JSON.stringify({
      type: "session",
      version: 3,
      id: "s",
      timestamp: "2026-01-01T00:00:00.000Z",
      cwd: "/c",
    });
    const msg = (id: string, parentId: string | null): string =>
      JSON.stringify({
        type: "message",
        id,
        parentId,
        timestamp: "2026-01-01T00:00:01.000Z",
        message: { role: "user", content: id, timestamp: 1 },
      });
    const path = join(dir, "foreign.jsonl");
    writeFileSync(path, `${head}\n${msg("aaaa", null)}\n${msg("bbbb", "aaaa")}\n`);
    const ours = SessionManager.open(path);
    const mine = ours.appendMessage({ role: "user", content: "mine", timestamp: 2 });
    expect((ours as unknown as { lazy?: unknown }).lazy).toBeDefined();
    const other = SessionManager.open(path);
    other.branch("aaaa");
    const theirs = other.appendMessage({ role: "user", content: "theirs", timestamp: 3 });
    other.close();
    const seen: string[] = [];
    ours.onForeignEntries((entries) => seen.push(...entries.map((e) => e.id)));
    const next = ours.appendMessage({ role: "user", content: "next", timestamp: 4 });
    expect(seen).toEqual([theirs]);
    expect(ours.getBranch().map((e) => e.id)).toEqual(["aaaa", "bbbb", mine, next]);
    expect(ours.getEntry(theirs)?.parentId).toBe("aaaa");
    expect(ours.getChildren("aaaa").map((e) => e.id)).toEqual(["bbbb", theirs]);
    ours.close();
    const reopened = SessionManager.open(path);
    expect(reopened.getEntries().map((e) => e.id)).toEqual(["aaaa", "bbbb", mine, theirs, next]);
    expect(reopened.getLeafId()).toBe(next);
    reopened.close();
  });
});
