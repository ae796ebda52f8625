import { describe, expect, it } from "vitest";
import { idHash } from "./id-hash.js";

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

  it("hashes UTF-16 code units (an id beyond ASCII too)", () => {
    expect(idHash("é")).not.toBe(idHash("e"));
    expect(idHash("\ud83d\ude00")).not.toBe(idHash("\ud83d"));
  });
});
