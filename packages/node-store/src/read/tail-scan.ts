/**
 * Reading a session file backwards from its end for the latest name and the last message time,
 * without reading the middle. Use it where only those are wanted and the file may be large.
 */
import type { Stats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { ENTRY_TYPES, indexRoleOf, sessionInfoName } from "@pi-session/format";
import { SessionFileNotFoundError, errorCode } from "../errors.js";
import { openRegularFile } from "../fs/regular-files.js";
import { messageActivityTime } from "./entry-fields.js";
import type { ReadStats } from "./read-options.js";
import { HEADER_SCAN_MAX_BYTES } from "./header-scan.js";

export interface ScanTailOptions {
  /** Read at most this many bytes from the end (default 1 MiB). */
  maxBytes?: number;
  /** Bytes per backwards read (default 64 KiB). */
  blockSize?: number;
  stats?: ReadStats;
}

export interface TailScan {
  /** True when a `session_info` entry was found; `name` is then its trimmed name (or undefined: cleared). */
  nameFound: boolean;
  name?: string;
  /** True when a user or assistant message was found. */
  messageTimeFound: boolean;
  /**
   * The time in ms of the last user/assistant message in file order (as the listing times a
   * message: `message.timestamp` when a number, else `new Date(entry.timestamp)`). Not
   * necessarily the latest time: see `maxMessageTime`.
   */
  lastMessageTime?: number;
  /**
   * The greatest user/assistant message time among the lines read. pi's listing takes the
   * greatest over the whole file (its `modified`, when positive), which only a scan that
   * `reachedStart` has seen; otherwise an earlier message, not read, may have a later time.
   */
  maxMessageTime?: number;
  /** The scan reached the start of the file, so "not found" is definitive. */
  reachedStart: boolean;
  /**
   * `nameFound`/`name` and `lastMessageTime` are definitive (both found, or the whole file was
   * scanned). Says nothing of `maxMessageTime`, which is definitive only with `reachedStart`.
   */
  exhaustive: boolean;
  bytesRead: number;
}

const isWhitespaceByte = (b: number | undefined): boolean => b === 32 || b === 9 || b === 10 || b === 13;

/** Whether a line's first and last bytes other than JSON whitespace are `{` and `}`. */
function objectShaped(line: Buffer): boolean {
  let first = 0;
  while (isWhitespaceByte(line[first])) first++;
  let last = line.length - 1;
  while (last > first && isWhitespaceByte(line[last])) last--;
  return last > first && line[first] === 0x7b && line[last] === 0x7d;
}

/** The `type` tags, quoted, of the entries that set the session's name (`session_info`). */
const NAME_TAGS = ENTRY_TYPES.filter((type) => indexRoleOf(type) === "name").map((type) => `"${type}"`);

/**
 * Reads backwards from the end of the file, block by block, to find the latest `session_info`
 * (the session name, read as the listing reads it: trimmed, and an empty or non-string one
 * clears it) and the last user/assistant message time in file order without reading the
 * middle of the file. Stops when both are found, at the start of the file, or after
 * `maxBytes`. The greatest message time (pi's `modified`) needs every line: `maxMessageTime`
 * is over the lines read, the whole file only when `reachedStart`.
 */
export async function scanTail(path: string, opts: ScanTailOptions = {}): Promise<TailScan> {
  let handle: FileHandle;
  let size: number;
  try {
    let st: Stats;
    ({ handle, stats: st } = await openRegularFile(path));
    size = st.size;
  } catch (error) {
    if (errorCode(error) === "ENOENT") throw new SessionFileNotFoundError(path);
    throw error;
  }
  try {
    const max = opts.maxBytes ?? HEADER_SCAN_MAX_BYTES;
    const blockSize = opts.blockSize ?? 64 * 1024;
    const result: TailScan = {
      nameFound: false,
      messageTimeFound: false,
      reachedStart: false,
      exhaustive: false,
      bytesRead: 0,
    };
    // `carry` holds the bytes of a line cut by the start of the current block.
    let carry: Buffer = Buffer.alloc(0);
    let pos = size;
    const consider = (line: Buffer): boolean => {
      if (line.length === 0) return false;
      // Cheap prefilter: only lines that can matter are parsed. A type can only be spelt
      // otherwise with `\u` escapes (no other escape stands for a letter), which the listing
      // decodes: such lines are parsed too.
      if (
        !NAME_TAGS.some((tag) => line.includes(tag)) &&
        !line.includes('"message"') &&
        !line.includes("\\u")
      )
        return false;
      // Only a line from `{` to `}` can be an entry; a torn one is not parsed (nor thrown at).
      if (!objectShaped(line)) return false;
      let value: unknown;
      try {
        value = JSON.parse(line.toString("utf8"));
      } catch {
        return false;
      }
      if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
      const entry = value as Record<string, unknown>;
      if (!result.nameFound && indexRoleOf(entry.type) === "name") {
        result.nameFound = true;
        const name = sessionInfoName(entry);
        if (name !== undefined) result.name = name;
      }
      const t = messageActivityTime(entry);
      if (t !== undefined) {
        if (!result.messageTimeFound) {
          result.messageTimeFound = true;
          result.lastMessageTime = t;
        }
        if (result.maxMessageTime === undefined || t > result.maxMessageTime) result.maxMessageTime = t;
      }
      return result.nameFound && result.messageTimeFound;
    };
    while (pos > 0 && result.bytesRead < max) {
      const want = Math.min(blockSize, pos, max - result.bytesRead);
      const buf = Buffer.allocUnsafe(want);
      const { bytesRead } = await handle.read(buf, 0, want, pos - want);
      if (bytesRead !== want) break; // the file shrank under us; stop, not exhaustive
      pos -= want;
      result.bytesRead += want;
      if (opts.stats) opts.stats.bytesRead += want;
      let data = carry.length > 0 ? Buffer.concat([buf, carry]) : buf;
      // Complete lines are those after the first `\n` of the block (or all, at file start).
      let end = data.length;
      let done = false;
      while (end > 0) {
        // (A negative start would make lastIndexOf search from the end again.)
        const nl = data.lastIndexOf(10, end - 1);
        if (nl < 0) break;
        if (consider(data.subarray(nl + 1, end))) {
          done = true;
          break;
        }
        end = nl;
      }
      if (done) {
        result.exhaustive = true;
        return result;
      }
      data = data.subarray(0, end);
      if (pos === 0) {
        if (consider(data)) result.exhaustive = true;
        carry = Buffer.alloc(0);
        break;
      }
      carry = Buffer.from(data);
    }
    if (pos === 0) {
      result.reachedStart = true;
      result.exhaustive = true;
    }
    return result;
  } finally {
    await handle.close();
  }
}
