/**
 * The SDK's free functions against pi 1.6.0's, on generated files and damaged ones:
 * `parseSessionEntries`, `loadEntriesFromFile` (return value; pi also appends a `\n` to a file
 * with a torn tail, ours never writes: documented), `migrateSessionEntries` (in place),
 * `getLatestCompactionEntry`, `findMostRecentSession`, `assertValidSessionId` and the constant.
 */
import { readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as sdk from "@pi-session/sdk";
import {
  arbCorruptedFile,
  arbSessionV1,
  arbSessionV2,
  arbSessionV3,
  fcOptions,
  tempDir,
  toJsonl,
} from "@pi-session/testkit";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { IdCanon, jsonCopy } from "./helpers.js";
import { type Json, pi } from "./pi.js";

const TIMEOUT = 60_000;
const ours = sdk as unknown as {
  CURRENT_SESSION_VERSION: number;
  parseSessionEntries(text: string): Json[];
  loadEntriesFromFile(path: string): Json[];
  migrateSessionEntries(entries: Json[]): void;
  getLatestCompactionEntry(entries: Json[]): Json | null;
  findMostRecentSession(dir: string, cwd?: string): string | null;
  assertValidSessionId(id: string): void;
};

const tmp = tempDir("conf-free-");
afterAll(() => tmp.cleanup());
let n = 0;

/** Non-object JSON lines (`5`, `[1]`) are entries to pi and malformed lines to us (documented). */
function hasNonObjectJsonLine(text: string): boolean {
  return text.split("\n").some((line) => {
    try {
      const v: unknown = JSON.parse(line);
      return v === null || typeof v !== "object" || Array.isArray(v);
    } catch {
      return false;
    }
  });
}

const arbText = fc.oneof(
  fc
    .oneof(
      arbSessionV3({ maxEntries: 12 }),
      arbSessionV2({ maxEntries: 12 }),
      arbSessionV1({ maxEntries: 12 }),
    )
    .map((s) => toJsonl(s)),
  arbCorruptedFile({ maxEntries: 12 }).map((c) => new TextDecoder().decode(c.bytes)),
);

describe("SDK free functions vs pi 1.6.0", () => {
  it("constants and id validation", () => {
    expect(ours.CURRENT_SESSION_VERSION).toBe(pi.CURRENT_SESSION_VERSION);
    for (const id of [
      "a",
      "a.b-c_d",
      "",
      "-a",
      "a-",
      "a/b",
      "ä",
      "0190a000-0000-7000-8000-000000000000",
      "a..b",
    ]) {
      const run = (f: (id: string) => void) => {
        try {
          f(id);
          return "ok";
        } catch (e) {
          return (e as Error).message;
        }
      };
      expect(run(ours.assertValidSessionId), id).toBe(run(pi.assertValidSessionId));
    }
  });

  it(
    "parseSessionEntries, loadEntriesFromFile, migrateSessionEntries and getLatestCompactionEntry agree",
    () => {
      fc.assert(
        fc.property(
          arbText.filter((t) => !hasNonObjectJsonLine(t) && !t.startsWith("\ufeff")),
          (text) => {
            const parsed = pi.parseSessionEntries(text);
            expect(ours.parseSessionEntries(text)).toStrictEqual(parsed);

            const file = join(tmp.path, `f-${n++}.jsonl`);
            writeFileSync(file, text);
            const mine = ours.loadEntriesFromFile(file);
            expect(readFileSync(file, "utf8"), "ours never writes while loading").toBe(text);
            expect(mine).toStrictEqual(pi.loadEntriesFromFile(file));

            // Header-less input has its own named test below.
            if (!parsed.some((e) => e.type === "session")) return;
            const a = jsonCopy(parsed);
            const b = jsonCopy(parsed);
            pi.migrateSessionEntries(a);
            ours.migrateSessionEntries(b);
            expect(new IdCanon().register(b).apply(b)).toStrictEqual(new IdCanon().register(a).apply(a));
            expect(ours.getLatestCompactionEntry(b)).toStrictEqual(
              b[a.indexOf(pi.getLatestCompactionEntry(a) as Json)] ?? null,
            );
          },
        ),
        fcOptions(),
      );
    },
    TIMEOUT,
  );

  it("migrateSessionEntries without a header: pi treats the entries as v1 (new ids, linear chain)", () => {
    const entries: Json[] = [
      {
        type: "message",
        id: "aaaaaaaa",
        parentId: null,
        timestamp: "2025-01-01T00:00:01.000Z",
        message: { role: "user", content: "hi", timestamp: 1 },
      },
      {
        type: "label",
        id: "bbbbbbbb",
        parentId: null,
        timestamp: "2025-01-01T00:00:02.000Z",
        targetId: "aaaaaaaa",
        label: "x",
      },
    ];
    const a = jsonCopy(entries);
    const b = jsonCopy(entries);
    pi.migrateSessionEntries(a);
    ours.migrateSessionEntries(b);
    expect(a[1]?.parentId).toBe(a[0]?.id); // pi re-chains
    expect(new IdCanon().register(b).apply(b)).toStrictEqual(new IdCanon().register(a).apply(a));
  });

  it(
    "findMostRecentSession picks the same file",
    () => {
      fc.assert(
        fc.property(
          fc.array(fc.tuple(arbText, fc.integer({ min: 1, max: 5 })), { minLength: 1, maxLength: 4 }),
          fc.constantFrom(undefined, "/home/user/project", "/elsewhere"),
          (files, cwd) => {
            const dir = tempDir("conf-recent-");
            try {
              files.forEach(([text, age], i) => {
                const path = join(dir.path, `s-${i}.jsonl`);
                writeFileSync(path, text);
                utimesSync(path, 1_700_000_000 + age * 100, 1_700_000_000 + age * 100 + i);
              });
              const piPick = pi.findMostRecentSession(dir.path, cwd);
              expect(ours.findMostRecentSession(dir.path, cwd)).toBe(piPick);
            } finally {
              dir.cleanup();
            }
          },
        ),
        fcOptions(),
      );
    },
    TIMEOUT,
  );
});
