/**
 * Interplay with @pi-session/tree: its `SessionIndex` works as the `byId` lookup, and its
 * `activePath` selects the same path as `buildSessionPath`, faults included, so the SDK can
 * use either.
 */
import { createIndex } from "@pi-session/tree";
import { fcOptions } from "@pi-session/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { arbSessionCase } from "../test/arbitraries.js";
import { A, msg, U } from "../test/entries.js";
import { buildSessionContext, buildSessionPath, projectSessionPath } from "./index.js";

describe("@pi-session/tree interop", () => {
  it("a SessionIndex is a valid byId lookup", () => {
    const entries = [msg("1", null, U("u")), msg("2", "1", A("a")), msg("3", "1", U("other"))];
    const index = createIndex(entries);
    expect(buildSessionContext(entries, "2", index).messages).toHaveLength(2);
    expect(projectSessionPath(index.activePath("2")).messages).toEqual(
      buildSessionContext(entries, "2").messages,
    );
  });

  it("SessionIndex.activePath equals buildSessionPath on arbitrary (faulty) sessions", () => {
    fc.assert(
      fc.property(arbSessionCase({ faults: true }), ({ entries, leafId }) => {
        const index = createIndex(entries);
        const ids = (p: readonly { id: string }[]) => p.map((e) => e.id);
        expect(ids(index.activePath(leafId))).toEqual(ids(buildSessionPath(entries, leafId)));
        expect(ids(buildSessionPath(entries, leafId, index))).toEqual(ids(buildSessionPath(entries, leafId)));
      }),
      fcOptions(),
    );
  });
});
