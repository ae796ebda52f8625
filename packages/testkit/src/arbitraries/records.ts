/**
 * What the arbitraries share and the kit does not export: \`rec\` (a record that never has a
 * null prototype) and the plain-object types.
 */
import fc from "fast-check";

/** A JSON value. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type Obj = Record<string, unknown>;
/** Any object type, interfaces without an index signature included (the message types). */
export type Shape = object;

/** fc.record that never yields null-prototype objects (JSON.parse never does either). */
export function rec<T extends Shape>(
  model: { [K in keyof T]: fc.Arbitrary<T[K]> },
  requiredKeys?: (keyof T)[],
): fc.Arbitrary<T> {
  const opts =
    requiredKeys === undefined ? { noNullPrototype: true } : { requiredKeys, noNullPrototype: true };
  return fc.record(model, opts as { noNullPrototype: true }) as unknown as fc.Arbitrary<T>;
}
