/**
 * @pi-session/format: the types of pi session files and the line codec.
 *
 * The public face of the package; see the README for what each export is for.
 */
export * from "./types.js";
export * from "./records.js";
