/**
 * The id hash of the lazy open: FNV-1a over an id's UTF-16 code units, then murmur3's 32-bit
 * finaliser. The open scanner (`idHash` of `assembly/scan.ts`) computes it over the bytes of
 * an ASCII id, where bytes and code units are the same, so an id read at open is hashed in
 * WebAssembly and never turned into a string; this twin hashes the ids the index is asked
 * for. `id-hash.test.ts` holds the two to the same values.
 */

const FNV_OFFSET_BASIS = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const FMIX_1 = 0x85ebca6b;
const FMIX_2 = 0xc2b2ae35;

/** The hash of `id` as a signed 32-bit integer. */
export function idHash(id: string): number {
  let hash = FNV_OFFSET_BASIS | 0;
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), FNV_PRIME);
  hash ^= hash >>> 16;
  hash = Math.imul(hash, FMIX_1);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, FMIX_2);
  return hash ^ (hash >>> 16);
}
