/**
 * The v1 -> v2 -> v3 migration of pi session files, on records or on plain entry objects.
 *
 * Same result as pi's `migrateToCurrentVersion` (linear id chain for v1, header-inclusive
 * `firstKeptEntryIndex` -> `firstKeptEntryId`, `hookMessage` -> `custom`), with three
 * differences: new ids are unique across the whole session, ids can be deterministic (same
 * file in, same bytes out), and nothing is mutated unless the caller asks for it. A report
 * says what changed. Pure: ids come from an injected generator or from a hash.
 */
import { type SessionRecord, isObject } from "@pi-session/format";
import { deterministicId } from "./ids.js";

export interface MigrateOptions {
  /**
   * Source of fresh 8-hex entry ids (pi uses `randomUUID().slice(0, 8)`). Without it, ids
   * are derived from the session id and the line ({@link deterministicId}), so migrating
   * the same file twice gives the same bytes. A generated id that is already taken is drawn
   * again (up to 100 times, then the deterministic sequence takes over).
   */
  randomId?: () => string;
  /**
   * The version to assume when the input has no `type:"session"` header. Without it such
   * input is returned untouched (pi does not load a file without a header); pi's
   * `migrateSessionEntries` assumes 1. Header-less v1 entries chain from the first entry,
   * `firstKeptEntryIndex` counts from 0 at the first item, and deterministic ids use an empty
   * session id.
   */
  assumeVersion?: number;
}

export interface MigrateEntriesOptions extends MigrateOptions {
  /** Mutate the given objects (like pi's `migrateSessionEntries`) instead of copying the changed ones. */
  inPlace?: boolean;
}

export interface MigrationReport {
  /** The version found in the header (absent -> 1; no header -> `assumeVersion`, else 1). */
  fromVersion: number;
  /** The version after migration: 3, or `fromVersion` when that is already 3 or more. */
  toVersion: number;
  /** True when a migration ran (the result differs from the input). */
  changed: boolean;
  /** Entries that got a fresh id (v1 files). */
  idsAssigned: number;
  /** v1 compactions whose `firstKeptEntryIndex` became a `firstKeptEntryId`. `line`: the compaction's line. */
  indexesMapped: { line: number; index: number; id: string }[];
  /** v1 compactions whose `firstKeptEntryIndex` was dropped without a `firstKeptEntryId`. */
  unmappedIndexes: { line: number; index: number; reason: string }[];
  /** Messages renamed from role `hookMessage` to `custom`. */
  rolesRenamed: number;
  /** Raw (non-JSON) records passed through untouched (always 0 for entries). */
  rawRecordsKept: number;
  /** Anything else worth knowing, in sentences. */
  notes: string[];
}

// ---------------------------------------------------------------------------------------
// Core

type Obj = Record<string, unknown>;

/** One item of pi's `entries` array (header included), with the line used for ids and reports. */
interface Item {
  value: unknown;
  line: number;
}

function emptyReport(fromVersion: number): MigrationReport {
  return {
    fromVersion,
    toVersion: fromVersion,
    changed: false,
    idsAssigned: 0,
    indexesMapped: [],
    unmappedIndexes: [],
    rolesRenamed: 0,
    rawRecordsKept: 0,
    notes: [],
  };
}

/**
 * Migrates the items; returns the new value of each item (the same object when unchanged,
 * or always the same object with `inPlace`).
 */
function migrateItems(
  items: readonly Item[],
  opts: MigrateEntriesOptions,
): { values: unknown[]; report: MigrationReport } {
  const values = items.map((item) => item.value);
  const header = values.find((v): v is Obj => isObject(v) && v.type === "session");
  const rawVersion = header === undefined ? opts.assumeVersion : header.version;
  const fromVersion = typeof rawVersion === "number" ? rawVersion : 1;
  const report = emptyReport(fromVersion);
  if (header === undefined) {
    if (opts.assumeVersion === undefined) {
      report.notes.push('no "session" header: pi does not load such a file; nothing was migrated');
      return { values, report };
    }
    report.notes.push(`no "session" header: treated as version ${fromVersion} (assumeVersion)`);
  } else if (rawVersion !== undefined && typeof rawVersion !== "number") {
    report.notes.push(`header version ${JSON.stringify(rawVersion)} is not a number; treated as version 1`);
  }
  if (fromVersion >= 3) return { values, report };

  const inPlace = opts.inPlace === true;
  const copied = new Set<number>();
  /** The object at `i`, ready to be changed: itself in place, else a shallow copy (once). */
  const writable = (i: number): Obj => {
    const current = values[i] as Obj;
    if (inPlace || copied.has(i)) return current;
    const copy = { ...current };
    values[i] = copy;
    copied.add(i);
    return copy;
  };

  if (fromVersion < 2) migrateV1({ items, values, writable, header, opts, report });

  // v2 -> v3: every "session" line gets version 3 (pi updates extra headers too).
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (!isObject(value)) continue;
    if (value.type === "session") {
      writable(i).version = 3;
      continue;
    }
    const hook = value.message;
    if (value.type === "message" && isObject(hook) && hook.role === "hookMessage") {
      const entry = writable(i);
      // `entry` is the value or its shallow copy: either way its message is `hook`.
      const message = inPlace ? hook : { ...hook };
      message.role = "custom";
      entry.message = message;
      report.rolesRenamed++;
    }
  }
  report.toVersion = 3;
  report.changed = true;
  return { values, report };
}

/** What the v1 -> v2 step works on: the items, their values so far, and where it reports. */
interface V1Migration {
  items: readonly Item[];
  /** The value of each item so far (changed in place, or replaced by copies via `writable`). */
  values: unknown[];
  /** The object at an index, ready to be changed. */
  writable: (index: number) => Obj;
  header: Obj | undefined;
  opts: MigrateOptions;
  report: MigrationReport;
}

/** Tries of an injected `randomId` for one entry before the deterministic ids take over. */
const RANDOM_ID_DRAWS = 100;

function migrateV1(migration: V1Migration): void {
  const { items, values, writable, header, opts, report } = migration;
  const headerId = header?.id;
  const sessionId = typeof headerId === "string" ? headerId : (JSON.stringify(headerId) ?? "");
  // Every id already in the file is off limits, as is every id handed out (pi's check
  // used an empty set, so its uniqueness was only probabilistic).
  const taken = new Set<string>();
  for (const v of values) if (isObject(v) && typeof v.id === "string") taken.add(v.id);

  const fresh = (line: number): string => {
    if (opts.randomId !== undefined) {
      for (let draw = 0; draw < RANDOM_ID_DRAWS; draw++) {
        const id = opts.randomId();
        if (!taken.has(id)) {
          taken.add(id);
          return id;
        }
      }
      report.notes.push(`randomId kept returning taken ids for line ${line}; used a deterministic id`);
    }
    for (let attempt = 0; ; attempt++) {
      const id = deterministicId(sessionId, line, attempt);
      if (!taken.has(id)) {
        taken.add(id);
        return id;
      }
    }
  };

  const newIds: (string | undefined)[] = new Array(values.length);
  let previous: string | null = null;
  let hadIds = 0;
  let skipped = 0;
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    const line = (items[i] as Item).line;
    if (!isObject(value)) {
      skipped++;
      continue;
    }
    if (value.type === "session") continue;
    if (value.id !== undefined) hadIds++;
    const entry = writable(i);
    const id = fresh(line);
    entry.id = id;
    entry.parentId = previous;
    previous = id;
    newIds[i] = id;
    report.idsAssigned++;

    if (entry.type !== "compaction") continue;
    const index = entry.firstKeptEntryIndex;
    if (typeof index !== "number") {
      if (index !== undefined) {
        report.notes.push(
          `line ${line}: firstKeptEntryIndex ${JSON.stringify(index)} is not a number; left as is (as pi does)`,
        );
      }
      continue;
    }
    // pi looks the index up in the header-inclusive array of parsed lines.
    const inRange = Number.isInteger(index) && index >= 0 && index < values.length;
    const target = inRange ? values[index] : undefined;
    const targetId = inRange ? newIds[index] : undefined;
    let reason: string | undefined;
    if (!inRange) reason = `index ${index} is not a position among the file's ${values.length} entries`;
    else if ((header !== undefined && index === 0) || (isObject(target) && target.type === "session"))
      reason = `index ${index} is the header`;
    else if (index > i) reason = `index ${index} points after the compaction`;
    if (reason === undefined && targetId !== undefined) {
      entry.firstKeptEntryId = targetId;
      report.indexesMapped.push({ line, index, id: targetId });
    } else {
      report.unmappedIndexes.push({ line, index, reason: reason ?? `index ${index} is not an entry object` });
    }
    delete entry.firstKeptEntryIndex;
  }
  if (hadIds > 0) {
    report.notes.push(`${hadIds} v1 entries already had an id; all got fresh ids, as in pi`);
  }
  if (skipped > 0) {
    report.notes.push(`${skipped} items are not JSON objects; left untouched and not chained`);
  }
}

// ---------------------------------------------------------------------------------------
// Public entry points

/**
 * Migrates the records of one file (file order; the header is the first JSON record with
 * `type:"session"`). Raw records stay where they are, untouched, and do not count in
 * `firstKeptEntryIndex` (pi skipped malformed lines before indexing). Changed JSON records
 * are new objects (same position fields, new `value`); unchanged ones are returned as is.
 * The input is never mutated. Deterministic ids use each record's line number.
 */
export function migrateRecords(
  records: readonly SessionRecord[],
  opts: MigrateOptions = {},
): { records: SessionRecord[]; report: MigrationReport } {
  const items: Item[] = [];
  let raw = 0;
  for (const rec of records) {
    if (rec.kind === "json") items.push({ value: rec.value, line: rec.line });
    else raw++;
  }
  const { values, report } = migrateItems(items, {
    randomId: opts.randomId,
    assumeVersion: opts.assumeVersion,
  });
  report.rawRecordsKept = raw;
  const out: SessionRecord[] = [];
  let k = 0;
  for (const rec of records) {
    if (rec.kind !== "json") {
      out.push(rec);
      continue;
    }
    const value = values[k++];
    out.push(value === rec.value ? rec : { ...rec, value: value as Record<string, unknown> });
  }
  return { records: out, report };
}

/**
 * Migrates plain entry objects (header included, file order), with the same semantics as
 * {@link migrateRecords}; every item counts in `firstKeptEntryIndex` and the "line" of item
 * `i` is `i + 1`. Without `inPlace` the input is never mutated (changed objects are copied);
 * with `inPlace` the given objects are changed and the returned array holds them.
 */
export function migrateEntries<T extends object = Record<string, unknown>>(
  entries: readonly T[],
  opts: MigrateEntriesOptions = {},
): { entries: T[]; report: MigrationReport } {
  const items = entries.map((value, i) => ({ value, line: i + 1 }));
  const { values, report } = migrateItems(items, opts);
  return { entries: values as T[], report };
}
