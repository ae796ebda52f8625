/**
 * The bundle carries the notices of what it inlines: every third-party package esbuild put in
 * dist/ (its metafile, dist/bundle-meta.json) has its license text in dist/THIRD_PARTY_NOTICES.md
 * (from its license file, else the License section of its README).
 * @module-tag dist
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const cli = fileURLToPath(new URL("..", import.meta.url));
const dist = join(cli, "dist");

/** Package roots of the bundle's inputs that live in a node_modules directory. */
function bundledPackages(): Map<string, string> {
  const meta = JSON.parse(readFileSync(join(dist, "bundle-meta.json"), "utf8")) as {
    inputs: Record<string, unknown>;
  };
  const out = new Map<string, string>();
  for (const input of Object.keys(meta.inputs)) {
    const parts = input.split(/[\\/]/);
    const at = parts.lastIndexOf("node_modules");
    if (at < 0) continue;
    const length = parts[at + 1]?.startsWith("@") ? 2 : 1;
    const name = parts.slice(at + 1, at + 1 + length).join("/");
    if (name.startsWith("@pi-session/")) continue;
    out.set(name, join(cli, ...parts.slice(0, at + 1 + length)));
  }
  return out;
}

/**
 * The license a package without a license file states in its README (pg-types, pgpass: a
 * "License" heading over the MIT text); a marker no notice holds when there is none.
 */
function readmeLicense(dir: string, name: string): string {
  const readme = readdirSync(dir).find((n) => /^readme(\.md)?$/i.test(n));
  const lines = readme ? readFileSync(join(dir, readme), "utf8").split("\n") : [];
  const start = lines.findIndex((l) => /^#+\s*licen[cs]e\s*$/i.test(l));
  if (start < 0) return `(no license file in ${name})`;
  const end = lines.findIndex((l, i) => i > start && /^#+\s/.test(l));
  const text = lines
    .slice(start + 1, end < 0 ? undefined : end)
    .join("\n")
    .trim();
  return /permission is hereby granted/i.test(text) ? text : `(no license text in ${name}'s README)`;
}

describe("THIRD_PARTY_NOTICES.md", () => {
  const notices = readFileSync(join(dist, "THIRD_PARTY_NOTICES.md"), "utf8");
  const bundled = bundledPackages();

  it("the bundle inlines third-party code", () => {
    expect([...bundled.keys()]).toEqual(expect.arrayContaining(["cac", "picocolors", "typebox"]));
  });

  it("holds the license text of every bundled package", () => {
    const missing: string[] = [];
    for (const [name, dir] of bundled) {
      const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version: string };
      const file = readdirSync(dir).find((n) => /^(licen[cs]e|copying)(\.|$)/i.test(n));
      const text = file ? readFileSync(join(dir, file), "utf8").trim() : readmeLicense(dir, name);
      if (!notices.includes(`## ${name}@${manifest.version}`) || !notices.includes(text)) missing.push(name);
    }
    expect(missing).toEqual([]);
  });

  it("ships in the package", () => {
    const files: string[] = JSON.parse(readFileSync(join(cli, "package.json"), "utf8")).files;
    expect(files).toContain("dist/THIRD_PARTY_NOTICES.md");
  });
});
