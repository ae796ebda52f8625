/**
 * Whole-session generators: random v3/v2 trees and v1 linear files, the same logical
 * conversation rendered as v1, v2 and v3 (for migration properties), and a fast
 * deterministic deep chain for stack-depth tests. Each returns a structured value; use
 * {@link toJsonl}/{@link toBytes} to get the file. One module per generator, in `sessions/`.
 */
export * from "./sessions/generated.js";
export * from "./sessions/trees.js";
export * from "./sessions/linear-v1.js";
export * from "./sessions/logical.js";
export * from "./sessions/deep-chain.js";
