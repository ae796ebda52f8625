/**
 * Identifiers as pi 1.6.0 makes them: 8-hex entry ids (the head of a random UUID, checked
 * against the ids already in use) and UUIDv7 session ids. No layer mints ids (the pure layers
 * take them injected), so this is the SDK's one source of randomness for them.
 */
import { randomFillSync, randomUUID, webcrypto } from "node:crypto";

/** A set-like view of the ids already taken (a `Set`, a `Map`, a `SessionIndex`). */
export interface IdSet {
  has(id: string): boolean;
}

/** Random bytes taken 4 at a time for entry ids, refilled from the CSPRNG when used up. */
const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let poolAt = POOL_BYTES;
/** The two lowercase hex digits of every byte. */
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));

/**
 * A random 8-hex id, as pi's `randomUUID().slice(0, 8)` (the head of a v4 UUID is 32 random
 * bits, lowercase hex): the same bits from a pooled buffer, without a UUID string per id
 * (decision 132). Injected into `@pi-session/migrate`.
 */
export function randomEntryId(): string {
  if (poolAt === POOL_BYTES) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const at = poolAt;
  poolAt = at + 4;
  return (
    (HEX[pool[at] as number] as string) +
    (HEX[pool[at + 1] as number] as string) +
    (HEX[pool[at + 2] as number] as string) +
    (HEX[pool[at + 3] as number] as string)
  );
}

/** A fresh 8-hex entry id not in `taken`; after 100 collisions a full UUID, as upstream. */
export function generateId(taken: IdSet): string {
  for (let attempt = 0; attempt < 100; attempt++) {
    const id = randomEntryId();
    if (!taken.has(id)) return id;
  }
  return randomUUID();
}

/**
 * A UUIDv7 (RFC 9562): 48-bit Unix ms timestamp, version 7, 74 random bits.
 * `now` is injectable for tests.
 */
export function uuidv7(now: number = Date.now()): string {
  const bytes = new Uint8Array(16);
  webcrypto.getRandomValues(bytes);
  let ms = Math.max(0, Math.floor(now));
  for (let i = 5; i >= 0; i--) {
    bytes[i] = ms % 256;
    ms = Math.floor(ms / 256);
  }
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x70;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function createSessionId(): string {
  return uuidv7();
}
