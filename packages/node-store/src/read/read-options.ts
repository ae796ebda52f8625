/**
 * What every reader here shares: the size of its reads and a counter of the bytes it read.
 */

/** Chunk size of the streaming reader. */
export const READ_CHUNK_SIZE = 1024 * 1024;

/** Counters a caller may pass to observe how much was read (used by tests and benchmarks). */
export interface ReadStats {
  bytesRead: number;
}
