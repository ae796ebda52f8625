/**
 * Identifiers as pi 1.6.0 makes them: 8-hex entry ids (the head of a random UUID, checked
 * against the ids already in use) and UUIDv7 session ids, plus the session-id validator.
 */
import { randomUUID, webcrypto } from "node:crypto";

/** A set-like view of the ids already taken. */
export interface IdSet {
  has(id: string): boolean;
}

/** A fresh 8-hex entry id not in `taken`; after 100 collisions a full UUID, as upstream. */
export function generateId(taken: IdSet): string {
  for (let attempt = 0; attempt < 100; attempt++) {
    const id = randomUUID().slice(0, 8);
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

// The message is pi's, verbatim: callers may match on it.
export function assertValidSessionId(id: string): void {
  if (!/^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/.test(id)) {
    throw new Error(
      "Session id must be non-empty, contain only alphanumeric characters, '-', '_', and '.', and start and end with an alphanumeric character",
    );
  }
}
