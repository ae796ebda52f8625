import { describe, expect, it } from "vitest";
import { parseKeys } from "./picker.js";

describe("parseKeys", () => {
  it("reads arrows (CSI and SS3), Ctrl-N/P, Enter, Esc, Ctrl-C and edits", () => {
    expect(parseKeys("\x1b[A\x1bOB\x0e\x10")).toEqual(["up", "down", "down", "up"]);
    expect(parseKeys("\r")).toEqual(["enter"]);
    expect(parseKeys("\x1b")).toEqual(["cancel"]);
    expect(parseKeys("\x03")).toEqual(["cancel"]);
    expect(parseKeys("\x7f\x08\x15\x17")).toEqual(["backspace", "backspace", "clear", "delete-word"]);
    expect(parseKeys("\x1b[5~\x1b[6~")).toEqual(["page-up", "page-down"]);
  });

  it("groups typed text, skips unknown sequences and other controls", () => {
    expect(parseKeys("ab\x1b[1;5Cc\x01d")).toEqual([{ text: "ab" }, { text: "cd" }]);
    expect(parseKeys("日本\x1b[B")).toEqual([{ text: "日本" }, "down"]);
  });
});
