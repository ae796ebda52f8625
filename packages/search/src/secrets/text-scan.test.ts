import { PLANTED_SECRETS } from "@pi-session/testkit";
import { describe, expect, it } from "vitest";
import { secretDetector } from "./detector.js";
import { secretCounter } from "./text-scan.js";

const github = PLANTED_SECRETS.find((p) => p.kind === "github")?.secret as string;

describe("secretCounter", () => {
  it("counts each secret once, whatever the chunks: one entry each, cut inside a secret, past a batch", () => {
    const text = `${"filler line of an export\n".repeat(20_000)}token ${github}\n${"more\n".repeat(100)}again ${github}\n`;
    for (const size of [1, 600, 7, 300_000]) {
      const counter = secretCounter(secretDetector());
      let out = "";
      for (let i = 0; i < text.length; i += size) out += counter.scan(text.slice(i, i + size));
      expect(out).toBe(text);
      expect(counter.counts).toEqual({ github: 2 });
      expect(counter.total).toBe(2);
    }
  });
});
