/**
 * Positional reads written once for synchronous and asynchronous I/O. A reader is a generator
 * that yields each read it needs (a {@link ReadRequest}) and is sent back how many bytes were
 * read; {@link runReaderSync} answers it with `readSync` (or a writer's fs shim),
 * {@link runReader} with an asynchronous read. Use it for every read that has a sync and an
 * async twin, so that the two cannot drift apart; {@link readFully} is the loop that fills a
 * buffer.
 */
import { readSync } from "node:fs";
import type { FileHandle } from "node:fs/promises";

/** Read `length` bytes at file `position` into `buffer` from `offset`. */
export interface ReadRequest {
  buffer: Uint8Array;
  offset: number;
  length: number;
  position: number;
}

/** A read loop: yields the reads it needs, is sent each one's byte count, returns its result. */
export type Reader<T> = Generator<ReadRequest, T, number>;

/** A synchronous positional read (`readSync`'s shape). */
export type ReadSync = (
  fd: number,
  buffer: Uint8Array,
  offset: number,
  length: number,
  position: number,
) => number;

/** An asynchronous positional read of an open file: the bytes read. */
export type ReadAsync = (
  buffer: Uint8Array,
  offset: number,
  length: number,
  position: number,
) => Promise<number>;

/** Runs `reader` on `fd` with synchronous reads. */
export function runReaderSync<T>(reader: Reader<T>, fd: number, read: ReadSync = readSync): T {
  let step = reader.next();
  while (!step.done) {
    const request = step.value;
    step = reader.next(read(fd, request.buffer, request.offset, request.length, request.position));
  }
  return step.value;
}

/** Runs `reader` with asynchronous reads; `signal` is checked before each one. */
export async function runReader<T>(reader: Reader<T>, read: ReadAsync, signal?: AbortSignal): Promise<T> {
  let step = reader.next();
  while (!step.done) {
    signal?.throwIfAborted();
    const request = step.value;
    step = reader.next(await read(request.buffer, request.offset, request.length, request.position));
  }
  return step.value;
}

/** A `FileHandle`'s reads as a {@link ReadAsync}. */
export function handleReads(handle: FileHandle): ReadAsync {
  return async (buffer, offset, length, position) =>
    (await handle.read(buffer, offset, length, position)).bytesRead;
}

/**
 * Fills `buffer[0, length)` with the bytes at `position`, read after read, until it is full or
 * the file ends (a read returns 0). Returns the bytes read.
 */
export function* readFully(buffer: Uint8Array, length: number, position: number): Reader<number> {
  let got = 0;
  while (got < length) {
    const n = yield { buffer, offset: got, length: length - got, position: position + got };
    if (n === 0) break;
    got += n;
  }
  return got;
}
