/**
 * The open scanner (`assembly/scan.ts`) hashes ASCII ids as it reads them, in WebAssembly, with
 * format's `idHash` rewritten over bytes. A lazily opened file reports the scanner's hash for
 * each ASCII id; it must be `idHash` of the id, or the index's lookups by id would miss.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fcOptions, scaledRuns } from "@pi-session/testkit";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { idHash } from "@pi-session/format";
import { openLazySessionFile } from "./open-scan.js";

const dir = mkdtempSync(join(tmpdir(), "pi-id-hash-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the open scanner's id hash", () => {
  it("is format's idHash of each ASCII id", () => {
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
