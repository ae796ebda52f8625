/**
 * Random v3 and v2 session trees: entries of every type under random parents (a long main
 * line, branches, extra roots), references pointed at real entries, and on request
 * structural faults (orphans, duplicate ids, self-parents, cycles) or a shuffled file order.
 */
import fc from "fast-check";
import type { AnyEntry, SessionHeader } from "@pi-session/format";
import { type DraftType, ENTRY_WEIGHTS, type EntryDraft, arbEntry, arbHeader } from "../arbitraries.js";
import { type GeneratedSession, type SessionOptions, idFor } from "./generated.js";
import { arbSalt, isoAfter, placeEntry } from "./placing.js";

type Obj = Record<string, unknown>;

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
