/**
 * Tests of the fast entry checks: `validateEntry` routes by `type`/`role` (dispatch.ts) to the
 * generated per-branch checks (compile.ts); the reference is TypeBox's compiled check of the
 * whole union. They must agree in every mode and version, also on values corrupted deep inside
 * (a content block, usage, a message field).
 */
import { arbEntry, fcOptions } from "@pi-session/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compiledValidator } from "./checks.js";
import { schemasFor } from "./sets.js";
import { validateEntry, validateHeader } from "./validate.js";

/** Compiling validators is slow on a loaded CI box. */
const SLOW = 60_000;

let seq = 0;
/** Gives a draft an id and a parent, as a session builder would. */
function withIds(draft: Record<string, unknown>, parentId: string | null): Record<string, unknown> {
  seq++;
  const { type, timestamp, ...rest } = draft;
  return { type, id: seq.toString(16).padStart(8, "0"), parentId, timestamp, ...rest };
}

describe("fast entry checks", () => {
  const corruptDeep = (v: unknown, path: number[], junk: unknown): unknown => {
    if (typeof v !== "object" || v === null || path.length === 0) return junk;
    const keys = Object.keys(v);
    if (keys.length === 0) return junk;
    const [k0, ...rest] = path;
    const key = keys[(k0 as number) % keys.length] as string;
    const copy: Record<string, unknown> | unknown[] = Array.isArray(v) ? [...v] : { ...v };
    (copy as Record<string, unknown>)[key] = corruptDeep((v as Record<string, unknown>)[key], rest, junk);
    return copy;
  };
  const arbValue = fc.oneof(
    arbEntry().map((d) => withIds(d, "p1")),
    fc
      .tuple(arbEntry(), fc.array(fc.nat(), { minLength: 1, maxLength: 4 }), fc.jsonValue({ maxDepth: 1 }))
      .map(([d, path, junk]) => corruptDeep(withIds(d, null), path, junk)),
    arbEntry().map((d) => {
      const { id: _id, parentId: _p, ...v1 } = withIds(d, null);
      return v1;
    }),
  );
  const modes = [
    { version: 3 },
    { version: 2 },
    { version: 1 },
    { version: 3, strict: true },
    { version: 2, strict: true },
    { version: 1, strict: true },
  ];
  it(
    "agree with TypeBox's check of the whole union",
    () => {
      fc.assert(
        fc.property(arbValue, fc.constantFrom(...modes), (value, opts) => {
          const reference = compiledValidator(schemasFor(opts).Entry).Check(value);
          expect(validateEntry(value, opts).length === 0).toBe(reference);
        }),
        fcOptions(),
      );
    },
    SLOW,
  );
  it("agree on headers and on values that are not entries", () => {
    const odd: unknown[] = [null, 1, "x", [], [{ type: "label" }], {}, { type: 7 }, { type: "message" }];
    odd.push({ type: "message", message: { role: 1 } }, { type: "message", message: [] });
    odd.push({ type: "zzz", id: "a", parentId: null, timestamp: "t" }, { type: "constructor" });
    for (const opts of modes) {
      for (const v of odd) {
        expect(validateEntry(v, opts).length === 0).toBe(compiledValidator(schemasFor(opts).Entry).Check(v));
        expect(validateHeader(v, opts).length === 0).toBe(
          compiledValidator(schemasFor(opts).Header).Check(v),
        );
      }
    }
  });
});
