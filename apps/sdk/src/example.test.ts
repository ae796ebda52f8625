/**
 * Runs `examples/basic.mjs` (the upstream-style example) with node against the built package.
 * @module-tag processes
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

describe("examples/basic.mjs", () => {
  it("runs unchanged against the built package and prints what pi would", () => {
    const script = fileURLToPath(new URL("../examples/basic.mjs", import.meta.url));
    // The example's session dir (under TMPDIR) and listing cache go to a temp dir removed
    // afterwards, never into the real ~/.cache.
    const scratch = mkdtempSync(join(tmpdir(), "pi-sdk-example-run-"));
    let out: string;
    try {
      out = execFileSync(process.execPath, [script], {
        encoding: "utf8",
        env: { ...process.env, XDG_CACHE_HOME: join(scratch, "cache"), TMPDIR: scratch },
      });
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
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
