/** Tests of "did you mean": edit distance with swaps, and when a name is close enough to suggest. */
import { describe, expect, it } from "vitest";
import { closestName, editDistance } from "./suggest.js";

const COMMANDS = ["ls", "show", "tree", "context", "export", "validate", "stats", "search", "serve", "rm"];

describe("editDistance", () => {
  it("counts inserts, deletes, changes, and a swap of neighbours as one", () => {
    expect(editDistance("show", "show")).toBe(0);
    expect(editDistance("shwo", "show")).toBe(1);
    expect(editDistance("sho", "show")).toBe(1);
    expect(editDistance("shows", "show")).toBe(1);
    expect(editDistance("shaw", "show")).toBe(1);
    expect(editDistance("", "ls")).toBe(2);
    expect(editDistance("kitten", "sitting")).toBe(3);
  });
});

describe("closestName", () => {
  it("finds the command a typo meant", () => {
    expect(closestName("shwo", COMMANDS)).toBe("show");
    expect(closestName("contxet", COMMANDS)).toBe("context");
    expect(closestName("STAST", COMMANDS)).toBe("stats");
    expect(closestName("vaildate", COMMANDS)).toBe("validate");
    expect(closestName("--al-branches", ["--all-branches", "--leaf", "--full"])).toBe("--all-branches");
  });

  it("takes the start of a name", () => {
    expect(closestName("sta", COMMANDS)).toBe("stats");
    expect(closestName("val", COMMANDS)).toBe("validate");
  });

  it("guesses nothing for a word far from every name, or close to two alike", () => {
    expect(closestName("frobnicate", COMMANDS)).toBeUndefined();
    expect(closestName("xy", COMMANDS)).toBeUndefined();
    // `se` starts both search and serve.
    expect(closestName("se", COMMANDS)).toBeUndefined();
    expect(closestName("", COMMANDS)).toBeUndefined();
  });
});
