/**
 * Keeps the benchmark's generator honest: it is deterministic (same seed -> same bytes) and
 * what it writes is a well-formed v3 session that the codec parses with zero diagnostics and
 * whose tree has no dangling references.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseSessionBytes } from "@pi-session/format";
import { fcOptions } from "@pi-session/testkit";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { chainLines, ensureMalformed, ensureSession, ensureStore, sessionLines } from "./generate.js";
import { mulberry32 } from "./random-text.js";

const tmp = mkdtempSync(join(tmpdir(), "pi-bench-gen-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const text = (lines: Iterable<string>) => `${[...lines].join("\n")}\n`;

/** Checks a v3 session's structure: header first, unique ids, parents and references resolve. */
function checkStructure(file: string): void {
  const res = parseSessionBytes(new Uint8Array(readFileSync(file)));
  expect(res.diagnostics).toEqual([]);
  const values = res.records.map((r) => (r.kind === "json" ? r.value : undefined));
  expect(values.every((v) => v !== undefined)).toBe(true);
  const [header, ...entries] = values as Record<string, unknown>[];
  expect(header?.type).toBe("session");
  expect(header?.version).toBe(3);
  const ids = new Set<string>();
  for (const e of entries) {
    expect(typeof e.id).toBe("string");
    expect(ids.has(e.id as string)).toBe(false);
    if (e.parentId !== null) expect(ids.has(e.parentId as string)).toBe(true);
    if (e.type === "label") expect(ids.has(e.targetId as string)).toBe(true);
    if (e.type === "compaction") expect(ids.has(e.firstKeptEntryId as string)).toBe(true);
    ids.add(e.id as string);
  }
}

describe("generator", () => {
  it("mulberry32 is deterministic and in [0, 1)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), (seed) => {
        const a = mulberry32(seed);
        const b = mulberry32(seed);
        for (let i = 0; i < 20; i++) {
          const x = a();
          expect(x).toBe(b());
          expect(x >= 0 && x < 1).toBe(true);
        }
      }),
      fcOptions(),
    );
  });

  it("same seed gives the same bytes; a different seed gives different bytes", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.integer({ min: 1, max: 60 }),
        (seed, entries) => {
          const a = text(sessionLines({ seed, entries }));
          expect(text(sessionLines({ seed, entries }))).toBe(a);
          expect(text(sessionLines({ seed: seed + 1, entries }))).not.toBe(a);
        },
      ),
      fcOptions(),
    );
  });

  it("a generated 1,000-entry session parses with zero diagnostics and a sound tree", () => {
    const file = ensureSession({ seed: 11, entries: 1000 }, tmp);
    checkStructure(file);
    const lines = readFileSync(file, "utf8").trimEnd().split("\n");
    expect(lines.length).toBe(1001);
    const types = new Set(lines.map((l) => (JSON.parse(l) as { type: string }).type));
    for (const t of ["session", "message", "model_change", "thinking_level_change"])
      expect(types.has(t)).toBe(true);
  });

  it("a size-bounded session reaches its size, with branches and compactions", () => {
    const file = ensureSession({ seed: 12, targetBytes: 3_000_000 }, tmp);
    checkStructure(file);
    const body = readFileSync(file, "utf8");
    expect(body.length).toBeGreaterThanOrEqual(3_000_000);
    const counts = new Map<string, number>();
    for (const line of body.trimEnd().split("\n")) {
      const type = (JSON.parse(line) as { type: string }).type;
      counts.set(type, (counts.get(type) ?? 0) + 1);
    }
    for (const t of [
      "branch_summary",
      "compaction",
      "label",
      "session_info",
      "custom",
      "custom_message",
      "usage",
    ])
      expect({ type: t, present: (counts.get(t) ?? 0) > 0 }).toEqual({ type: t, present: true });
  });

  it("writing is byte-identical to the lines and cached by parameters", () => {
    const spec = { seed: 13, entries: 300 };
    const file = ensureSession(spec, tmp);
    expect(readFileSync(file, "utf8")).toBe(text(sessionLines(spec)));
    expect(ensureSession(spec, tmp)).toBe(file);
  });

  it("the default mix keeps its bytes (cached files of GENERATOR_VERSION stay valid)", () => {
    // If this changes, the generator's default output changed: bump GENERATOR_VERSION.
    const sha = (spec: Parameters<typeof sessionLines>[0]) =>
      createHash("sha256")
        .update(text(sessionLines(spec)))
        .digest("hex");
    expect(sha({ seed: 11, entries: 1000 })).toBe(
      "215d01250f990ae432841142d0fb309f3a2b69ab60dfd57a54f0069bf4312bd8",
    );
    expect(sha({ seed: 11, entries: 1000, scale: 1 })).toBe(sha({ seed: 11, entries: 1000 }));
  });

  it("a smaller scale gives the same entries with shorter texts", () => {
    const full = text(sessionLines({ seed: 14, entries: 2000, compactEvery: 0 }));
    const short = text(sessionLines({ seed: 14, entries: 2000, compactEvery: 0, scale: 0.01 }));
    expect(short.split("\n").length).toBe(full.split("\n").length);
    expect(short.length).toBeLessThan(full.length / 3);
    const file = ensureSession({ seed: 14, entries: 2000, compactEvery: 0, scale: 0.01 }, tmp);
    expect(readFileSync(file, "utf8")).toBe(short);
    checkStructure(file);
  });

  it("compactEvery compacts once per that many bytes of path; 0 never", () => {
    const every = 200_000;
    const file = ensureSession({ seed: 15, entries: 5000, scale: 0.05, compactEvery: every }, tmp);
    checkStructure(file);
    // Bytes of the current path since the last compaction, as the generator counts them.
    const byId = new Map<string, { parentId: string | null; size: number; type: string }>();
    let compactions = 0;
    for (const line of readFileSync(file, "utf8").trimEnd().split("\n").slice(1)) {
      const e = JSON.parse(line) as { id: string; parentId: string | null; type: string };
      byId.set(e.id, { parentId: e.parentId, size: Buffer.byteLength(line) + 1, type: e.type });
      if (e.type !== "compaction") continue;
      compactions++;
      let since = 0;
      for (let at = byId.get(e.parentId as string); at && at.type !== "compaction"; ) {
        since += at.size;
        at = at.parentId === null ? undefined : byId.get(at.parentId);
      }
      // The path walked back may be shorter than what was appended (a branch moved the leaf).
      expect(since).toBeGreaterThan(every / 4);
    }
    const bytes = readFileSync(file).length;
    expect(compactions).toBeGreaterThanOrEqual(Math.floor(bytes / every / 2));
    expect(compactions).toBeLessThanOrEqual(Math.ceil(bytes / every));
    const none = text(sessionLines({ seed: 15, entries: 5000, scale: 0.05, compactEvery: 0 }));
    expect(none.includes('"type":"compaction"')).toBe(false);
  });

  it("a chain is linear and parses cleanly", () => {
    const lines = [...chainLines(500)];
    expect(lines.length).toBe(501);
    const res = parseSessionBytes(new TextEncoder().encode(text(lines)));
    expect(res.diagnostics).toEqual([]);
    let parent: string | null = null;
    for (const r of res.records.slice(1)) {
      expect(r.kind).toBe("json");
      if (r.kind !== "json") continue;
      expect(r.value.parentId).toBe(parent);
      parent = r.value.id as string;
    }
  });

  it("a store uses pi's layout and every file parses cleanly", () => {
    const root = ensureStore({ sessions: 12, projects: 3, totalBytes: 60_000, seed: 5 }, tmp);
    const dirs = readdirSync(root).sort();
    expect(dirs).toEqual([
      "--home-dev-projects-app-0--",
      "--home-dev-projects-app-1--",
      "--home-dev-projects-app-2--",
    ]);
    let files = 0;
    for (const d of dirs) {
      for (const f of readdirSync(join(root, d))) {
        expect(f).toMatch(/^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z_[0-9a-f-]{36}\.jsonl$/);
        checkStructure(join(root, d, f));
        files++;
      }
    }
    expect(files).toBe(12);
  });
});

describe("ensureMalformed", () => {
  it("writes a header, two messages and the malformed lines between them", () => {
    const file = ensureMalformed(1000, tmp);
    const res = parseSessionBytes(new Uint8Array(readFileSync(file)));
    expect(res.records.map((r) => r.kind)).toEqual(["json", "json", ...Array(1000).fill("raw"), "json"]);
    expect(res.diagnostics.every((d) => d.code === "invalid-json")).toBe(true);
  });
});
