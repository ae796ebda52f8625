/**
 * The lazy open of a v3 file (decision 101) against the eager one, through `SessionManager`'s
 * public methods: random sessions (testkit's trees with structural faults: duplicate ids,
 * cycles, orphans, self-parents), then damage at the byte level (malformed and blank lines,
 * invalid UTF-8, escaped and duplicated keys, non-string ids and parents, huge lines, and
 * testkit's corruptions: torn tails, BOMs, CRLF, NUL padding, glued records). Every answer
 * must be the same, an error included. And a file rewritten in place between the open and the
 * parse of an entry gives `SessionFileRewrittenError`, never other data.
 */
import { copyFileSync, linkSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SessionFileRewrittenError } from "@pi-session/node-store";
import { arbCorruptedFile, arbSessionV3, fcOptions, scaledRuns, toJsonl } from "@pi-session/testkit";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { SessionManager } from "./index.js";
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
