/** Tests of `sessionIdOfFileName`: pi's file names give their id; other names what a lookup by id can use. */
import { describe, expect, it } from "vitest";
import { sessionFileName, sessionIdOfFileName } from "./file-names.js";

describe("sessionIdOfFileName", () => {
  it("a name pi makes gives its session id (from a path too)", () => {
    const name = sessionFileName("2025-01-02T03:04:05.678Z", "0193abcd-ef01-7000-8000-000000000000");
    expect(sessionIdOfFileName(name)).toBe("0193abcd-ef01-7000-8000-000000000000");
    expect(sessionIdOfFileName(`/s/--p--/${name}`)).toBe("0193abcd-ef01-7000-8000-000000000000");
  });

  it("another name: what follows its first _, else the name without .jsonl", () => {
    expect(sessionIdOfFileName("_abc.jsonl")).toBe("abc");
    expect(sessionIdOfFileName("t_a b.jsonl")).toBe("a b");
    expect(sessionIdOfFileName("t_x_y.jsonl")).toBe("x_y");
    expect(sessionIdOfFileName("plain.jsonl")).toBe("plain");
  });
});
