/**
 * The randomness and text of the benchmark's generated sessions: a seeded PRNG (mulberry32)
 * with the ids and usage numbers drawn from it, and pools of prose, code and base64, built
 * once from a fixed seed. Content is sliced from the pools at random offsets, which keeps
 * generating a 1 GB file fast while the text still looks like text. Use these for any
 * generated benchmark data, so it is the same on every machine.
 */

/** mulberry32: a tiny 32-bit PRNG, good enough to shape test data, fully reproducible. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  "the a to of and in is it that for on with as this be are not file function test session " +
  "entry parent id tree branch leaf compaction summary context model token we should can will " +
  "read write append lock stream parse json line byte offset error warning fix refactor build " +
  "package module import export type interface const let return async await promise value key " +
  "index path cwd directory list cache stat size count node process worker thread buffer string"
).split(" ");

const CODE_TOKENS = [
  "export function",
  "const",
  "return",
  "await",
  "if (",
  ") {",
  "}",
  "import { readFile } from",
  '"node:fs";',
  "interface Entry {",
  "id: string;",
  "parentId: string | null;",
  "for (const entry of entries)",
  "throw new Error(",
  "// keep the order stable",
  "=>",
  "JSON.parse(line)",
  "buf.indexOf(0x0a, start)",
  "map.set(entry.id, entry);",
  "expect(result).toEqual(expected);",
];

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

let pools: { prose: string; code: string; base64: string } | undefined;

export function getPools(): { prose: string; code: string; base64: string } {
  if (pools) return pools;
  const r = mulberry32(0x5eed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const prose: string[] = [];
  let n = 0;
  while (n < 256 * 1024) {
    let w = pick(WORDS);
    if (r() < 0.08) w += r() < 0.5 ? "." : ",";
    prose.push(w);
    n += w.length + 1;
  }
  const code: string[] = [];
  n = 0;
  while (n < 256 * 1024) {
    const indent = "  ".repeat(Math.floor(r() * 4));
    const parts: string[] = [];
    const k = 1 + Math.floor(r() * 6);
    for (let i = 0; i < k; i++) parts.push(r() < 0.6 ? pick(CODE_TOKENS) : pick(WORDS));
    const line = `${indent}${parts.join(" ")}`;
    code.push(line);
    n += line.length + 1;
  }
  let b64 = "";
  const chunk: string[] = [];
  for (let i = 0; i < 512 * 1024; i++) {
    chunk.push(B64[Math.floor(r() * 64)] as string);
    if (chunk.length === 4096) {
      b64 += chunk.join("");
      chunk.length = 0;
    }
  }
  b64 += chunk.join("");
  pools = { prose: prose.join(" "), code: code.join("\n"), base64: b64 };
  return pools;
}

/** Hex of a 32-bit number, zero-padded to 8 characters. */
export function hex8(n: number): string {
  return (n >>> 0).toString(16).padStart(8, "0");
}

/** A v4-shaped UUID from the PRNG. */
export function uuidFrom(r: () => number): string {
  const h = () => hex8(Math.floor(r() * 4294967296));
  const a = h() + h() + h() + h();
  return `${a.slice(0, 8)}-${a.slice(8, 12)}-4${a.slice(13, 16)}-a${a.slice(17, 20)}-${a.slice(20, 32)}`;
}

/** An assistant message's usage: random tokens, priced as a mid-range model would be. */
export function usage(r: () => number): Record<string, unknown> {
  const input = Math.floor(r() * 4000);
  const output = Math.floor(r() * 2000);
  const cacheRead = Math.floor(r() * 60000);
  const cacheWrite = Math.floor(r() * 3000);
  const c = (t: number, p: number) => Math.round(t * p * 1e3) / 1e9;
  const cost = {
    input: c(input, 3),
    output: c(output, 15),
    cacheRead: c(cacheRead, 0.3),
    cacheWrite: c(cacheWrite, 3.75),
    total: 0,
  };
  cost.total = Math.round((cost.input + cost.output + cost.cacheRead + cost.cacheWrite) * 1e9) / 1e9;
  return { input, output, cacheRead, cacheWrite, totalTokens: input + output + cacheRead + cacheWrite, cost };
}
