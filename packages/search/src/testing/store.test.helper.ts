/**
 * Test helpers (named `.test.helper` so they are neither built nor held to the layer rules):
 * random sessions whose texts come from a small vocabulary (stemmed words, code
 * substrings, CJK, diacritics), written as a store, and random queries over that vocabulary.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type GeneratedSession, arbSessionV3, toJsonl } from "@pi-session/testkit";
import fc from "fast-check";

export const VOCABULARY = [
  "parser",
  "parsing",
  "parse",
  "parsed",
  "timeout",
  "timeouts",
  "running",
  "runner",
  "run",
  "auth.ts",
  "src/auth.ts",
  "oauth.ts",
  "buf.indexOf",
  "日本語",
  "東京",
  "勉強します",
  "café",
  "naïve",
  "error",
  "fix",
  "the",
  "JSON.parse",
  "foo_bar",
  "x=1",
  "README.md",
  "Timeout",
] as const;

const SEPARATORS = [" ", " ", " ", "\n", ", ", ". ", "(", ") ", "/"] as const;

export const arbSentence: fc.Arbitrary<string> = fc
  .array(fc.tuple(fc.constantFrom(...VOCABULARY), fc.constantFrom(...SEPARATORS)), {
    minLength: 1,
    maxLength: 6,
  })
  .map((parts) =>
    parts
      .map(([w, s]) => w + s)
      .join("")
      .trim(),
  );

const TEXT_KEYS = new Set([
  "text",
  "thinking",
  "summary",
  "output",
  "command",
  "name",
  "label",
  "errorMessage",
]);

/** Replaces every text-like string of a value with the next sentence (cycling). */
function rewrite(value: unknown, next: () => string, key = ""): unknown {
  if (typeof value === "string") return TEXT_KEYS.has(key) || key === "content" ? next() : value;
  if (Array.isArray(value)) return value.map((v) => rewrite(v, next, key === "content" ? "" : key));
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (k === "arguments" && v && typeof v === "object") {
        out[k] = { path: next().split(/\s/)[0] ?? "x", command: next() };
      } else out[k] = rewrite(v, next, k);
    }
    return out;
  }
  return value;
}

/** A v3 session with vocabulary texts. */
export function arbVocabularySession(maxEntries = 30): fc.Arbitrary<GeneratedSession> {
  const entryTypes = [
    "message",
    "compaction",
    "branch_summary",
    "custom_message",
    "label",
    "session_info",
  ] as const;
  return fc
    .tuple(
      arbSessionV3({ maxEntries, minEntries: 3, entryTypes }),
      fc.array(arbSentence, { minLength: 8, maxLength: 24 }),
    )
    .map(([session, sentences]) => {
      let i = 0;
      const next = () => sentences[i++ % sentences.length] as string;
      const entries = session.entries.map((e) => rewrite(e, next)) as GeneratedSession["entries"];
      return { ...session, entries };
    });
}

/** Writes sessions as a store: `<root>/--p<k>--/<n>_<id>.jsonl`; returns the paths. */
export function writeStore(root: string, sessions: readonly GeneratedSession[]): string[] {
  const paths: string[] = [];
  sessions.forEach((s, n) => {
    const dir = join(root, `--p${n % 2}--`);
    mkdirSync(dir, { recursive: true });
    const path = join(dir, `2026-01-0${(n % 9) + 1}T00-00-00-000Z_${s.header.id}-${n}.jsonl`);
    writeFileSync(path, toJsonl(s));
    paths.push(path);
  });
  return paths;
}

/** A query over the vocabulary: words, phrases, negations, a regex now and then. */
export const arbQuery: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      { weight: 5, arbitrary: fc.constantFrom(...VOCABULARY) },
      {
        weight: 2,
        arbitrary: fc.constantFrom("pars", "timeo", "runn", "auth", "日本", "東", "JSON", "caf", "READ"),
      },
      {
        weight: 2,
        arbitrary: fc
          .tuple(fc.constantFrom(...VOCABULARY), fc.constantFrom(...VOCABULARY))
          .map(([a, b]) => `"${a} ${b}"`),
      },
      { weight: 1, arbitrary: fc.constantFrom("re:pars(e|ing)", "re:time\\w+s", "re:^the") },
      { weight: 1, arbitrary: fc.constantFrom(...VOCABULARY).map((w) => `-${w}`) },
    ),
    { minLength: 1, maxLength: 3 },
  )
  .map((terms) => terms.join(" "))
  .filter((q) => q.split(" ").some((t) => !t.startsWith("-")));
