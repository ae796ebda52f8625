/**
 * The small values of a session: ids, prose and tricky text, timestamps, token counts and
 * costs, JSON values, unknown extra keys; and the helpers the other arbitraries build with
 * (\`compact\`, \`sometimes\`, \`withExtraKeys\`).
 */
import fc from "fast-check";
import type { JsonValue, Obj, Shape } from "./records.js";

/** Drops keys whose value is `undefined`, as `JSON.stringify` would. */
export function compact<T extends Shape>(obj: T): T {
  const out: Obj = {};
  for (const [k, v] of Object.entries(obj)) if (v !== undefined) out[k] = v;
  return out as T;
}

/** `arb` in about one case out of `n`, otherwise `undefined` (an absent key). */
export function sometimes<T>(arb: fc.Arbitrary<T>, n: number): fc.Arbitrary<T | undefined> {
  return fc.oneof({ arbitrary: fc.constant(undefined), weight: n - 1 }, { arbitrary: arb, weight: 1 });
}

/** An 8-hex entry id, as pi's `randomUUID().slice(0, 8)`. */
export const arbEntryId: fc.Arbitrary<string> = fc
  .integer({ min: 0, max: 0xffffffff })
  .map((n) => n.toString(16).padStart(8, "0"));

/** A session id: a v4 or v7 UUID. */
export const arbSessionId: fc.Arbitrary<string> = fc.uuid({ version: [4, 7] });

const WORDS = [
  "read",
  "the",
  "file",
  "refactor",
  "session",
  "tree",
  "compaction",
  "branch",
  "fix",
  "test",
  "please",
  "ok",
  "src/main.ts",
  "npm",
  "error",
  "done",
  "why",
  "label",
];

/** Ordinary prose: a few words. */
export const arbWords: fc.Arbitrary<string> = fc
  .array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 8 })
  .map((w) => w.join(" "));

/** Strings that break naive line handling or encoders. */
export const TRICKY_STRINGS: readonly string[] = [
  "",
  "line\nbreak",
  "cr\rlf\r\n",
  "sep\u2028para\u2029",
  "astral 😀 𝄞",
  "nul\u0000byte",
  'quote " backslash \\',
  "\ufeffbom-like",
  "}{",
  '{"type":"session"}',
  "é combining e\u0301",
  "\t tab",
];

/** Text: usually ordinary words, sometimes any code points (U+2028, `\r`, astral...). */
export const arbText: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: arbWords, weight: 6 },
  { arbitrary: fc.string({ unit: "binary", maxLength: 24 }), weight: 2 },
  { arbitrary: fc.constantFrom(...TRICKY_STRINGS), weight: 2 },
);

/** A non-empty short label/name-like string. */
export const arbName: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom("checkpoint", "first", "second", "my session", "wip", "x"),
  fc.string({ unit: "binary", minLength: 1, maxLength: 12 }),
);

/** Message timestamp: Unix milliseconds in a plausible range (2025-2026). */
export const arbMs: fc.Arbitrary<number> = fc.integer({ min: 1_735_689_600_000, max: 1_798_761_600_000 });

/** Entry/header timestamp: ISO-8601 as `Date.prototype.toISOString()` writes it. */
export const arbIsoTimestamp: fc.Arbitrary<string> = arbMs.map((ms) => new Date(ms).toISOString());

/** A token count. */
export const arbSmallNat: fc.Arbitrary<number> = fc.nat({ max: 200_000 });
export const arbSmallInt = arbSmallNat;
/** A non-negative cost with at most 6 decimals (never `-0`). */
export const arbCost = fc.nat({ max: 5_000_000 }).map((n) => n / 1_000_000);

/** A JSON object key that is safe to assign (not `__proto__`). */
function keyFilter(k: string): boolean {
  return k !== "__proto__";
}
export const arbKey: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom("path", "command", "x", "foo", "n", "items"),
  fc.string({ maxLength: 8 }).filter(keyFilter),
);

/** A small JSON value (for `details`, `data`, tool arguments); no `-0`, no `__proto__` keys. */
export const arbJsonValue: fc.Arbitrary<JsonValue> = fc.letrec<{ value: JsonValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer({ min: -1000, max: 1000 }).map((n) => (n === 0 ? 0 : n)),
    arbText,
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(arbKey, tie("value"), { maxKeys: 3, noNullPrototype: true }),
  ),
})).value;

/**
 * Unknown extra keys a newer pi or an extension might add. Names never collide with known
 * fields (they start with `x` plus an upper-case letter or contain a dash).
 */
export const arbExtraKeys: fc.Arbitrary<Obj> = fc.dictionary(
  fc.constantFrom("xFuture", "xMeta", "x-ext", "xVendorData", "xFlag"),
  arbJsonValue,
  { minKeys: 1, maxKeys: 2, noNullPrototype: true },
);

/** Sometimes (1 in 8) adds unknown extra keys to the generated objects. */
export function withExtraKeys<T extends Shape>(arb: fc.Arbitrary<T>): fc.Arbitrary<T> {
  return fc
    .tuple(arb, sometimes(arbExtraKeys, 8))
    .map(([value, extra]) => (extra === undefined ? value : { ...value, ...extra }));
}
