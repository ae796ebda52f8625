// Writes the JSON Schema files in schema/ from the built package (dist/json-schema.js, which
// says how they are made). Runs after `tsc -b` (see the package's build script).
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const outDir = join(dirname(fileURLToPath(import.meta.url)), "..", "schema");
const { jsonSchemaDocuments } = await import(new URL("../dist/json-schema.js", import.meta.url).href);

mkdirSync(outDir, { recursive: true });
// One line each: programs read them (a formatter shows them to people), and indented they were
// four times the size in every install of the package (decision 152).
for (const [name, doc] of Object.entries(jsonSchemaDocuments())) {
  writeFileSync(join(outDir, name), `${JSON.stringify(doc)}\n`);
}
