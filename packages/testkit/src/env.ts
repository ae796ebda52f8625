/**
 * Property-test settings read from the environment, so CI and developers can turn the
 * number of runs up (`FC_NUM_RUNS`) or replay a failure (`FC_SEED`, `FC_PATH`) without
 * editing tests. fast-check's own failure report (seed + path) is left untouched.
 */

/** The options {@link fcOptions} produces; assignable to fast-check's `Parameters`. */
export interface FcEnvOptions {
  numRuns: number;
  seed?: number;
  path?: string;
}

/** Default number of runs per property when `FC_NUM_RUNS` is not set. */
export const DEFAULT_NUM_RUNS = 200;

function readInt(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === "") return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n)) throw new Error(`${name} must be an integer, got ${JSON.stringify(raw)}`);
  return n;
}

/**
 * `{ numRuns, seed?, path? }` from `FC_NUM_RUNS` (default 200), `FC_SEED` and `FC_PATH`,
 * merged with `extra` (extra wins). Use as `fc.assert(prop, fcOptions())`.
 */
export function fcOptions<E extends object = Record<never, never>>(extra?: E): FcEnvOptions & E {
  const out: FcEnvOptions = { numRuns: readInt("FC_NUM_RUNS") ?? DEFAULT_NUM_RUNS };
  const seed = readInt("FC_SEED");
  if (seed !== undefined) out.seed = seed;
  const path = process.env.FC_PATH;
  // A replay path only makes sense together with its seed.
  if (seed !== undefined && path !== undefined && path.trim() !== "") out.path = path.trim();
  return { ...out, ...(extra ?? {}) } as FcEnvOptions & E;
}

/**
 * Scales a loop size or run count for "heavier" properties: `base * FC_NUM_RUNS / 200`,
 * at least 1. Keeps expensive properties proportional when CI turns runs up.
 */
export function scaledRuns(base: number): number {
  const runs = readInt("FC_NUM_RUNS") ?? DEFAULT_NUM_RUNS;
  return Math.max(1, Math.round((base * runs) / DEFAULT_NUM_RUNS));
}
