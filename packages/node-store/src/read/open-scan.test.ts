/**
 * `openLazySessionFile` against the eager read (`readSessionFileSync` + `readLinesAsPi`): the
 * same entries in the same order, with reads split into small chunks so that lines (long
 * ones too) cross chunk boundaries; and what it leaves to the eager path.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { arbCorruptedFile, arbSessionV3, fcOptions, scaledRuns, toJsonl } from "@pi-session/testkit";
import { ENTRY_TYPES, contextRoleOf, idHash, indexRoleOf } from "@pi-session/format";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { readLinesAsPi } from "./pi-lines.js";
import { openLazySessionFile, SCANNED_TYPES } from "./open-scan.js";
import { readSessionFileSync } from "./session-file.js";

const dir = mkdtempSync(join(tmpdir(), "pi-open-scan-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

function eagerEntries(path: string): { header: unknown; entries: Record<string, unknown>[] } | undefined {
  const contents = readSessionFileSync(path);
  const lines = readLinesAsPi(contents.records);
  if (!lines.isSession) return undefined;
  const [header, ...rest] = lines.values;
  return { header, entries: rest.filter((v) => v.type !== "session") };
}

function check(bytes: Uint8Array, chunkBytes: number): boolean {
  const path = join(dir, `f${n++}.jsonl`);
  writeFileSync(path, bytes);
  const lazy = openLazySessionFile(path, { chunkBytes });
  if (!lazy) return false;
  const eager = eagerEntries(path);
  expect(eager).toBeDefined();
  expect(lazy.header).toEqual(eager?.header);
  // One by one (the read window) and all at once agree with the eager read.
  const some = Array.from({ length: lazy.count }, (_, slot) => lazy.entry(slot));
  expect(some).toEqual(eager?.entries);
  expect(lazy.entries()).toEqual(eager?.entries);
  for (let slot = 0; slot < lazy.count; slot++) {
    const entry = lazy.entries()[slot] as Record<string, unknown>;
    const id = typeof entry.id === "string" ? entry.id : undefined;
    expect(lazy.idOf(slot)).toBe(id);
    expect(lazy.hasId(slot)).toBe(id !== undefined);
    if (id !== undefined) {
      expect(lazy.isId(slot, id)).toBe(true);
      expect(lazy.isId(slot, `${id}x`)).toBe(false);
      expect(lazy.idHashOf(slot)).toBe(idHash(id));
      expect(lazy.sameId(slot, slot)).toBe(true);
    }
    if (slot > 0) {
      const previous = lazy.entries()[slot - 1] as Record<string, unknown>;
      expect(lazy.sameId(slot, slot - 1)).toBe(id !== undefined && previous.id === id);
      if (lazy.parentIsPrevious(slot)) expect(entry.parentId).toBe(previous.id);
    }
    const first = lazy.chainStart(slot);
    expect(first).toBeLessThanOrEqual(slot);
    for (let s = first + 1; s <= slot; s++) {
      const before = lazy.entries()[s - 1] as Record<string, unknown>;
      expect((lazy.entries()[s] as Record<string, unknown>).parentId).toBe(before.id);
      expect(before.id).not.toBe("");
    }
    const type = SCANNED_TYPES.includes(entry.type as string) ? entry.type : "";
    expect(lazy.typeOf(slot)).toBe(type);
    const parent = entry.parentId;
    expect(lazy.parentIdOf(slot)).toBe(typeof parent === "string" ? parent : undefined);
  }
  lazy.close();
  return true;
}

describe("the scanner's entry types", () => {
  it("are format's, and hold every type the lazy path reads by its type alone (a context or index role)", () => {
    const known = new Set<string>([...ENTRY_TYPES, "session"]);
    expect(SCANNED_TYPES.filter((type) => type !== "" && !known.has(type))).toEqual([]);
    const readByType = ENTRY_TYPES.filter(
      (type) => contextRoleOf(type) !== "none" || indexRoleOf(type) !== "none",
    );
    expect(readByType.filter((type) => !SCANNED_TYPES.includes(type))).toEqual([]);
  });
});

describe("openLazySessionFile", () => {
  it("gives the eager read's entries, whatever the chunk size", () => {
    let lazy = 0;
    fc.assert(
      fc.property(
        arbSessionV3({ maxEntries: 25, faults: true }),
        fc.integer({ min: 1, max: 4096 }),
        fc.array(fc.nat(), { maxLength: 3 }),
        (session, chunk, long) => {
          const entries = session.entries.map((e, i) =>
            long.includes(i) ? { ...e, pad: "é".repeat(3000 + i) } : e,
          );
          if (check(new TextEncoder().encode(toJsonl({ header: session.header, entries })), chunk)) lazy++;
        },
      ),
      fcOptions({ numRuns: scaledRuns(80) }),
    );
    expect(lazy).toBeGreaterThan(0);
  });

  it("gives the eager read's entries on testkit's corrupted files, or leaves them to it", () => {
    fc.assert(
      fc.property(arbCorruptedFile({ maxEntries: 15 }), fc.integer({ min: 16, max: 2048 }), (file, chunk) => {
        const opened = check(file.bytes, chunk);
        // A torn tail is the eager path's (the writer handles it); a cut of the whole last line
        // leaves a file that ends with a whole line, which is no torn tail.
        const torn = file.kind === "torn-tail" && file.bytes[file.bytes.length - 1] !== 0x0a;
        if (torn) expect(opened, file.description).toBe(false);
      }),
      fcOptions({ numRuns: scaledRuns(80) }),
    );
  });

  it("parses entries asked for in any order, then the rest, as the eager read; the same objects throughout", () => {
    // Lines of mixed sizes (some longer than the 256 KiB read window) and scripts (ASCII,
    // 2-, 3- and 4-byte characters), so that the read windows and the decoded pieces inside
    // them end inside lines and inside characters; entries asked for in and out of order.
    const texts = ["plain ascii ", "é", "€ ", "😀", "a\u00e9", "\n\t"];
    const arbLine = fc.record({
      text: fc.constantFrom(...texts),
      chars: fc.oneof(fc.integer({ min: 0, max: 2_000 }), fc.integer({ min: 2_000, max: 60_000 })),
      huge: fc.integer({ min: 0, max: 30 }),
    });
    fc.assert(
      fc.property(
        fc.array(arbLine, { minLength: 20, maxLength: 100 }),
        fc.array(fc.record({ from: fc.nat(), run: fc.integer({ min: 1, max: 40 }) }), { maxLength: 6 }),
        (lines, asks) => {
          const header = { type: "session", version: 3, id: "s", timestamp: "t", cwd: "/" };
          const out = [JSON.stringify(header)];
          lines.forEach(({ text, chars, huge }, k) => {
            // About one line in 30 is over 256 KiB.
            const pad = text.repeat((huge === 0 ? 300_000 : chars) / text.length);
            const entry = { type: "message", id: `e${k}`, parentId: k ? `e${k - 1}` : null, pad };
            out.push(JSON.stringify(entry));
          });
          const path = join(dir, `f${n++}.jsonl`);
          writeFileSync(path, `${out.join("\n")}\n`);
          const lazy = openLazySessionFile(path);
          expect(lazy).toBeDefined();
          if (!lazy) return;
          const eager = eagerEntries(path)?.entries ?? [];
          const asked = new Map<number, Record<string, unknown>>();
          for (const { from, run } of asks) {
            for (
              let slot = from % lazy.count;
              slot < Math.min(lazy.count, (from % lazy.count) + run);
              slot++
            ) {
              const entry = lazy.entry(slot);
              expect(entry).toEqual(eager[slot]);
              asked.set(slot, entry);
            }
          }
          const all = lazy.entries();
          expect(all).toEqual(eager);
          for (const [slot, entry] of asked) expect(all[slot]).toBe(entry);
          lazy.close();
        },
      ),
      fcOptions({ numRuns: scaledRuns(25) }),
    );
  });

  it("keeps ids of any length: more id bytes than a batch's id area takes, chains, duplicates", () => {
    // The scanner copies a batch's ASCII ids into a fixed area; ids that do not fit stay in
    // the line (kept as strings). Long ids, some repeated, chained and not.
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            size: fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 20_000, max: 120_000 })),
            repeat: fc.integer({ min: 0, max: 9 }),
            chained: fc.boolean(),
          }),
          { minLength: 1, maxLength: 40 },
        ),
        fc.integer({ min: 64, max: 1 << 20 }),
        (specs, chunk) => {
          const header = { type: "session", version: 3, id: "s", timestamp: "t", cwd: "/" };
          const ids: string[] = [];
          const out = [JSON.stringify(header)];
          specs.forEach(({ size, repeat, chained }, k) => {
            const id = repeat === 0 && k > 0 ? (ids[k - 1] as string) : `${k}`.padEnd(size, "x");
            const parentId = k === 0 ? null : chained ? ids[k - 1] : ids[0];
            ids.push(id);
            out.push(
              JSON.stringify({ type: "message", id, parentId, message: { role: "user", content: "x" } }),
            );
          });
          expect(check(new TextEncoder().encode(`${out.join("\n")}\n`), chunk)).toBe(true);
        },
      ),
      fcOptions({ numRuns: scaledRuns(20) }),
    );
  });

  it("leaves v2 files, a missing file and a first line that is no header to the eager path", () => {
    const v2 = join(dir, "v2.jsonl");
    writeFileSync(
      v2,
      `${JSON.stringify({ type: "session", version: 2, id: "x", timestamp: "t", cwd: "/" })}\n`,
    );
    expect(openLazySessionFile(v2)).toBeUndefined();
    expect(openLazySessionFile(join(dir, "missing.jsonl"))).toBeUndefined();
    const noHeader = join(dir, "no-header.jsonl");
    writeFileSync(noHeader, `${JSON.stringify({ type: "message", id: "a" })}\n`);
    expect(openLazySessionFile(noHeader)).toBeUndefined();
  });
});
