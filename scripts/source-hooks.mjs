/**
 * Module hooks that run the workspace from its TypeScript sources, with no build: an import of
 * `@pi-session/<pkg>[/<sub>]` loads `src/<name>.ts` (the mapping of `workspace-sources.ts`, the
 * one vitest uses), and a relative `./x.js` imported from a `.ts` file loads `./x.ts` when there
 * is no `x.js` (the sources name their imports as they will be built). Node (>= 22.18) strips
 * the types itself. Use it with `node --import ./scripts/source-hooks.mjs <file.ts>`; `pnpm
 * pi-session` runs the CLI this way (`apps/cli/src/source-main.mjs`).
 *
 * What needs built files stays off: worker threads whose script is a `dist/` file (the listing
 * pool, search's read-ahead, serve's search threads) are not started, as in the tests on the
 * sources, and the work runs in the main thread.
 */
import { existsSync } from "node:fs";
import { registerHooks } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { sourceEntries } from "./workspace-sources.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
const sources = new Map(sourceEntries(root).map((e) => [e.specifier, pathToFileURL(e.source).href]));

registerHooks({
  resolve(specifier, context, nextResolve) {
    const source = sources.get(specifier);
    if (source !== undefined) return { url: source, shortCircuit: true };
    if (specifier.startsWith(".") && specifier.endsWith(".js") && context.parentURL?.endsWith(".ts")) {
      const url = new URL(specifier, context.parentURL);
      if (!existsSync(url)) {
        const ts = new URL(`${specifier.slice(0, -3)}.ts`, context.parentURL);
        if (existsSync(ts)) return { url: ts.href, shortCircuit: true };
      }
    }
    return nextResolve(specifier, context);
  },
});
