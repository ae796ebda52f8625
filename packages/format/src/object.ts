/**
 * `isObject`: whether a value is a JSON object, that is neither null nor an array. Use it
 * wherever a value from a session file (an entry, a message, a field of either) must be an
 * object before its keys are read: the one home of this test for every layer above.
 */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
