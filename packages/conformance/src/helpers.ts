/**
 * Small helpers shared by the differential tests: JSON copies, pi's parent-cycle hazard
 * (pi 1.6.0 walks parent links without a guard and never returns on a cycle), and
 * position-based renaming of ids so two implementations that mint random ids can be compared.
 */
import type { Json } from "./pi.js";

/** A deep copy through JSON, as a session file round trip would make it. */
export function jsonCopy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/**
 * True when following `parentId` links the way pi does (a `Map` of id -> entry, the last
 * entry with an id wins; a falsy parentId ends the walk) can revisit an entry from some
 * start: pi's path walk would then never end. Self-parents count.
 */
export function hasParentCycle(entries: readonly Json[]): boolean {
  const byId = new Map<unknown, Json>();
  for (const e of entries) byId.set(e.id, e);
  const done = new Set<Json>();
  for (const start of entries) {
    const seen = new Set<Json>();
    let cur: Json | undefined = start;
    while (cur !== undefined && !done.has(cur)) {
      if (seen.has(cur)) return true;
      seen.add(cur);
      cur = cur.parentId ? byId.get(cur.parentId) : undefined;
    }
    for (const s of seen) done.add(s);
  }
  return false;
}

/** Removes `retainedTail` from compaction entries (our documented extension; pi ignores it). */
export function withoutRetainedTail<E extends Json>(entries: readonly E[]): E[] {
  return entries.map((e) => {
    if (e.type !== "compaction" || !("retainedTail" in e)) return e;
    const { retainedTail: _dropped, ...rest } = e;
    return rest as E;
  });
}

/** Keys whose string values are ids of entries of the same session. */
const ID_KEYS = ["id", "parentId", "targetId", "firstKeptEntryId", "fromId"] as const;

/**
 * Renames ids by first appearance: each distinct id found in id fields (in order) becomes
 * `#0`, `#1`, ...; references (`parentId`, `targetId`, `firstKeptEntryId`, `fromId`) are
 * mapped through the same table, and ids never registered become `?<original>`. With `timestamps: false` entry timestamps become `T`. Works on entries,
 * tree nodes, projections and branch-summary messages (deep).
 */
export class IdCanon {
  readonly names = new Map<string, string>();

  /**
   * Registers, entry by entry in order, the entry's id and then any id it refers to that is
   * not known yet (a dangling reference gets its name where it first appears, so two
   * sessions with the same structure get the same names even when references dangle).
   */
  register(entries: readonly Json[]): this {
    const add = (id: unknown) => {
      if (typeof id === "string" && id !== "root" && !this.names.has(id))
        this.names.set(id, `#${this.names.size}`);
    };
    for (const e of entries) {
      add(e.id);
      for (const k of ID_KEYS) if (k !== "id") add(e[k]);
    }
    return this;
  }

  id(id: unknown): unknown {
    if (typeof id !== "string") return id;
    if (id === "root") return id;
    return this.names.get(id) ?? `?${id}`;
  }

  /** A deep copy of `value` with every id-valued key of every object renamed. */
  apply<T>(value: T, opts: { timestamps?: boolean } = {}): T {
    const walk = (v: unknown): unknown => {
      if (Array.isArray(v)) return v.map(walk);
      if (v === null || typeof v !== "object" || v instanceof Date) return v;
      const out: Record<string, unknown> = {};
      const obj = v as Record<string, unknown>;
      const isEntry = typeof obj.type === "string" && "id" in obj;
      const isBranchSummary = obj.role === "branchSummary";
      for (const [k, x] of Object.entries(obj)) {
        if (isEntry && (ID_KEYS as readonly string[]).includes(k)) out[k] = this.id(x);
        else if (isBranchSummary && k === "fromId") out[k] = this.id(x);
        else if (isEntry && k === "timestamp" && opts.timestamps === false) out[k] = "T";
        else out[k] = walk(x);
      }
      return out;
    };
    return walk(value) as T;
  }
}

/**
 * Strict deep equality (own keys, `undefined`-valued keys count, prototypes, Dates by time)
 * that throws a short message naming the first difference. Cheap where vitest's diff is not:
 * properties call it many times while fast-check shrinks a failure.
 */
export function assertSame(actual: unknown, expected: unknown, label: string): void {
  const diff = firstDifference(actual, expected, "");
  if (diff !== undefined) throw new Error(`${label}: ${diff}`);
}

function show(v: unknown): string {
  const text = v instanceof Date ? `Date(${v.getTime()})` : v === undefined ? "undefined" : JSON.stringify(v);
  return (text ?? String(v)).length > 300 ? `${(text ?? String(v)).slice(0, 300)}…` : (text ?? String(v));
}

function firstDifference(a: unknown, b: unknown, path: string): string | undefined {
  if (Object.is(a, b)) return undefined;
  const at = path === "" ? "(root)" : path;
  if (a instanceof Date || b instanceof Date) {
    if (a instanceof Date && b instanceof Date && Object.is(a.getTime(), b.getTime())) return undefined;
    return `at ${at}: ours ${show(a)}, pi ${show(b)}`;
  }
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) {
    return `at ${at}: ours ${show(a)}, pi ${show(b)}`;
  }
  if (Array.isArray(a) !== Array.isArray(b)) return `at ${at}: ours ${show(a)}, pi ${show(b)}`;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      if (i >= a.length || i >= b.length) return `at ${at}: length ours ${a.length}, pi ${b.length}`;
      const d = firstDifference(a[i], b[i], `${path}[${i}]`);
      if (d !== undefined) return d;
    }
    return undefined;
  }
  const ak = Object.keys(a as object);
  const bk = Object.keys(b as object);
  for (const k of bk)
    if (!ak.includes(k))
      return `at ${at}: ours has no key ${JSON.stringify(k)} (pi: ${show((b as Json)[k])})`;
  for (const k of ak)
    if (!bk.includes(k)) return `at ${at}: ours has extra key ${JSON.stringify(k)} (${show((a as Json)[k])})`;
  for (const k of ak) {
    const d = firstDifference((a as Json)[k], (b as Json)[k], `${path}.${k}`);
    if (d !== undefined) return d;
  }
  return undefined;
}
