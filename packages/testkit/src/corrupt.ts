/**
 * Damaged session files for reader-robustness tests: each is a valid generated v3 file with
 * one kind of real-world damage (torn tail, garbage, invalid UTF-8, glued records, NUL
 * padding, CRLF, BOM, blank lines, duplicate header, array line), plus chunk split points
 * for streaming decoders.
 */
import fc from "fast-check";
import { arbSessionV3, type GeneratedSession, toBytes } from "./sessions.js";

export const CORRUPTION_KINDS = [
  "torn-tail",
  "garbage-line",
  "invalid-utf8",
  "glued-records",
  "nul-padding",
  "crlf",
  "bom",
  "blank-lines",
  "duplicate-header",
  "json-array-line",
] as const;
export type CorruptionKind = (typeof CORRUPTION_KINDS)[number];

export interface CorruptedFile {
  /** The damaged file. Always differs from `original`. */
  bytes: Uint8Array;
  /** What was done, e.g. `torn-tail: cut 17 bytes off the last line (5)`. */
  description: string;
  kind: CorruptionKind;
  /** The undamaged file and the session it encodes. */
  original: Uint8Array;
  session: GeneratedSession;
}

export interface CorruptionOptions {
  /** Restrict to these kinds (default: all). */
  kinds?: readonly CorruptionKind[];
  /** Size of the underlying session (default 12 entries, at least 1). */
  maxEntries?: number;
}

const encoder = new TextEncoder();
const NL = 0x0a;

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Byte offsets where each line starts (every file here ends with `\n`). */
function lineStarts(bytes: Uint8Array): number[] {
  const starts = [0];
  for (let i = 0; i < bytes.length - 1; i++) if (bytes[i] === NL) starts.push(i + 1);
  return starts;
}

/** Inserts `line` (plus `\n`) before line number `before` (0-based; may equal line count). */
function insertLine(bytes: Uint8Array, before: number, line: Uint8Array): Uint8Array {
  const starts = lineStarts(bytes);
  const at = before >= starts.length ? bytes.length : starts[before]!;
  return concat(bytes.subarray(0, at), line, Uint8Array.of(NL), bytes.subarray(at));
}

const GARBAGE_LINES = [
  "not json",
  "{",
  '{"type":"message","id":"abc',
  "]",
  "42",
  "null",
  '"a string"',
  "{'single':'quotes'}",
  "<<<<<<< HEAD",
  "\u001b[31mred\u001b[0m",
];

const INVALID_UTF8: readonly (readonly number[])[] = [
  [0xff],
  [0xfe, 0xff],
  [0xc3, 0x28],
  [0xe2, 0x82],
  [0xed, 0xa0, 0x80], // an encoded surrogate
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0x80],
];

interface Choice {
  kind: CorruptionKind;
  a: number;
  b: number;
}

function corrupt(session: GeneratedSession, c: Choice): CorruptedFile {
  const original = toBytes(session);
  const starts = lineStarts(original);
  const lines = starts.length;
  // A line position after the header (1..lines).
  const pos = 1 + (c.a % lines);
  let bytes: Uint8Array;
  let description: string;
  switch (c.kind) {
    case "torn-tail": {
      const lastStart = starts[lines - 1]!;
      const lastLen = original.length - lastStart; // includes the `\n`
      const cut = 1 + (c.b % lastLen); // at least the newline, at most the whole line
      bytes = original.subarray(0, original.length - cut);
      description = `torn-tail: cut ${cut} of ${lastLen} bytes off line ${lines}`;
      break;
    }
    case "garbage-line": {
      const g = GARBAGE_LINES[c.b % GARBAGE_LINES.length]!;
      bytes = insertLine(original, pos, encoder.encode(g));
      description = `garbage-line: ${JSON.stringify(g)} inserted as line ${pos + 1}`;
      break;
    }
    case "invalid-utf8": {
      const bad = Uint8Array.from(INVALID_UTF8[c.b % INVALID_UTF8.length]!);
      const hex = Array.from(bad, (x) => x.toString(16).padStart(2, "0")).join(" ");
      if (c.b % 2 === 0) {
        // Inside a JSON string of an otherwise valid record.
        const line = concat(
          encoder.encode('{"type":"custom","id":"badutf8x","parentId":null,"text":"'),
          bad,
          encoder.encode('"}'),
        );
        bytes = insertLine(original, pos, line);
        description = `invalid-utf8: record with bytes ${hex} in a string inserted as line ${pos + 1}`;
      } else {
        // Appended to the end of an existing line, before its newline.
        const end = (starts[pos] ?? original.length) - 1;
        bytes = concat(original.subarray(0, end), bad, original.subarray(end));
        description = `invalid-utf8: bytes ${hex} appended to line ${pos}`;
      }
      break;
    }
    case "glued-records": {
      if (lines < 2) throw new Error("unreachable: sessions have at least one entry");
      const join = 1 + (c.a % (lines - 1)); // remove the newline ending line `join`
      const nl = starts[join]! - 1;
      bytes = concat(original.subarray(0, nl), original.subarray(nl + 1));
      description = `glued-records: lines ${join} and ${join + 1} joined as "}{"`;
      break;
    }
    case "nul-padding": {
      const count = 1 + (c.b % 64);
      const nuls = new Uint8Array(count);
      if (c.a % 2 === 0) {
        bytes = concat(original, nuls);
        description = `nul-padding: ${count} NUL bytes after the last line`;
      } else {
        bytes = insertLine(original, pos, nuls);
        description = `nul-padding: a line of ${count} NUL bytes inserted as line ${pos + 1}`;
      }
      break;
    }
    case "crlf": {
      const text = new TextDecoder().decode(original);
      bytes = encoder.encode(text.replaceAll("\n", "\r\n"));
      description = "crlf: every line ends with \\r\\n";
      break;
    }
    case "bom":
      bytes = concat(Uint8Array.of(0xef, 0xbb, 0xbf), original);
      description = "bom: UTF-8 byte order mark before the header";
      break;
    case "blank-lines": {
      const blank = ["", "   ", "\t", "\r"][c.b % 4]!;
      bytes = insertLine(original, pos, encoder.encode(blank));
      if (c.b % 3 === 0) bytes = concat(bytes, Uint8Array.of(NL));
      description = `blank-lines: ${JSON.stringify(blank)} inserted as line ${pos + 1}${c.b % 3 === 0 ? " and an empty line at the end" : ""}`;
      break;
    }
    case "duplicate-header": {
      const header = original.subarray(0, starts[1]! - 1);
      bytes = insertLine(original, pos, header);
      description = `duplicate-header: header repeated as line ${pos + 1}`;
      break;
    }
    case "json-array-line": {
      const entry = session.entries[c.b % session.entries.length];
      const arr = c.b % 2 === 0 ? JSON.stringify([entry]) : "[1,2,3]";
      bytes = insertLine(original, pos, encoder.encode(arr));
      description = `json-array-line: ${c.b % 2 === 0 ? "an entry wrapped in [ ]" : "[1,2,3]"} inserted as line ${pos + 1}`;
      break;
    }
  }
  return { bytes, description, kind: c.kind, original, session };
}

/** A valid v3 file with one kind of damage applied (see {@link CORRUPTION_KINDS}). */
export function arbCorruptedFile(opts: CorruptionOptions = {}): fc.Arbitrary<CorruptedFile> {
  const kinds = opts.kinds ?? CORRUPTION_KINDS;
  if (kinds.length === 0) throw new Error("testkit: kinds must not be empty");
  return fc
    .tuple(
      arbSessionV3({ minEntries: 1, maxEntries: Math.max(1, opts.maxEntries ?? 12) }),
      fc.constantFrom(...kinds),
      fc.nat(),
      fc.nat(),
    )
    .map(([session, kind, a, b]) => corrupt(session, { kind, a, b }));
}

/**
 * Split points for feeding `bytes` to a streaming reader in chunks: a sorted list of
 * distinct offsets strictly inside `(0, bytes.length)`. Biased towards interesting places:
 * just before/after each `\n` and inside multi-byte UTF-8 sequences. May be empty (one chunk).
 */
export function arbChunks(bytes: Uint8Array): fc.Arbitrary<number[]> {
  const len = bytes.length;
  if (len < 2) return fc.constant([]);
  const interesting: number[] = [];
  for (let i = 1; i < len; i++) {
    const b = bytes[i]!;
    if (bytes[i - 1] === NL || b === NL || (b & 0xc0) === 0x80) interesting.push(i);
  }
  const anyPoint = fc.integer({ min: 1, max: len - 1 });
  const point =
    interesting.length === 0
      ? anyPoint
      : fc.oneof(anyPoint, fc.constantFrom(...interesting.slice(0, 10_000)));
  return fc.oneof(
    { arbitrary: fc.uniqueArray(point, { maxLength: 24 }).map((ps) => ps.sort((x, y) => x - y)), weight: 9 },
    // Byte by byte (the first 4 KiB; the rest stays one chunk).
    {
      arbitrary: fc
        .constant(null)
        .map(() => Array.from({ length: Math.min(len, 4096) - 1 }, (_, i) => i + 1)),
      weight: 1,
    },
  );
}

/** Cuts `bytes` at sorted split points; the chunks concatenate back to `bytes`. */
export function splitAt(bytes: Uint8Array, points: readonly number[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  let prev = 0;
  for (const p of points) {
    if (p <= prev || p >= bytes.length) continue;
    out.push(bytes.subarray(prev, p));
    prev = p;
  }
  out.push(bytes.subarray(prev));
  return out;
}

/** Chunk sizes corresponding to split points (they sum to `length`). */
export function chunkSizes(length: number, points: readonly number[]): number[] {
  const sizes: number[] = [];
  let prev = 0;
  for (const p of points) {
    if (p <= prev || p >= length) continue;
    sizes.push(p - prev);
    prev = p;
  }
  sizes.push(length - prev);
  return sizes;
}
