/**
 * The generated modules the sources import but the repository does not commit: the exported
 * page's assets (`packages/render/src/page-assets.ts`) and the web app's
 * (`apps/web/src/client-assets.ts`), each a bundle made by esbuild from the sources in well
 * under a second. `pnpm build` writes them in each package's build; the loop without a build
 * writes them here first: vitest's global setup (`setup`, every test run), `pnpm typecheck` and
 * `pnpm pi-session` (`node scripts/generated-modules.mjs`). Each is written only when it changes.
 *
 * The listing scanner's WebAssembly (`packages/node-store/src/listing/scan-wasm.ts`) stays
 * committed: it needs the AssemblyScript compiler, its source rarely changes, and a test checks
 * the committed copy is what the source gives (CONTRIBUTING.md).
 */
import { fileURLToPath } from "node:url";
import { buildClientAssets } from "../apps/web/scripts/build-client.mjs";
import { buildPageAssets } from "../packages/render/scripts/build-page.mjs";

export async function writeGeneratedModules() {
  // The app's bundle resolves render's whole entry, the page's assets among its modules.
  await buildPageAssets();
  await buildClientAssets();
}

/**
 * vitest's global setup (vitest.config.ts): the modules, before any test file loads. Every
 * project inherits the setup, so a run calls it once per project: the first call does the work.
 */
export function setup() {
  const run = globalThis;
  run.piSessionGeneratedModules ??= writeGeneratedModules();
  return run.piSessionGeneratedModules;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await writeGeneratedModules();
