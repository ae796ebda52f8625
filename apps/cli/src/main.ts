/**
 * The program of the `pi-session` binary, every command (an ES module: each command's code is a
 * chunk loaded when it runs). `bin.ts` loads it for every command line but `sync …`, which
 * `sync-main.ts` runs.
 */
import { COMMANDS } from "./commands/index.js";
import { runProcess } from "./run-process.js";

await runProcess(COMMANDS);
