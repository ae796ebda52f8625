// Before packing (`prepack`): removes the files in dist/chunks/ that the current bundle did not
// write, as its metafile (dist/bundle-meta.json) lists them. The bundle script empties the
// directory itself, but a build restored from turbo's cache is laid over the dist/ already there
// without removing anything, so chunks of older builds would otherwise ship in the tarball.
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const chunks = join(root, "dist", "chunks");
const meta = JSON.parse(readFileSync(join(root, "dist", "bundle-meta.json"), "utf8"));
// The metafile names outputs relative to the package directory (where the bundle script runs).
const written = new Set(Object.keys(meta.outputs).map((path) => join(root, path)));
for (const name of readdirSync(chunks)) {
  const path = join(chunks, name);
  if (!written.has(path)) {
    rmSync(path, { recursive: true, force: true });
    console.log(`prune-chunks: removed ${relative(root, path)} (not written by the current bundle)`);
  }
}
