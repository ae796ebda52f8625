/**
 * Tests of the TypeBox schemas and validators, and of the JSON Schema documents (checked
 * with ajv, made from the sources; one test checks the built `schema/` files are the same):
 * real v1 fixtures pass, generated v3 sessions pass, bad lines fail with a path and an
 * expectation, open vs strict mode, and TypeBox and ajv agree.
 */
import { readFileSync } from "node:fs";
import {
  arbEntry,
  arbHeader,
  fcOptions,
  readUpstreamFixture,
  upstreamFixtureNames,
} from "@pi-session/testkit";
import { Ajv, type ValidateFunction } from "ajv";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseSessionBytes, parseSessionText } from "./codec/parse.js";
import { jsonSchemaDocuments } from "./json-schema.js";
import { compiledValidator } from "./schema/checks.js";
import {
  SessionEntrySchema,
  SessionHeaderSchema,
  SessionLineV3Schema,
  validateEntry,
  validateHeader,
  validateRecords,
} from "./schema.js";

/** Compiling validators and walking megabyte fixtures is slow on a loaded CI box. */
const SLOW = 60_000;

const documents = jsonSchemaDocuments();
const ajv = new Ajv({ allErrors: false });
const ajvSchemas: Record<string, ValidateFunction> = {};
function ajvFor(name: "session-v1" | "session-v2" | "session-v3" | "entry-v3"): ValidateFunction {
  ajvSchemas[name] ??= ajv.compile(documents[`${name}.schema.json`]);
  return ajvSchemas[name] as ValidateFunction;
}

let seq = 0;
/** Gives a draft an id and a parent, as a session builder would. */
function withIds(draft: Record<string, unknown>, parentId: string | null): Record<string, unknown> {
  seq++;
  const { type, timestamp, ...rest } = draft;
  return { type, id: seq.toString(16).padStart(8, "0"), parentId, timestamp, ...rest };
}

const base = { id: "a1b2c3d4", parentId: null, timestamp: "2025-12-28T10:00:00.000Z" };
const usage = {
  input: 1,
  output: 2,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 3,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};
const good = {
  user: { type: "message", ...base, message: { role: "user", content: "hi", timestamp: 1 } },
  assistant: {
    type: "message",
    ...base,
    message: {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "hm" },
        { type: "text", text: "ok" },
        { type: "toolCall", id: "c1", name: "bash", arguments: { command: "ls" } },
      ],
      api: "anthropic-messages",
      provider: "anthropic",
      model: "claude",
      usage,
      stopReason: "toolUse",
      timestamp: 2,
    },
  },
  label: { type: "label", ...base, targetId: "x", label: "v1" },
  compaction: { type: "compaction", ...base, summary: "s", firstKeptEntryId: "x", tokensBefore: 10 },
  contextEdit: { type: "context_edit", ...base, targetId: "x", replacement: null },
};

const bad: [string, unknown, string][] = [
  [
    "content is a number",
    { type: "message", ...base, message: { role: "user", content: 5, timestamp: 1 } },
    "/message/content",
  ],
  ["tokensBefore is a string", { ...good.compaction, tokensBefore: "10" }, "/tokensBefore"],
  ["no id in v3", { type: "label", parentId: null, timestamp: "t", targetId: "x" }, ""],
  [
    "text block without text",
    { type: "message", ...base, message: { role: "user", content: [{ type: "text" }], timestamp: 1 } },
    "/message/content/0",
  ],
  ["label without targetId", { type: "label", ...base }, ""],
  ["parentId is a number", { ...good.label, parentId: 7 }, "/parentId"],
  ["not an object", [1, 2], ""],
  ["unknown type without base fields", { type: "future_thing" }, ""],
  ["type is not a string", { ...base, type: 42 }, "/type"],
  [
    "usage without cost",
    {
      type: "usage",
      ...base,
      kind: "x",
      provider: "p",
      model: "m",
      usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 },
    },
    "/usage",
  ],
];

describe("validateEntry (open mode)", () => {
  it.each(Object.entries(good))("accepts a valid %s entry", (_name, entry) => {
    expect(validateEntry(entry)).toEqual([]);
    expect(ajvFor("entry-v3")(entry)).toBe(true);
  });

  it.each(bad)("rejects an entry whose %s, naming the path", (_name, entry, path) => {
    const issues = validateEntry(entry);
    expect(issues.length).toBeGreaterThan(0);
    expect(issues[0]?.path).toBe(path);
    expect(issues[0]?.message).toMatch(/expected|missing|unexpected|known/);
    expect(ajvFor("entry-v3")(entry)).toBe(false);
    expect(ajvFor("session-v3")(entry)).toBe(false);
  });

  it("reports what was expected", () => {
    expect(validateEntry({ ...good.compaction, tokensBefore: "10" })).toEqual([
      { path: "/tokensBefore", message: "expected number, got string" },
    ]);
    expect(validateEntry({ type: "label", ...base })).toEqual([
      { path: "", message: 'missing required property "targetId"' },
    ]);
  });

  it("lets unknown entry types, roles, content blocks and keys through", () => {
    const cases = [
      { type: "active_tools_change", ...base, activeToolNames: ["read"] },
      { type: "message", ...base, message: { role: "developer", content: "x", timestamp: 1 } },
      {
        type: "message",
        ...base,
        message: { ...good.assistant.message, content: [{ type: "finalAnswer", text: "42" }] },
      },
      { ...good.label, xFuture: { a: 1 } },
      {
        type: "message",
        ...base,
        message: { role: "hookMessage", customType: "x", content: "c", display: true, timestamp: 1 },
      },
    ];
    for (const c of cases) {
      expect(validateEntry(c)).toEqual([]);
      expect(ajvFor("entry-v3")(c)).toBe(true);
    }
  });

  it("still checks a known content block inside a message", () => {
    const e = {
      type: "message",
      ...base,
      message: { ...good.assistant.message, content: [{ type: "toolCall", id: "c" }] },
    };
    expect(validateEntry(e).map((i) => i.path)).toEqual(["/message/content/0", "/message/content/0"]);
  });
});

describe("validateEntry (strict mode)", () => {
  it("accepts the valid known entries", () => {
    for (const e of Object.values(good)) expect(validateEntry(e, { strict: true })).toEqual([]);
  });

  it("rejects unknown types, roles, blocks and keys", () => {
    expect(validateEntry({ type: "active_tools_change", ...base }, { strict: true })[0]?.path).toBe("/type");
    expect(
      validateEntry(
        { type: "message", ...base, message: { role: "developer", content: "x", timestamp: 1 } },
        { strict: true },
      )[0]?.path,
    ).toBe("/message/role");
    expect(validateEntry({ ...good.label, xFuture: 1 }, { strict: true })).toEqual([
      { path: "/xFuture", message: 'unexpected property "xFuture" (strict mode)' },
    ]);
    expect(
      validateEntry(
        { ...good.assistant, message: { ...good.assistant.message, stopReason: "weird" } },
        { strict: true },
      )[0]?.path,
    ).toBe("/message/stopReason");
  });

  it("knows hookMessage in v2 but not in v3", () => {
    const e = {
      type: "message",
      ...base,
      message: { role: "hookMessage", customType: "x", content: "c", display: true, timestamp: 1 },
    };
    expect(validateEntry(e, { strict: true, version: 2 })).toEqual([]);
    expect(validateEntry(e, { strict: true, version: 3 })).not.toEqual([]);
  });
});

describe("validateHeader", () => {
  it("accepts headers of every version and rejects a header without a string id", () => {
    expect(validateHeader({ type: "session", version: 3, id: "x", timestamp: "t", cwd: "/p" })).toEqual([]);
    expect(validateHeader({ type: "session", id: "x", timestamp: "t" })).toEqual([]);
    expect(validateHeader({ type: "session", id: 5, timestamp: "t" })).toEqual([
      { path: "/id", message: "expected string, got number" },
    ]);
    expect(validateHeader({ type: "message", id: "x", timestamp: "t" })[0]?.path).toBe("/type");
  });
});

describe("validateRecords", () => {
  it("turns issues into schema diagnostics with line and offset", () => {
    const text = [
      JSON.stringify({ type: "session", version: 3, id: "s", timestamp: "t" }),
      JSON.stringify(good.label),
      "not json",
      JSON.stringify({ ...good.compaction, tokensBefore: "x" }),
    ].join("\n");
    const r = parseSessionText(`${text}\n`);
    const diags = validateRecords(r.records);
    expect(diags).toHaveLength(1);
    const rec = r.records[3];
    expect(diags[0]).toMatchObject({ code: "schema", severity: "error", line: 4, offset: rec?.offset });
    expect(diags[0]?.reason).toBe('"compaction" entry: /tokensBefore: expected number, got string');
  });

  it("takes the version from the header: v1 entries need no ids", () => {
    const entry = JSON.stringify({
      type: "compaction",
      timestamp: "t",
      summary: "s",
      firstKeptEntryIndex: 3,
      tokensBefore: 1,
    });
    const v1 = parseSessionText(
      `${JSON.stringify({ type: "session", id: "s", timestamp: "t" })}\n${entry}\n`,
    );
    expect(validateRecords(v1.records)).toEqual([]);
    expect(validateRecords(v1.records, { version: 3 }).length).toBeGreaterThan(0);
  });

  it("caps the issues reported per record", () => {
    const r = parseSessionText(`${JSON.stringify({ type: "usage", ...base, usage: {} })}\n`);
    const diags = validateRecords(r.records);
    expect(diags).toHaveLength(5);
    expect(diags[4]?.reason).toMatch(/and \d+ more/);
  });
});

describe("upstream fixtures against the schemas", () => {
  it.each(upstreamFixtureNames)(
    "every line of %s validates (TypeBox v1 and ajv v1)",
    (name) => {
      const r = parseSessionBytes(readUpstreamFixture(name));
      expect(r.records).toHaveLength(name === "before-compaction" ? 1003 : 1019);
      expect(validateRecords(r.records)).toEqual([]);
      expect(validateRecords(r.records, { version: 1 })).toEqual([]);
      const check = ajvFor("session-v1");
      const failing = r.records
        .filter((rec) => rec.kind !== "json" || !check(rec.value))
        .map((rec) => rec.line);
      expect(failing, JSON.stringify(check.errors)).toEqual([]);
    },
    SLOW,
  );
});

describe("generated v3 sessions", () => {
  it(
    "validate against the TypeBox schemas and the v3 JSON Schema",
    () => {
      const arbSession = fc.tuple(arbHeader(3), fc.array(arbEntry(), { minLength: 1, maxLength: 6 }));
      fc.assert(
        fc.property(arbSession, ([header, drafts]) => {
          let parent: string | null = null;
          const lines: Record<string, unknown>[] = [{ ...header }];
          for (const d of drafts) {
            const e = withIds(d, parent);
            parent = e.id as string;
            lines.push(e);
          }
          const text = lines.map((l) => `${JSON.stringify(l)}\n`).join("");
          const r = parseSessionText(text);
          expect(validateRecords(r.records)).toEqual([]);
          const line = ajvFor("session-v3");
          const entry = ajvFor("entry-v3");
          expect(line(header), JSON.stringify(line.errors)).toBe(true);
          for (const l of lines.slice(1)) {
            expect(line(l), JSON.stringify(line.errors)).toBe(true);
            expect(entry(l), JSON.stringify(entry.errors)).toBe(true);
          }
        }),
        fcOptions(),
      );
    },
    SLOW,
  );

  it(
    "TypeBox and ajv agree on corrupted entries",
    () => {
      const arbCorrupted = fc
        .tuple(arbEntry(), fc.nat(), fc.jsonValue({ maxDepth: 1 }))
        .map(([draft, k, junk]) => {
          const e = withIds(draft, null);
          const keys = Object.keys(e);
          const key = keys[k % keys.length] as string;
          return { ...e, [key]: junk };
        });
      fc.assert(
        fc.property(arbCorrupted, (e) => {
          const typebox = validateEntry(e).length === 0;
          expect(ajvFor("entry-v3")(e)).toBe(typebox);
          expect(compiledValidator(SessionEntrySchema).Check(e)).toBe(typebox);
        }),
        fcOptions(),
      );
    },
    SLOW,
  );
});

describe("the built JSON Schema files", () => {
  it("are the documents the sources make (run pnpm build after changing a schema)", {
    tags: ["dist"],
  }, () => {
    for (const [name, doc] of Object.entries(documents)) {
      const built = JSON.parse(readFileSync(new URL(`../schema/${name}`, import.meta.url), "utf8"));
      expect(built, name).toEqual(doc);
    }
  });
});

describe("exported schema objects", () => {
  it("are plain JSON Schema (no TypeBox-only keys survive JSON)", () => {
    for (const s of [SessionEntrySchema, SessionHeaderSchema, SessionLineV3Schema]) {
      const text = JSON.stringify(s);
      expect(text).not.toMatch(/"~/);
      expect(JSON.parse(text)).toBeTypeOf("object");
    }
  });
});
