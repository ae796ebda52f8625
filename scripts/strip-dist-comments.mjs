// Run by each published library's build, after `tsc -b`: removes the comments from the
// JavaScript in the package's dist/ (TypeScript's printer prints each module again, as tsc
// emitted it but without comments: re-exports stay re-exports, which the CLI's bundle script
// relies on). The .d.ts files keep their documentation, which is what editors show; the sources
// keep every comment. The shipped JavaScript is about 30% smaller for it (decision 152: it keeps
// @pi-session/search with its dependencies under 1 MB installed). Rewrites only what changes, so
// running it again on its own output does nothing.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";

const printer = ts.createPrinter({ removeComments: true });
const dist = join(process.cwd(), "dist");
for (const entry of readdirSync(dist, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !entry.name.endsWith(".js")) continue;
  const path = join(entry.parentPath, entry.name);
  const code = readFileSync(path, "utf8");
  const source = ts.createSourceFile(path, code, ts.ScriptTarget.Latest, false, ts.ScriptKind.JS);
  const bare = printer.printFile(source);
  if (bare !== code) writeFileSync(path, bare);
}
