/**
 * The `sync` path of the `pi-session` binary: the same program with the sync command alone,
 * bundled as one CommonJS file (`dist/sync.cjs`) that `bin.ts` requires when the command line
 * starts with `sync`. A cron line or a watcher starts a sync as a fresh process again and
 * again; as one CommonJS file it skips the ES module loader and the program's chunks (about a
 * quarter of a fresh sync on Node 22: decision 150). The answers are the program's: the same `runCli`, the same
 * declaration of the command.
 */
import { SYNC_COMMAND } from "./commands/sync-spec.js";
import { runProcess } from "./run-process.js";

void runProcess([SYNC_COMMAND]);
