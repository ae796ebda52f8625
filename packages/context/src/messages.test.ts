/**
 * The strings the model sees (byte-identical to pi 1.6.0) and `convertToLlm`.
 */
import type { AgentMessage, BashExecutionMessage } from "@pi-session/format";
import { describe, expect, it } from "vitest";
import { A, U } from "../test/entries.js";
import {
  BRANCH_SUMMARY_PREFIX,
  BRANCH_SUMMARY_SUFFIX,
  bashExecutionToText,
  COMPACTION_SUMMARY_PREFIX,
  COMPACTION_SUMMARY_SUFFIX,
  convertToLlm,
  createBranchSummaryMessage,
  createCompactionSummaryMessage,
  createCustomMessage,
} from "./index.js";

const bash = (over: Partial<BashExecutionMessage> = {}): BashExecutionMessage => ({
  role: "bashExecution",
  command: "ls",
  output: "a\nb",
  exitCode: 0,
  cancelled: false,
  truncated: false,
  timestamp: 7,
  ...over,
});

describe("prompt strings", () => {
  it("summary prefixes and suffixes are pi's", () => {
    expect(COMPACTION_SUMMARY_PREFIX).toBe(
      "The conversation history before this point was compacted into the following summary:\n\n<summary>\n",
    );
    expect(COMPACTION_SUMMARY_SUFFIX).toBe("\n</summary>");
    expect(BRANCH_SUMMARY_PREFIX).toBe(
      "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n",
    );
    expect(BRANCH_SUMMARY_SUFFIX).toBe("</summary>");
  });

  it("bashExecutionToText: output, no output, exit code, cancel, truncation", () => {
    expect(bashExecutionToText(bash())).toBe("Ran `ls`\n```\na\nb\n```");
    expect(bashExecutionToText(bash({ output: "" }))).toBe("Ran `ls`\n(no output)");
    expect(bashExecutionToText(bash({ exitCode: 2 }))).toBe(
      "Ran `ls`\n```\na\nb\n```\n\nCommand exited with code 2",
    );
    expect(bashExecutionToText(bash({ exitCode: undefined }))).toBe("Ran `ls`\n```\na\nb\n```");
    expect(bashExecutionToText(bash({ cancelled: true, exitCode: 1 }))).toBe(
      "Ran `ls`\n```\na\nb\n```\n\n(command cancelled)",
    );
    expect(bashExecutionToText(bash({ truncated: true, fullOutputPath: "/tmp/out.txt" }))).toBe(
      "Ran `ls`\n```\na\nb\n```\n\n[Output truncated. Full output: /tmp/out.txt]",
    );
    expect(bashExecutionToText(bash({ truncated: true }))).toBe("Ran `ls`\n```\na\nb\n```");
  });

  it("message constructors convert the ISO timestamp to ms", () => {
    const ts = "2025-12-09T00:53:29.825Z";
    expect(createBranchSummaryMessage("s", "root", ts)).toEqual({
      role: "branchSummary",
      summary: "s",
      fromId: "root",
      timestamp: Date.parse(ts),
    });
    expect(createCompactionSummaryMessage("s", 12, ts)).toEqual({
      role: "compactionSummary",
      summary: "s",
      tokensBefore: 12,
      timestamp: Date.parse(ts),
    });
    const custom = createCustomMessage("k", "text", false, undefined, ts);
    expect(custom).toEqual({
      role: "custom",
      customType: "k",
      content: "text",
      display: false,
      timestamp: Date.parse(ts),
    });
    expect(Object.keys(custom)).toContain("details");
    expect(createCompactionSummaryMessage("s", 1, "").timestamp).toBeNaN();
  });
});

describe("convertToLlm", () => {
  it("maps every coding-agent role as pi 1.6.0 does", () => {
    const user = U("hi");
    const assistant = A("yo");
    const system = { role: "system" as const, content: "prompt", timestamp: 3 };
    const messages: AgentMessage[] = [
      user,
      assistant,
      system,
      bash(),
      bash({ excludeFromContext: true }),
      { role: "custom", customType: "k", content: "note", display: false, timestamp: 4 },
      {
        role: "custom",
        customType: "k",
        content: [{ type: "text", text: "blocks" }],
        display: true,
        timestamp: 5,
      },
      createBranchSummaryMessage("B", "x", "2025-01-01T00:00:00.000Z"),
      createCompactionSummaryMessage("C", 9, "2025-01-01T00:00:00.000Z"),
      { role: "hookMessage", customType: "legacy", content: "x", display: true, timestamp: 1 } as never,
    ];
    const out = convertToLlm(messages);
    expect(out.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "system",
      "user",
      "user",
      "user",
      "user",
      "user",
    ]);
    expect(out[0]).toBe(user);
    expect(out[1]).toBe(assistant);
    expect(out[2]).toBe(system);
    expect(out[3]).toEqual({
      role: "user",
      content: [{ type: "text", text: "Ran `ls`\n```\na\nb\n```" }],
      timestamp: 7,
    });
    expect(out[4]).toEqual({ role: "user", content: [{ type: "text", text: "note" }], timestamp: 4 });
    expect(out[5]).toEqual({ role: "user", content: [{ type: "text", text: "blocks" }], timestamp: 5 });
    const ts = Date.parse("2025-01-01T00:00:00.000Z");
    expect(out[6]).toEqual({
      role: "user",
      content: [{ type: "text", text: `${BRANCH_SUMMARY_PREFIX}B${BRANCH_SUMMARY_SUFFIX}` }],
      timestamp: ts,
    });
    expect(out[7]).toEqual({
      role: "user",
      content: [{ type: "text", text: `${COMPACTION_SUMMARY_PREFIX}C${COMPACTION_SUMMARY_SUFFIX}` }],
      timestamp: ts,
    });
  });
});
