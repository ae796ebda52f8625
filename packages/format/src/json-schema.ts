/**
 * The published JSON Schema documents (`schema/*.schema.json`), made from the TypeBox schemas:
 * TypeBox schemas already are JSON Schema, so each document is the schema with a draft-07
 * header and without TypeBox's own (`~`-prefixed) keys. `scripts/gen-json-schema.mjs` writes
 * them at build time; tests validate with them straight from the sources.
 */
import {
  SessionEntrySchema,
  SessionLineV1Schema,
  SessionLineV2Schema,
  SessionLineV3Schema,
} from "./schema.js";

const DRAFT_07 = "http://json-schema.org/draft-07/schema#";

/** File name (in `schema/`) → JSON Schema document. */
export type JsonSchemaDocuments = Record<
  "session-v3.schema.json" | "entry-v3.schema.json" | "session-v2.schema.json" | "session-v1.schema.json",
  Record<string, unknown>
>;

/** A deep copy without TypeBox-internal keys. */
function clean(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(clean);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (k.startsWith("~")) continue;
    out[k] = clean(v);
  }
  return out;
}

function document(title: string, description: string, schema: unknown): Record<string, unknown> {
  return { $schema: DRAFT_07, title, description, ...(clean(schema) as Record<string, unknown>) };
}

export function jsonSchemaDocuments(): JsonSchemaDocuments {
  return {
    "session-v3.schema.json": document(
      "pi session line (v3)",
      "One line of a pi coding-agent session file, format version 3: the header or an entry. Objects are open; entries, messages and content blocks of unknown types pass with their base shape.",
      SessionLineV3Schema,
    ),
    "entry-v3.schema.json": document(
      "pi session entry (v3)",
      "One entry line (not the header) of a pi coding-agent session file, format version 3.",
      SessionEntrySchema,
    ),
    "session-v2.schema.json": document(
      "pi session line (v2)",
      "One line of a pi coding-agent session file, format version 2 (v3 plus the legacy hookMessage role).",
      SessionLineV2Schema,
    ),
    "session-v1.schema.json": document(
      "pi session line (v1)",
      "One line of a pi coding-agent session file, format version 1 (no version in the header, no entry ids; compactions may carry firstKeptEntryIndex).",
      SessionLineV1Schema,
    ),
  };
}
