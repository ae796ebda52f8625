/** Tests that every arbitrary yields plain JSON shaped as pi writes it. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  DRAFT_TYPES,
  MESSAGE_ROLES,
  arbEntry,
  arbHeader,
  arbImageContent,
  arbMessage,
  arbTextContent,
  arbThinkingContent,
  arbToolCall,
  arbUnknownContent,
  arbUsage,
} from "./arbitraries.js";
import { fcOptions, scaledRuns } from "./env.js";

const roundTrips = (v: unknown) => expect(JSON.parse(JSON.stringify(v))).toStrictEqual(v);
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

// Generous: the CI machine is shared, and a few hundred runs can exceed vitest's 5 s default.
const PROPERTY_TIMEOUT = 120_000;

describe("arbitraries", { timeout: PROPERTY_TIMEOUT }, () => {
  it("content blocks and usage round-trip through JSON", () => {
    fc.assert(
      fc.property(
        arbTextContent,
        arbThinkingContent,
        arbImageContent,
        arbToolCall,
        arbUnknownContent,
        arbUsage,
        (...values) => {
          for (const v of values) roundTrips(v);
          const usage = values[5];
          expect(usage.totalTokens).toBe(usage.input + usage.output + usage.cacheRead + usage.cacheWrite);
        },
      ),
      fcOptions(),
    );
  });

  it.each(MESSAGE_ROLES)("messages of role %s have that role and a ms timestamp", (role) => {
    fc.assert(
      fc.property(arbMessage(role), (m) => {
        roundTrips(m);
        expect(m.role).toBe(role);
        expect(Number.isInteger(m.timestamp)).toBe(true);
      }),
      fcOptions({ numRuns: scaledRuns(50) }),
    );
  });

  it("arbMessage() never produces the legacy hookMessage role", () => {
    fc.assert(
      fc.property(arbMessage(), (m) => {
        expect(m.role).not.toBe("hookMessage");
      }),
      fcOptions(),
    );
  });

  it.each(DRAFT_TYPES)("entry drafts of type %s have the type, an ISO timestamp and no id", (type) => {
    fc.assert(
      fc.property(arbEntry(type), (e) => {
        roundTrips(e);
        if (type === "unknown") expect(["active_tools_change", "x_future_type", "leaf"]).toContain(e.type);
        else expect(e.type).toBe(type);
        expect(e.timestamp).toMatch(ISO);
        expect(e).not.toHaveProperty("id");
        expect(e).not.toHaveProperty("parentId");
      }),
      fcOptions({ numRuns: scaledRuns(50) }),
    );
  });

  it("labels and session names cover set, empty and absent", () => {
    const labels = fc.sample(arbEntry("label"), 300);
    expect(labels.some((l) => !("label" in l))).toBe(true);
    expect(labels.some((l) => l.label === "")).toBe(true);
    expect(labels.some((l) => typeof l.label === "string" && l.label !== "")).toBe(true);
    const infos = fc.sample(arbEntry("session_info"), 300);
    expect(infos.some((l) => !("name" in l))).toBe(true);
    expect(infos.some((l) => l.name === "")).toBe(true);
    const edits = fc.sample(arbEntry("context_edit"), 300);
    expect(edits.some((e) => e.replacement === null)).toBe(true);
    expect(edits.some((e) => typeof (e.replacement as { content?: unknown })?.content === "string")).toBe(
      true,
    );
    expect(edits.some((e) => Array.isArray((e.replacement as { content?: unknown })?.content))).toBe(true);
  });

  it.each([1, 2, 3] as const)("headers of version %i", (version) => {
    fc.assert(
      fc.property(arbHeader(version), (h) => {
        roundTrips(h);
        expect(h.type).toBe("session");
        expect(typeof h.id).toBe("string");
        expect(h.timestamp).toMatch(ISO);
        if (version === 1) expect(h).not.toHaveProperty("version");
        else expect(h.version).toBe(version);
        if (version !== 1) expect(typeof h.cwd).toBe("string");
      }),
      fcOptions({ numRuns: scaledRuns(50) }),
    );
  });
});
