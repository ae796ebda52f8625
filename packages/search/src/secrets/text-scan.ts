/**
 * Secrets in a text that comes in pieces (an export written chunk by chunk): each piece is
 * scanned with the end of the one before it, so a secret cut between two chunks is found,
 * and each secret is counted once. Use {@link secretCounter} around the chunks of an output.
 */
import type { SecretDetector } from "@pi-session/render";
import { Redactor } from "@pi-session/render";

/** Characters of a chunk kept for the next one (a private key block fits). */
const CARRY = 16 * 1024;

export interface SecretCounter {
  /** Passes a chunk through, scanning it. */
  scan<T extends string | Uint8Array>(chunk: T): T;
  /** Secrets found so far, by kind. */
  readonly counts: Record<string, number>;
  readonly total: number;
}

export function secretCounter(detector: SecretDetector): SecretCounter {
  const counts: Record<string, number> = {};
  let total = 0;
  let carry = "";
  const redactor = new Redactor({ detector, keepSignatures: true });
  return {
    scan(chunk) {
      if (typeof chunk !== "string") return chunk;
      const text = carry + chunk;
      // A secret wholly in the carried part was counted with the chunk before.
      for (const m of redactor.find(text))
        if (m.end > carry.length) {
          counts[m.kind] = (counts[m.kind] ?? 0) + 1;
          total++;
        }
      carry = text.slice(-CARRY);
      return chunk;
    },
    get counts() {
      return counts;
    },
    get total() {
      return total;
    },
  };
}
