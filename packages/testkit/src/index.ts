/**
 * @pi-session/testkit (internal): shared property-test settings, fixture paths, fast-check
 * arbitraries for pi session files, whole-session generators and corrupted-file makers.
 */
export * from "./env.js";
export * from "./fixtures.js";
export * from "./arbitraries.js";
export * from "./sessions.js";
export * from "./corrupt.js";
export * from "./secrets.js";
