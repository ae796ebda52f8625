/** Runs `examples/basic.mjs` (the upstream-style example) with node against the built package. */
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

describe("examples/basic.mjs", () => {
  it("runs unchanged against the built package and prints what pi would", () => {
    const script = fileURLToPath(new URL("../examples/basic.mjs", import.meta.url));
    const out = execFileSync(process.execPath, [script], { encoding: "utf8" });
    expect(JSON.parse(out)).toEqual({
      messages: ["user", "user"],
      model: { provider: "anthropic", modelId: "claude-sonnet-4-5" },
      thinkingLevel: "medium",
      label: "arithmetic",
      roots: 1,
      reopenedEntries: 7,
      listed: [{ name: "Example session", messageCount: 3, firstMessage: "What is 2 + 2?" }],
    });
  });
});
