/**
 * The streamed export is the same export: for generated sessions (branches, labels, names,
 * compactions, tool calls; some with orphans, duplicate ids, self-parents, cycles, or written
 * out of order), pi's two real sessions (migrated to v3) and a session with a side branch off every path
 * entry, the Markdown, JSON and JSONL of a branch read through the lazy open
 * (`streamed-export.ts`) equal, byte for byte, the in-memory export of the same session, at its
 * leaf and at other entries, with and without redaction (and the same redaction counts).
 * Where the streamed read declines (an id on two entries, a cycle on the branch), the
 * in-memory export decides; the test counts both.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openLazySessionFile } from "@pi-session/node-store";
import {
  type ExportFormat,
  Redactor,
  type RenderSession,
  STREAMED_FORMATS,
  createRenderSession,
  exportChunks,
  redactSession,
  streamedExportChunks,
} from "@pi-session/render";
import { arbSessionV3, toJsonl, upstreamFixture } from "@pi-session/testkit";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { loadSession } from "./load.js";
import { streamedBranch } from "./streamed-export.js";

const dir = mkdtempSync(join(tmpdir(), "pi-session-streamed-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PATTERNS = ["[aeiou]{2}", "sk-[A-Za-z0-9]+"];
const OPTIONS = { full: false, cutHint: "; `pi-session export --full` keeps them" };

interface Compared {
  streamed: number;
  declined: number;
}

/** Both exports of `path` at `leafId` (undefined: the session's leaf); false when the streamed read declined. */
async function compare(path: string, leafId: string | undefined, redact: boolean): Promise<boolean> {
  const loaded = await loadSession(path);
  let session: RenderSession = createRenderSession({
    header: loaded.header,
    entries: loaded.entries,
    index: loaded.index,
    formatVersion: loaded.version,
    diagnostics: loaded.diagnostics,
  });
  const redacted = redact ? redactSession(session, { patterns: PATTERNS }) : undefined;
  if (redacted) session = redacted.session;
  const file = openLazySessionFile(path);
  expect(file, path).toBeDefined();
  try {
    for (const format of STREAMED_FORMATS) {
      const report = redact ? new Redactor({ patterns: PATTERNS }) : undefined;
      const branch = streamedBranch(file as NonNullable<typeof file>, {
        leafId,
        ...(report ? { redact: { report, again: new Redactor({ patterns: PATTERNS }) } } : {}),
      });
      if (branch === undefined) return false;
      const streamed = [...streamedExportChunks(branch, { ...OPTIONS, format })].join("");
      const inMemory = [
        ...exportChunks(session, { ...OPTIONS, format: format as ExportFormat, view: "branch", leafId }),
      ].join("");
      expect(streamed, `${format} of ${path} at ${leafId ?? "its leaf"}`).toBe(inMemory);
      if (report) expect(report.report).toEqual(redacted?.report);
    }
    return true;
  } finally {
    file?.close();
  }
}

describe("a streamed export equals the in-memory export", () => {
  it("for generated sessions, at their leaf and another entry, with and without redaction", async () => {
    const counts: Compared = { streamed: 0, declined: 0 };
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        arbSessionV3({ maxEntries: 30, faults: false }),
        fc.boolean(),
        fc.boolean(),
        fc.nat(),
        async (session, faults, redact, pick) => {
          const path = join(dir, `s${n++}.jsonl`);
          writeFileSync(path, toJsonl(session));
          const ids = session.entries
            .map((e) => (e as { id?: unknown }).id)
            .filter((id) => typeof id === "string");
          const leaf = ids.length > 0 && pick % 3 === 0 ? (ids[pick % ids.length] as string) : undefined;
          if (await compare(path, leaf, redact)) counts.streamed++;
          else counts.declined++;
          void faults;
        },
      ),
    );
    expect(counts.streamed).toBeGreaterThan(0);
  });

  it("for sessions with structural faults or out of file order, where it does not decline", async () => {
    const counts: Compared = { streamed: 0, declined: 0 };
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          arbSessionV3({ maxEntries: 20, faults: true }),
          arbSessionV3({ maxEntries: 20, shuffle: true }),
        ),
        async (session) => {
          const path = join(dir, `f${n++}.jsonl`);
          writeFileSync(path, toJsonl(session));
          if (await compare(path, undefined, false)) counts.streamed++;
          else counts.declined++;
        },
      ),
    );
    // Orphans, self-parents and shuffled files stream; duplicates and cycles may decline.
    expect(counts.streamed).toBeGreaterThan(0);
    expect(counts.declined).toBeGreaterThan(0);
  });

  it("for a session with a side branch off every entry of its path (every item marked)", async () => {
    const entries: Record<string, unknown>[] = [];
    let parent: string | null = null;
    for (let i = 0; i < 40; i++) {
      const id = `m${String(i).padStart(7, "0")}`;
      const at = new Date(Date.UTC(2026, 0, 1, 0, 0, i * 2)).toISOString();
      entries.push({
        type: "message",
        id,
        parentId: parent,
        timestamp: at,
        message: {
          role: i % 2 === 0 ? "user" : "assistant",
          content: [{ type: "text", text: `turn ${i}` }],
          ...(i % 2 === 1
            ? {
                api: "x",
                provider: "p",
                model: "m",
                stopReason: "stop",
                usage: { input: 1, output: 1, totalTokens: 2 },
              }
            : {}),
        },
      });
      // A sibling written earlier in time, then one written later: the branch sits between.
      if (parent !== null && i % 3 === 0)
        entries.push({
          type: "message",
          id: `s${String(i).padStart(7, "0")}`,
          parentId: parent,
          timestamp: at.replace("Z", "1Z").replace(".0001Z", ".001Z"),
          message: { role: "user", content: "side" },
        });
      parent = id;
    }
    entries.push({
      type: "label",
      id: "l0000001",
      parentId: parent,
      timestamp: "2026-01-01T01:00:00.000Z",
      targetId: "m0000003",
      label: "here",
    });
    const path = join(dir, "branchy.jsonl");
    writeFileSync(
      path,
      toJsonl({
        header: {
          type: "session",
          version: 3,
          id: "019b0000-0000-7000-8000-0000000000aa",
          timestamp: "2026-01-01T00:00:00.000Z",
          cwd: "/w",
        },
        entries,
      }),
    );
    expect(await compare(path, undefined, false)).toBe(true);
    expect(await compare(path, "m0000010", true)).toBe(true);
  });

  it.each(["before-compaction", "large-session"] as const)("for pi's own session %s", async (name) => {
    // They are v1 files (the lazy open reads v3 only): migrated in memory, written as v3.
    const loaded = await loadSession(upstreamFixture(name));
    const path = join(dir, `${name}.jsonl`);
    writeFileSync(path, toJsonl({ header: { ...loaded.header, version: 3 }, entries: loaded.entries }));
    expect(await compare(path, undefined, false)).toBe(true);
    expect(await compare(path, undefined, true)).toBe(true);
  });
});
