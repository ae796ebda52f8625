/**
 * Whole-session generators: random v3/v2 trees and v1 linear files, the same logical
 * conversation rendered as v1, v2 and v3 (for migration properties), and a fast
 * deterministic deep chain for stack-depth tests. Each returns a structured value; use
 * {@link toJsonl}/{@link toBytes} to get the file.
 */
import fc from "fast-check";
import type { AnyEntry, SessionHeader, StoredMessage, V1Entry } from "@pi-session/format";
import {
  type DraftType,
  ENTRY_WEIGHTS,
  type EntryDraft,
  arbAssistantMessage,
  arbBashExecutionMessage,
  arbCustomMessage,
  arbEntry,
  arbHeader,
  arbModelRef,
  arbSmallNat,
  arbText,
  arbThinkingLevel,
  arbToolResultMessage,
  arbUserMessage,
} from "./arbitraries.js";

type Obj = Record<string, unknown>;

/** A generated session file as structured data. */
export interface GeneratedSession<E extends Obj = AnyEntry> {
  /** The format version the file is written in (v1 headers carry no `version`). */
  version: 1 | 2 | 3;
  header: SessionHeader;
  /** Entries in file order. */
  entries: E[];
  /**
   * Id of the last entry in file order: the leaf pi selects on load. Absent for v1 files
   * (no ids) and for sessions without entries.
   */
  leafId?: string;
  /** Human-readable list of the faults injected (only with `faults: true`). */
  faults?: string[];
}

export interface SessionOptions {
  /** Upper bound on the number of entries (default 40). */
  maxEntries?: number;
  /** Lower bound on the number of entries (default 0). */
  minEntries?: number;
  /** Only generate these entry types (default: all, including unknown types). */
  entryTypes?: readonly DraftType[];
  /**
   * Inject at least one structural fault when there is an entry: an orphan (missing
   * parent), a duplicate id, a self-parent or a parent cycle. Off by default.
   */
  faults?: boolean;
  /** Write entries in a random file order instead of parents-before-children. */
  shuffle?: boolean;
}

// ---------------------------------------------------------------------------------------
// Ids

/**
 * The 8-hex id number `i` of a session salted with `salt`: a bijection on 32-bit
 * integers, so distinct `i` always give distinct ids (no collision checks needed), and
 * `idFor(n + k, salt)` is guaranteed not to be one of the first `n` ids.
 */
export function idFor(i: number, salt: number): string {
  let x = (i + salt) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x45d9f3b) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x45d9f3b) >>> 0;
  x = (x ^ (x >>> 16)) >>> 0;
  return x.toString(16).padStart(8, "0");
}

const arbSalt = fc.integer({ min: 0, max: 0xffffffff });

function isoAfter(headerTimestamp: string, i: number): string {
  const base = Date.parse(headerTimestamp);
  return new Date((Number.isNaN(base) ? 1_750_000_000_000 : base) + (i + 1) * 1000).toISOString();
}

/** `{type, id, parentId, timestamp, ...rest}`: the key order pi writes. */
function placeEntry(draft: EntryDraft, id: string, parentId: string | null, timestamp: string): Obj {
  const { type, timestamp: _ignored, ...rest } = draft;
  return { type, id, parentId, timestamp, ...rest };
}

// ---------------------------------------------------------------------------------------
// v3 / v2 trees

interface NodeSeed {
  /** Parent rule: 0-11 previous node, 12-18 `p % i`, 19 an extra root. */
  shape: number;
  p: number;
  draft: EntryDraft;
  /** Free choices for target selection. */
  a: number;
  b: number;
  /** Sort key for `shuffle`. */
  order: number;
}

type FaultKind = "orphan" | "duplicate-id" | "self-parent" | "cycle";
interface FaultSeed {
  kind: FaultKind;
  x: number;
  y: number;
}

function arbEntryOf(types: readonly DraftType[] | undefined): fc.Arbitrary<EntryDraft> {
  if (types === undefined) return arbEntry();
  if (types.length === 0) throw new Error("testkit: entryTypes must not be empty");
  return fc.oneof(...types.map((t) => ({ arbitrary: arbEntry(t), weight: ENTRY_WEIGHTS[t] })));
}

function arbNodes(opts: SessionOptions): fc.Arbitrary<NodeSeed[]> {
  const node = fc.record(
    {
      shape: fc.integer({ min: 0, max: 19 }),
      p: fc.nat(),
      draft: arbEntryOf(opts.entryTypes),
      a: fc.nat(),
      b: fc.integer({ min: 0, max: 9 }),
      order: fc.nat(),
    },
    { noNullPrototype: true },
  );
  return fc.array(node, { minLength: opts.minEntries ?? 0, maxLength: opts.maxEntries ?? 40, size: "max" });
}

const arbFaults = fc.array(
  fc.record(
    {
      kind: fc.constantFrom<FaultKind>("orphan", "duplicate-id", "self-parent", "cycle"),
      x: fc.nat(),
      y: fc.nat(),
    },
    { noNullPrototype: true },
  ),
  { minLength: 1, maxLength: 3 },
);

function buildTree(
  version: 2 | 3,
  header: SessionHeader,
  seeds: NodeSeed[],
  salt: number,
  faults: FaultSeed[] | undefined,
  shuffle: boolean,
): GeneratedSession {
  const n = seeds.length;
  const ids = seeds.map((_, i) => idFor(i, salt));
  /** An id guaranteed to be absent from the session. */
  const unknownId = (k: number) => idFor(n + (k % 1000), salt);
  const parentIdx: (number | null)[] = seeds.map((s, i) => {
    if (i === 0 || s.shape === 19) return null;
    return s.shape <= 11 ? i - 1 : s.p % i;
  });
  const ancestorsOf = (i: number): number[] => {
    const out: number[] = [];
    for (let j = parentIdx[i] ?? null; j !== null; j = parentIdx[j] ?? null) out.push(j);
    return out;
  };

  const entries: Obj[] = seeds.map((s, i) => {
    let draft = s.draft;
    if (version === 2 && draft.type === "message") {
      const m = draft.message as Obj;
      if (m.role === "custom") draft = { ...draft, message: { ...m, role: "hookMessage" } };
    }
    const parent = parentIdx[i] ?? null;
    const e = placeEntry(
      draft,
      ids[i]!,
      parent === null ? null : ids[parent]!,
      isoAfter(header.timestamp, i),
    );
    const anc = ancestorsOf(i);
    switch (e.type) {
      case "label":
        // An existing entry (pi refuses unknown targets); the very first entry labels itself.
        e.targetId = i === 0 ? ids[0] : ids[s.a % i];
        break;
      case "compaction": {
        const others = Array.from({ length: i }, (_, j) => j).filter((j) => !anc.includes(j));
        if (s.b <= 6 && anc.length > 0) e.firstKeptEntryId = ids[anc[s.a % anc.length]!];
        else if (s.b === 7 && others.length > 0) e.firstKeptEntryId = ids[others[s.a % others.length]!];
        else if (s.b === 8) e.firstKeptEntryId = unknownId(s.a);
        else e.firstKeptEntryId = ids[i]; // 1.6.0 "retain-none"
        break;
      }
      case "context_edit": {
        const targets = anc.filter((j) => seeds[j]!.draft.type === "message");
        e.targetId = targets.length > 0 ? ids[targets[s.a % targets.length]!] : unknownId(s.a);
        break;
      }
      case "branch_summary":
        if (s.b <= 5 && i > 0) e.fromId = ids[s.a % i];
        else if (s.b <= 7 || i === 0) e.fromId = "root";
        else if (s.b === 8)
          delete e.fromId; // files written before `fromId` existed
        else e.fromId = unknownId(s.a);
        break;
    }
    return e;
  });

  const applied: string[] = [];
  if (faults !== undefined && n > 0) {
    for (const f of faults) applied.push(applyFault(entries, f, unknownId));
  }

  let fileOrder = entries;
  if (shuffle) {
    fileOrder = entries
      .map((e, i) => ({ e, k: seeds[i]!.order, i }))
      .sort((x, y) => x.k - y.k || x.i - y.i)
      .map((x) => x.e);
  }
  const out: GeneratedSession = { version, header, entries: fileOrder as unknown as AnyEntry[] };
  const last = fileOrder[fileOrder.length - 1];
  if (last !== undefined) out.leafId = last.id as string;
  if (faults !== undefined) out.faults = applied;
  return out;
}

function applyFault(entries: Obj[], f: FaultSeed, unknownId: (k: number) => string): string {
  const n = entries.length;
  const e = entries[f.x % n]!;
  const other = entries[f.y % n]!;
  switch (f.kind) {
    case "orphan": {
      const missing = unknownId(f.y + 500);
      e.parentId = missing;
      return `orphan: ${e.id} has missing parent ${missing}`;
    }
    case "duplicate-id":
      if (other !== e) {
        const was = e.id;
        e.id = other.id;
        return `duplicate-id: entry ${was} rewritten to reuse id ${other.id}`;
      }
      e.parentId = e.id;
      return `self-parent: ${e.id}`;
    case "self-parent":
      e.parentId = e.id;
      return `self-parent: ${e.id}`;
    case "cycle": {
      // Walk up from e a few steps and point that ancestor back at e: a loop on a real path.
      const byId = new Map(entries.map((x) => [x.id as string, x]));
      let top = e;
      const steps = 1 + (f.y % 4);
      for (let k = 0; k < steps; k++) {
        const up = top.parentId === null ? undefined : byId.get(top.parentId as string);
        if (up === undefined || up === e) break;
        top = up;
      }
      top.parentId = e.id;
      return top === e ? `self-parent: ${e.id}` : `cycle: ${top.id} -> ... -> ${e.id} -> ${top.id}`;
    }
  }
}

function arbTreeSession(version: 2 | 3, opts: SessionOptions = {}): fc.Arbitrary<GeneratedSession> {
  return fc
    .record(
      {
        header: arbHeader(version),
        seeds: arbNodes(opts),
        salt: arbSalt,
        faults: opts.faults === true ? arbFaults : fc.constant(undefined),
      },
      { noNullPrototype: true },
    )
    .map((r) => buildTree(version, r.header, r.seeds, r.salt, r.faults, opts.shuffle === true));
}

/**
 * A v3 session tree: branches, labels on existing ids, session names, compactions whose
 * `firstKeptEntryId` is usually an ancestor (sometimes another branch, an unknown id or
 * the compaction itself), branch summaries and context edits aimed at message entries on
 * the same path. Ids are unique and parents precede children unless `faults`/`shuffle`.
 */
export function arbSessionV3(opts: SessionOptions = {}): fc.Arbitrary<GeneratedSession> {
  return arbTreeSession(3, opts);
}

/** Like {@link arbSessionV3} with a version-2 header; custom-role messages use the legacy `hookMessage`. */
export function arbSessionV2(opts: SessionOptions = {}): fc.Arbitrary<GeneratedSession> {
  return arbTreeSession(2, opts);
}

// ---------------------------------------------------------------------------------------
// v1 linear files

const V1_TYPES: readonly DraftType[] = ["message", "thinking_level_change", "model_change", "compaction"];

export interface SessionV1Options {
  maxEntries?: number;
  minEntries?: number;
}

/**
 * A v1 file: header without `version`, entries without `id`/`parentId`, custom messages as
 * `hookMessage`, and compactions with a header-inclusive `firstKeptEntryIndex` that is
 * usually an earlier entry, sometimes 0 (the header), out of range, or absent.
 */
export function arbSessionV1(opts: SessionV1Options = {}): fc.Arbitrary<GeneratedSession<V1Entry>> {
  const item = fc.record(
    {
      draft: fc.oneof(
        { arbitrary: arbEntry("message"), weight: 12 },
        ...V1_TYPES.slice(1).map((t) => ({ arbitrary: arbEntry(t), weight: 1 })),
        { arbitrary: arbEntry("unknown"), weight: 1 },
      ),
      a: fc.nat(),
      b: fc.integer({ min: 0, max: 9 }),
    },
    { noNullPrototype: true },
  );
  return fc
    .tuple(
      arbHeader(1),
      fc.array(item, { minLength: opts.minEntries ?? 0, maxLength: opts.maxEntries ?? 40, size: "max" }),
    )
    .map(([header, items]) => {
      const n = items.length;
      const entries = items.map(({ draft, a, b }, i) => {
        const timestamp = isoAfter(header.timestamp, i);
        if (draft.type === "message") {
          const m = draft.message as Obj;
          const message = m.role === "custom" ? { ...m, role: "hookMessage" } : m;
          return { ...draft, timestamp, message } as V1Entry;
        }
        if (draft.type === "compaction") {
          const pos = i + 1; // header-inclusive index of this compaction
          let index: number | undefined;
          if (b <= 6) index = pos > 1 ? 1 + (a % (pos - 1)) : 0;
          else if (b === 7) index = 0;
          else if (b === 8) index = n + 1 + (a % 5);
          const c: Obj = { type: "compaction", timestamp, summary: draft.summary };
          if (index !== undefined) c.firstKeptEntryIndex = index;
          c.tokensBefore = draft.tokensBefore;
          return c as V1Entry;
        }
        return { ...draft, timestamp } as V1Entry;
      });
      return { version: 1 as const, header, entries };
    });
}

// ---------------------------------------------------------------------------------------
// One logical conversation, three file versions

export type LogicalItem =
  | { kind: "message"; timestamp: string; message: StoredMessage }
  | { kind: "model_change"; timestamp: string; provider: string; modelId: string }
  | { kind: "thinking_level_change"; timestamp: string; thinkingLevel: string }
  | {
      kind: "compaction";
      timestamp: string;
      summary: string;
      tokensBefore: number;
      /** Index into `items` of the first kept item: always an earlier `message` item. */
      firstKeptIndex: number;
    };

/** A linear conversation independent of file version; render with `renderAsV1/2/3`. */
export interface LogicalConversation {
  sessionId: string;
  timestamp: string;
  cwd: string;
  /** Salt for the v2/v3 entry ids (v2 and v3 renderings share ids). */
  idSalt: number;
  items: LogicalItem[];
}

/**
 * A linear conversation of messages (user, assistant, toolResult, bashExecution, custom),
 * model and thinking changes, and compactions keeping an earlier message at or after the
 * previous compaction's kept message (as pi cuts).
 */
export function arbLogicalConversation(opts: { maxItems?: number } = {}): fc.Arbitrary<LogicalConversation> {
  const message = fc.oneof(
    { arbitrary: arbUserMessage as fc.Arbitrary<StoredMessage>, weight: 4 },
    { arbitrary: arbAssistantMessage as fc.Arbitrary<StoredMessage>, weight: 4 },
    { arbitrary: arbToolResultMessage as fc.Arbitrary<StoredMessage>, weight: 2 },
    { arbitrary: arbBashExecutionMessage as fc.Arbitrary<StoredMessage>, weight: 1 },
    { arbitrary: arbCustomMessage as fc.Arbitrary<StoredMessage>, weight: 1 },
  );
  const seed = fc.oneof(
    { arbitrary: message.map((m) => ({ k: "message" as const, m })), weight: 12 },
    { arbitrary: arbModelRef.map((r) => ({ k: "model_change" as const, r })), weight: 1 },
    { arbitrary: arbThinkingLevel.map((t) => ({ k: "thinking_level_change" as const, t })), weight: 1 },
    {
      arbitrary: fc.tuple(arbText, arbSmallNat, fc.nat()).map(([s, tokens, a]) => ({
        k: "compaction" as const,
        s,
        tokens,
        a,
      })),
      weight: 2,
    },
  );
  return fc
    .record(
      {
        header: arbHeader(3),
        idSalt: arbSalt,
        seeds: fc.array(seed, { maxLength: opts.maxItems ?? 30, size: "max" }),
      },
      { noNullPrototype: true },
    )
    .map(({ header, idSalt, seeds }) => {
      const items: LogicalItem[] = [];
      let lastKept = 0;
      for (const s of seeds) {
        const timestamp = isoAfter(header.timestamp, items.length);
        if (s.k === "message") items.push({ kind: "message", timestamp, message: s.m });
        else if (s.k === "model_change")
          items.push({ kind: "model_change", timestamp, provider: s.r.provider, modelId: s.r.model });
        else if (s.k === "thinking_level_change")
          items.push({ kind: "thinking_level_change", timestamp, thinkingLevel: s.t });
        else {
          const candidates: number[] = [];
          for (let j = lastKept; j < items.length; j++) if (items[j]!.kind === "message") candidates.push(j);
          if (candidates.length === 0) continue; // nothing to keep yet: pi would not compact
          const firstKeptIndex = candidates[s.a % candidates.length]!;
          lastKept = firstKeptIndex;
          items.push({ kind: "compaction", timestamp, summary: s.s, tokensBefore: s.tokens, firstKeptIndex });
        }
      }
      return { sessionId: header.id, timestamp: header.timestamp, cwd: header.cwd ?? "/", idSalt, items };
    });
}

function itemPayload(item: LogicalItem, legacyRoles: boolean): Obj {
  switch (item.kind) {
    case "message": {
      const m = item.message as Obj;
      return { message: legacyRoles && m.role === "custom" ? { ...m, role: "hookMessage" } : m };
    }
    case "model_change":
      return { provider: item.provider, modelId: item.modelId };
    case "thinking_level_change":
      return { thinkingLevel: item.thinkingLevel };
    case "compaction":
      return { summary: item.summary };
  }
}

function renderTree(conv: LogicalConversation, version: 2 | 3): GeneratedSession {
  const ids = conv.items.map((_, i) => idFor(i, conv.idSalt));
  const header = {
    type: "session",
    version,
    id: conv.sessionId,
    timestamp: conv.timestamp,
    cwd: conv.cwd,
  } as SessionHeader;
  const entries = conv.items.map((item, i) => {
    const e: Obj = {
      type: item.kind,
      id: ids[i],
      parentId: i === 0 ? null : ids[i - 1],
      timestamp: item.timestamp,
      ...itemPayload(item, version === 2),
    };
    if (item.kind === "compaction") {
      e.firstKeptEntryId = ids[item.firstKeptIndex];
      e.tokensBefore = item.tokensBefore;
    }
    return e as AnyEntry;
  });
  const out: GeneratedSession = { version, header, entries };
  const last = entries[entries.length - 1];
  if (last !== undefined) out.leafId = last.id;
  return out;
}

/** The conversation as a v1 file: no ids, `hookMessage` roles, header-inclusive `firstKeptEntryIndex`. */
export function renderAsV1(conv: LogicalConversation): GeneratedSession<V1Entry> {
  const header = {
    type: "session",
    id: conv.sessionId,
    timestamp: conv.timestamp,
    cwd: conv.cwd,
  } as SessionHeader;
  const entries = conv.items.map((item) => {
    const e: Obj = { type: item.kind, timestamp: item.timestamp, ...itemPayload(item, true) };
    if (item.kind === "compaction") {
      e.firstKeptEntryIndex = item.firstKeptIndex + 1; // the header is index 0
      e.tokensBefore = item.tokensBefore;
    }
    return e as V1Entry;
  });
  return { version: 1, header, entries };
}

/** The conversation as a v2 file: linear ids, `firstKeptEntryId`, `hookMessage` roles. */
export function renderAsV2(conv: LogicalConversation): GeneratedSession {
  return renderTree(conv, 2);
}

/** The conversation as a v3 file: same ids as v2, `custom` roles. */
export function renderAsV3(conv: LogicalConversation): GeneratedSession {
  return renderTree(conv, 3);
}

// ---------------------------------------------------------------------------------------
// Deep chains (deterministic)

/**
 * A v3 session that is one chain of `depth` message entries (user/assistant alternating),
 * built directly without fast-check so 200,000-deep chains take well under a second.
 */
export function deepChain(depth: number, seed = 1): GeneratedSession {
  const salt = seed >>> 0;
  const baseMs = 1_750_000_000_000 + (salt % 1_000_000) * 1000;
  const header = {
    type: "session",
    version: 3,
    id: `0190a000-0000-7000-8000-${idFor(0, salt)}0000`,
    timestamp: new Date(baseMs).toISOString(),
    cwd: "/home/user/deep",
  } as SessionHeader;
  const entries: AnyEntry[] = new Array(depth);
  let parent: string | null = null;
  // toISOString per entry dominates at 200k entries: format once per second instead.
  let second = -1;
  let prefix = "";
  for (let i = 0; i < depth; i++) {
    const id = idFor(i, salt);
    const ms = baseMs + i + 1;
    if (Math.floor(ms / 1000) !== second) {
      second = Math.floor(ms / 1000);
      prefix = new Date(second * 1000).toISOString().slice(0, 20);
    }
    const iso = `${prefix}${String(ms % 1000).padStart(3, "0")}Z`;
    const message =
      i % 2 === 0
        ? { role: "user", content: `q${i}`, timestamp: ms }
        : {
            role: "assistant",
            content: [{ type: "text", text: `a${i}` }],
            provider: "anthropic",
            model: "claude-test",
            usage: {
              input: 0,
              output: 0,
              cacheRead: 0,
              cacheWrite: 0,
              totalTokens: 0,
              cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
            },
            stopReason: "stop",
            timestamp: ms,
          };
    entries[i] = {
      type: "message",
      id,
      parentId: parent,
      timestamp: iso,
      message,
    } as AnyEntry;
    parent = id;
  }
  const out: GeneratedSession = { version: 3, header, entries };
  if (parent !== null) out.leafId = parent;
  return out;
}

/** {@link deepChain} with a random seed, for use inside properties. */
export function arbDeepChain(depth: number): fc.Arbitrary<GeneratedSession> {
  return arbSalt.map((seed) => deepChain(depth, seed));
}

// ---------------------------------------------------------------------------------------
// Serialisation

/** The session as JSONL text: header line, then one line per entry, each ending in `\n`. */
export function toJsonl(session: { header: unknown; entries: readonly unknown[] }): string {
  const lines = [JSON.stringify(session.header)];
  for (const e of session.entries) lines.push(JSON.stringify(e));
  return `${lines.join("\n")}\n`;
}

const encoder = new TextEncoder();

/** {@link toJsonl} encoded as UTF-8. */
export function toBytes(session: { header: unknown; entries: readonly unknown[] }): Uint8Array {
  return encoder.encode(toJsonl(session));
}
