/**
 * Following one session file as it is written (`tail -f` for sessions): an async iterable of
 * what lands in it. Use it for a live view of one session (`pi-session follow`); for a whole
 * store use `watchStore`.
 *
 * The first event holds the file's records as it is now; then each batch of complete lines
 * appended (a partial last line is held until its `\n` arrives). When the file is replaced
 * (another inode at the path: an atomic rewrite by rename), shrinks (truncated), or its last
 * bytes read no longer match (rewritten in place), a `reset` event says so and the next
 * `records` event holds the whole file again, read from its start. A file removed gives a
 * `removed` event, then a `reset` when one appears at the path again.
 *
 * Changes are seen through `fs.watch` on the file and on its directory (a rename-replace is an
 * event of the directory), with a polling timer beside them, since watchers can miss events
 * or be unavailable. Stops when `signal` aborts or the consumer stops iterating. Never writes.
 */
import { type FSWatcher, watch } from "node:fs";
import { stat } from "node:fs/promises";
import { basename, dirname } from "node:path";
import type { SessionRecord } from "@pi-session/format";
import { SessionFileNotFoundError, errorCode } from "../errors.js";
import { openRegularFile } from "../fs/regular-files.js";
import { RecordDecoder } from "../read/codec.js";
import { READ_CHUNK_SIZE } from "../read/read-options.js";

export type FollowEvent =
  | {
      type: "records";
      /** Complete lines that landed, in file order (the first event: the whole file as it was). */
      records: SessionRecord[];
      /** Whether these start at the file's first byte (the first event, and the one after a reset). */
      fromStart: boolean;
    }
  | {
      type: "reset";
      /** `replaced`: another file at the path; `truncated`: it shrank; `rewritten`: bytes already read changed. */
      reason: "replaced" | "truncated" | "rewritten";
    }
  | { type: "removed" };

export interface FollowOptions {
  /** Stops following (the iteration ends without an error). */
  signal?: AbortSignal;
  /** Checks the file this often (ms) whatever the watchers say (default 1000). */
  pollMs?: number;
  /** Use no `fs.watch` at all, only the timer (default false). */
  pollOnly?: boolean;
}

/** Bytes before the read offset compared on every read, to notice a rewrite in place. */
const TAIL_CHECK_BYTES = 64;

interface Position {
  dev: number;
  ino: number;
  /** The modification time when last read. */
  mtimeMs: number;
  /** The change time when last read: moved by a rewrite whose mtime was put back. */
  ctimeMs: number;
  /** Bytes read so far (the decoder holds those of a partial last line). */
  offset: number;
  /** The last bytes read (up to {@link TAIL_CHECK_BYTES}). */
  tail: Uint8Array;
  decoder: RecordDecoder;
}

/** Follows `path` (see the module header). Throws {@link SessionFileNotFoundError} when it does not exist. */
export async function* followSessionFile(
  path: string,
  options: FollowOptions = {},
): AsyncGenerator<FollowEvent, void, undefined> {
  const signal = options.signal;
  if (signal?.aborted) return;
  let dirty = true;
  let wake: (() => void) | undefined;
  const poke = () => {
    dirty = true;
    wake?.();
  };
  const onAbort = () => wake?.();
  signal?.addEventListener("abort", onAbort);
  const watchers = new Map<string, FSWatcher>();
  const name = basename(path);
  const arm = (target: string, filter: boolean) => {
    if (options.pollOnly || watchers.has(target)) return;
    try {
      const watcher = watch(target, { persistent: false }, (_event, changed) => {
        if (!filter || changed === null || String(changed) === name) poke();
      });
      watcher.on("error", () => {
        // The file went away (or the watcher broke): the directory's watcher and the timer remain.
        watcher.close();
        watchers.delete(target);
        poke();
      });
      watchers.set(target, watcher);
    } catch {
      // No watcher (none left, or not supported here): the timer alone.
    }
  };
  const rearmFile = () => {
    watchers.get(path)?.close();
    watchers.delete(path);
    arm(path, false);
  };
  const timer = setInterval(poke, Math.max(10, options.pollMs ?? 1000));

  let removed = false;
  try {
    const first = await readFrom(path, undefined);
    if (first === undefined || first === "rewritten") throw new SessionFileNotFoundError(path);
    let position = first.position;
    arm(dirname(path), true);
    arm(path, false);
    dirty = false;
    yield { type: "records", records: first.records, fromStart: true };
    while (!signal?.aborted) {
      if (!dirty) {
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
        continue;
      }
      dirty = false;
      const current = await statOrNull(path);
      if (current === null) {
        if (!removed) {
          removed = true;
          yield { type: "removed" };
        }
        continue;
      }
      let reason: "replaced" | "truncated" | "rewritten" | undefined;
      if (removed || current.dev !== position.dev || current.ino !== position.ino) reason = "replaced";
      else if (current.size < position.offset) reason = "truncated";
      else if (current.size === position.offset) {
        // Nothing new when the times are those of the last read; else the file was changed in
        // place without growing (its mtime may even have been put back: the ctime moves).
        if (current.mtimeMs === position.mtimeMs && current.ctimeMs === position.ctimeMs) continue;
        reason = "rewritten";
      }
      let read = reason === undefined ? await readFrom(path, position) : undefined;
      const fromStart = read === "rewritten" || reason !== undefined;
      if (fromStart) {
        yield { type: "reset", reason: read === "rewritten" ? "rewritten" : (reason ?? "replaced") };
        read = await readFrom(path, undefined);
        rearmFile();
      }
      if (read === undefined || read === "rewritten") {
        // Gone between the stat and the read: the next check reports it.
        dirty = true;
        continue;
      }
      removed = false;
      position = read.position;
      if (read.records.length > 0 || fromStart) yield { type: "records", records: read.records, fromStart };
    }
  } finally {
    clearInterval(timer);
    signal?.removeEventListener("abort", onAbort);
    for (const watcher of watchers.values()) watcher.close();
  }
}

async function statOrNull(path: string) {
  try {
    return await stat(path);
  } catch (error) {
    if (errorCode(error) === "ENOENT" || errorCode(error) === "ENOTDIR") return null;
    throw error;
  }
}

interface ReadResult {
  position: Position;
  records: SessionRecord[];
}

/**
 * Reads what follows `from` (or the whole file, from a fresh decoder): the records of the
 * lines completed. `undefined` when the file is gone; `"rewritten"` when the bytes before the
 * offset are not those read last time.
 */
async function readFrom(
  path: string,
  from: Position | undefined,
): Promise<ReadResult | "rewritten" | undefined> {
  let opened: Awaited<ReturnType<typeof openRegularFile>>;
  try {
    opened = await openRegularFile(path);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return undefined;
    throw error;
  }
  const { handle, stats } = opened;
  try {
    const same = from !== undefined && from.dev === stats.dev && from.ino === stats.ino;
    if (from !== undefined && !same) return "rewritten";
    const start = same ? from.offset : 0;
    const decoder = same ? from.decoder : new RecordDecoder();
    let tail = same ? from.tail : new Uint8Array(0);
    if (tail.length > 0) {
      const check = new Uint8Array(tail.length);
      const { bytesRead } = await handle.read(check, 0, tail.length, start - tail.length);
      if (bytesRead !== tail.length || !check.every((byte, i) => byte === tail[i])) return "rewritten";
    }
    const records: SessionRecord[] = [];
    const buffer = new Uint8Array(READ_CHUNK_SIZE);
    let offset = start;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, offset);
      if (bytesRead === 0) break;
      const chunk = buffer.subarray(0, bytesRead);
      for (const record of decoder.push(chunk)) records.push(record);
      offset += bytesRead;
      const joined = new Uint8Array(Math.min(TAIL_CHECK_BYTES, tail.length + bytesRead));
      const fromChunk = Math.min(joined.length, bytesRead);
      joined.set(tail.subarray(tail.length - (joined.length - fromChunk)), 0);
      joined.set(chunk.subarray(bytesRead - fromChunk), joined.length - fromChunk);
      tail = joined;
    }
    // The times after the read: they describe `offset` (unless the file grew meanwhile, which
    // the next check sees by its size).
    const after = await handle.stat();
    return {
      position: {
        dev: stats.dev,
        ino: stats.ino,
        mtimeMs: after.mtimeMs,
        ctimeMs: after.ctimeMs,
        offset,
        tail,
        decoder,
      },
      records,
    };
  } finally {
    await handle.close();
  }
}
