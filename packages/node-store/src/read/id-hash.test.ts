/**
 * The id hash has two homes: `idHash` here, and the open scanner's (`assembly/scan.ts`), which
 * hashes ASCII ids as it reads them. A lazily opened file reports the scanner's hash for each
 * ASCII id; both must be `idHash` of the id, or lookups by id would miss.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fcOptions, scaledRuns } from "@pi-session/testkit";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { idHash } from "./id-hash.js";
import { openLazySessionFile } from "./open-scan.js";

const dir = mkdtempSync(join(tmpdir(), "pi-id-hash-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("idHash", () => {
  it("is FNV-1a (the published 32-bit vectors) with murmur3's finaliser", () => {
    const fmix32 = (h: number): number => {
      let x = h >>> 0;
      x = Math.imul(x ^ (x >>> 16), 0x85ebca6b) >>> 0;
      x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35) >>> 0;
      return (x ^ (x >>> 16)) | 0;
    };
    expect(idHash("")).toBe(fmix32(0x811c9dc5));
    expect(idHash("a")).toBe(fmix32(0xe40c292c));
    expect(idHash("foobar")).toBe(fmix32(0xbf9cf968));
  });

  it("is what the open scanner computes for ASCII ids", () => {
    const header = JSON.stringify({ type: "session", version: 3, id: "h", timestamp: "t", cwd: "/" });
    fc.assert(
      fc.property(
        fc.uniqueArray(
          fc.string({
            unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
            maxLength: 40,
          }),
          {
            minLength: 1,
            maxLength: 30,
          },
        ),
        (ids) => {
          const lines = ids.map((id, i) =>
            JSON.stringify({
              type: "message",
              id,
              parentId: i === 0 ? null : ids[i - 1],
              timestamp: "t",
              message: { role: "user", content: "x" },
            }),
          );
          const path = join(dir, "s.jsonl");
          writeFileSync(path, `${header}\n${lines.join("\n")}\n`);
          const lazy = openLazySessionFile(path);
          expect(lazy).toBeDefined();
          if (!lazy) return;
          expect(lazy.count).toBe(ids.length);
          ids.forEach((id, slot) => {
            expect(lazy.idOf(slot)).toBe(id);
            expect(lazy.idHashOf(slot)).toBe(idHash(id));
          });
          lazy.close();
        },
      ),
      fcOptions({ numRuns: scaledRuns(60) }),
    );
  });
});
