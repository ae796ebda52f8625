/**
 * The documentation stays true to the repository: every relative link in the docs and READMEs
 * points at a file that exists, every test that `docs/format.md` names ("Pinned by:" paragraphs)
 * is still in the file it links, and nothing refers to the `../shared/` directory beside the
 * clone except the one fixture helper (packages/testkit).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));

function walk(dir: string, keep: (name: string) => boolean, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (["node_modules", "dist", "lib", "schema", ".git", ".turbo"].includes(entry.name)) continue;
    if (entry.name.startsWith(".") && entry.isDirectory()) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path, keep, out);
    else if (keep(entry.name)) out.push(path);
  }
  return out;
}

const rel = (path: string) => relative(root, path).split("\\").join("/");
const markdown = walk(root, (n) => n.endsWith(".md") && n !== "CHANGELOG.md").filter(
  (p) => !rel(p).startsWith("bench/results/") && !rel(p).startsWith(".changeset/"),
);
const squash = (text: string) => text.replace(/\s+/g, " ");

describe("docs", () => {
  it("finds the docs", () => {
    expect(markdown.map(rel)).toEqual(expect.arrayContaining(["docs/format.md", "docs/architecture.md"]));
  });

  it("relative links point at files that exist", () => {
    const broken: string[] = [];
    for (const file of markdown) {
      // Inline code and code blocks aside (a regular expression there is no link).
      const text = readFileSync(file, "utf8").replace(/```[\s\S]*?```|`[^`\n]*`/g, "");
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = (m[1] as string).split("#")[0] as string;
        if (target === "" || /^[a-z]+:/.test(target)) continue;
        if (!existsSync(join(dirname(file), target))) broken.push(`${rel(file)}: ${m[1]}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("every test docs/format.md names is in the file it links", () => {
    const text = readFileSync(join(root, "docs", "format.md"), "utf8");
    const missing: string[] = [];
    let named = 0;
    for (const paragraph of text.split(/\n\s*\n/)) {
      if (!paragraph.startsWith("Pinned by:")) continue;
      // Each link to a test file, then the quoted test names up to the next link.
      const parts = squash(paragraph).split(/\[[^\]]+\]\(\.\.\/([^)]+\.test\.ts)\)/);
      for (let i = 1; i < parts.length; i += 2) {
        const file = join(root, parts[i] as string);
        const source = existsSync(file) ? squash(readFileSync(file, "utf8")) : "";
        for (const m of (parts[i + 1] as string).matchAll(/"([^"]+)"/g)) {
          named++;
          if (!source.includes(m[1] as string)) missing.push(`${parts[i]}: "${m[1]}"`);
        }
      }
    }
    expect(named).toBeGreaterThan(100);
    expect(missing).toEqual([]);
  });

  it("nothing refers to ../shared/ except the fixture helper", () => {
    const files = [
      ...markdown,
      ...["packages", "apps", "bench", "scripts"].flatMap((d) =>
        walk(join(root, d), (n) => /\.(ts|mts|mjs|js|json)$/.test(n)),
      ),
    ].filter((p) => !rel(p).startsWith("packages/testkit/") && rel(p) !== "scripts/docs.test.ts");
    const found = files.filter((p) =>
      /\.\.\/shared\b|upstream-pi-sessions|shared\/fixtures|shared\/reference|§/.test(
        readFileSync(p, "utf8"),
      ),
    );
    expect(found.map(rel)).toEqual([]);
  });
});
