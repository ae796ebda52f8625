// Writes the JSON Schema files in schema/ from the built TypeBox schemas (dist/schema.js).
// Runs after `tsc -b` (see the package's build script). TypeBox schemas already are JSON
// Schema; this adds the draft-07 header and drops any non-standard (`~`-prefixed) key.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const pkgDir = join(here, "..");
const outDir = join(pkgDir, "schema");
const S = await import(new URL("../dist/schema.js", import.meta.url).href);

const DRAFT_07 = "http://json-schema.org/draft-07/schema#";

/** A deep copy without TypeBox-internal keys. */
function clean(value) {
  if (Array.isArray(value)) return value.map(clean);
  if (value === null || typeof value !== "object") return value;
  const out = {};
  for (const [k, v] of Object.entries(value)) {
    if (k.startsWith("~")) continue;
    out[k] = clean(v);
  }
  return out;
}

const files = [
  {
    name: "session-v3.schema.json",
    title: "pi session line (v3)",
    description:
      "One line of a pi coding-agent session file, format version 3: the header or an entry. Objects are open; entries, messages and content blocks of unknown types pass with their base shape.",
    schema: S.SessionLineV3Schema,
  },
  {
    name: "entry-v3.schema.json",
    title: "pi session entry (v3)",
    description: "One entry line (not the header) of a pi coding-agent session file, format version 3.",
    schema: S.SessionEntrySchema,
  },
  {
    name: "session-v2.schema.json",
    title: "pi session line (v2)",
    description:
      "One line of a pi coding-agent session file, format version 2 (v3 plus the legacy hookMessage role).",
    schema: S.SessionLineV2Schema,
  },
  {
    name: "session-v1.schema.json",
    title: "pi session line (v1)",
    description:
      "One line of a pi coding-agent session file, format version 1 (no version in the header, no entry ids; compactions may carry firstKeptEntryIndex).",
    schema: S.SessionLineV1Schema,
  },
];

mkdirSync(outDir, { recursive: true });
for (const f of files) {
  const doc = { $schema: DRAFT_07, title: f.title, description: f.description, ...clean(f.schema) };
  writeFileSync(join(outDir, f.name), `${JSON.stringify(doc, null, 2)}\n`);
}
