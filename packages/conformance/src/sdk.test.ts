/**
 * Differential test of `@pi-session/sdk`'s `SessionManager` against pi 1.6.0's: the same
 * random sequence of calls is applied to both, and after every call every observable is
 * compared (returned values, thrown messages, entries, leaf, branch, tree, labels, name,
 * context, counts; on disk: whether the file exists and its lines). Ids are random on both
 * sides, so ids are renamed by position (`#0`, `#1`, ... in each side's file order); the
 * clock is frozen and advanced in step (fake `Date`), so timestamps are compared as they are.
 *
 * The persisted variant then crosses over: pi reopens our file and we reopen pi's, both
 * carry on with the rest of the calls, and everything must still agree.
 *
 * Not compared, on purpose (apps/sdk/README.md "What differs"): `<file>.lock` and other
 * side files of our writer (lock, backups), file bytes of lines pi could never have written
 * the same way (none arise here: every line is a v3 entry both sides serialise), and
 * session ids/file names (random UUIDv7 on both sides; only their shape is checked).
 */
import { existsSync, readFileSync } from "node:fs";
import { basename } from "node:path";
import { SessionManager as OurSessionManager } from "@pi-session/sdk";
import {
  arbMessage,
  arbSessionV1,
  arbSessionV2,
  arbSessionV3,
  arbUsage,
  fcOptions,
  tempDir,
} from "@pi-session/testkit";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { IdCanon, assertSame, hasParentCycle, jsonCopy, withoutRetainedTail } from "./helpers.js";
import { type Json, type PiSessionManager, pi } from "./pi.js";

const TIMEOUT = 60_000;
const CWD = "/home/user/project";
const UNKNOWN = "nope0000";

// ---------------------------------------------------------------------------------------
// Operations

/** A reference to an entry by position in the manager's entries, or to an id no one has. */
type Ref = { kind: "at"; n: number } | { kind: "unknown" };

type Op =
  | { op: "appendMessage"; message: Json }
  | { op: "appendThinkingLevelChange"; level: string }
  | { op: "appendModelChange"; provider: string; modelId: string }
  | {
      op: "appendCompaction";
      summary: string;
      firstKept: Ref | null;
      tokensBefore: number;
      details?: unknown;
      fromHook?: boolean;
    }
  | { op: "appendCustomEntry"; customType: string; data?: unknown }
  | {
      op: "appendCustomMessageEntry";
      customType: string;
      content: unknown;
      display: boolean;
      details?: unknown;
    }
  | { op: "appendSessionInfo"; name: string }
  | { op: "appendLabelChange"; target: Ref; label: string | undefined }
  | { op: "appendContextEdit"; target: Ref; replacement: unknown }
  | { op: "appendUsage"; kind: string; provider: string; model: string; usage: Json; note?: string }
  | { op: "branch"; target: Ref }
  | { op: "resetLeaf" }
  | { op: "branchWithSummary"; target: Ref | null; summary: string; details?: unknown; fromHook?: boolean }
  | { op: "createBranchedSession"; target: Ref };

const arbRef: fc.Arbitrary<Ref> = fc.oneof(
  { arbitrary: fc.nat().map((n) => ({ kind: "at" as const, n })), weight: 9 },
  { arbitrary: fc.constant({ kind: "unknown" as const }), weight: 1 },
);
const arbWord = fc.constantFrom("alpha", "beta", "wip", "x");
const arbDetails = fc.option(fc.dictionary(fc.constantFrom("a", "b"), fc.nat({ max: 9 }), { maxKeys: 2 }), {
  nil: undefined,
});
const arbContent = fc.oneof(
  arbWord,
  fc.constant([{ type: "text", text: "block" }]),
  fc.constant([
    { type: "text", text: "t" },
    { type: "image", data: "AAAA", mimeType: "image/png" },
  ]),
);

const arbOp: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 10,
    arbitrary: fc
      .oneof(
        { arbitrary: arbMessage("user"), weight: 4 },
        { arbitrary: arbMessage("assistant"), weight: 4 },
        { arbitrary: arbMessage("toolResult"), weight: 2 },
        { arbitrary: arbMessage("custom"), weight: 1 },
        { arbitrary: arbMessage("bashExecution"), weight: 1 },
        { arbitrary: arbMessage("system"), weight: 1 },
      )
      .map((message) => ({ op: "appendMessage" as const, message: message as Json })),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom("off", "low", "high", "ultra")
      .map((level) => ({ op: "appendThinkingLevelChange" as const, level })),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(["anthropic", "claude-test"], ["openai", "gpt-5"])
      .map(([provider, modelId]) => ({
        op: "appendModelChange" as const,
        provider: provider!,
        modelId: modelId!,
      })),
  },
  {
    weight: 2,
    arbitrary: fc
      .record({
        summary: arbWord,
        firstKept: fc.option(arbRef, { nil: null }),
        tokensBefore: fc.nat({ max: 1000 }),
        details: arbDetails,
        fromHook: fc.option(fc.boolean(), { nil: undefined }),
      })
      .map((r) => ({ op: "appendCompaction" as const, ...r })),
  },
  {
    weight: 1,
    arbitrary: fc
      .record({ customType: arbWord, data: arbDetails })
      .map((r) => ({ op: "appendCustomEntry" as const, ...r })),
  },
  {
    weight: 1,
    arbitrary: fc
      .record({ customType: arbWord, content: arbContent, display: fc.boolean(), details: arbDetails })
      .map((r) => ({ op: "appendCustomMessageEntry" as const, ...r })),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom("name", "", "   ", "two\r\nlines ", " padded ")
      .map((name) => ({ op: "appendSessionInfo" as const, name })),
  },
  {
    weight: 2,
    arbitrary: fc
      .record({ target: arbRef, label: fc.constantFrom("first", "second", "", undefined, " ") })
      .map((r) => ({ op: "appendLabelChange" as const, ...r })),
  },
  {
    weight: 2,
    arbitrary: fc
      .record({
        target: arbRef,
        replacement: fc.oneof(
          fc.constant(null),
          arbContent.map((content) => ({ content })),
          fc.constantFrom("text", { content: 5 }, {}, { content: null }),
        ),
      })
      .map((r) => ({ op: "appendContextEdit" as const, ...r })),
  },
  {
    weight: 1,
    arbitrary: fc
      .record({
        kind: fc.constantFrom("compaction", "title"),
        usage: arbUsage,
        note: fc.option(fc.constantFrom("n", ""), { nil: undefined }),
      })
      .map((r) => ({
        op: "appendUsage" as const,
        kind: r.kind,
        provider: "anthropic",
        model: "claude-test",
        usage: r.usage as unknown as Json,
        ...(r.note === undefined ? {} : { note: r.note }),
      })),
  },
  { weight: 2, arbitrary: arbRef.map((target) => ({ op: "branch" as const, target })) },
  { weight: 1, arbitrary: fc.constant({ op: "resetLeaf" as const }) },
  {
    weight: 2,
    arbitrary: fc
      .record({
        target: fc.option(arbRef, { nil: null }),
        summary: fc.constantFrom("went elsewhere", ""),
        details: arbDetails,
        fromHook: fc.option(fc.boolean(), { nil: undefined }),
      })
      .map((r) => ({ op: "branchWithSummary" as const, ...r })),
  },
  { weight: 1, arbitrary: arbRef.map((target) => ({ op: "createBranchedSession" as const, target })) },
);

const arbOps = fc.array(arbOp, { minLength: 1, maxLength: 24 });
/** Shorter sequences for the persisted run (two phases, four managers, file reads each step). */
const arbShortOps = fc.array(arbOp, { minLength: 1, maxLength: 14 });

// ---------------------------------------------------------------------------------------
// Running one side

/** One implementation under test, with what is needed to canonicalise its results. */
interface Side {
  m: PiSessionManager;
  /** The session directory (persisted runs), replaced by `<dir>` in paths. */
  dir?: string;
  /** Session ids seen, in order, replaced by `S0`, `S1`, ... in paths and headers. */
  sessions: string[];
  /** Entry ids seen, in order of first appearance (kept across steps, so dropped ids keep their names). */
  canon: IdCanon;
}

function refId(m: PiSessionManager, ref: Ref): string {
  if (ref.kind === "unknown") return UNKNOWN;
  const entries = m.getEntries();
  return entries.length === 0 ? UNKNOWN : (entries[ref.n % entries.length]!.id as string);
}

function call(m: PiSessionManager, op: Op): unknown {
  // Each side gets its own copy of every argument: pi keeps references to what it is given.
  const o = jsonCopy(op) as Op;
  switch (o.op) {
    case "appendMessage":
      return m.appendMessage(o.message);
    case "appendThinkingLevelChange":
      return m.appendThinkingLevelChange(o.level);
    case "appendModelChange":
      return m.appendModelChange(o.provider, o.modelId);
    case "appendCompaction":
      return m.appendCompaction(
        o.summary,
        o.firstKept === null ? null : refId(m, o.firstKept),
        o.tokensBefore,
        o.details,
        o.fromHook,
      );
    case "appendCustomEntry":
      return m.appendCustomEntry(o.customType, o.data);
    case "appendCustomMessageEntry":
      return m.appendCustomMessageEntry(o.customType, o.content, o.display, o.details);
    case "appendSessionInfo":
      return m.appendSessionInfo(o.name);
    case "appendLabelChange":
      return m.appendLabelChange(refId(m, o.target), o.label);
    case "appendContextEdit":
      return m.appendContextEdit(refId(m, o.target), o.replacement as { content: unknown } | null);
    case "appendUsage":
      return m.appendUsage(o.kind, o.provider, o.model, o.usage, o.note);
    case "branch":
      return m.branch(refId(m, o.target));
    case "resetLeaf":
      return m.resetLeaf();
    case "branchWithSummary":
      return m.branchWithSummary(
        o.target === null ? null : refId(m, o.target),
        o.summary,
        o.details,
        o.fromHook,
      );
    case "createBranchedSession":
      return m.createBranchedSession(refId(m, o.target));
  }
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: string };

function attempt(m: PiSessionManager, op: Op): Outcome {
  try {
    return { ok: true, value: call(m, op) };
  } catch (e) {
    const err = e as Error;
    return { ok: false, error: `${err.name}: ${err.message}` };
  }
}

/** Replaces ids, the session dir and session ids in a string. */
function canonText(side: Side, canon: IdCanon, text: string): string {
  let out = text;
  if (side.dir !== undefined) out = out.split(side.dir).join("<dir>");
  side.sessions.forEach((s, i) => {
    out = out.split(s).join(`S${i}`);
  });
  for (const [id, name] of canon.names) out = out.split(id).join(name);
  return out;
}

function noteSession(side: Side): void {
  const id = side.m.getSessionId();
  if (!side.sessions.includes(id)) side.sessions.push(id);
}

/** Everything a caller can observe, with ids renamed by position (`skip`: keys left out on purpose). */
function observe(side: Side, outcome: Outcome, skip: readonly string[] = []): Record<string, unknown> {
  const { m } = side;
  noteSession(side);
  const entries = m.getEntries();
  const canon = side.canon.register(entries);
  const c = <T>(v: T) => canon.apply(v);
  const ids = entries.map((e) => e.id as string);
  const header = m.getHeader();
  const file = m.getSessionFile();
  // Thunks, so that an observable left out on purpose is not even computed (pi may not return).
  const all: Record<string, () => unknown> = {
    outcome: () =>
      outcome.ok
        ? {
            ok: true,
            value:
              typeof outcome.value === "string"
                ? canonText(side, canon, outcome.value)
                : outcome.value === undefined
                  ? undefined
                  : c(outcome.value),
          }
        : { ok: false, error: canonText(side, canon, outcome.error) },
    entries: () => c(entries),
    entryCount: () => m.getEntryCount(),
    leaf: () => canon.id(m.getLeafId()),
    leafEntry: () => c(m.getLeafEntry()),
    branch: () => c(m.getBranch()),
    branchFromEach: () => ids.map((id) => c(m.getBranch(id))),
    children: () => ids.map((id) => c(m.getChildren(id))),
    // The same, order aside (for sessions with duplicated ids, whose order has its own test).
    childrenSets: () =>
      ids.map((id) =>
        c(m.getChildren(id))
          .map((e) => JSON.stringify(e))
          .sort(),
      ),
    tree: () => c(m.getTree()),
    labels: () => [...ids, UNKNOWN].map((id) => m.getLabel(id)),
    name: () => m.getSessionName(),
    contextEntries: () => c(m.buildContextEntries()),
    projection: () => c(m.buildSessionProjection()),
    context: () => c(m.buildSessionContext()),
    header: () =>
      header === null ? null : JSON.parse(canonText(side, canon, JSON.stringify({ ...header, id: "H" }))),
    sessionIdShape: () =>
      /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(m.getSessionId()),
    cwd: () => m.getCwd(),
    persisted: () => m.isPersisted(),
    sessionFile: () => (file === undefined ? undefined : canonText(side, canon, file)),
    fileLines: () => (file !== undefined && existsSync(file) ? fileLines(side, file) : null),
  };
  const result: Record<string, unknown> = {};
  for (const [k, get] of Object.entries(all)) if (!skip.includes(k)) result[k] = get();
  return result;
}

/** The file's lines, parsed, ids renamed by the file's own order; plus their key order. */
function fileLines(side: Side, file: string): { values: Json[]; keyOrder: string[] } {
  const lines = readFileSync(file, "utf8").split("\n");
  expect(lines.pop(), `${basename(file)} ends with a newline`).toBe("");
  const values = lines.map((l) => JSON.parse(l) as Json);
  const canon = new IdCanon().register(values.slice(1));
  const canonical = values.map((v, i) =>
    i === 0
      ? (JSON.parse(canonText(side, canon, JSON.stringify({ ...v, id: "H" }))) as Json)
      : canon.apply(v),
  );
  return { values: canonical, keyOrder: canonical.map((v) => JSON.stringify(v)) };
}

// ---------------------------------------------------------------------------------------
// The clock: frozen, and advanced in step for both sides.

let now = Date.UTC(2026, 0, 1);
beforeAll(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
});
afterAll(() => {
  vi.useRealTimers();
});
// One millisecond per call: distinct timestamps, and our writer's lock lease (which reads the
// clock to bound how long it holds the lock) sees time pass at a realistic pace.
function tick(): void {
  now += 1;
  vi.setSystemTime(now);
}

/** Applies `ops` to both sides, comparing after each call. */
function runBoth(a: Side, b: Side, ops: readonly Op[], label: string, skip: readonly string[] = []): void {
  for (const [i, op] of ops.entries()) {
    tick();
    const ra = attempt(a.m, op);
    const rb = attempt(b.m, op);
    assertSame(
      observe(b, rb, skip),
      observe(a, ra, skip),
      `${label}: after call #${i} ${JSON.stringify(op).slice(0, 160)}`,
    );
  }
}

const ours = OurSessionManager as unknown as {
  inMemory(cwd?: string, options?: undefined, entries?: Json[]): PiSessionManager;
  create(cwd: string, dir: string): PiSessionManager;
  open(path: string, dir?: string): PiSessionManager;
};

describe("SessionManager vs pi 1.6.0", () => {
  it(
    "in memory: every call gives the same observable results",
    () => {
      fc.assert(
        fc.property(arbOps, (ops) => {
          tick();
          const a: Side = { m: pi.SessionManager.inMemory(CWD), sessions: [], canon: new IdCanon() };
          const b: Side = { m: ours.inMemory(CWD), sessions: [], canon: new IdCanon() };
          assertSame(
            observe(b, { ok: true, value: undefined }),
            observe(a, { ok: true, value: undefined }),
            "new",
          );
          runBoth(a, b, ops, "in memory");
        }),
        fcOptions(),
      );
    },
    TIMEOUT,
  );

  it(
    "preloaded sessions (inMemory with v1, v2 and v3 entries, orphans included), then more calls",
    () => {
      // Excluded: parent cycles (pi never returns from getBranch) and duplicate ids (pi's
      // getTree puts the one node of a duplicated id under several parents; ours gives each
      // line its own node): both documented in apps/sdk/README.md. `retainedTail` is our
      // documented extension.
      const noDuplicates = (entries: readonly Json[]) =>
        new Set(entries.map((e) => e.id)).size === entries.length;
      const arbLines = fc
        .oneof(
          arbSessionV3({ maxEntries: 25, faults: true }),
          arbSessionV3({ maxEntries: 25, shuffle: true }),
          arbSessionV2({ maxEntries: 25 }),
          arbSessionV1({ maxEntries: 25 }),
        )
        .map((s) => [{ ...s.header }, ...withoutRetainedTail(jsonCopy(s.entries) as unknown as Json[])])
        .filter((lines) => !hasParentCycle(lines.slice(1)) && noDuplicates(lines.slice(1)));
      fc.assert(
        fc.property(arbLines, fc.array(arbOp, { maxLength: 8 }), (lines, ops) => {
          tick();
          const a: Side = {
            m: pi.SessionManager.inMemory(CWD, undefined, jsonCopy(lines)),
            sessions: [],
            canon: new IdCanon(),
          };
          const b: Side = {
            m: ours.inMemory(CWD, undefined, jsonCopy(lines)),
            sessions: [],
            canon: new IdCanon(),
          };
          const none: Outcome = { ok: true, value: undefined };
          assertSame(observe(b, none), observe(a, none), "after loading");
          runBoth(a, b, ops, "preloaded");
        }),
        fcOptions(),
      );
    },
    TIMEOUT,
  );

  it("getChildren with a duplicated id: pi's order (the id map's insertion order)", () => {
    // pi scans its id map: one entry per id (the last line with it), in the order the id was
    // first seen. Here "x" is first seen before "c", so pi lists the later "x" line first.
    const t = "2025-01-01T00:00:00.000Z";
    const lines: Json[] = [
      { type: "session", version: 3, id: "s", timestamp: t, cwd: CWD },
      { type: "custom", id: "x", parentId: null, timestamp: t, customType: "a" },
      { type: "custom", id: "p", parentId: null, timestamp: t, customType: "a" },
      { type: "custom", id: "c", parentId: "p", timestamp: t, customType: "a" },
      { type: "custom", id: "x", parentId: "p", timestamp: t, customType: "a" },
    ];
    const ids = (m: PiSessionManager) => m.getChildren("p").map((e) => e.id);
    expect(ids(pi.SessionManager.inMemory(CWD, undefined, jsonCopy(lines)))).toEqual(["x", "c"]);
    expect(ids(ours.inMemory(CWD, undefined, jsonCopy(lines)))).toEqual(["x", "c"]);
  });

  it(
    "duplicate ids (cycle-free): everything but getTree agrees",
    () => {
      // getTree is left out on purpose: with a duplicated id pi builds one node per id and
      // attaches it under every parent that names it (and can loop forever when two
      // occurrences point at each other); ours gives each line its own node (apps/sdk/README.md,
      // "Cycles, self-parents, duplicate ids"). The ORDER of getChildren differs (our bug,
      // pinned by the named test above); here children are compared as sets.
      const skip = ["tree", "children"];
      const arbLines = arbSessionV3({ maxEntries: 25, faults: true })
        .map((s) => [{ ...s.header }, ...withoutRetainedTail(jsonCopy(s.entries) as unknown as Json[])])
        .filter((lines) => !hasParentCycle(lines.slice(1)));
      fc.assert(
        fc.property(arbLines, fc.array(arbOp, { maxLength: 8 }), (lines, ops) => {
          tick();
          const a: Side = {
            m: pi.SessionManager.inMemory(CWD, undefined, jsonCopy(lines)),
            sessions: [],
            canon: new IdCanon(),
          };
          const b: Side = {
            m: ours.inMemory(CWD, undefined, jsonCopy(lines)),
            sessions: [],
            canon: new IdCanon(),
          };
          const none: Outcome = { ok: true, value: undefined };
          assertSame(observe(b, none, skip), observe(a, none, skip), "after loading");
          runBoth(a, b, ops, "duplicates", skip);
        }),
        fcOptions(),
      );
    },
    TIMEOUT,
  );

  it(
    "persisted: same files line by line, and each opens the other's file and carries on identically",
    () => {
      const dirs: (() => void)[] = [];
      try {
        fc.assert(
          fc.property(arbShortOps, arbShortOps, (first, second) => {
            const da = tempDir("conf-pi-");
            const db = tempDir("conf-ours-");
            dirs.push(da.cleanup, db.cleanup);
            tick();
            const a: Side = {
              m: pi.SessionManager.create(CWD, da.path),
              dir: da.path,
              sessions: [],
              canon: new IdCanon(),
            };
            const b: Side = {
              m: ours.create(CWD, db.path),
              dir: db.path,
              sessions: [],
              canon: new IdCanon(),
            };
            runBoth(a, b, first, "persisted");

            // Cross over: pi opens our file, we open pi's (only if the file was written).
            const fa = a.m.getSessionFile();
            const fb = b.m.getSessionFile();
            if (fa === undefined || fb === undefined || !existsSync(fa) || !existsSync(fb)) {
              expect(existsSync(fb ?? "")).toBe(existsSync(fa ?? ""));
              return;
            }
            tick();
            const piOnOurs: Side = {
              m: pi.SessionManager.open(fb, db.path),
              dir: db.path,
              sessions: [...b.sessions],
              canon: new IdCanon(),
            };
            const oursOnPi: Side = {
              m: ours.open(fa, da.path),
              dir: da.path,
              sessions: [...a.sessions],
              canon: new IdCanon(),
            };
            const piOnPi: Side = {
              m: pi.SessionManager.open(fa, da.path),
              dir: da.path,
              sessions: [...a.sessions],
              canon: new IdCanon(),
            };
            const none: Outcome = { ok: true, value: undefined };
            const reference = observe(piOnPi, none);
            assertSame(observe(piOnOurs, none), reference, "pi opening our file");
            assertSame(observe(oursOnPi, none), reference, "ours opening pi's file");
            runBoth(piOnOurs, oursOnPi, second, "after crossing over");
          }),
          fcOptions(),
        );
      } finally {
        for (const cleanup of dirs) cleanup();
      }
    },
    TIMEOUT,
  );
});
