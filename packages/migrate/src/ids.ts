/**
 * Deterministic entry ids: the 8-hex id the migration gives the entry on a line of a session
 * when no `randomId` is injected, so that migrating the same file twice gives the same bytes.
 * The hash is fixed (FNV-1a over UTF-8 bytes, then murmur3's finaliser): changing it would
 * change the ids of every file migrated in deterministic mode.
 */

const FNV_OFFSET_BASIS = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
/** The multipliers of murmur3's 32-bit finaliser (fmix32). */
const FMIX_1 = 0x85ebca6b;
const FMIX_2 = 0xc2b2ae35;

/** 32-bit FNV-1a over the UTF-8 bytes of `text`, then murmur3's fmix32 finaliser. */
function hash32(text: string): number {
  let hash = FNV_OFFSET_BASIS;
  const byte = (value: number) => {
    hash ^= value;
    hash = Math.imul(hash, FNV_PRIME);
  };
  for (const char of text) {
    const codePoint = char.codePointAt(0) as number;
    if (codePoint < 0x80) byte(codePoint);
    else if (codePoint < 0x800) {
      byte(0xc0 | (codePoint >> 6));
      byte(0x80 | (codePoint & 0x3f));
    } else if (codePoint < 0x10000) {
      byte(0xe0 | (codePoint >> 12));
      byte(0x80 | ((codePoint >> 6) & 0x3f));
      byte(0x80 | (codePoint & 0x3f));
    } else {
      byte(0xf0 | (codePoint >> 18));
      byte(0x80 | ((codePoint >> 12) & 0x3f));
      byte(0x80 | ((codePoint >> 6) & 0x3f));
      byte(0x80 | (codePoint & 0x3f));
    }
  }
  hash ^= hash >>> 16;
  hash = Math.imul(hash, FMIX_1);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, FMIX_2);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

/**
 * The deterministic 8-hex id of the entry on `line` of session `sessionId`: the hash of
 * `"<sessionId>:<line>"` (attempt 0) or `"<sessionId>:<line>:<attempt>"` (later attempts,
 * used when an id is already taken).
 */
export function deterministicId(sessionId: string, line: number, attempt: number): string {
  const key = attempt === 0 ? `${sessionId}:${line}` : `${sessionId}:${line}:${attempt}`;
  return hash32(key).toString(16).padStart(8, "0");
}
