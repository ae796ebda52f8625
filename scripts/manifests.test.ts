/**
 * What every package says about itself holds for a user who installs it from npm: one MIT
 * LICENSE (the repository's, in every package), `repository` (with its directory), `homepage`
 * and `bugs` in every manifest, no source maps shipped (they would point at sources that are not
 * in the tarball), README links that leave the package are absolute, the CLI (a bundle)
 * declares no runtime dependency and Node packages need Node >= 22.19. Every published package
 * builds before it packs, publishes with public access and takes carets of its runtime
 * dependencies (`workspace:^` for this repository's, which pnpm makes carets when it publishes).
 * The tarballs themselves are checked by `scripts/release.test.ts`.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));
const REPOSITORY = "https://github.com/pi-session/pi-session";

interface Manifest {
  name: string;
  private?: boolean;
  license?: string;
  repository?: { type?: string; url?: string; directory?: string };
  homepage?: string;
  bugs?: { url?: string };
  files?: string[];
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  scripts?: Record<string, string>;
  publishConfig?: Record<string, unknown>;
}

const dirs = [
  ...["packages", "apps"].flatMap((group) =>
    readdirSync(join(root, group)).map((name) => `${group}/${name}`),
  ),
  "bench",
].filter((dir) => existsSync(join(root, dir, "package.json")));
const manifest = (dir: string): Manifest => JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8"));
const published = dirs.filter((dir) => !manifest(dir).private);
const license = readFileSync(join(root, "LICENSE"), "utf8");

describe("package manifests", () => {
  it("finds the published packages", () => {
    expect(published.map((dir) => manifest(dir).name).sort()).toEqual(
      [
        "@pi-session/cli",
        "@pi-session/context",
        "@pi-session/format",
        "@pi-session/migrate",
        "@pi-session/node-store",
        "@pi-session/postgres",
        "@pi-session/render",
        "@pi-session/sdk",
        "@pi-session/search",
        "@pi-session/tree",
      ].sort(),
    );
  });

  it("the repository has one MIT LICENSE, and every package carries it unchanged", () => {
    expect(license).toMatch(/^MIT License\n\nCopyright \(c\) 2026 pi-session contributors\n/);
    const different = dirs.filter(
      (dir) =>
        !existsSync(join(root, dir, "LICENSE")) ||
        readFileSync(join(root, dir, "LICENSE"), "utf8") !== license,
    );
    expect(different).toEqual([]);
    for (const dir of published) expect(manifest(dir).license, dir).toBe("MIT");
  });

  it("every manifest names the repository (with its directory), the homepage and where bugs go", () => {
    for (const dir of dirs) {
      const m = manifest(dir);
      expect(m.repository, dir).toEqual({ type: "git", url: `git+${REPOSITORY}.git`, directory: dir });
      expect(m.homepage, dir).toBe(`${REPOSITORY}/tree/main/${dir}#readme`);
      expect(m.bugs, dir).toEqual({ url: `${REPOSITORY}/issues` });
    }
  });

  it("no package ships source maps (they would point at sources the tarball does not have)", () => {
    const base = JSON.parse(readFileSync(join(root, "tsconfig.base.json"), "utf8")).compilerOptions;
    expect(base.sourceMap).toBe(false);
    expect(base.declarationMap).toBe(false);
    for (const dir of published) {
      const files = manifest(dir).files ?? [];
      // The CLI lists its bundle file by file; the others exclude any stale map in dist/.
      if (files.includes("dist")) expect(files, dir).toContain("!dist/**/*.map");
    }
  });

  it("every published package builds before it packs, publishes public, and takes carets of what it runs on", () => {
    for (const dir of published) {
      const m = manifest(dir);
      expect(m.scripts?.prepack, dir).toBe("pnpm run build");
      expect(m.publishConfig, dir).toEqual({ access: "public" });
      for (const [dep, range] of Object.entries(m.dependencies ?? {}))
        expect(range, `${dir}: ${dep}`).toMatch(dep.startsWith("@pi-session/") ? /^workspace:\^$/ : /^\^\d/);
    }
  });

  it("the CLI is a bundle: no runtime dependency", () => {
    const cli = manifest("apps/cli");
    expect(cli.dependencies ?? {}).toEqual({});
    expect(cli.optionalDependencies ?? {}).toEqual({});
    expect(cli.peerDependencies ?? {}).toEqual({});
  });

  it("Node packages need pi's own floor (>= 22.19); the pure layers declare none", () => {
    const pure = [
      "packages/format",
      "packages/migrate",
      "packages/tree",
      "packages/context",
      "packages/render",
    ];
    for (const dir of published) {
      const engines = (manifest(dir) as { engines?: { node?: string } }).engines;
      if (pure.includes(dir)) expect(engines, dir).toBeUndefined();
      else expect(engines?.node, dir).toBe(">=22.19");
    }
  });

  it("TypeBox is an optional peer of format (only @pi-session/format/schema loads it)", () => {
    const format = manifest("packages/format");
    expect(format.dependencies ?? {}).toEqual({});
    expect(Object.keys(format.peerDependencies ?? {})).toEqual(["typebox"]);
    expect(format.peerDependenciesMeta?.typebox?.optional).toBe(true);
    for (const dir of published)
      expect(Object.keys(manifest(dir).dependencies ?? {}), dir).not.toContain("typebox");
  });

  it("README links that leave the package are absolute", () => {
    const leaving: string[] = [];
    for (const dir of published) {
      const text = readFileSync(join(root, dir, "README.md"), "utf8").replace(
        /```[\s\S]*?```|`[^`\n]*`/g,
        "",
      );
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = (m[1] as string).split("#")[0] as string;
        if (target === "" || /^[a-z]+:/.test(target)) continue;
        const inside = relative(join(root, dir), resolve(dirname(join(root, dir, "README.md")), target));
        if (inside.startsWith("..")) leaving.push(`${dir}/README.md: ${m[1]}`);
      }
    }
    expect(leaving).toEqual([]);
  });
});
