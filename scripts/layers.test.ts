/**
 * The layer rules of DESIGN.md, enforced: dependencies point down the layer list, pure
 * packages (format, migrate, tree, context, render) import no `node:` module, no Node built-in and
 * no Node global, every package imports only what its package.json declares, and the apps touch
 * the filesystem only through node-store, but for a short allow-list.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));

/** Layers, bottom first. A package may depend only on packages listed before it. */
const LAYERS = [
  "@pi-session/format",
  "@pi-session/migrate",
  "@pi-session/tree",
  "@pi-session/context",
  "@pi-session/render",
  "@pi-session/node-store",
  "@pi-session/search",
  "@pi-session/postgres",
  "@pi-session/agent-tools",
  "@pi-session/sdk",
  "@pi-session/web",
  "@pi-session/pi",
  "@pi-session/cli",
] as const;

/** Which internal packages each layer may use (DESIGN.md "Layers"). */
const ALLOWED: Record<string, readonly string[]> = {
  "@pi-session/format": [],
  "@pi-session/migrate": ["@pi-session/format"],
  "@pi-session/tree": ["@pi-session/format"],
  "@pi-session/context": ["@pi-session/format", "@pi-session/tree"],
  "@pi-session/render": [
    "@pi-session/format",
    "@pi-session/migrate",
    "@pi-session/tree",
    "@pi-session/context",
  ],
  "@pi-session/node-store": ["@pi-session/format", "@pi-session/migrate", "@pi-session/tree"],
  "@pi-session/search": [
    "@pi-session/format",
    "@pi-session/migrate",
    "@pi-session/tree",
    "@pi-session/render",
    "@pi-session/node-store",
  ],
  "@pi-session/postgres": [
    "@pi-session/format",
    "@pi-session/migrate",
    "@pi-session/tree",
    "@pi-session/render",
    "@pi-session/node-store",
    "@pi-session/search",
  ],
  "@pi-session/agent-tools": [
    "@pi-session/format",
    "@pi-session/migrate",
    "@pi-session/tree",
    "@pi-session/context",
    "@pi-session/render",
    "@pi-session/node-store",
    "@pi-session/search",
  ],
  "@pi-session/sdk": LAYERS.slice(0, 6),
  "@pi-session/web": LAYERS.slice(0, 8),
  // The pi package: pi's extension over the agent tools (not the team database, not the SDK).
  "@pi-session/pi": [
    "@pi-session/format",
    "@pi-session/migrate",
    "@pi-session/tree",
    "@pi-session/context",
    "@pi-session/render",
    "@pi-session/node-store",
    "@pi-session/search",
    "@pi-session/agent-tools",
  ],
  "@pi-session/cli": LAYERS.slice(0, 11),
};

const PURE = new Set([
  "@pi-session/format",
  "@pi-session/migrate",
  "@pi-session/tree",
  "@pi-session/context",
  "@pi-session/render",
]);

/**
 * Folders of non-pure packages that must be pure all the same: the format logic others reuse
 * in a browser or another backend (`@pi-session/search/documents`). They may import only
 * each other, pure packages and declared pure dependencies.
 */
const PURE_DIRS = ["packages/search/src/documents/"];

/**
 * The app modules that may use `node:fs` themselves, each with why; every other file access of
 * the apps goes through node-store's verbs.
 */
const APP_FS_ALLOWED: Record<string, string> = {
  "apps/cli/src/commands/export.ts":
    "writes the export the user asked for (a page, Markdown or JSON file), which is no session file",
  "apps/cli/src/fuzz-child.ts":
    "the fuzz target's child process, a test harness and not part of the program, reads its generated inputs",
};

const FS_MODULES = new Set(["fs", "node:fs", "fs/promises", "node:fs/promises"]);

interface Pkg {
  name: string;
  dir: string;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  optionalDependencies: Record<string, string>;
}

/** Packages published as one bundle: what they import is inlined at build time, so it is a devDependency. */
const BUNDLES = new Set(["@pi-session/cli", "@pi-session/pi"]);

function workspacePackages(): Pkg[] {
  const out: Pkg[] = [];
  for (const group of ["packages", "apps"]) {
    for (const name of readdirSync(join(root, group))) {
      const dir = join(root, group, name);
      let json: Partial<Pkg> & { name: string };
      try {
        json = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
      } catch {
        continue;
      }
      const peers = (json as { peerDependencies?: Record<string, string> }).peerDependencies ?? {};
      // Packages a library inlines into its build (render's `vendored`), from its devDependencies.
      const vendored = (json as { vendored?: string[] }).vendored ?? [];
      const inlined = Object.fromEntries(
        vendored.flatMap((name) => {
          const range = json.devDependencies?.[name];
          return range === undefined ? [] : [[name, range]];
        }),
      );
      out.push({
        name: json.name,
        dir,
        // What the package's code may import: its dependencies and peers, or, for a bundle,
        // what it inlines.
        dependencies: {
          ...(BUNDLES.has(json.name) ? json.devDependencies : {}),
          ...inlined,
          ...json.dependencies,
          ...peers,
        },
        devDependencies: json.devDependencies ?? {},
        optionalDependencies: json.optionalDependencies ?? {},
      });
    }
  }
  return out;
}

/** Generated bundles of sources this test reads already (not committed: `scripts/generated-modules.mjs`). */
const GENERATED = new Set(["page-assets.ts", "client-assets.ts"]);

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.(ts|mts|js|mjs)$/.test(name) && !/\.test\.|\.d\.ts$/.test(name) && !GENERATED.has(name))
        out.push(p);
    }
  };
  walk(join(dir, "src"));
  return out;
}

/** Module specifiers of static imports, re-exports and dynamic imports. */
function importsOf(code: string): string[] {
  const specs: string[] = [];
  const re =
    /(?:import|export)\s[^'"]*?from\s*["']([^"']+)["']|import\s*\(\s*["']([^"']+)["']\s*\)|import\s+["']([^"']+)["']/g;
  for (const m of code.matchAll(re)) specs.push((m[1] ?? m[2] ?? m[3]) as string);
  return specs;
}

/** The package name of a bare specifier (`@a/b/c` -> `@a/b`, `x/y` -> `x`). */
function packageOf(spec: string): string {
  const parts = spec.split("/");
  return spec.startsWith("@") ? `${parts[0]}/${parts[1]}` : (parts[0] as string);
}

const builtins = new Set(builtinModules);
const NODE_GLOBALS = /\b(process\.|Buffer\.|Buffer\(|require\(|__dirname|__filename|setImmediate\()/;
// Clock and randomness must be injected into pure packages.
const IMPURE_CALLS = /\b(Date\.now\(|Math\.random\(|crypto\.|performance\.now\(|new Date\(\))/;

describe("layer rules", () => {
  const pkgs = workspacePackages();

  it("finds the workspace packages", () => {
    expect(pkgs.map((p) => p.name)).toContain("@pi-session/format");
  });

  for (const pkg of pkgs) {
    if (!(pkg.name in ALLOWED)) continue;
    const allowed = new Set(ALLOWED[pkg.name]);

    it(`${pkg.name}: internal dependencies point down the layers`, () => {
      const internal = Object.keys(pkg.dependencies).filter((d) => d.startsWith("@pi-session/"));
      const wrong = internal.filter((d) => !allowed.has(d));
      expect(
        wrong,
        `${pkg.name} may depend only on ${[...allowed].join(", ") || "nothing internal"}`,
      ).toEqual([]);
    });

    it(`${pkg.name}: sources import only declared packages${PURE.has(pkg.name) ? " and nothing from Node" : ""}`, () => {
      const problems: string[] = [];
      for (const file of sourceFiles(pkg.dir)) {
        const code = readFileSync(file, "utf8");
        const where = relative(root, file);
        const pure = PURE.has(pkg.name) || PURE_DIRS.some((d) => where.startsWith(d));
        for (const spec of importsOf(code)) {
          if (spec.startsWith(".")) continue;
          const isBuiltin = spec.startsWith("node:") || builtins.has(packageOf(spec));
          if (isBuiltin) {
            if (pure) problems.push(`${where}: pure module imports ${spec}`);
            continue;
          }
          const name = packageOf(spec);
          if (name === pkg.name) continue;
          if (pure && name.startsWith("@pi-session/") && !PURE.has(name))
            problems.push(`${where}: pure module imports ${name}, which is not pure`);
          if (!(name in pkg.dependencies) && !(name in pkg.optionalDependencies))
            problems.push(`${where}: imports ${spec}, not in dependencies`);
          if (name.startsWith("@pi-session/") && !allowed.has(name))
            problems.push(`${where}: imports ${name}, which is not below ${pkg.name}`);
        }
        if (pure) {
          const lines = code.split("\n");
          lines.forEach((line, i) => {
            const trimmed = line.trim();
            if (trimmed.startsWith("//") || trimmed.startsWith("*")) return;
            if (NODE_GLOBALS.test(line)) problems.push(`${where}:${i + 1}: Node global in a pure package`);
            if (IMPURE_CALLS.test(line)) problems.push(`${where}:${i + 1}: clock or randomness not injected`);
          });
        }
      }
      expect(problems).toEqual([]);
    });
  }
});

describe("file access in the apps", () => {
  const apps = workspacePackages().filter((pkg) => relative(root, pkg.dir).startsWith("apps"));

  it("finds the apps", () => {
    expect(apps.map((p) => p.name)).toContain("@pi-session/sdk");
  });

  for (const pkg of apps) {
    it(`${pkg.name}: no node:fs outside the allow-list (node-store's verbs instead)`, () => {
      const problems: string[] = [];
      for (const file of sourceFiles(pkg.dir)) {
        const where = relative(root, file);
        if (where in APP_FS_ALLOWED) continue;
        for (const spec of importsOf(readFileSync(file, "utf8")))
          if (FS_MODULES.has(spec)) problems.push(`${where} imports ${spec}`);
      }
      expect(problems).toEqual([]);
    });
  }

  it("every allow-listed module exists and still uses node:fs (the list stays short and true)", () => {
    for (const where of Object.keys(APP_FS_ALLOWED)) {
      const imports = importsOf(readFileSync(join(root, where), "utf8"));
      expect(
        imports.some((spec) => FS_MODULES.has(spec)),
        where,
      ).toBe(true);
    }
  });
});

describe("importsOf", () => {
  it("sees static, side-effect, re-export and dynamic imports", () => {
    const code = `import a from "x";\nimport { b } from 'node:fs';\nexport * from "./y.js";\nimport "z";\nconst m = await import("w");`;
    expect(importsOf(code)).toEqual(["x", "node:fs", "./y.js", "z", "w"]);
  });
});
