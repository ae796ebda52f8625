/**
 * The documentation stays true to the repository: every relative link in the docs and READMEs
 * points at a file that exists, every test that `docs/format.md` names ("Pinned by:" paragraphs,
 * a name wrapped over lines included) is still in the file it links, and nothing refers to the `../shared/` directory beside the
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

/**
 * The tests a "Pinned by:" paragraph names: each link to a test file, then the quoted names up
 * to the next link. A name may be wrapped anywhere, at its quotes too: its whitespace becomes
 * single spaces and its ends are trimmed.
 */
function pinnedTests(paragraph: string): { file: string; name: string }[] {
  if (!paragraph.startsWith("Pinned by:")) return [];
  const out: { file: string; name: string }[] = [];
  const parts = squash(paragraph).split(/\[[^\]]+\]\(\.\.\/([^)]+\.test\.ts)\)/);
  for (let i = 1; i < parts.length; i += 2)
    for (const m of (parts[i + 1] as string).matchAll(/"([^"]+)"/g))
      out.push({ file: parts[i] as string, name: (m[1] as string).trim() });
  return out;
}

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

  it("reads the test names of a Pinned by: paragraph whatever its line breaks", () => {
    const paragraph = `Pinned by: [a.test.ts](../a.test.ts) "one
name", "
two"; [b.test.ts](../b.test.ts)
"three" (and "four
")`;
    expect(pinnedTests(paragraph)).toEqual([
      { file: "a.test.ts", name: "one name" },
      { file: "a.test.ts", name: "two" },
      { file: "b.test.ts", name: "three" },
      { file: "b.test.ts", name: "four" },
    ]);
  });

  it("every test docs/format.md names is in the file it links", () => {
    const text = readFileSync(join(root, "docs", "format.md"), "utf8");
    const missing: string[] = [];
    let named = 0;
    for (const paragraph of text.split(/\n\s*\n/)) {
      for (const { file, name } of pinnedTests(paragraph)) {
        named++;
        const path = join(root, file);
        // The source with its line breaks and indentation as single spaces, as the name is.
        const source = existsSync(path) ? squash(readFileSync(path, "utf8")) : "";
        if (!source.includes(name)) missing.push(`${file}: "${name}"`);
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
