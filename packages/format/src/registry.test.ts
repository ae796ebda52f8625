/**
 * The registry of entry types and message roles: its lists are the format's (the union of
 * entry schemas, the roles of the message schemas, docs/format.md's table), its names are
 * unique where consumers key by them, and its lookups treat unknown values as unknown.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  ENTRY_TYPE_INFO,
  ENTRY_TYPES,
  MESSAGE_ROLE_INFO,
  MESSAGE_ROLES,
  contextRoleOf,
  contextView,
  entryTypeInfo,
  indexRoleOf,
  isEntryType,
  messageRoleInfo,
} from "./registry.js";
import { schemasFor, validateEntry } from "./schema.js";
import type { AnyEntry } from "./types.js";

/** The values a schema's `not: { enum }` excludes at `key` (the fallback of unknown types and roles). */
const excluded = (schema: unknown, key: string): unknown =>
  (schema as { properties: Record<string, { not: { enum: unknown } }> }).properties[key]?.not.enum;

const base = { id: "a1b2c3d4", parentId: null, timestamp: "2026-01-02T03:04:05.000Z" };

describe("the registry of entry types", () => {
  it("lists the eleven v3 types in the order pi introduced them", () => {
    expect(ENTRY_TYPES).toEqual([
      "message",
      "thinking_level_change",
      "model_change",
      "compaction",
      "branch_summary",
      "custom",
      "custom_message",
      "label",
      "session_info",
      "usage",
      "context_edit",
    ]);
  });

  it("is the types docs/format.md's table describes", () => {
    const doc = readFileSync(fileURLToPath(new URL("../../../docs/format.md", import.meta.url)), "utf8");
    const section = doc.slice(doc.indexOf("## Entry types"), doc.indexOf("## Messages"));
    // The table's rows (its heading row names the column `type`).
    const documented = [...section.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]).slice(1);
    expect(documented).toEqual([...ENTRY_TYPES]);
  });

  it("is the types the schemas know: the fallback for unknown types excludes them, strict mode refuses others", () => {
    expect(excluded(schemasFor().UnknownEntry, "type")).toEqual([...ENTRY_TYPES, "session"]);
    expect(validateEntry({ type: "no_such_type", ...base }, { strict: true })).not.toEqual([]);
    expect(validateEntry({ type: "no_such_type", ...base })).toEqual([]);
  });

  it("names each item kind once, across entry types and message roles", () => {
    const entryItems = Object.values(ENTRY_TYPE_INFO).flatMap((row) =>
      row.summary === "role" ? [] : [row.summary.item],
    );
    const roleItems = new Set<string>(Object.values(MESSAGE_ROLE_INFO).map((row) => row.item));
    expect(new Set(entryItems).size).toBe(entryItems.length);
    expect(entryItems.filter((item) => roleItems.has(item))).toEqual([]);
  });

  it("summarises only message entries by their role", () => {
    expect(ENTRY_TYPES.filter((type) => ENTRY_TYPE_INFO[type].summary === "role")).toEqual(["message"]);
    expect(ENTRY_TYPES.filter((type) => contextRoleOf(type) === "message")).toEqual(["message"]);
  });

  it("treats an unknown type, a non-string and an inherited key as unknown", () => {
    for (const type of ["future_type", "", 7, null, undefined, "toString", "__proto__"]) {
      expect(isEntryType(type)).toBe(false);
      expect(entryTypeInfo(type)).toBeUndefined();
      expect(contextRoleOf(type)).toBe("none");
      expect(indexRoleOf(type)).toBe("none");
    }
  });

  it("gives an entry with its context role, typed by the role", () => {
    const entries: AnyEntry[] = [
      { type: "custom_message", ...base, customType: "note", content: "hi", display: true },
      { type: "context_edit", ...base, targetId: "b", replacement: null },
      { type: "future_type", ...base },
    ];
    const seen = entries.map((entry) => {
      const view = contextView(entry);
      switch (view.role) {
        case "custom-message":
          return `custom-message ${view.entry.customType}`;
        case "edit":
          return `edit ${view.entry.targetId}`;
        default:
          return view.role;
      }
    });
    expect(seen).toEqual(["custom-message note", "edit b", "none"]);
  });

  it("previews a label's value as JSON and a cleared one as such", () => {
    const label = ENTRY_TYPE_INFO.label.summary;
    expect(label.preview({ targetId: "t", label: "done" })).toBe('t = "done"');
    expect(label.preview({ targetId: "t" })).toBe("t = (cleared)");
  });
});

describe("the registry of message roles", () => {
  it("has the v3 roles the message schemas know, and the legacy hookMessage", () => {
    expect(MESSAGE_ROLES).toEqual([
      "user",
      "assistant",
      "toolResult",
      "bashExecution",
      "custom",
      "branchSummary",
      "compactionSummary",
      "system",
    ]);
    expect(Object.keys(MESSAGE_ROLE_INFO)).toEqual([...MESSAGE_ROLES, "hookMessage"]);
    expect(excluded(schemasFor().UnknownMessage, "role")).toEqual(MESSAGE_ROLES);
    expect(excluded(schemasFor({ version: 2 }).UnknownMessage, "role")).toEqual(
      Object.keys(MESSAGE_ROLE_INFO),
    );
  });

  it("groups the tool roles for search and treats unknown roles as unknown", () => {
    expect(
      Object.entries(MESSAGE_ROLE_INFO)
        .filter(([, r]) => r.search === "tool")
        .map(([role]) => role),
    ).toEqual(["toolResult", "bashExecution"]);
    expect(messageRoleInfo("critic")).toBeUndefined();
    expect(messageRoleInfo("constructor")).toBeUndefined();
  });
});
