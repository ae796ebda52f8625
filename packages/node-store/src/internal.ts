/**
 * @pi-session/node-store/internal: what the sibling packages of pi-session (the SDK, the CLI,
 * the session database, the benchmark) need of node-store beyond its public face.
 *
 * Unstable: names come and go here in any release, without a major version. For packages of
 * this repository only; a tool of your own should use `@pi-session/node-store`.
 */

// The session database (@pi-session/search) keeps its file beside the listing cache.
export { defaultCacheDir } from "./listing/cache-dir.js";
// The session database reads probes and single lines of the files it mirrors.
export { readFileBytes } from "./listing/store-files.js";
// The benchmark's floor of the lazy open: the open's validating scan alone, on one or two threads.
export { lineScanner } from "./listing/line-scanner.js";
