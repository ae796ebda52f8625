/** Tests of the deterministic ids: their shape, what they depend on, and fixed vectors (a changed hash would change every file migrated in deterministic mode). */
import { describe, expect, it } from "vitest";
import { deterministicId } from "./ids.js";

const HEX8 = /^[0-9a-f]{8}$/;

describe("deterministicId", () => {
  it("is 8 hex, depends on session, line and attempt", () => {
    const id = deterministicId("s", 1, 0);
    expect(id).toMatch(HEX8);
    expect(deterministicId("s", 1, 0)).toBe(id);
    expect(deterministicId("s", 2, 0)).not.toBe(id);
    expect(deterministicId("t", 1, 0)).not.toBe(id);
    expect(deterministicId("s", 1, 1)).not.toBe(id);
    expect(deterministicId("sé😀", 1, 0)).toMatch(HEX8);
  });

  it("gives the same ids as every earlier version", () => {
    expect(deterministicId("sess-1", 2, 0)).toBe("3df5df8c");
    expect(deterministicId("s", 1, 0)).toBe("9e385f1c");
    expect(deterministicId("sé😀", 1, 0)).toBe("b35414be");
    expect(deterministicId("", 7, 3)).toBe("8fb94440");
    expect(deterministicId("0e8d3c12-aaaa-bbbb", 12, 1)).toBe("e65b5207");
  });
});
