/**
 * The SDK's filesystem edge: reading a session file into line records (malformed lines kept
 * as bytes, never thrown away), header scans, exclusive creation, atomic replacement with a
 * backup, and appends under a cross-process lock that notice what other processes appended.
 *
 * An adapter standing in for `@pi-session/node-store`. Everything here is synchronous because
 * pi's `SessionManager` API is synchronous.
 */
import {
  closeSync,
  copyFileSync,
  existsSync,
  fstatSync,
  fsyncSync,
  linkSync,
  openSync,
  readSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { dirname } from "node:path";

/** One line of a file: a JSON object, a malformed line (bytes kept), or a blank line. */
export type LineRecord =
  | { kind: "json"; value: Record<string, unknown> }
  | { kind: "raw"; bytes: Uint8Array }
  | { kind: "blank"; bytes: Uint8Array };

export interface ReadResult {
  lines: LineRecord[];
  /** File size in bytes at the time of the read. */
  size: number;
  /** False when the file is non-empty and its last byte is not `\n` (a torn tail). */
  endsWithNewline: boolean;
}

const CHUNK = 1024 * 1024;
const decoder = new TextDecoder("utf-8", { fatal: true });

function parseLine(bytes: Uint8Array): LineRecord {
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return { kind: "raw", bytes };
  }
  if (text.trim() === "") return { kind: "blank", bytes };
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      return { kind: "json", value: value as Record<string, unknown> };
    }
  } catch {
    // falls through: kept as a raw line
  }
  return { kind: "raw", bytes };
}

/** Splits bytes into line records; `carry` holds an unfinished line across chunks. */
export function parseLines(bytes: Uint8Array): { lines: LineRecord[]; rest: Uint8Array } {
  const lines: LineRecord[] = [];
  let start = 0;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === 0x0a) {
      lines.push(parseLine(bytes.subarray(start, i).slice()));
      start = i + 1;
    }
  }
  return { lines, rest: bytes.subarray(start).slice() };
}

/** Reads `[from, size)` of a file as line records, chunk by chunk (no whole-file string). */
export function readLinesFrom(path: string, from = 0): ReadResult {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    const lines: LineRecord[] = [];
    const buffer = Buffer.allocUnsafe(CHUNK);
    let carry: Uint8Array = new Uint8Array(0);
    let position = from;
    while (position < size) {
      const read = readSync(fd, buffer, 0, Math.min(CHUNK, size - position), position);
      if (read === 0) break;
      position += read;
      const joined = carry.length
        ? Buffer.concat([carry, buffer.subarray(0, read)])
        : buffer.subarray(0, read);
      const parsed = parseLines(joined);
      lines.push(...parsed.lines);
      carry = parsed.rest;
    }
    if (carry.length > 0) lines.push(parseLine(carry));
    return { lines, size: position, endsWithNewline: carry.length === 0 };
  } finally {
    closeSync(fd);
  }
}

export function isValidHeader(value: unknown): boolean {
  const v = value as { type?: unknown; id?: unknown } | undefined;
  return v?.type === "session" && typeof v.id === "string";
}

/** pi's rule: entries are the parsed lines; valid only if the first one is a header with a string id. */
export function entriesOf(lines: LineRecord[]): Record<string, unknown>[] {
  const entries: Record<string, unknown>[] = [];
  for (const line of lines) if (line.kind === "json") entries.push(line.value);
  if (entries.length === 0 || !isValidHeader(entries[0])) return [];
  return entries;
}

export class SessionHeaderScanLimitError extends Error {
  constructor(path: string) {
    super(`Session header exceeds ${1024 * 1024}-byte scan limit: ${path}`);
    this.name = "SessionHeaderScanLimitError";
  }
}

/**
 * The header of a file, reading at most 1 MiB in 4 KiB steps: blank and malformed lines are
 * skipped; the first parsed line decides (a header, or `null`).
 */
export function readSessionHeader(path: string): Record<string, unknown> | null {
  const limit = 1024 * 1024;
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.allocUnsafe(4096);
    let pending: Uint8Array = new Uint8Array(0);
    let scanned = 0;
    for (;;) {
      const read = readSync(fd, buffer, 0, buffer.length, scanned);
      if (read === 0) {
        const last = parseLine(pending);
        return last.kind === "json" ? (isValidHeader(last.value) ? last.value : null) : null;
      }
      scanned += read;
      const parsed = parseLines(
        pending.length ? Buffer.concat([pending, buffer.subarray(0, read)]) : buffer.subarray(0, read),
      );
      for (const line of parsed.lines) {
        if (line.kind === "json") return isValidHeader(line.value) ? line.value : null;
      }
      pending = parsed.rest;
      if (scanned >= limit) {
        if (statSync(path).size > scanned) throw new SessionHeaderScanLimitError(path);
      }
    }
  } finally {
    closeSync(fd);
  }
}

export function readSessionHeaderOrNull(path: string): Record<string, unknown> | null {
  try {
    return readSessionHeader(path);
  } catch {
    return null;
  }
}

export function serialize(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}

/** Bytes of line records, each followed by `\n` (a torn tail gets its `\n` here). */
export function linesToBytes(lines: LineRecord[]): Buffer {
  return Buffer.concat(
    lines.map((line) =>
      line.kind === "json"
        ? Buffer.from(serialize(line.value))
        : Buffer.concat([line.bytes, Buffer.from("\n")]),
    ),
  );
}

function fsyncDir(path: string): void {
  try {
    const fd = openSync(dirname(path), "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Some platforms cannot open or fsync a directory; the rename is still atomic.
  }
}

function tempPath(path: string): string {
  return `${path}.${process.pid}.${Math.random().toString(36).slice(2, 10)}.tmp`;
}

function writeWhole(path: string, bytes: Uint8Array, flag: string, sync: boolean): void {
  const fd = openSync(path, flag);
  try {
    let offset = 0;
    while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
    if (sync) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Creates `path` with `bytes` in one write; fails with EEXIST if it exists (pi's `wx`). */
export function createExclusive(path: string, bytes: Uint8Array, sync: boolean): void {
  writeWhole(path, bytes, "wx", sync);
}

/** Creates `path` fully written or not at all: temp file, fsync, hard link (fails if taken), unlink temp. */
export function publishExclusive(path: string, bytes: Uint8Array): void {
  const temp = tempPath(path);
  writeWhole(temp, bytes, "wx", true);
  try {
    linkSync(temp, path);
  } finally {
    unlinkSync(temp);
  }
  fsyncDir(path);
}

/** A backup path beside `path` that does not exist yet. */
export function backupPath(path: string, tag: string): string {
  let candidate = `${path}.${tag}.bak`;
  for (let n = 1; existsSync(candidate); n++) candidate = `${path}.${tag}.${n}.bak`;
  return candidate;
}

/** Replaces `path` atomically (temp, fsync, rename, fsync dir), first copying the old bytes to `backup`. */
export function replaceAtomically(path: string, bytes: Uint8Array, backup?: string): void {
  const temp = tempPath(path);
  writeWhole(temp, bytes, "wx", true);
  try {
    if (backup) copyFileSync(path, backup);
    renameSync(temp, path);
  } catch (error) {
    if (existsSync(temp)) unlinkSync(temp);
    throw error;
  }
  fsyncDir(path);
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
function sleep(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

const LOCK_STALE_MS = 30_000;
const LOCK_TIMEOUT_MS = 10_000;

/**
 * Runs `fn` holding `<path>.lock` (created with `wx`, holding our pid). A lock whose owner
 * is dead, or that is older than 30 s, is taken over.
 */
export function withFileLock<T>(path: string, fn: () => T): T {
  const lock = `${path}.lock`;
  const started = Date.now();
  let fd: number | undefined;
  while (fd === undefined) {
    try {
      fd = openSync(lock, "wx");
      writeSync(fd, String(process.pid));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      if (lockIsStale(lock)) {
        try {
          unlinkSync(lock);
        } catch {
          // another process took it over first
        }
        continue;
      }
      if (Date.now() - started > LOCK_TIMEOUT_MS) {
        throw new Error(`Timed out waiting for the session file lock: ${lock}`);
      }
      sleep(5 + Math.floor(Math.random() * 10));
    }
  }
  try {
    return fn();
  } finally {
    closeSync(fd);
    try {
      unlinkSync(lock);
    } catch {
      // already removed by a takeover; nothing to do
    }
  }
}

function lockIsStale(lock: string): boolean {
  try {
    const stats = statSync(lock);
    if (Date.now() - stats.mtimeMs > LOCK_STALE_MS) return true;
    const pid = Number.parseInt(readSmall(lock), 10);
    return Number.isInteger(pid) && pid > 0 && pid !== process.pid && !isAlive(pid);
  } catch {
    return false;
  }
}

function readSmall(path: string): string {
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.alloc(32);
    const read = readSync(fd, buffer, 0, 32, 0);
    return buffer.subarray(0, read).toString("utf8");
  } finally {
    closeSync(fd);
  }
}

/** Appends `bytes` in one write; fsync when asked. Returns the new file size. */
export function appendBytes(path: string, bytes: Uint8Array, sync: boolean): number {
  const fd = openSync(path, "a");
  try {
    let offset = 0;
    while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
    if (sync) fsyncSync(fd);
    return fstatSync(fd).size;
  } finally {
    closeSync(fd);
  }
}

export function fileSize(path: string): number | undefined {
  try {
    return statSync(path).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}
