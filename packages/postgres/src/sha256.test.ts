import { createHash } from "node:crypto";
import { fcOptions, scaledRuns } from "@pi-session/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sha256 } from "./sha256.js";

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");
const nodeDigest = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

describe("sha256", () => {
  it("gives the standard's digests", () => {
    const ascii = (s: string) => new TextEncoder().encode(s);
    expect(hex(sha256(ascii("")))).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(hex(sha256(ascii("abc")))).toBe(
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
    expect(hex(sha256(ascii("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")))).toBe(
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
    );
  });

  it("agrees with node:crypto at every padding boundary and on random bytes", () => {
    // 55, 56 and 64 bytes: the length fits in the last block, just does not, a whole block.
    for (let n = 0; n <= 300; n++) {
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 131 + n) & 0xff);
      expect(hex(sha256(bytes))).toBe(nodeDigest(bytes));
    }
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2048 }), (bytes) => hex(sha256(bytes)) === nodeDigest(bytes)),
      fcOptions({ numRuns: scaledRuns(500) }),
    );
  });

  it("hashes a view by its own bytes, not its buffer's", () => {
    const buffer = Uint8Array.from({ length: 100 }, (_, i) => i);
    const view = buffer.subarray(10, 70);
    expect(hex(sha256(view))).toBe(nodeDigest(view));
  });
});
