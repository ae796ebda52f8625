/**
 * Where each `@pi-session/*` import lives in the sources: every `exports` entry of a workspace
 * package whose target is `./dist/<name>.js` (built by `tsc` from `src/<name>.ts`) maps to that
 * source file. It is the one mapping the loop without a build runs on: vitest's aliases
 * (`vitest.config.ts`), the CLI run from its sources (`scripts/source-hooks.mjs`, `pnpm
 * pi-session`), and `tsconfig.check.json`'s `paths`, which `scripts/sources.test.ts` keeps equal
 * to it. Published packages are unaffected: their `exports` still name `dist/`.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

interface Manifest {
  name?: string;
  exports?: Record<string, string | { default?: string }>;
}

/** One import specifier and the source file it runs from. */
export interface SourceEntry {
  /** `@pi-session/format`, `@pi-session/node-store/internal`, ... */
  specifier: string;
  /** Absolute path of the `.ts` file. */
  source: string;
}

/** The workspace packages' directories: `packages/*`, `apps/*` and `bench`, sorted. */
export function workspaceDirs(root: string): string[] {
  const dirs: string[] = [];
  for (const group of ["packages", "apps"]) {
    const base = join(root, group);
    if (!existsSync(base)) continue;
    for (const name of readdirSync(base).sort()) dirs.push(join(base, name));
  }
  dirs.push(join(root, "bench"));
  return dirs.filter((dir) => existsSync(join(dir, "package.json")));
}

export function readManifest(dir: string): Manifest {
  return JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest;
}

/** Every `@pi-session/<pkg>[/<sub>]` export built from a source file, with that file. */
export function sourceEntries(root: string): SourceEntry[] {
  const out: SourceEntry[] = [];
  for (const dir of workspaceDirs(root)) {
    const { name, exports } = readManifest(dir);
    if (!name || !exports) continue;
    for (const [key, target] of Object.entries(exports)) {
      const file = typeof target === "string" ? target : target.default;
      const built = file?.match(/^\.\/dist\/(.+)\.js$/);
      if (!built) continue;
      const source = join(dir, "src", `${built[1]}.ts`);
      if (existsSync(source)) out.push({ specifier: name + key.slice(1), source });
    }
  }
  return out;
}
