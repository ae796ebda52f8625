/**
 * An entry's file touches: which tools read, edit or write (pi's, Claude Code's, extensions'
 * and MCP servers' names, the text editor's commands), and paths resolved as the tool did.
 */
import { describe, expect, it } from "vitest";
import { fileAction, fileTouches, resolveTouchPath, toolCallPaths } from "./file-touches.js";

function assistant(...calls: { name: string; arguments: unknown }[]) {
  return {
    type: "message",
    id: "a1",
    parentId: null,
    message: {
      role: "assistant",
      content: [
        { type: "text", text: "on it" },
        ...calls.map((c, i) => ({ type: "toolCall", id: `c${i}`, ...c })),
      ],
    },
  };
}

describe("fileAction", () => {
  it("knows pi's tools and the common names of other agents' and extensions' file tools", () => {
    expect(fileAction("read", {})).toBe("read");
    expect(fileAction("edit", {})).toBe("edit");
    expect(fileAction("write", {})).toBe("write");
    expect(fileAction("Read", {})).toBe("read");
    expect(fileAction("MultiEdit", {})).toBe("edit");
    expect(fileAction("NotebookEdit", {})).toBe("edit");
    expect(fileAction("read_file", {})).toBe("read");
    expect(fileAction("mcp__filesystem__write_file", {})).toBe("write");
    expect(fileAction("create_file", {})).toBe("write");
    expect(fileAction("str_replace_based_edit_tool", { command: "view" })).toBe("read");
    expect(fileAction("str_replace_based_edit_tool", { command: "create" })).toBe("write");
    expect(fileAction("str_replace_based_edit_tool", { command: "str_replace" })).toBe("edit");
    expect(fileAction("str_replace_based_edit_tool", {})).toBeUndefined();
  });

  it("leaves tools that only name a path to search or list out", () => {
    for (const tool of ["ls", "grep", "find", "bash", "glob", "readme"])
      expect(fileAction(tool, {})).toBeUndefined();
  });
});

describe("resolveTouchPath", () => {
  const base = { cwd: "/home/ada/project", home: "/home/ada" };
  it("resolves relative paths against the cwd, folding . and ..", () => {
    expect(resolveTouchPath("src/a.ts", base)).toBe("/home/ada/project/src/a.ts");
    expect(resolveTouchPath("./src//a.ts", base)).toBe("/home/ada/project/src/a.ts");
    expect(resolveTouchPath("../other/b.ts", base)).toBe("/home/ada/other/b.ts");
    expect(resolveTouchPath("../../../../x", base)).toBe("/x");
  });
  it("keeps absolute paths (normalized), drops pi's @ prefix, expands ~ with a home", () => {
    expect(resolveTouchPath("/etc/./hosts", base)).toBe("/etc/hosts");
    expect(resolveTouchPath("@src/a.ts", base)).toBe("/home/ada/project/src/a.ts");
    expect(resolveTouchPath("~/notes.md", base)).toBe("/home/ada/notes.md");
    expect(resolveTouchPath("~", base)).toBe("/home/ada");
  });
  it("returns what it cannot resolve as written", () => {
    expect(resolveTouchPath("~/notes.md", { cwd: "/p" })).toBe("~/notes.md");
    expect(resolveTouchPath("src/a.ts", { cwd: "" })).toBe("src/a.ts");
    expect(resolveTouchPath("C:\\x\\y.ts", base)).toBe("C:\\x\\y.ts");
    expect(resolveTouchPath("~ada/x", base)).toBe("/home/ada/project/~ada/x");
  });
});

describe("fileTouches", () => {
  const base = { cwd: "/p" };
  it("lists each file tool call of an assistant message with its action and resolved path", () => {
    const entry = assistant(
      { name: "read", arguments: { path: "a.ts" } },
      { name: "bash", arguments: { command: "cat a.ts" } },
      { name: "Edit", arguments: { file_path: "/p/b.ts", old_string: "x", new_string: "y" } },
      { name: "write", arguments: { path: "../c.ts", content: "z" } },
      { name: "grep", arguments: { path: "src", pattern: "x" } },
    );
    expect(fileTouches(entry, base)).toEqual([
      { tool: "read", action: "read", written: "a.ts", path: "/p/a.ts", callId: "c0" },
      { tool: "Edit", action: "edit", written: "/p/b.ts", path: "/p/b.ts", callId: "c2" },
      { tool: "write", action: "write", written: "../c.ts", path: "/c.ts", callId: "c3" },
    ]);
  });
  it("finds none in other entries, other roles and calls without a path", () => {
    expect(fileTouches({ type: "message", message: { role: "user", content: "read a.ts" } }, base)).toEqual(
      [],
    );
    expect(fileTouches({ type: "custom", data: { path: "x" } }, base)).toEqual([]);
    expect(fileTouches(assistant({ name: "read", arguments: { path: "" } }), base)).toEqual([]);
    expect(fileTouches(assistant({ name: "read", arguments: "not an object" }), base)).toEqual([]);
  });
  it("shares its path keys with the search index's file filter", () => {
    expect(
      toolCallPaths({
        path: "a",
        file_path: "b",
        filePath: "c",
        file: "d",
        notebook_path: "e",
        paths: ["f", 1],
      }),
    ).toEqual(["a", "b", "c", "d", "e", "f"]);
  });
});
