/**
 * The first module of the `pi-session` binary, bundled as CommonJS (`dist/pi-session.cjs`):
 * turns on Node's compile cache (Node >= 22.1) in the user's cache dir, then runs the program.
 * A command line that starts with `sync` runs from `dist/sync.cjs` (`sync-main.ts`: the program
 * with the sync command alone, one CommonJS file, no ES module loader: decision 150); every
 * other one loads the ES module program (`main.ts`), whose `sync` is the same command (for
 * `sync` after a global option). With the cache, a run skips compiling the modules it loads
 * (about a fifth of a warm search on Node 22); the cache covers only modules loaded after it is
 * on, hence this module of its own, which imports almost nothing.
 * `NODE_DISABLE_COMPILE_CACHE=1` turns it off, `NODE_COMPILE_CACHE=<dir>` moves it.
 */
import module from "node:module";
import { join } from "node:path";
import { defaultCacheDir } from "@pi-session/node-store/internal";

const enableCompileCache = (module as { enableCompileCache?: (dir?: string) => unknown }).enableCompileCache;
if (typeof enableCompileCache === "function" && !process.env.NODE_COMPILE_CACHE) {
  try {
    // An unusable directory only means no cache (Node reports it in the result, not by throwing).
    enableCompileCache(join(defaultCacheDir(process.env), "compile-cache"));
  } catch {
    // A cache, nothing more.
  }
}

// Both paths are files beside this one in dist/, left to Node by the bundle (never bundled here).
if (process.argv[2] === "sync") require("./sync.cjs");
else void import("./main.js");
