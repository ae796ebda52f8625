/**
 * Test helpers (named `.test.helper` so they are neither built nor held to the layer rules):
 * random sessions whose texts come from a small vocabulary (stemmed words, code identifiers,
 * CJK, diacritics), written as a store (now and then with lines pi reads in its own way:
 * invalid UTF-8, odd lines before the header), and random queries over that vocabulary,
 * substrings of it taken anywhere included.
 *
 * The tests that hold PostgreSQL to SQLite's answers compare session facts and stats, and rely
 * on what these sessions leave out: PostgreSQL stores a NUL in entry ids, types, roles and
 * session facts as U+FFFD where SQLite keeps it (`pgText` in postgres's `sync.ts`). Every
 * text field the facts are made of is rewritten from the vocabulary, and models and cwds come
 * from testkit's pools, so no NUL reaches them; NUL stays possible in what both keep alike
 * (entry documents, custom types).
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
  "parserTimeout",
  "parse_session_text",
  "getAuthToken",
  "HTTPServer",
  "utf8Decode",
  "XMLHttpRequest",
  "caféTimeout",
  "a3f9c2d1e8b7a6f5c4d3",
] as const;

/** The vocabulary entries that are code (identifiers, paths, expressions). */
const CODE = VOCABULARY.filter((w) => /[A-Z0-9_.=/]/.test(w));

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

/**
 * Lines pi reads in its own way (node-store's `readLinesAsPi`): an invalid UTF-8 byte inside a
 * string (read with U+FFFD), a line before the header that pi skips (not JSON) or that makes
 * the file not a session (a number, an entry).
 */
export type Oddity =
  | "none"
  | "invalid-utf8"
  | "garbage-first"
  | "scalar-first"
  | "entry-first"
  | "raw-header";

export const arbOddity: fc.Arbitrary<Oddity> = fc.oneof(
  { weight: 10, arbitrary: fc.constant("none" as const) },
  {
    weight: 5,
    arbitrary: fc.constantFrom(
      "invalid-utf8" as const,
      "garbage-first" as const,
      "scalar-first" as const,
      "entry-first" as const,
      "raw-header" as const,
    ),
  },
);

/** Puts an invalid UTF-8 byte at the start of the first string value after `from` that `key` names. */
function breakString(bytes: Buffer, from: number): Buffer {
  for (const key of ['"text":"', '"content":"', '"summary":"', '":"']) {
    const at = bytes.indexOf(key, from);
    if (at === -1) continue;
    const cut = at + key.length;
    return Buffer.concat([bytes.subarray(0, cut), Buffer.from([0xff]), bytes.subarray(cut)]);
  }
  return bytes;
}

function withOddity(text: string, oddity: Oddity): Buffer {
  const bytes = Buffer.from(text);
  const firstLineEnd = bytes.indexOf(0x0a) + 1;
  switch (oddity) {
    case "none":
      return bytes;
    case "invalid-utf8":
      return breakString(bytes, firstLineEnd);
    case "raw-header":
      return breakString(bytes, 0);
    case "garbage-first":
      return Buffer.concat([Buffer.from("not json\n\n"), bytes]);
    case "scalar-first":
      return Buffer.concat([Buffer.from("7\n"), bytes]);
    case "entry-first": {
      // The file's second line (an entry) moved before its header.
      const secondEnd = bytes.indexOf(0x0a, firstLineEnd) + 1;
      if (secondEnd <= firstLineEnd) return bytes;
      return Buffer.concat([
        bytes.subarray(firstLineEnd, secondEnd),
        bytes.subarray(0, firstLineEnd),
        bytes.subarray(secondEnd),
      ]);
    }
  }
}

/** Writes sessions as a store: `<root>/--p<k>--/<n>_<id>.jsonl`; returns the paths. */
export function writeStore(
  root: string,
  sessions: readonly GeneratedSession[],
  oddities: readonly Oddity[] = [],
): string[] {
  const paths: string[] = [];
  sessions.forEach((s, n) => {
    const dir = join(root, `--p${n % 2}--`);
    mkdirSync(dir, { recursive: true });
    const path = join(dir, `2026-01-0${(n % 9) + 1}T00-00-00-000Z_${s.header.id}-${n}.jsonl`);
    writeFileSync(path, withOddity(toJsonl(s), oddities[n] ?? "none"));
    paths.push(path);
  });
  return paths;
}

/** A piece of a code vocabulary entry, from anywhere in it, quoted or not. */
const arbCodePiece: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom(...CODE), fc.nat(), fc.nat(), fc.boolean())
  .map(([word, a, b, quote]) => {
    const start = a % word.length;
    const piece = word.slice(start, start + 1 + (b % (word.length - start)));
    return quote || piece.startsWith("-") || piece.startsWith("re:") ? `"${piece}"` : piece;
  });

/** A query over the vocabulary: words, phrases, negations, a regex now and then. */
export const arbQuery: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      { weight: 5, arbitrary: fc.constantFrom(...VOCABULARY) },
      {
        weight: 2,
        arbitrary: fc.constantFrom(
          "pars",
          "timeo",
          "runn",
          "auth",
          "日本",
          "東",
          "JSON",
          "caf",
          "READ",
          "Timeout",
          "server",
          "session",
          "decode",
          "8",
        ),
      },
      {
        weight: 2,
        arbitrary: fc
          .tuple(fc.constantFrom(...VOCABULARY), fc.constantFrom(...VOCABULARY))
          .map(([a, b]) => `"${a} ${b}"`),
      },
      { weight: 3, arbitrary: arbCodePiece },
      { weight: 1, arbitrary: fc.constantFrom("re:pars(e|ing)", "re:time\\w+s", "re:^the") },
      { weight: 1, arbitrary: fc.constantFrom(...VOCABULARY).map((w) => `-${w}`) },
    ),
    { minLength: 1, maxLength: 3 },
  )
  .map((terms) => terms.join(" "))
  .filter((q) => q.split(" ").some((t) => !t.startsWith("-")));
