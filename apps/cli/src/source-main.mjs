/**
 * `pnpm pi-session …`: the CLI run from its TypeScript sources, no build (the binary is
 * `bin.ts`, bundled). Registers the workspace's source hooks, goes back to the directory pnpm
 * was started in (pnpm runs a script in the repository's root), and runs the program
 * (`main.ts`). For trying a change at once; what depends on the bundle (the
 * `sync` CommonJS path, worker threads) is the binary's, tested end to end.
 */
import "../../../scripts/source-hooks.mjs";
import { writeGeneratedModules } from "../../../scripts/generated-modules.mjs";

// The page's and the web app's bundles (export, serve), fresh from the sources.
await writeGeneratedModules();
if (process.env.INIT_CWD) process.chdir(process.env.INIT_CWD);
await import("./main.ts");
