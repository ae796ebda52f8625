/**
 * The first module of the `pi-session` binary, bundled as CommonJS (`dist/pi-session.cjs`). A
 * command line that starts with `sync` runs from `dist/sync.cjs` (`sync-main.ts`: the program
 * with the sync command alone, one CommonJS file: a fresh sync skips the ES module loader and
 * the program's chunks, decision 150); every other one loads the ES module program
 * (`main.ts`), whose `sync` is the same command (for `sync` after a global option).
 */

// Both paths are files beside this one in dist/, left to Node by the bundle (never bundled here).
if (process.argv[2] === "sync") require("./sync.cjs");
else void import("./main.js");
