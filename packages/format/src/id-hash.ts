/**
 * The hash of an entry id that the session indexes use (tree's `IdTable`, node-store's lazy
 * open): FNV-1a over the id's UTF-16 code units, then murmur3's 32-bit finaliser so that the
 * low bits mix well. One home, because node-store's WebAssembly open scanner computes the same
 * hash over the bytes of ASCII ids (where bytes and code units are equal) and tree's table
 * compares it with this one: they must agree.
 *
 * Unseeded (a pure package has no randomness): a table keyed by it must bound its probes
 * (IdTable moves to a `Map` when a probe runs long).
 */

const FNV_OFFSET_BASIS = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
/** The multipliers of murmur3's 32-bit finaliser (fmix32). */
const FMIX_1 = 0x85ebca6b;
const FMIX_2 = 0xc2b2ae35;

/** The hash of `id`, a signed 32-bit integer. */
export function idHash(id: string): number {
  let hash = FNV_OFFSET_BASIS | 0;
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), FNV_PRIME);
  hash ^= hash >>> 16;
  hash = Math.imul(hash, FMIX_1);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, FMIX_2);
  return hash ^ (hash >>> 16);
}
